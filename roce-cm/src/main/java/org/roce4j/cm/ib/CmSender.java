package org.roce4j.cm.ib;

import java.nio.ByteOrder;

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
import org.roce4j.wire.mad.CmSidrRepMessage;
import org.roce4j.wire.mad.CmSidrReqMessage;
import org.roce4j.wire.mad.MadHeader;

/**
 * Builds and sends the {@link IbCm}'s MADs (the cm_format_* and cm_issue_* helpers of the kernel's cm.c): one
 * reusable transmit buffer, one flyweight per message, the TID each message carries, and the copies kept for
 * retransmission and for answering duplicates.
 *
 * <p>It changes no connection state beyond the copies it keeps ({@code CmConnection.lastSent},
 * {@code CmConnection.lastAnswer}): the state machine in {@link IbCm} and {@link CmReceiver} decides what to send,
 * sets the state and arms the timers, then sends. Same thread as the CM.
 */
final class CmSender
{
    /** Bytes of the buffer messages are built in: one MAD. */
    static final int MAD_LENGTH = MadHeader.MAD_LENGTH;
    /** Bytes of ARI in a REJ TIMEOUT: the rejecting CA's GUID (IBA 12.6.7.2, cm.c cm_destroy_id). */
    static final int GUID_ARI_LENGTH = 8;
    /** Bytes of ARI in a REJ INVALID_GID: the GID that is not ours (cm.c cm_req_handler). */
    private static final int GID_ARI_LENGTH = 16;

    private final MadPort port;
    private final CmConfig config;
    private final long localCaGuid;
    private final CmCounters counters;
    private final UnsafeBuffer tx = new UnsafeBuffer(new byte[MAD_LENGTH]);
    private final MadHeader txMad = new MadHeader();
    private final CmReqMessage req = new CmReqMessage();
    private final CmRepMessage rep = new CmRepMessage();
    private final CmRtuMessage rtu = new CmRtuMessage();
    private final CmRejMessage rej = new CmRejMessage();
    private final CmMraMessage mra = new CmMraMessage();
    private final CmDreqMessage dreq = new CmDreqMessage();
    private final CmDrepMessage drep = new CmDrepMessage();
    private final CmSidrReqMessage sidrReq = new CmSidrReqMessage();
    private final CmSidrRepMessage sidrRep = new CmSidrRepMessage();

    /**
     * @param port        sends MADs.
     * @param config      timeouts, retries and the TID's high half.
     * @param localCaGuid this device's node GUID, sent in REQ, REP and REJ TIMEOUT.
     * @param counters    where to count.
     */
    CmSender(final MadPort port, final CmConfig config, final long localCaGuid, final CmCounters counters)
    {
        this.port = port;
        this.config = config;
        this.localCaGuid = localCaGuid;
        this.counters = counters;
    }

    /**
     * Build the REQ of an active connection (ib_send_cm_req) and keep it in {@code CmConnection.lastSent}; the
     * caller arms the retransmit timer and then calls {@link #send}.
     *
     * @param c           the connection, its fields set from the request parameters.
     * @param privateData at most 92 bytes, or null.
     */
    void buildReq(final CmConnection c, final byte[] privateData)
    {
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
        putPrivateData(req, privateData);
        c.lastSent = snapshot();
    }

    /**
     * Build the REP of a passive connection (ib_send_cm_rep) and keep it in {@code CmConnection.lastSent}; the
     * caller arms the retransmit timer and then calls {@link #send}.
     *
     * @param c             the connection, our QPN, PSN and depths recorded.
     * @param rnrRetryCount the RNR retry count the REP asks of the active side.
     * @param privateData   at most 196 bytes, or null.
     */
    void buildRep(final CmConnection c, final int rnrRetryCount, final byte[] privateData)
    {
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
            .rnrRetryCount(rnrRetryCount)
            .srq(false)
            .localCaGuid(localCaGuid);
        putPrivateData(rep, privateData);
        c.lastSent = snapshot();
    }

    /**
     * Build the RTU (ib_send_cm_rtu) and keep it as the answer to a repeated REP; the caller then calls
     * {@link #send}.
     *
     * @param c           the connection.
     * @param privateData at most 224 bytes, or null.
     */
    void buildRtu(final CmConnection c, final byte[] privateData)
    {
        txMad.wrap(tx, 0).cm(CmAttribute.READY_TO_USE, c.tid);
        rtu.wrapMad(tx, 0).clear();
        rtu.localCommId(c.localCommId).remoteCommId(c.remoteCommId);
        putPrivateData(rtu, privateData);
        c.lastAnswer = snapshot();
        c.answerIsMra = false;
    }

