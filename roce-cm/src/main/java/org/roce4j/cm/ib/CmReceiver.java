package org.roce4j.cm.ib;

import java.nio.ByteOrder;
import java.util.ArrayList;

import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.wire.mad.CmAttribute;
import org.roce4j.wire.mad.CmDrepMessage;
import org.roce4j.wire.mad.CmDreqMessage;
import org.roce4j.wire.mad.CmMraMessage;
import org.roce4j.wire.mad.CmPath;
import org.roce4j.wire.mad.CmRejMessage;
import org.roce4j.wire.mad.CmRejectReason;
import org.roce4j.wire.mad.CmRepMessage;
import org.roce4j.wire.mad.CmReqMessage;
import org.roce4j.wire.mad.CmRtuMessage;
import org.roce4j.wire.mad.MadHeader;
import org.roce4j.wire.mad.MadMethod;
import org.roce4j.wire.mad.ManagementClass;

/**
 * The receive half of the {@link IbCm} (cm.c's cm_recv_handler and the cm_*_handler functions): checks each MAD
 * received on QP1, matches it to a connection, and drives that connection's state machine, answering duplicates
 * as IBA 12.9 and cm.c do and rejecting REQs nobody can take. It never throws for wire input: every MAD that is
 * not a well-formed CM message of class version 2 is dropped and counted.
 *
 * <p>It sends through the {@link CmSender}, arms timers through the {@link CmTimers}, and takes the consumer's
 * operations it shares with the API (reject, answering a DREQ) from its {@link IbCm}. Same thread as the CM.
 */
final class CmReceiver
{
    private final IbCm cm;
    private final CmConfig config;
    private final IbCm.LocalGids localGids;
    private final CmCounters counters;
    private final CmTable table;
    private final CmSender sender;
    private final CmTimers timers;
    private final CmSidr sidr;
    private final UnsafeBuffer rxCopy = new UnsafeBuffer(new byte[CmSender.MAD_LENGTH]);
    private final MadHeader rxMad = new MadHeader();
    private final CmReqMessage req = new CmReqMessage();
    private final CmRepMessage rep = new CmRepMessage();
    private final CmRtuMessage rtu = new CmRtuMessage();
    private final CmRejMessage rej = new CmRejMessage();
    private final CmMraMessage mra = new CmMraMessage();
    private final CmDreqMessage dreq = new CmDreqMessage();
    private final CmDrepMessage drep = new CmDrepMessage();

    /**
     * @param cm        the CM whose reject and DREQ answer the receive path shares.
     * @param config    the packet lifetime for a REP's ACK timeout.
     * @param localGids this device's GID table.
     * @param counters  where to count.
     * @param table     the connections and listeners.
     * @param sender    sends answers.
     * @param timers    arms timers and TimeWait.
     * @param sidr      handles SIDR_REQ and SIDR_REP.
     */
    CmReceiver(
        final IbCm cm,
        final CmConfig config,
        final IbCm.LocalGids localGids,
        final CmCounters counters,
        final CmTable table,
        final CmSender sender,
        final CmTimers timers,
        final CmSidr sidr)
    {
        this.cm = cm;
        this.config = config;
        this.localGids = localGids;
        this.counters = counters;
        this.table = table;
        this.sender = sender;
        this.timers = timers;
        this.sidr = sidr;
    }

