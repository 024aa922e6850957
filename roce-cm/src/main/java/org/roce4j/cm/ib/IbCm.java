package org.roce4j.cm.ib;

import java.util.ArrayList;
import java.util.List;

import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.NanoClock;
import org.roce4j.wire.mad.CmRejMessage;
import org.roce4j.wire.mad.CmRejectReason;

/**
 * The IB Communication Manager (IBA chapter 12; the kernel's drivers/infiniband/core/cm.c): the REQ / MRA / REJ /
 * REP / RTU / DREQ / DREP protocol of RC connections, carried as MADs on QP1 through a {@link MadPort}.
 *
 * <p>It keeps one {@link CmConnection} per connection, keyed by its local communication ID, and a listener per
 * service ID. It sends, retransmits and times out REQ, REP and DREQ; answers duplicates as IBA 12.9 and cm.c do
 * (a repeated REQ gets the REP again, or an MRA while the application still decides; a repeated REP gets the RTU
 * again; a repeated DREQ in TimeWait gets the DREP again); holds each connection in TimeWait after it ends, and
 * rejects a REQ that reuses a QP still in TimeWait with STALE_CONN. A REQ for a service ID nobody listens on gets
 * REJ reason 8 (INVALID_SERVICE_ID) at once, exactly as rxe's kernel answers it in the golden capture.
 *
 * <p>It also resolves service IDs for UD (SIDR_REQ / SIDR_REP, IBA 12.11: {@link #sidrRequest}, {@link #sidrReply},
 * {@link CmSidr}); a SIDR_REQ for a service ID nobody listens on gets status IB_SIDR_UNSUPPORTED.
 *
 * <p>It moves no QP itself: the owner of a connection (rdma_cm) does that from its {@link CmHandler} callbacks, in
 * the order rdma_cm does (the passive QP reaches RTS before the REP, the active QP before the RTU, both go to the
 * error state before a DREQ or DREP).
 *
 * <p>Bad wire input never throws: every MAD that is not a well-formed CM message of class version 2 is dropped
 * and counted in {@link CmCounters}. Threading: one thread at a time (the CM's agent thread, or the application's
 * in invoker mode); time comes from the injected clock.
 *
 * <p>This class holds the consumer API and the transitions it makes; its package-private helpers hold the rest,
 * as cm.c's helpers do: {@link CmReceiver} the receive handlers, {@link CmSender} building and sending MADs,
 * {@link CmTimers} retransmission, timeouts and TimeWait, {@link CmTable} the connection and listener tables.
 */
public final class IbCm
{
    /** Knows which GIDs belong to this device. */
    @FunctionalInterface
    public interface LocalGids
    {
        /**
         * @param high high 64 bits.
         * @param low  low 64 bits.
         * @return true when the GID is in this device's GID table.
         */
        boolean contains(long high, long low);
    }

    private final CmConfig config;
    private final long localCaGuid;
    private final CmCounters counters;
    private final CmTable table;
    private final CmSender sender;
    private final CmTimers timers;
    private final CmReceiver receiver;
    private final CmSidr sidr;

    /**
     * @param port        sends MADs.
     * @param config      timeouts and retries.
     * @param clock       the time source (the engine's clock).
     * @param ids         communication IDs and PSNs.
     * @param localCaGuid this device's node GUID, sent in REQ, REP and REJ TIMEOUT.
     * @param localGids   this device's GID table.
     * @param counters    where to count.
     */
    public IbCm(
        final MadPort port,
        final CmConfig config,
        final NanoClock clock,
        final CmIdSource ids,
        final long localCaGuid,
        final LocalGids localGids,
        final CmCounters counters)
    {
        this.config = config;
        this.localCaGuid = localCaGuid;
        this.counters = counters;
        this.table = new CmTable(ids, counters);
        this.sender = new CmSender(port, config, localCaGuid, counters);
        this.timers = new CmTimers(clock, counters, table, sender);
        this.sidr = new CmSidr(counters, table, sender, timers);
        this.receiver = new CmReceiver(this, config, localGids, counters, table, sender, timers, sidr);
    }

    // ------------------------------------------------------------------------------------------------------------
    // Consumer API
    // ------------------------------------------------------------------------------------------------------------

    /**
     * Take the REQs for a service ID.
     *
     * @param serviceId the service ID.
     * @param listener  decides about each REQ.
     * @throws IllegalStateException when someone already listens on it.
     */
    public void listen(final long serviceId, final CmListener listener)
    {
        table.listen(serviceId, listener);
    }