    /**
     * Build the DREQ (ib_send_cm_dreq) and keep it in {@code CmConnection.lastSent}; the caller arms the retransmit
     * timer and then calls {@link #send}.
     *
     * @param c           the connection.
     * @param privateData at most 220 bytes, or null.
     */
    void buildDreq(final CmConnection c, final byte[] privateData)
    {
        // cm.c ib_send_cm_dreq: a fresh TID from our comm ID (cm_form_tid); the DREQ names the peer's QP.
        txMad.wrap(tx, 0).cm(CmAttribute.DISCONNECT_REQUEST, formTid(c.localCommId));
        dreq.wrapMad(tx, 0).clear();
        dreq.localCommId(c.localCommId).remoteCommId(c.remoteCommId).remoteQpn(c.remoteQpn);
        putPrivateData(dreq, privateData);
        c.lastSent = snapshot();
    }

    /**
     * Send the DREP answering a DREQ (ib_send_cm_drep) and keep it as the answer to a repeated DREQ.
     *
     * @param c the connection.
     */
    void sendDrep(final CmConnection c)
    {
        txMad.wrap(tx, 0).cm(CmAttribute.DISCONNECT_REPLY, c.tid);
        drep.wrapMad(tx, 0).clear();
        drep.localCommId(c.localCommId).remoteCommId(c.remoteCommId);
        c.lastAnswer = snapshot();
        c.answerIsMra = false;
        send(c.peer);
    }

    /**
     * A DREP for a DREQ no connection matches (cm.c cm_issue_drep): the DREQ's comm IDs swapped, its TID.
     *
     * @param to           the sender of the DREQ.
     * @param tid          the DREQ's TID.
     * @param ourCommId    the DREQ's remote comm ID.
     * @param theirCommId  the DREQ's local comm ID.
     */
    void sendDrepUnknown(final MadAddress to, final long tid, final int ourCommId, final int theirCommId)
    {
        txMad.wrap(tx, 0).cm(CmAttribute.DISCONNECT_REPLY, tid);
        drep.wrapMad(tx, 0).clear();
        drep.localCommId(ourCommId).remoteCommId(theirCommId);
        send(to);
    }

    /**
     * Send an MRA (cm.c cm_issue_mra path of ib_send_cm_mra) and keep it as the answer to a repeated message.
     *
     * @param c     the connection.
     * @param mraed which message the MRA acknowledges.
     */
    void sendMra(final CmConnection c, final int mraed)
    {
        txMad.wrap(tx, 0).cm(CmAttribute.MSG_RCPT_ACK, c.tid);
        mra.wrapMad(tx, 0).clear();
        mra.localCommId(c.localCommId).remoteCommId(c.remoteCommId).messageMraed(mraed)
            .serviceTimeout(config.mraServiceTimeout());
        c.lastAnswer = snapshot();
        c.answerIsMra = true;
        counters.increment(CmCounter.MRA_SENT);
        send(c.peer);
    }

    /**
     * Send the kept answer (RTU, MRA or DREP) again, if there is one.
     *
     * @param c the connection.
     */
    void resendAnswer(final CmConnection c)
    {
        if (null != c.lastAnswer)
        {
            if (c.answerIsMra)
            {
                counters.increment(CmCounter.MRA_SENT);
            }
            sendCopy(c.peer, c.lastAnswer);
        }
    }

    /**
     * Send a REJ on a connection (ib_send_cm_rej, or cm_destroy_id's REJ TIMEOUT).
     *
     * @param c           the connection.
     * @param rejected    which message is rejected.
     * @param reason      REJ reason.
     * @param privateData at most 148 bytes, or null.
     * @param ariLength   {@link #GUID_ARI_LENGTH} to carry our CA GUID as ARI, else 0.
     */
    void sendRej(
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
        send(c.peer);
    }

    /**
     * A REJ for a REQ no connection was made for (cm.c cm_issue_rej): our comm ID 0, theirs echoed, their TID.
     *
     * @param to           the sender of the REQ.
     * @param tid          the REQ's TID.
     * @param remoteCommId the REQ's local comm ID.
     * @param reason       REJ reason.
     * @param ariHigh      high 64 bits of the GID sent as ARI with INVALID_GID.
     * @param ariLow       low 64 bits of that GID.
     */
    void rejectUnknown(final MadAddress to, final long tid, final int remoteCommId, final int reason,
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
        send(to);
    }