    /**
     * Take one MAD received on QP1. Never throws for wire input: malformed MADs are dropped and counted.
     *
     * @param buffer holding the MAD.
     * @param offset of its first byte.
     * @param length bytes received (a CM MAD is exactly 256).
     * @param from   the sender's address (from the packet's IP header and DETH source QP).
     */
    void onMad(final MutableDirectBuffer buffer, final int offset, final int length, final MadAddress from)
    {
        counters.increment(CmCounter.MADS_RECEIVED);
        if (CmSender.MAD_LENGTH != length)
        {
            counters.increment(CmCounter.DROP_BAD_LENGTH);
            return;
        }
        // Work on a copy: handlers may send (reusing tx), and the receive buffer goes back to QP1 afterwards.
        rxCopy.putBytes(0, buffer, offset, CmSender.MAD_LENGTH);
        final MadHeader mad = rxMad.wrap(rxCopy, 0);
        if (MadHeader.BASE_VERSION != mad.baseVersion())
        {
            counters.increment(CmCounter.DROP_BAD_BASE_VERSION);
            return;
        }
        if (ManagementClass.CM.code() != mad.mgmtClass())
        {
            counters.increment(CmCounter.DROP_NOT_CM_CLASS);
            return;
        }
        if (MadHeader.CM_CLASS_VERSION != mad.classVersion())
        {
            counters.increment(CmCounter.DROP_BAD_CLASS_VERSION);
            return;
        }
        if (MadMethod.SEND.code() != mad.method())
        {
            counters.increment(CmCounter.DROP_BAD_METHOD);
            return;
        }
        final CmAttribute attribute = CmAttribute.of(mad.attributeId());
        if (null == attribute)
        {
            counters.increment(CmCounter.DROP_UNSUPPORTED_ATTRIBUTE);
            return;
        }
        switch (attribute)
        {
            case CONNECT_REQUEST:
                onReq(from, mad.transactionId());
                break;
            case CONNECT_REPLY:
                onRep();
                break;
            case READY_TO_USE:
                onRtu();
                break;
            case CONNECT_REJECT:
                onRej();
                break;
            case MSG_RCPT_ACK:
                onMra();
                break;
            case DISCONNECT_REQUEST:
                onDreq(from, mad.transactionId());
                break;
            case DISCONNECT_REPLY:
                onDrep();
                break;
            case SERVICE_ID_RES_REQ:
                sidr.onRequest(rxCopy, from, mad.transactionId());
                break;
            case SERVICE_ID_RES_REQ_RESP:
                sidr.onReply(rxCopy);
                break;
            default:
                counters.increment(CmCounter.DROP_UNSUPPORTED_ATTRIBUTE);
                break;
        }
    }

    private void onReq(final MadAddress from, final long tid)
    {
        final CmReqMessage m = req.wrapMad(rxCopy, 0);
        final int remoteCommId = m.localCommId();
        final long remoteGuid = m.localCaGuid();
        final int remoteQpn = m.localQpn();
        final ArrayList<CmConnection> connections = table.connections();
        for (int i = 0, n = connections.size(); i < n; i++)
        {
            final CmConnection c = connections.get(i);
            if (!c.active && c.remoteCommId == remoteCommId && c.remoteCaGuid == remoteGuid)
            {
                onDuplicateReq(c, tid, from);
                return;
            }
        }
        for (int i = 0, n = connections.size(); i < n; i++)
        {
            final CmConnection c = connections.get(i);
            if (CmState.TIMEWAIT == c.state && c.remoteQpn == remoteQpn && c.remoteCaGuid == remoteGuid)
            {
                // cm.c cm_insert_remote_qpn: the QP of a connection still in TimeWait asks again: stale.
                counters.increment(CmCounter.REJ_STALE_CONNECTION);
                sender.rejectUnknown(from, tid, remoteCommId, CmRejectReason.STALE_CONN.code(), 0, 0);
                return;
            }
        }
        final CmListener listener = table.listener(m.serviceId());
        if (null == listener)
        {
            // cm.c cm_req_handler: no listener for the service ID: REJ INVALID_SERVICE_ID (rxe in the capture).
            counters.increment(CmCounter.REJ_INVALID_SERVICE_ID);
            sender.rejectUnknown(from, tid, remoteCommId, CmRejectReason.INVALID_SERVICE_ID.code(), 0, 0);
            return;
        }
        final CmPath path = m.primaryPath();
        if (!localGids.contains(path.remoteGidHigh(), path.remoteGidLow()))
        {
            // cm.c cm_req_handler: the path's GID is not ours (cm_init_av_by_path fails): REJ INVALID_GID with
            // the GID as ARI.
            sender.rejectUnknown(from, tid, remoteCommId, CmRejectReason.INVALID_GID.code(), path.remoteGidHigh(),
                path.remoteGidLow());
            return;
        }
        final CmConnection c = new CmConnection(false);
        c.peer = from;
        c.tid = tid;
        c.localCommId = table.newCommId();
        c.remoteCommId = remoteCommId;
        c.remoteCaGuid = remoteGuid;
        c.serviceId = m.serviceId();
        c.remoteQpn = remoteQpn;
        c.remotePsn = m.startingPsn();
        c.pathMtu = m.pathMtu();
        c.transportType = m.transportServiceType();
        c.remoteResponderResources = m.responderResources();
        c.remoteInitiatorDepth = m.initiatorDepth();
        c.retryCount = m.retryCount();
        c.rnrRetryCount = m.rnrRetryCount();
        c.localGidHigh = path.remoteGidHigh();
        c.localGidLow = path.remoteGidLow();
        c.remoteGidHigh = path.localGidHigh();
        c.remoteGidLow = path.localGidLow();
        c.flowLabel = path.flowLabel();
        c.trafficClass = path.trafficClass();
        c.hopLimit = path.hopLimit();
        c.ackTimeout = path.localAckTimeout();
        // cm.c cm_req_handler: our REP waits the active side's "local CM response timeout"; retries as it asks.
        c.timeoutNs = CmConfig.timeoutMs(m.localCmResponseTimeout()) * 1_000_000L;
        c.maxCmRetries = m.maxCmRetries();
        c.privateData = CmSender.privateData(m);
        c.state = CmState.REQ_RCVD;
        c.deadlineNs = Long.MAX_VALUE;
        table.register(c);
        final int verdict;
        try
        {
            verdict = listener.onRequest(c);
        }
        catch (final RuntimeException ex)
        {
            // A listener bug must not lose the REQ silently: reject it as the kernel does when rdma_cm fails.
            cm.reject(c, CmRejectReason.CONSUMER_DEFINED.code(), null);
            throw ex;
        }
        if (CmListener.DROP == verdict)
        {
            counters.increment(CmCounter.DROP_BACKLOG);
            table.forget(c);
        }
        else if (CmListener.PENDING != verdict && CmState.REQ_RCVD == c.state)
        {
            cm.reject(c, verdict, null);
        }
    }

