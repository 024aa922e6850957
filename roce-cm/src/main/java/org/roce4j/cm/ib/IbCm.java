package org.roce4j.cm.ib;

import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

import org.agrona.MutableDirectBuffer;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.wire.mad.CmAttribute;
import org.roce4j.wire.mad.CmDrepMessage;
import org.roce4j.wire.mad.CmDreqMessage;
import org.roce4j.wire.mad.CmMessage;
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
 * <p>It moves no QP itself: the owner of a connection (rdma_cm) does that from its {@link CmHandler} callbacks, in
 * the order rdma_cm does (the passive QP reaches RTS before the REP, the active QP before the RTU, both go to the
 * error state before a DREQ or DREP).
 *
 * <p>Bad wire input never throws: every MAD that is not a well-formed CM message of class version 2 is dropped
 * and counted in {@link CmCounters}. Threading: one thread at a time (the CM's agent thread, or the application's
 * in invoker mode); time comes from the injected clock.
 */
public final class IbCm
{
    /** Bytes of the buffer messages are built in: one MAD. */
    private static final int MAD_LENGTH = MadHeader.MAD_LENGTH;
    /** Bytes of ARI in a REJ TIMEOUT: the rejecting CA's GUID (IBA 12.6.7.2, cm.c cm_destroy_id). */
    private static final int GUID_ARI_LENGTH = 8;
    /** Bytes of ARI in a REJ INVALID_GID: the GID that is not ours (cm.c cm_req_handler). */
    private static final int GID_ARI_LENGTH = 16;

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