    /**
     * Build the SIDR_REQ of a UD client (cm.c ib_send_cm_sidr_req, cm_format_sidr_req) and keep it in
     * {@code CmConnection.lastSent}: Request ID = our comm ID, the default P_Key 0xFFFF of a RoCE path, the service
     * ID. The caller arms the retransmit timer and then calls {@link #send}.
     *
     * @param c           the connection, comm ID, TID and service ID set.
     * @param privateData at most 216 bytes, or null.
     */
    void buildSidrReq(final CmConnection c, final byte[] privateData)
    {
        txMad.wrap(tx, 0).cm(CmAttribute.SERVICE_ID_RES_REQ, c.tid);
        sidrReq.wrapMad(tx, 0).clear();
        sidrReq.requestId(c.localCommId).pkey(0xFFFF).serviceId(c.serviceId);
        putPrivateData(sidrReq, privateData);
        c.lastSent = snapshot();
    }

    /**
     * Send a SIDR_REP (cm.c ib_send_cm_sidr_rep, cm_format_sidr_rep): the SIDR_REQ's TID and Request ID, the status,
     * and with {@link CmSidrRepMessage#STATUS_SUCCESS} the QPN and Q_Key that serve the service ID.
     *
     * @param to          the sender of the SIDR_REQ.
     * @param tid         the SIDR_REQ's TID.
     * @param requestId   the SIDR_REQ's Request ID.
     * @param serviceId   the SIDR_REQ's service ID.
     * @param status      enum ib_cm_sidr_status.
     * @param qpn         the serving UD QP (0 unless SUCCESS).
     * @param qkey        its Q_Key (0 unless SUCCESS).
     * @param privateData at most 136 bytes, or null.
     */
    void sendSidrRep(final MadAddress to, final long tid, final int requestId, final long serviceId,
        final int status, final int qpn, final int qkey, final byte[] privateData)
    {
        txMad.wrap(tx, 0).cm(CmAttribute.SERVICE_ID_RES_REQ_RESP, tid);
        sidrRep.wrapMad(tx, 0).clear();
        sidrRep.requestId(requestId).status(status).qpn(qpn).serviceId(serviceId).qkey(qkey);
        putPrivateData(sidrRep, privateData);
        counters.increment(CmCounter.SIDR_REP_SENT);
        if (CmSidrRepMessage.STATUS_UNSUPPORTED == status)
        {
            counters.increment(CmCounter.SIDR_REP_UNSUPPORTED);
        }
        else if (CmSidrRepMessage.STATUS_REJECT == status)
        {
            counters.increment(CmCounter.SIDR_REP_REJECT);
        }
        send(to);
    }

    /**
     * Send the MAD last built, counting it as sent or failed.
     *
     * @param to where.
     */
    void send(final MadAddress to)
    {
        if (port.send(to, tx, 0))
        {
            counters.increment(CmCounter.MADS_SENT);
        }
        else
        {
            counters.increment(CmCounter.SEND_FAILURES);
        }
    }

    /**
     * Send a kept copy of a MAD again (retransmission or a duplicate's answer).
     *
     * @param to  where.
     * @param mad the copy.
     */
    void sendCopy(final MadAddress to, final byte[] mad)
    {
        tx.putBytes(0, mad);
        send(to);
    }

    /**
     * cm.c cm_form_tid: the MAD agent's hi_tid in the high 32 bits, the local comm ID as stored in network order
     * in the low 32 (so on the wire its bytes appear reversed: comm ID 0x0fbc6f2d gives TID ...2d6fbc0f).
     *
     * @param localCommId our comm ID.
     * @return the TID.
     */
    long formTid(final int localCommId)
    {
        return ((long)config.hiTid() << 32) | (Integer.reverseBytes(localCommId) & 0xFFFF_FFFFL);
    }

    /**
     * @param message a received CM message.
     * @return a copy of its private data.
     */
    static byte[] privateData(final CmMessage message)
    {
        final byte[] data = new byte[message.privateDataLength()];
        message.buffer().getBytes(message.privateDataBufferOffset(), data);
        return data;
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
}