    private void onDuplicateReq(final CmConnection c, final long tid, final MadAddress from)
    {
        counters.increment(CmCounter.DUPLICATES);
        switch (c.state)
        {
            case REQ_RCVD:
                // rdma_cm sets an MRA with the "delay" flag when it hands the REQ to the application (cma.c
                // cma_req_handler): cm.c sends it only when the REQ comes again, i.e. now.
                sender.sendMra(c, CmMraMessage.MRAED_REQ);
                c.state = CmState.MRA_REQ_SENT;
                break;
            case MRA_REQ_SENT:
                sender.resendAnswer(c);
                break;
            case REP_SENT:
            case MRA_REP_RCVD:
                sender.sendCopy(c.peer, c.lastSent);
                break;
            case TIMEWAIT:
                counters.increment(CmCounter.REJ_STALE_CONNECTION);
                sender.rejectUnknown(from, tid, c.remoteCommId, CmRejectReason.STALE_CONN.code(), 0, 0);
                break;
            default:
                break;
        }
    }

    private void onRep()
    {
        final CmRepMessage m = rep.wrapMad(rxCopy, 0);
        final CmConnection c = table.byLocalId(m.remoteCommId());
        if (null == c || !c.active)
        {
            counters.increment(CmCounter.DROP_UNMATCHED);
            return;
        }
        switch (c.state)
        {
            case REQ_SENT:
            case MRA_REQ_RCVD:
                c.remoteCommId = m.localCommId();
                c.remoteQpn = m.localQpn();
                c.remotePsn = m.startingPsn();
                c.remoteResponderResources = m.responderResources();
                c.remoteInitiatorDepth = m.initiatorDepth();
                c.remoteRnrRetryCount = m.rnrRetryCount();
                c.targetAckDelay = m.targetAckDelay();
                c.remoteCaGuid = m.localCaGuid();
                // cm.c cm_rep_handler: the REP's depths seen from our side, its RNR retry count for our QP, and the
                // ACK timeout recomputed with the peer's ACK delay.
                c.initiatorDepth = Math.min(c.initiatorDepth, m.responderResources());
                c.responderResources = Math.min(c.responderResources, m.initiatorDepth());
                c.rnrRetryCount = m.rnrRetryCount();
                c.ackTimeout = CmConfig.ackTimeout(m.targetAckDelay(), config.packetLifetime());
                c.privateData = CmSender.privateData(m);
                c.state = CmState.REP_RCVD;
                c.deadlineNs = Long.MAX_VALUE;
                final CmHandler h = c.handler;
                if (null != h)
                {
                    h.onReply(c);
                }
                break;
            case ESTABLISHED:
                // IBA 12.9.6: the RTU was lost; the peer sends the REP again. Send the RTU again.
                if (m.localCommId() == c.remoteCommId)
                {
                    counters.increment(CmCounter.DUPLICATES);
                    sender.resendAnswer(c);
                }
                else
                {
                    counters.increment(CmCounter.DROP_UNMATCHED);
                }
                break;
            case REP_RCVD:
                counters.increment(CmCounter.DUPLICATES);
                break;
            default:
                counters.increment(CmCounter.DROP_WRONG_STATE);
                break;
        }
    }

