package org.roce4j.cm.ib;

import java.util.ArrayList;

import org.agrona.MutableDirectBuffer;
import org.roce4j.wire.mad.CmSidrRepMessage;
import org.roce4j.wire.mad.CmSidrReqMessage;

/**
 * Service ID Resolution, the UD half of the {@link IbCm} (IBA 12.11; cm.c ib_send_cm_sidr_req, cm_sidr_req_handler,
 * ib_send_cm_sidr_rep, cm_sidr_rep_handler): a client sends a SIDR_REQ for a service ID and retries it as a REQ is
 * retried; the service answers with one SIDR_REP naming its UD QP and Q_Key, or a status saying why not.
 *
 * <p>As in cm.c a SIDR exchange leaves no state once answered: the client forgets the connection when the SIDR_REP
 * arrives or the last retry times out; the service keeps a received SIDR_REQ only until it answers, drops repeats of
 * it meanwhile (cm_insert_remote_sidr: same Request ID from the same GID), and answers a SIDR_REQ for a service ID
 * nobody listens on with status 1, IB_SIDR_UNSUPPORTED. Same thread as the CM.
 */
final class CmSidr
{
    private final CmCounters counters;
    private final CmTable table;
    private final CmSender sender;
    private final CmTimers timers;
    private final CmSidrReqMessage req = new CmSidrReqMessage();
    private final CmSidrRepMessage rep = new CmSidrRepMessage();

    /**
     * @param counters where to count.
     * @param table    the connections and listeners.
     * @param sender   sends SIDR_REQs and SIDR_REPs.
     * @param timers   arms the SIDR_REQ's retransmit timer.
     */
    CmSidr(final CmCounters counters, final CmTable table, final CmSender sender, final CmTimers timers)
    {
        this.counters = counters;
        this.table = table;
        this.sender = sender;
        this.timers = timers;
    }

    /**
     * Client: send a SIDR_REQ (ib_send_cm_sidr_req) and wait for the SIDR_REP in SIDR_REQ_SENT.
     *
     * @param c           a new active connection, handler, peer, comm ID, TID, service ID and timing set.
     * @param privateData at most 216 bytes, or null.
     */
    void request(final CmConnection c, final byte[] privateData)
    {
        table.register(c);
        sender.buildSidrReq(c, privateData);
        c.state = CmState.SIDR_REQ_SENT;
        timers.armRetransmit(c, c.maxCmRetries, c.timeoutNs);
        counters.increment(CmCounter.SIDR_REQ_SENT);
        sender.send(c.peer);
    }

    /**
     * Service: answer a SIDR_REQ (ib_send_cm_sidr_rep); the connection is then forgotten.
     *
     * @param c           a connection in SIDR_REQ_RCVD.
     * @param status      enum ib_cm_sidr_status.
     * @param qpn         the serving UD QP (with SUCCESS).
     * @param qkey        its Q_Key (with SUCCESS).
     * @param privateData at most 136 bytes, or null.
     */
    void reply(final CmConnection c, final int status, final int qpn, final int qkey, final byte[] privateData)
    {
        c.localQpn = qpn;
        sender.sendSidrRep(c.peer, c.tid, c.remoteCommId, c.serviceId, status, qpn, qkey, privateData);
        table.forget(c);
    }

    /**
     * A SIDR_REQ arrived (cm_sidr_req_handler).
     *
     * @param mad  a copy of the MAD, header checked.
     * @param from the sender.
     * @param tid  its TID.
     */
    void onRequest(final MutableDirectBuffer mad, final MadAddress from, final long tid)
    {
        final CmSidrReqMessage m = req.wrapMad(mad, 0);
        final int requestId = m.requestId();
        final ArrayList<CmConnection> connections = table.connections();
        for (int i = 0, n = connections.size(); i < n; i++)
        {
            final CmConnection c = connections.get(i);
            if (CmState.SIDR_REQ_RCVD == c.state && c.remoteCommId == requestId &&
                c.peer.gidHigh() == from.gidHigh() && c.peer.gidLow() == from.gidLow())
            {
                // cm.c cm_insert_remote_sidr found it: a retry of a SIDR_REQ still being answered; drop it.
                counters.increment(CmCounter.DUPLICATES);
                return;
            }
        }
        counters.increment(CmCounter.SIDR_REQ_RECEIVED);
        final long serviceId = m.serviceId();
        final CmListener listener = table.listener(serviceId);
        if (null == listener)
        {
            // cm.c cm_sidr_req_handler: no listener: SIDR_REP with IB_SIDR_UNSUPPORTED.
            sender.sendSidrRep(from, tid, requestId, serviceId, CmSidrRepMessage.STATUS_UNSUPPORTED, 0, 0, null);
            return;
        }
        final CmConnection c = new CmConnection(false);
        c.peer = from;
        c.tid = tid;
        c.localCommId = table.newCommId();
        c.remoteCommId = requestId;
        c.serviceId = serviceId;
        c.remoteGidHigh = from.gidHigh();
        c.remoteGidLow = from.gidLow();
        c.privateData = CmSender.privateData(m);
        c.state = CmState.SIDR_REQ_RCVD;
        c.deadlineNs = Long.MAX_VALUE;
        table.register(c);
        final int verdict;
        try
        {
            verdict = listener.onRequest(c);
        }
        catch (final RuntimeException ex)
        {
            // cm.c cm_destroy_id in SIDR_REQ_RCVD: the service failed, so the client hears IB_SIDR_REJECT.
            reply(c, CmSidrRepMessage.STATUS_REJECT, 0, 0, null);
            throw ex;
        }
        if (CmListener.DROP == verdict)
        {
            counters.increment(CmCounter.DROP_BACKLOG);
            table.forget(c);
        }
        else if (CmListener.PENDING != verdict && CmState.SIDR_REQ_RCVD == c.state)
        {
            reply(c, verdict, 0, 0, null);
        }
    }

    /**
     * A SIDR_REP arrived (cm_sidr_rep_handler): it must answer a SIDR_REQ of ours still waiting.
     *
     * @param mad a copy of the MAD, header checked.
     */
    void onReply(final MutableDirectBuffer mad)
    {
        final CmSidrRepMessage m = rep.wrapMad(mad, 0);
        final CmConnection c = table.byLocalId(m.requestId());
        if (null == c || !c.active)
        {
            counters.increment(CmCounter.DROP_UNMATCHED);
            return;
        }
        if (CmState.SIDR_REQ_SENT != c.state)
        {
            counters.increment(CmCounter.DROP_WRONG_STATE);
            return;
        }
        counters.increment(CmCounter.SIDR_REP_RECEIVED);
        c.sidrStatus = m.status();
        c.remoteQpn = m.qpn();
        c.remoteQkey = m.qkey();
        c.privateData = CmSender.privateData(m);
        table.forget(c);
        final CmHandler h = c.handler;
        if (null != h)
        {
            h.onSidrReply(c);
        }
    }

    /**
     * Drop a SIDR connection (cm_destroy_id): a SIDR_REQ still waiting is forgotten silently; one received and not
     * yet answered gets IB_SIDR_REJECT.
     *
     * @param c a connection in SIDR_REQ_SENT or SIDR_REQ_RCVD.
     */
    void destroy(final CmConnection c)
    {
        if (CmState.SIDR_REQ_RCVD == c.state)
        {
            reply(c, CmSidrRepMessage.STATUS_REJECT, 0, 0, null);
        }
        else
        {
            table.forget(c);
        }
    }
}