    /**
     * Stop taking REQs for a service ID; later REQs for it are rejected with INVALID_SERVICE_ID.
     *
     * @param serviceId the service ID.
     */
    public void cancelListen(final long serviceId)
    {
        table.cancelListen(serviceId);
    }

    /**
     * Active side: send a REQ (ib_send_cm_req). The connection is in REQ_SENT; its handler hears the outcome.
     *
     * @param params  what goes in the REQ.
     * @param handler the connection's events.
     * @param peer    where the passive side's CM is.
     * @return the connection.
     */
    public CmConnection connect(final CmRequestParams params, final CmHandler handler, final MadAddress peer)
    {
        final CmConnection c = new CmConnection(true);
        c.handler = handler;
        c.peer = peer;
        c.localCommId = table.newCommId();
        c.tid = sender.formTid(c.localCommId);
        c.serviceId = params.serviceId;
        c.localQpn = params.localQpn;
        c.localPsn = params.startingPsn;
        c.pathMtu = params.pathMtu;
        c.transportType = params.transportType;
        c.localGidHigh = params.localGidHigh;
        c.localGidLow = params.localGidLow;
        c.remoteGidHigh = params.remoteGidHigh;
        c.remoteGidLow = params.remoteGidLow;
        c.flowLabel = params.flowLabel;
        c.trafficClass = params.trafficClass;
        c.hopLimit = params.hopLimit;
        c.responderResources = params.responderResources;
        c.initiatorDepth = params.initiatorDepth;
        c.retryCount = params.retryCount;
        c.rnrRetryCount = params.rnrRetryCount;
        c.ackTimeout = config.ackTimeout();
        c.timeoutNs = config.reqTimeoutNs();
        c.maxCmRetries = config.maxCmRetries();
        table.register(c);
        sender.buildReq(c, params.privateData);
        c.state = CmState.REQ_SENT;
        timers.armRetransmit(c, c.maxCmRetries, c.timeoutNs);
        sender.send(c.peer);
        return c;
    }

    /**
     * UD client: resolve a service ID (ib_send_cm_sidr_req): send a SIDR_REQ, retried every CM response timeout
     * (4096 ms by default) up to the max CM retries of the {@link CmConfig}, as cma.c asks. The handler hears
     * {@link CmHandler#onSidrReply} or {@link CmHandler#onTimeout} with {@link CmState#SIDR_REQ_SENT}.
     *
     * @param serviceId   the service ID asked about.
     * @param privateData at most 216 bytes (rdma_cm: its 36-byte header and the application's data), or null.
     * @param handler     the connection's events.
     * @param peer        where the service's CM is.
     * @return the connection, in SIDR_REQ_SENT.
     */
    public CmConnection sidrRequest(final long serviceId, final byte[] privateData, final CmHandler handler,
        final MadAddress peer)
    {
        final CmConnection c = new CmConnection(true);
        c.handler = handler;
        c.peer = peer;
        c.localCommId = table.newCommId();
        c.tid = sender.formTid(c.localCommId);
        c.serviceId = serviceId;
        c.remoteGidHigh = peer.gidHigh();
        c.remoteGidLow = peer.gidLow();
        // cma.c cma_resolve_ib_udp: timeout_ms = 1 << (CMA_CM_RESPONSE_TIMEOUT - 8), the CM response timeout alone
        // (a REQ adds twice the packet lifetime), and CMA_MAX_CM_RETRIES retries.
        c.timeoutNs = CmConfig.timeoutMs(config.cmResponseTimeout()) * 1_000_000L;
        c.maxCmRetries = config.maxCmRetries();
        sidr.request(c, privateData);
        return c;
    }

    /**
     * UD service: answer a SIDR_REQ (ib_send_cm_sidr_rep). The connection is forgotten afterwards.
     *
     * @param c           a connection in SIDR_REQ_RCVD (from {@link CmListener#onRequest}).
     * @param status      enum ib_cm_sidr_status ({@code CmSidrRepMessage.STATUS_*}).
     * @param qpn         the UD QP serving the service ID (with STATUS_SUCCESS).
     * @param qkey        its Q_Key (with STATUS_SUCCESS).
     * @param privateData at most 136 bytes, or null.
     * @throws IllegalStateException in another state.
     */
    public void sidrReply(final CmConnection c, final int status, final int qpn, final int qkey,
        final byte[] privateData)
    {
        requireState(c, "send a SIDR_REP", CmState.SIDR_REQ_RCVD);
        sidr.reply(c, status, qpn, qkey, privateData);
    }