    private void onRtu()
    {
        final CmRtuMessage m = rtu.wrapMad(rxCopy, 0);
        final CmConnection c = table.matchBoth(m.remoteCommId(), m.localCommId());
        if (null == c)
        {
            return;
        }
        switch (c.state)
        {
            case REP_SENT:
            case MRA_REP_RCVD:
                c.state = CmState.ESTABLISHED;
                c.deadlineNs = Long.MAX_VALUE;
                c.privateData = CmSender.privateData(m);
                counters.increment(CmCounter.ESTABLISHED);
                final CmHandler h = c.handler;
                if (null != h)
                {
                    h.onEstablished(c);
                }
                break;
            case ESTABLISHED:
                counters.increment(CmCounter.DUPLICATES);
                break;
            default:
                counters.increment(CmCounter.DROP_WRONG_STATE);
                break;
        }
    }

    private void onRej()
    {
        final CmRejMessage m = rej.wrapMad(rxCopy, 0);
        final int reason = m.reason();
        CmConnection c = null;
        if (0 != m.remoteCommId())
        {
            final CmConnection candidate = table.byLocalId(m.remoteCommId());
            // A REJ of our REQ comes before the peer's comm ID is known; otherwise both IDs must match
            // (cm.c cm_acquire_rejected_id).
            if (null != candidate && (0 == candidate.remoteCommId || 0 == m.localCommId() ||
                candidate.remoteCommId == m.localCommId()))
            {
                c = candidate;
            }
        }
        else
        {
            // REJ TIMEOUT from an active side that gave up before learning our comm ID: match its comm ID and, when
            // the ARI carries it, its CA GUID.
            final ArrayList<CmConnection> connections = table.connections();
            for (int i = 0, n = connections.size(); i < n && null == c; i++)
            {
                final CmConnection candidate = connections.get(i);
                if (!candidate.active && candidate.remoteCommId == m.localCommId() &&
                    (m.ariLength() < CmSender.GUID_ARI_LENGTH || candidate.remoteCaGuid ==
                    rxCopy.getLong(m.ariBufferOffset(), ByteOrder.BIG_ENDIAN)))
                {
                    c = candidate;
                }
            }
        }
        if (null == c)
        {
            counters.increment(CmCounter.DROP_UNMATCHED);
            return;
        }
        switch (c.state)
        {
            case REQ_SENT:
            case MRA_REQ_RCVD:
            case REP_RCVD:
            case REQ_RCVD:
            case MRA_REQ_SENT:
            case REP_SENT:
            case MRA_REP_RCVD:
            case ESTABLISHED:
                counters.increment(CmCounter.REJ_RECEIVED);
                final CmState before = c.state;
                c.rejectReason = reason;
                c.privateData = CmSender.privateData(m);
                // cm.c cm_rej_handler: STALE_CONN and a REJ of an established connection lead to TimeWait.
                if (CmRejectReason.STALE_CONN.code() == reason || CmState.ESTABLISHED == before)
                {
                    timers.enterTimewait(c);
                }
                else
                {
                    table.forget(c);
                }
                final CmHandler h = c.handler;
                if (null != h)
                {
                    h.onRejected(c);
                }
                break;
            default:
                counters.increment(CmCounter.DROP_WRONG_STATE);
                break;
        }
    }

