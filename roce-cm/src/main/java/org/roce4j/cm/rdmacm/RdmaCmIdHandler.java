package org.roce4j.cm.rdmacm;

import org.roce4j.cm.ib.CmConnection;
import org.roce4j.cm.ib.CmHandler;
import org.roce4j.cm.ib.CmState;
import org.roce4j.cm.rdmacm.RdmaCmId.State;
import org.roce4j.wire.mad.CmRejectReason;

/**
 * One identifier's CM events, turned into rdma_cm events (cma.c cma_ib_handler): the QP moves the events imply (RTR
 * and RTS on a REP, the error state on a REJ, a timeout or a DREQ), the identifier's state, and the event published
 * on its {@link RdmaCm}. CM thread only.
 */
final class RdmaCmIdHandler implements CmHandler
{
    private final RdmaCmId id;
    private final RdmaCm owner;

    RdmaCmIdHandler(final RdmaCmId id, final RdmaCm owner)
    {
        this.id = id;
        this.owner = owner;
    }

    /**
     * Active side: REP received: INIT/RTR/RTS with its values, then the RTU (cma_rep_recv); on failure REJ
     * 28 and CONNECT_ERROR.
     *
     * @param c the connection.
     */
    @Override
    public void onReply(final CmConnection c)
    {
        id.peerParam(new ConnParam().responderResources(c.responderResources())
            .initiatorDepth(c.initiatorDepth()).retryCount(c.retryCount()).rnrRetryCount(c.rnrRetryCount()));
        try
        {
            id.bringUp(c, owner.options().minRnrTimer());
        }
        catch (final RuntimeException ex)
        {
            // cma.c cma_rep_recv failed: REJ CONSUMER_DEFINED and CONNECT_ERROR.
            id.moveQpToError();
            owner.reject(c, null);
            id.enter(State.ERROR);
            owner.publish(new RdmaCmEvent(RdmaCmEventType.CONNECT_ERROR, id, null, -22,
                new byte[0], null, "could not move QP " + id.qp().qpNum() + " to RTR/RTS for the REP from " +
                remote() + ": " + ex.getMessage()));
            return;
        }
        owner.sendRtu(c);
    }

    /**
     * ESTABLISHED, with the REP's private data on the active side.
     *
     * @param c the connection.
     */
    @Override
    public void onEstablished(final CmConnection c)
    {
        id.enter(State.ESTABLISHED);
        final byte[] data = c.isActive() ? c.privateData() : new byte[0];
        owner.publish(new RdmaCmEvent(RdmaCmEventType.ESTABLISHED, id, null, 0, data, id.peerParam(),
            "connected " + RdmaCmAddresses.format(id.localAddress()) + " (QPN 0x" + Integer.toHexString(c.localQpn()) +
            ") to " + remote() + " (QPN 0x" + Integer.toHexString(c.remoteQpn()) + ")"));
    }

    /**
     * REJ received: the QP goes to the error state, then REJECTED with the reason as status.
     *
     * @param c the connection.
     */
    @Override
    public void onRejected(final CmConnection c)
    {
        id.moveQpToError();
        id.enter(State.REJECTED);
        final int reason = c.rejectReason();
        final CmRejectReason named = CmRejectReason.of(reason);
        owner.publish(new RdmaCmEvent(RdmaCmEventType.REJECTED, id, null, reason, c.privateData(),
            null, remote() + " rejected the connection: REJ reason " + reason +
            (null == named ? "" : " (" + named.description() + ")")));
    }

    /**
     * No answer after every retry: UNREACHABLE (REQ, REP) or DISCONNECTED with -ETIMEDOUT (DREQ).
     *
     * @param c        the connection.
     * @param timedOut the state that timed out.
     */
    @Override
    public void onTimeout(final CmConnection c, final CmState timedOut)
    {
        if (CmState.SIDR_REQ_SENT == timedOut)
        {
            // cma.c cma_sidr_rep_handler, IB_CM_SIDR_REQ_ERROR: UNREACHABLE -ETIMEDOUT; the UD QP stays usable.
            id.enter(State.UNREACHABLE);
            owner.publish(new RdmaCmEvent(RdmaCmEventType.UNREACHABLE, id, null,
                RdmaCmEvent.ETIMEDOUT, new byte[0], null, remote() + " did not answer our SIDR_REQ " +
                "(sent " + (c.maxCmRetries() + 1) + " times, every " + c.timeoutNs() / 1_000_000 + " ms)"));
            return;
        }
        id.moveQpToError();
        if (CmState.DREQ_SENT == timedOut)
        {
            id.enter(State.DISCONNECTED);
            owner.publish(new RdmaCmEvent(RdmaCmEventType.DISCONNECTED, id, null,
                RdmaCmEvent.ETIMEDOUT, new byte[0], null, "no DREP from " + remote() +
                " after " + (c.maxCmRetries() + 1) + " DREQs; disconnected anyway"));
            return;
        }
        id.enter(State.UNREACHABLE);
        final boolean req = CmState.REQ_SENT == timedOut || CmState.MRA_REQ_RCVD == timedOut;
        owner.publish(new RdmaCmEvent(RdmaCmEventType.UNREACHABLE, id, null, RdmaCmEvent.ETIMEDOUT,
            new byte[0], null, remote() + " did not answer our " + (req ? "REQ" : "REP") +
            " (sent " + (c.maxCmRetries() + 1) + " times, every " + c.timeoutNs() / 1_000_000 + " ms)"));
    }

    /**
     * DREQ received: QP to error, DISCONNECTED; the CM sends the DREP when this returns.
     *
     * @param c the connection.
     */
    @Override
    public void onDisconnectRequest(final CmConnection c)
    {
        // cma.c: DREQ received: the QP goes to the error state before the DREP (rdma_disconnect's order).
        id.moveQpToError();
        id.enter(State.DISCONNECTED);
        owner.publish(new RdmaCmEvent(RdmaCmEventType.DISCONNECTED, id, null, 0, c.privateData(),
            null, remote() + " disconnected (DREQ received)"));
    }

    /**
     * DREP received: DISCONNECTED.
     *
     * @param c the connection.
     */
    @Override
    public void onDisconnectReply(final CmConnection c)
    {
        id.enter(State.DISCONNECTED);
        owner.publish(new RdmaCmEvent(RdmaCmEventType.DISCONNECTED, id, null, 0, new byte[0], null,
            "disconnected from " + remote() + " (DREP received)"));
    }

    /**
     * UD: the SIDR_REP arrived: ESTABLISHED with the peer's UD address, or UNREACHABLE / ADDR_ERROR.
     *
     * @param c the connection.
     */
    @Override
    public void onSidrReply(final CmConnection c)
    {
        final RdmaCmEvent event = RdmaCmUd.replyEvent(id, c, id.udAh(), remote());
        id.enter(RdmaCmEventType.ESTABLISHED == event.type() ? State.ESTABLISHED :
            RdmaCmEventType.UNREACHABLE == event.type() ? State.UNREACHABLE : State.ERROR);
        owner.publish(event);
    }

    /**
     * TimeWait over: TIMEWAIT_EXIT.
     *
     * @param c the connection.
     */
    @Override
    public void onTimewaitExit(final CmConnection c)
    {
        id.timewaitExit();
        owner.publish(new RdmaCmEvent(RdmaCmEventType.TIMEWAIT_EXIT, id, null, 0, new byte[0], null,
            "connection to " + remote() + " left TimeWait"));
    }

    private String remote()
    {
        return RdmaCmAddresses.format(id.remoteAddress());
    }
}