    /**
     * Passive side: record on the connection what the REP will carry (our QPN, starting PSN and depths), so the
     * owner can move the QP to RTR and RTS with them before {@link #accept}.
     *
     * @param c      a connection in REQ_RCVD or MRA_REQ_SENT.
     * @param params what goes in the REP.
     * @throws IllegalStateException in another state.
     */
    public void prepareReply(final CmConnection c, final CmReplyParams params)
    {
        requireState(c, "accept", CmState.REQ_RCVD, CmState.MRA_REQ_SENT);
        c.localQpn = params.localQpn;
        c.localPsn = params.startingPsn;
        c.responderResources = params.responderResources;
        c.initiatorDepth = params.initiatorDepth;
    }

    /**
     * Passive side: accept a REQ (ib_send_cm_rep). Move the QP to RTR and RTS first, as rdma_cm does.
     *
     * @param c      a connection in REQ_RCVD or MRA_REQ_SENT.
     * @param params what goes in the REP.
     * @throws IllegalStateException in another state.
     */
    public void accept(final CmConnection c, final CmReplyParams params)
    {
        prepareReply(c, params);
        sender.buildRep(c, params.rnrRetryCount, params.privateData);
        c.state = CmState.REP_SENT;
        timers.armRetransmit(c, c.maxCmRetries, c.timeoutNs);
        sender.send(c.peer);
    }

    /**
     * Active side: send the RTU after a REP, once the QP is in RTS; the connection is established.
     *
     * @param c           a connection in REP_RCVD.
     * @param privateData at most 224 bytes.
     * @throws IllegalStateException in another state.
     */
    public void sendRtu(final CmConnection c, final byte[] privateData)
    {
        requireState(c, "send an RTU", CmState.REP_RCVD);
        sender.buildRtu(c, privateData);
        c.state = CmState.ESTABLISHED;
        sender.send(c.peer);
        counters.increment(CmCounter.ESTABLISHED);
        final CmHandler h = c.handler;
        if (null != h)
        {
            h.onEstablished(c);
        }
    }

    /**
     * Reject a connection (ib_send_cm_rej): a REQ not yet answered, a REP (active side), or our own REP before the
     * RTU. The connection goes IDLE and is forgotten.
     *
     * @param c           the connection.
     * @param reason      REJ reason (28, CONSUMER_DEFINED, for rdma_reject).
     * @param privateData at most 148 bytes.
     * @throws IllegalStateException when the connection is not being set up.
     */
    public void reject(final CmConnection c, final int reason, final byte[] privateData)
    {
        requireState(c, "reject", CmState.REQ_RCVD, CmState.MRA_REQ_SENT, CmState.REP_SENT, CmState.MRA_REP_RCVD,
            CmState.REP_RCVD, CmState.REQ_SENT, CmState.MRA_REQ_RCVD);
        final int rejected = CmState.REP_RCVD == c.state ? CmRejMessage.REJECTED_REP :
            (c.active ? CmRejMessage.REJECTED_OTHER : CmRejMessage.REJECTED_REQ);
        sender.sendRej(c, rejected, reason, privateData, 0);
        table.forget(c);
    }

    /**
     * Disconnect (ib_send_cm_dreq): move the QP to the error state first, as rdma_disconnect does. From
     * ESTABLISHED the CM sends a DREQ and waits for the DREP; in DREQ_SENT, DREQ_RCVD or TIMEWAIT it does nothing.
     *
     * @param c           the connection.
     * @param privateData at most 220 bytes.
     * @return true when a DREQ was sent.
     * @throws IllegalStateException when the connection was never established.
     */
    public boolean disconnect(final CmConnection c, final byte[] privateData)
    {
        switch (c.state)
        {
            case ESTABLISHED:
            case REP_SENT:
            case MRA_REP_RCVD:
                // A passive side may disconnect before the RTU arrives: its QP is already in RTS (cm.c lets
                // ib_send_cm_dreq run from ESTABLISHED only, but rdma_cm's QP is usable after the REP).
                sendDreq(c, privateData);
                return true;
            case DREQ_SENT:
            case DREQ_RCVD:
            case TIMEWAIT:
                return false;
            default:
                throw new IllegalStateException("cannot disconnect a connection in state " + c.state + " (not " +
                    "established): " + c);
        }
    }