    private final MadPort port;
    private final CmConfig config;
    private final NanoClock clock;
    private final CmIdSource ids;
    private final long localCaGuid;
    private final LocalGids localGids;
    private final CmCounters counters;
    private final Int2ObjectHashMap<CmConnection> byLocalId = new Int2ObjectHashMap<>();
    private final ArrayList<CmConnection> connections = new ArrayList<>();
    private final Long2ObjectHashMap<CmListener> listeners = new Long2ObjectHashMap<>();
    private final ArrayList<CmConnection> due = new ArrayList<>();
    private final UnsafeBuffer tx = new UnsafeBuffer(new byte[MAD_LENGTH]);
    private final UnsafeBuffer rxCopy = new UnsafeBuffer(new byte[MAD_LENGTH]);
    private final MadHeader txMad = new MadHeader();
    private final MadHeader rxMad = new MadHeader();
    private final CmReqMessage req = new CmReqMessage();
    private final CmRepMessage rep = new CmRepMessage();
    private final CmRtuMessage rtu = new CmRtuMessage();
    private final CmRejMessage rej = new CmRejMessage();
    private final CmMraMessage mra = new CmMraMessage();
    private final CmDreqMessage dreq = new CmDreqMessage();
    private final CmDrepMessage drep = new CmDrepMessage();

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
        this.port = port;
        this.config = config;
        this.clock = clock;
        this.ids = ids;
        this.localCaGuid = localCaGuid;
        this.localGids = localGids;
        this.counters = counters;
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
        if (listeners.containsKey(serviceId))
        {
            throw new IllegalStateException("service ID 0x" + Long.toHexString(serviceId) + " already has a listener");
        }
        listeners.put(serviceId, listener);
    }

    /**
     * Stop taking REQs for a service ID; later REQs for it are rejected with INVALID_SERVICE_ID.
     *
     * @param serviceId the service ID.
     */
    public void cancelListen(final long serviceId)
    {
        listeners.remove(serviceId);
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
        c.localCommId = newCommId();
        c.tid = formTid(c.localCommId);
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
        register(c);

        txMad.wrap(tx, 0).cm(CmAttribute.CONNECT_REQUEST, c.tid);
        req.wrapMad(tx, 0).clear();
        req.localCommId(c.localCommId)
            .serviceId(c.serviceId)
            .localCaGuid(localCaGuid)
            .localQkey(0)
            .localQpn(c.localQpn)
            .responderResources(c.responderResources)
            .initiatorDepth(c.initiatorDepth)
            .remoteCmResponseTimeout(config.cmResponseTimeout())
            .transportServiceType(c.transportType)
            .startingPsn(c.localPsn)
            .localCmResponseTimeout(config.cmResponseTimeout())
            .retryCount(c.retryCount)
            .pkey(0xFFFF)
            .pathMtu(c.pathMtu)
            .rnrRetryCount(c.rnrRetryCount)
            .maxCmRetries(c.maxCmRetries);
        // cma.c cma_connect_ib + cm.c cm_format_req on RoCE: "permissive" LIDs when the hop limit exceeds 1, the
        // path's GIDs, flow label, traffic class and hop limit, subnet local only for a one-hop path, and the ACK
        // timeout cm_ack_timeout(local CA ACK delay, packet lifetime).
        final CmPath path = req.primaryPath();
        final boolean routed = c.hopLimit > 1;
        path.localLid(routed ? CmPath.PERMISSIVE_LID : 0)
            .remoteLid(routed ? CmPath.PERMISSIVE_LID : 0)
            .localGid(c.localGidHigh, c.localGidLow)
            .remoteGid(c.remoteGidHigh, c.remoteGidLow)
            .flowLabel(c.flowLabel)
            .trafficClass(c.trafficClass)
            .hopLimit(c.hopLimit)
            .subnetLocal(!routed)
            .localAckTimeout(c.ackTimeout);
        putPrivateData(req, params.privateData);
        c.state = CmState.REQ_SENT;
        c.lastSent = snapshot();
        armRetransmit(c, c.maxCmRetries, c.timeoutNs);
        transmit(c.peer, tx);
        return c;
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
        txMad.wrap(tx, 0).cm(CmAttribute.CONNECT_REPLY, c.tid);
        rep.wrapMad(tx, 0).clear();
        rep.localCommId(c.localCommId)
            .remoteCommId(c.remoteCommId)
            .localQkey(0)
            .localQpn(c.localQpn)
            .startingPsn(c.localPsn)
            .responderResources(c.responderResources)
            .initiatorDepth(c.initiatorDepth)
            .targetAckDelay(config.caAckDelay())
            .failoverAccepted(0)
            .endToEndFlowControl(false)
            .rnrRetryCount(params.rnrRetryCount)
            .srq(false)
            .localCaGuid(localCaGuid);
        putPrivateData(rep, params.privateData);
        c.state = CmState.REP_SENT;
        c.lastSent = snapshot();
        armRetransmit(c, c.maxCmRetries, c.timeoutNs);
        transmit(c.peer, tx);
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
        txMad.wrap(tx, 0).cm(CmAttribute.READY_TO_USE, c.tid);
        rtu.wrapMad(tx, 0).clear();
        rtu.localCommId(c.localCommId).remoteCommId(c.remoteCommId);
        putPrivateData(rtu, privateData);
        c.lastAnswer = snapshot();
        c.answerIsMra = false;
        c.state = CmState.ESTABLISHED;
        transmit(c.peer, tx);
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
        sendRej(c, rejected, reason, privateData, 0);
        forget(c);
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
     * DREP. The connection stays in TimeWait (silently) where the protocol wants it; no more callbacks.
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
                sendRej(c, CmRejMessage.REJECTED_OTHER, CmRejectReason.TIMEOUT.code(), null, GUID_ARI_LENGTH);
                forget(c);
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
                enterTimewait(c);
                break;
            case DREQ_SENT:
                enterTimewait(c);
                break;
            case DREQ_RCVD:
                answerDreq(c);
                break;
            case TIMEWAIT:
                break;
            default:
                forget(c);
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
        counters.increment(CmCounter.MADS_RECEIVED);
        if (MAD_LENGTH != length)
        {
            counters.increment(CmCounter.DROP_BAD_LENGTH);
            return;
        }
        // Work on a copy: handlers may send (reusing tx), and the receive buffer goes back to QP1 afterwards.
        rxCopy.putBytes(0, buffer, offset, MAD_LENGTH);
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
                rejectUnknown(from, tid, remoteCommId, CmRejectReason.STALE_CONN.code(), 0, 0);
                return;
            }
        }
        final CmListener listener = listeners.get(m.serviceId());
        if (null == listener)
        {
            // cm.c cm_req_handler: no listener for the service ID: REJ INVALID_SERVICE_ID (rxe in the capture).
            counters.increment(CmCounter.REJ_INVALID_SERVICE_ID);
            rejectUnknown(from, tid, remoteCommId, CmRejectReason.INVALID_SERVICE_ID.code(), 0, 0);
            return;
        }
        final CmPath path = m.primaryPath();
        if (!localGids.contains(path.remoteGidHigh(), path.remoteGidLow()))
        {
            // cm.c cm_req_handler: the path's GID is not ours (cm_init_av_by_path fails): REJ INVALID_GID with
            // the GID as ARI.
            rejectUnknown(from, tid, remoteCommId, CmRejectReason.INVALID_GID.code(), path.remoteGidHigh(),
                path.remoteGidLow());
            return;
        }
        final CmConnection c = new CmConnection(false);
        c.peer = from;
        c.tid = tid;
        c.localCommId = newCommId();
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
        c.privateData = privateData(m);
        c.state = CmState.REQ_RCVD;
        c.deadlineNs = Long.MAX_VALUE;
        register(c);
        final int verdict;
        try
        {
            verdict = listener.onRequest(c);
        }
        catch (final RuntimeException ex)
        {
            // A listener bug must not lose the REQ silently: reject it as the kernel does when rdma_cm fails.
            reject(c, CmRejectReason.CONSUMER_DEFINED.code(), null);
            throw ex;
        }
        if (CmListener.DROP == verdict)
        {
            counters.increment(CmCounter.DROP_BACKLOG);
            forget(c);
        }
        else if (CmListener.PENDING != verdict && CmState.REQ_RCVD == c.state)
        {
            reject(c, verdict, null);
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
                sendMra(c, CmMraMessage.MRAED_REQ);
                c.state = CmState.MRA_REQ_SENT;
                break;
            case MRA_REQ_SENT:
                resendAnswer(c);
                break;
            case REP_SENT:
            case MRA_REP_RCVD:
                transmitCopy(c.peer, c.lastSent);
                break;
            case TIMEWAIT:
                counters.increment(CmCounter.REJ_STALE_CONNECTION);
                rejectUnknown(from, tid, c.remoteCommId, CmRejectReason.STALE_CONN.code(), 0, 0);
                break;
            default:
                break;
        }
    }

    private void onRep()
    {
        final CmRepMessage m = rep.wrapMad(rxCopy, 0);
        final CmConnection c = byLocalId.get(m.remoteCommId());
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
                c.privateData = privateData(m);
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
                    resendAnswer(c);
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
        final CmConnection c = matchBoth(m.remoteCommId(), m.localCommId());
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
                c.privateData = privateData(m);
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
            final CmConnection candidate = byLocalId.get(m.remoteCommId());
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
            for (int i = 0, n = connections.size(); i < n && null == c; i++)
            {
                final CmConnection candidate = connections.get(i);
                if (!candidate.active && candidate.remoteCommId == m.localCommId() &&
                    (m.ariLength() < GUID_ARI_LENGTH || candidate.remoteCaGuid ==
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
                c.privateData = privateData(m);
                // cm.c cm_rej_handler: STALE_CONN and a REJ of an established connection lead to TimeWait.
                if (CmRejectReason.STALE_CONN.code() == reason || CmState.ESTABLISHED == before)
                {
                    enterTimewait(c);
                }
                else
                {
                    forget(c);
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
        final CmConnection c = byLocalId.get(m.remoteCommId());
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
        c.deadlineNs = clock.nanoTime() +
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
        final CmConnection c = byLocalId.get(m.remoteCommId());
        if (null == c || c.remoteCommId != m.localCommId())
        {
            // cm.c cm_dreq_handler: unknown connection: answer with a DREP anyway (cm_issue_drep).
            counters.increment(CmCounter.DREP_FOR_UNKNOWN_DREQ);
            txMad.wrap(tx, 0).cm(CmAttribute.DISCONNECT_REPLY, tid);
            drep.wrapMad(tx, 0).clear();
            drep.localCommId(m.remoteCommId()).remoteCommId(m.localCommId());
            transmit(from, tx);
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
                c.privateData = privateData(m);
                c.state = CmState.DREQ_RCVD;
                c.deadlineNs = Long.MAX_VALUE;
                final CmHandler h = c.handler;
                if (null != h)
                {
                    h.onDisconnectRequest(c);
                }
                if (CmState.DREQ_RCVD == c.state)
                {
                    answerDreq(c);
                }
                break;
            case TIMEWAIT:
                // IBA 12.9.7.4: the DREP was lost: send it again.
                counters.increment(CmCounter.DUPLICATES);
                if (null != c.lastAnswer && !c.answerIsMra)
                {
                    transmitCopy(c.peer, c.lastAnswer);
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
        final CmConnection c = matchBoth(m.remoteCommId(), m.localCommId());
        if (null == c)
        {
            return;
        }
        if (CmState.DREQ_SENT == c.state)
        {
            c.privateData = privateData(m);
            enterTimewait(c);
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

    private CmConnection matchBoth(final int ourId, final int theirId)
    {
        final CmConnection c = byLocalId.get(ourId);
        if (null == c || c.remoteCommId != theirId)
        {
            counters.increment(CmCounter.DROP_UNMATCHED);
            return null;
        }
        return c;
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
        final long now = clock.nanoTime();
        final ArrayList<CmConnection> fired = due;
        fired.clear();
        for (int i = 0, n = connections.size(); i < n; i++)
        {
            final CmConnection c = connections.get(i);
            if (Long.MAX_VALUE != c.deadlineNs && now - c.deadlineNs >= 0)
            {
                fired.add(c);
            }
        }
        for (int i = 0, n = fired.size(); i < n; i++)
        {
            onTimer(fired.get(i), now);
        }
        final int count = fired.size();
        fired.clear();
        return count;
    }

    private void onTimer(final CmConnection c, final long now)
    {
        switch (c.state)
        {
            case REQ_SENT:
            case MRA_REQ_RCVD:
            case REP_SENT:
            case MRA_REP_RCVD:
            case DREQ_SENT:
                if (c.retriesLeft > 0)
                {
                    c.retriesLeft--;
                    c.deadlineNs = now + c.timeoutNs;
                    counters.increment(CmCounter.RETRANSMISSIONS);
                    transmitCopy(c.peer, c.lastSent);
                    return;
                }
                counters.increment(CmCounter.TIMEOUTS);
                final CmState state = c.state;
                if (CmState.DREQ_SENT == state)
                {
                    enterTimewait(c);
                }
                else
                {
                    forget(c);
                }
                final CmHandler h = c.handler;
                if (null != h)
                {
                    h.onTimeout(c, state);
                }
                break;
            case TIMEWAIT:
                counters.increment(CmCounter.TIMEWAIT_EXITED);
                forget(c);
                final CmHandler owner = c.handler;
                if (null != owner)
                {
                    owner.onTimewaitExit(c);
                }
                break;
            default:
                c.deadlineNs = Long.MAX_VALUE;
                break;
        }
    }

    /**
     * @return the earliest armed timer (the clock's nanoseconds), or Long.MAX_VALUE.
     */
    public long earliestDeadlineNs()
    {
        long earliest = Long.MAX_VALUE;
        for (int i = 0, n = connections.size(); i < n; i++)
        {
            earliest = Math.min(earliest, connections.get(i).deadlineNs);
        }
        return earliest;
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
        return new ArrayList<>(connections);
    }

    /**
     * @param localCommId a local communication ID.
     * @return that connection, or null.
     */
    public CmConnection connection(final int localCommId)
    {
        return byLocalId.get(localCommId);
    }

    // ------------------------------------------------------------------------------------------------------------
    // Sending
    // ------------------------------------------------------------------------------------------------------------

    private void sendDreq(final CmConnection c, final byte[] privateData)
    {
        // cm.c ib_send_cm_dreq: a fresh TID from our comm ID (cm_form_tid); the DREQ names the peer's QP.
        txMad.wrap(tx, 0).cm(CmAttribute.DISCONNECT_REQUEST, formTid(c.localCommId));
        dreq.wrapMad(tx, 0).clear();
        dreq.localCommId(c.localCommId).remoteCommId(c.remoteCommId).remoteQpn(c.remoteQpn);
        putPrivateData(dreq, privateData);
        c.state = CmState.DREQ_SENT;
        c.lastSent = snapshot();
        armRetransmit(c, c.maxCmRetries, c.timeoutNs);
        transmit(c.peer, tx);
    }

    private void answerDreq(final CmConnection c)
    {
        txMad.wrap(tx, 0).cm(CmAttribute.DISCONNECT_REPLY, c.tid);
        drep.wrapMad(tx, 0).clear();
        drep.localCommId(c.localCommId).remoteCommId(c.remoteCommId);
        c.lastAnswer = snapshot();
        c.answerIsMra = false;
        transmit(c.peer, tx);
        enterTimewait(c);
    }

    private void sendMra(final CmConnection c, final int mraed)
    {
        txMad.wrap(tx, 0).cm(CmAttribute.MSG_RCPT_ACK, c.tid);
        mra.wrapMad(tx, 0).clear();
        mra.localCommId(c.localCommId).remoteCommId(c.remoteCommId).messageMraed(mraed)
            .serviceTimeout(config.mraServiceTimeout());
        c.lastAnswer = snapshot();
        c.answerIsMra = true;
        counters.increment(CmCounter.MRA_SENT);
        transmit(c.peer, tx);
    }

    private void resendAnswer(final CmConnection c)
    {
        if (null != c.lastAnswer)
        {
            if (c.answerIsMra)
            {
                counters.increment(CmCounter.MRA_SENT);
            }
            transmitCopy(c.peer, c.lastAnswer);
        }
    }

    private void sendRej(
        final CmConnection c, final int rejected, final int reason, final byte[] privateData, final int ariLength)
    {
        txMad.wrap(tx, 0).cm(CmAttribute.CONNECT_REJECT, c.tid);
        rej.wrapMad(tx, 0).clear();
        rej.localCommId(c.localCommId).remoteCommId(c.remoteCommId).messageRejected(rejected).reason(reason);
        if (GUID_ARI_LENGTH == ariLength)
        {
            tx.putLong(rej.ariBufferOffset(), localCaGuid, ByteOrder.BIG_ENDIAN);
            rej.ariLength(GUID_ARI_LENGTH);
        }
        putPrivateData(rej, privateData);
        counters.increment(CmCounter.REJ_SENT);
        transmit(c.peer, tx);
    }

    /**
     * A REJ for a REQ no connection was made for (cm.c cm_issue_rej): our comm ID 0, theirs echoed, their TID.
     */
    private void rejectUnknown(final MadAddress to, final long tid, final int remoteCommId, final int reason,
        final long ariHigh, final long ariLow)
    {
        txMad.wrap(tx, 0).cm(CmAttribute.CONNECT_REJECT, tid);
        rej.wrapMad(tx, 0).clear();
        rej.localCommId(0).remoteCommId(remoteCommId).messageRejected(CmRejMessage.REJECTED_REQ).reason(reason);
        if (CmRejectReason.INVALID_GID.code() == reason)
        {
            tx.putLong(rej.ariBufferOffset(), ariHigh, ByteOrder.BIG_ENDIAN);
            tx.putLong(rej.ariBufferOffset() + 8, ariLow, ByteOrder.BIG_ENDIAN);
            rej.ariLength(GID_ARI_LENGTH);
        }
        counters.increment(CmCounter.REJ_SENT);
        transmit(to, tx);
    }

    private void transmit(final MadAddress to, final UnsafeBuffer mad)
    {
        if (port.send(to, mad, 0))
        {
            counters.increment(CmCounter.MADS_SENT);
        }
        else
        {
            counters.increment(CmCounter.SEND_FAILURES);
        }
    }

    private void transmitCopy(final MadAddress to, final byte[] mad)
    {
        tx.putBytes(0, mad);
        transmit(to, tx);
    }

    private byte[] snapshot()
    {
        final byte[] copy = new byte[MAD_LENGTH];
        tx.getBytes(0, copy);
        return copy;
    }

    private static void putPrivateData(final CmMessage message, final byte[] data)
    {
        if (null != data && data.length > 0)
        {
            message.putPrivateData(new UnsafeBuffer(data), 0, data.length);
        }
    }

    private static byte[] privateData(final CmMessage message)
    {
        final byte[] data = new byte[message.privateDataLength()];
        message.buffer().getBytes(message.privateDataBufferOffset(), data);
        return data;
    }

    // ------------------------------------------------------------------------------------------------------------
    // Bookkeeping
    // ------------------------------------------------------------------------------------------------------------

    private void armRetransmit(final CmConnection c, final int retries, final long timeoutNs)
    {
        c.retriesLeft = retries;
        c.deadlineNs = clock.nanoTime() + timeoutNs;
    }

    private void enterTimewait(final CmConnection c)
    {
        if (CmState.TIMEWAIT != c.state)
        {
            counters.increment(CmCounter.TIMEWAIT_ENTERED);
        }
        c.state = CmState.TIMEWAIT;
        c.deadlineNs = clock.nanoTime() + CmConfig.timewaitNs(c.ackTimeout);
    }

    private void register(final CmConnection c)
    {
        byLocalId.put(c.localCommId, c);
        connections.add(c);
    }

    private void forget(final CmConnection c)
    {
        c.state = CmState.IDLE;
        c.deadlineNs = Long.MAX_VALUE;
        if (byLocalId.get(c.localCommId) == c)
        {
            byLocalId.remove(c.localCommId);
        }
        connections.remove(c);
    }

    private int newCommId()
    {
        while (true)
        {
            final int id = ids.nextCommId();
            if (0 != id && !byLocalId.containsKey(id))
            {
                return id;
            }
        }
    }

    /**
     * cm.c cm_form_tid: the MAD agent's hi_tid in the high 32 bits, the local comm ID as stored in network order
     * in the low 32 (so on the wire its bytes appear reversed: comm ID 0x0fbc6f2d gives TID ...2d6fbc0f).
     */
    private long formTid(final int localCommId)
    {
        return ((long)config.hiTid() << 32) | (Integer.reverseBytes(localCommId) & 0xFFFF_FFFFL);
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