    private void onMra()
    {
        final CmMraMessage m = mra.wrapMad(rxCopy, 0);
        final CmConnection c = table.byLocalId(m.remoteCommId());
        if (null == c)
        {
            counters.increment(CmCounter.DROP_UNMATCHED);
            return;
        }
        final int mraed = m.messageMraed();
        final boolean forReq = CmMraMessage.MRAED_REQ == mraed && CmState.REQ_SENT == c.state;
        final boolean forRep = CmMraMessage.MRAED_REP == mraed && CmState.REP_SENT == c.state &&
            m.localCommId() == c.remoteCommId;
        if (!forReq && !forRep)
        {
            counters.increment(CmState.MRA_REQ_RCVD == c.state || CmState.MRA_REP_RCVD == c.state ?
                CmCounter.DUPLICATES : CmCounter.DROP_WRONG_STATE);
            return;
        }
        counters.increment(CmCounter.MRA_RECEIVED);
        if (forReq)
        {
            c.remoteCommId = m.localCommId();
            c.state = CmState.MRA_REQ_RCVD;
        }
        else
        {
            c.state = CmState.MRA_REP_RCVD;
        }
        // cm.c cm_mra_handler: wait the service timeout plus the path's ACK timeout before the next retry.
        c.deadlineNs = timers.nowNs() +
            (CmConfig.timeoutMs(m.serviceTimeout()) + CmConfig.timeoutMs(c.ackTimeout)) * 1_000_000L;
        final CmHandler h = c.handler;
        if (null != h)
        {
            h.onMra(c);
        }
    }

    private void onDreq(final MadAddress from, final long tid)
    {
        final CmDreqMessage m = dreq.wrapMad(rxCopy, 0);
        final CmConnection c = table.byLocalId(m.remoteCommId());
        if (null == c || c.remoteCommId != m.localCommId())
        {
            // cm.c cm_dreq_handler: unknown connection: answer with a DREP anyway (cm_issue_drep).
            counters.increment(CmCounter.DREP_FOR_UNKNOWN_DREQ);
            sender.sendDrepUnknown(from, tid, m.remoteCommId(), m.localCommId());
            return;
        }
        if (c.localQpn != m.remoteQpn())
        {
            counters.increment(CmCounter.DROP_UNMATCHED);
            return;
        }
        switch (c.state)
        {
            case ESTABLISHED:
            case DREQ_SENT:
            case REP_SENT:
            case MRA_REP_RCVD:
                c.tid = tid;
                c.privateData = CmSender.privateData(m);
                c.state = CmState.DREQ_RCVD;
                c.deadlineNs = Long.MAX_VALUE;
                final CmHandler h = c.handler;
                if (null != h)
                {
                    h.onDisconnectRequest(c);
                }
                if (CmState.DREQ_RCVD == c.state)
                {
                    cm.answerDreq(c);
                }
                break;
            case TIMEWAIT:
                // IBA 12.9.7.4: the DREP was lost: send it again.
                counters.increment(CmCounter.DUPLICATES);
                if (null != c.lastAnswer && !c.answerIsMra)
                {
                    sender.sendCopy(c.peer, c.lastAnswer);
                }
                break;
            case DREQ_RCVD:
                counters.increment(CmCounter.DUPLICATES);
                break;
            default:
                counters.increment(CmCounter.DROP_WRONG_STATE);
                break;
        }
    }

    private void onDrep()
    {
        final CmDrepMessage m = drep.wrapMad(rxCopy, 0);
        final CmConnection c = table.matchBoth(m.remoteCommId(), m.localCommId());
        if (null == c)
        {
            return;
        }
        if (CmState.DREQ_SENT == c.state)
        {
            c.privateData = CmSender.privateData(m);
            timers.enterTimewait(c);
            final CmHandler h = c.handler;
            if (null != h)
            {
                h.onDisconnectReply(c);
            }
        }
        else
        {
            counters.increment(CmState.TIMEWAIT == c.state ? CmCounter.DUPLICATES : CmCounter.DROP_WRONG_STATE);
        }
    }
}