    /**
     * Drop a connection (ib_destroy_cm_id), telling the peer what the kernel tells it: a REQ still unanswered gets
     * REJ TIMEOUT with our CA GUID as ARI (as rping killed during its connect does in the golden capture), a
     * connection being set up gets REJ CONSUMER_DEFINED, an established one a DREQ (sent once), a received DREQ its
     * DREP, a SIDR_REQ not yet answered IB_SIDR_REJECT (a SIDR_REQ of ours is forgotten silently). The connection
     * stays in TimeWait (silently) where the protocol wants it; no more callbacks.
     *
     * @param c the connection.
     */
    public void destroy(final CmConnection c)
    {
        c.handler = null;
        switch (c.state)
        {
            case REQ_SENT:
            case MRA_REQ_RCVD:
                sender.sendRej(c, CmRejMessage.REJECTED_OTHER, CmRejectReason.TIMEOUT.code(), null,
                    CmSender.GUID_ARI_LENGTH);
                table.forget(c);
                break;
            case REQ_RCVD:
            case MRA_REQ_SENT:
            case REP_SENT:
            case MRA_REP_RCVD:
            case REP_RCVD:
                reject(c, CmRejectReason.CONSUMER_DEFINED.code(), null);
                break;
            case ESTABLISHED:
                sendDreq(c, null);
                timers.enterTimewait(c);
                break;
            case DREQ_SENT:
                timers.enterTimewait(c);
                break;
            case DREQ_RCVD:
                answerDreq(c);
                break;
            case TIMEWAIT:
                break;
            case SIDR_REQ_SENT:
            case SIDR_REQ_RCVD:
                sidr.destroy(c);
                break;
            default:
                table.forget(c);
                break;
        }
    }

    // ------------------------------------------------------------------------------------------------------------
    // Receive
    // ------------------------------------------------------------------------------------------------------------

    /**
     * Take one MAD received on QP1. Never throws for wire input: malformed MADs are dropped and counted.
     *
     * @param buffer holding the MAD.
     * @param offset of its first byte.
     * @param length bytes received (a CM MAD is exactly 256).
     * @param from   the sender's address (from the packet's IP header and DETH source QP).
     */
    public void onMad(final MutableDirectBuffer buffer, final int offset, final int length, final MadAddress from)
    {
        receiver.onMad(buffer, offset, length, from);
    }

    // ------------------------------------------------------------------------------------------------------------
    // Timers
    // ------------------------------------------------------------------------------------------------------------

    /**
     * Fire due timers: retransmit, give up, or leave TimeWait.
     *
     * @return number of timers fired.
     */
    public int processTimers()
    {
        return timers.processTimers();
    }

    /**
     * @return the earliest armed timer (the clock's nanoseconds), or Long.MAX_VALUE.
     */
    public long earliestDeadlineNs()
    {
        return timers.earliestDeadlineNs();
    }

    // ------------------------------------------------------------------------------------------------------------
    // Observation
    // ------------------------------------------------------------------------------------------------------------

    /**
     * @return the counters.
     */
    public CmCounters counters()
    {
        return counters;
    }

    /**
     * @return the configuration.
     */
    public CmConfig config()
    {
        return config;
    }

    /**
     * @return this device's node GUID as sent in CM messages.
     */
    public long localCaGuid()
    {
        return localCaGuid;
    }

    /**
     * @return the connections the CM knows (a copy; TimeWait included).
     */
    public List<CmConnection> connections()
    {
        return new ArrayList<>(table.connections());
    }

    /**
     * @param localCommId a local communication ID.
     * @return that connection, or null.
     */
    public CmConnection connection(final int localCommId)
    {
        return table.byLocalId(localCommId);
    }

    // ------------------------------------------------------------------------------------------------------------
    // Shared with the receive path
    // ------------------------------------------------------------------------------------------------------------

    private void sendDreq(final CmConnection c, final byte[] privateData)
    {
        sender.buildDreq(c, privateData);
        c.state = CmState.DREQ_SENT;
        timers.armRetransmit(c, c.maxCmRetries, c.timeoutNs);
        sender.send(c.peer);
    }

    /**
     * Answer a received DREQ with the DREP and enter TimeWait (cm.c ib_send_cm_drep): from {@link #destroy} and
     * from the receive path once the handler has not disconnected itself.
     *
     * @param c a connection in DREQ_RCVD.
     */
    void answerDreq(final CmConnection c)
    {
        sender.sendDrep(c);
        timers.enterTimewait(c);
    }

    private static void requireState(final CmConnection c, final String what, final CmState... allowed)
    {
        for (final CmState state : allowed)
        {
            if (state == c.state)
            {
                return;
            }
        }
        throw new IllegalStateException("cannot " + what + " in state " + c.state + ": " + c);
    }
}
