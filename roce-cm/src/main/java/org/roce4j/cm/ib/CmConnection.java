package org.roce4j.cm.ib;

import org.roce4j.wire.mad.CmRejectReason;
import org.roce4j.wire.addr.Gid;

/**
 * One connection's CM state (struct cm_id_private): its state, both communication IDs, the transaction ID, the QPs
 * and starting PSNs of both sides, the negotiated depths and retry counts, the path, the timers, and the last
 * messages sent (for retransmission and for answering duplicates). Written only by the thread running the
 * {@link IbCm}; the getters are for its {@link CmHandler} on that thread.
 */
public final class CmConnection
{
    final boolean active;
    CmState state = CmState.IDLE;
    int localCommId;
    int remoteCommId;
    long tid;
    MadAddress peer;
    long serviceId;
    long remoteCaGuid;
    int localQpn;
    int remoteQpn;
    int localPsn;
    int remotePsn;
    int pathMtu;
    int transportType;
    long localGidHigh;
    long localGidLow;
    long remoteGidHigh;
    long remoteGidLow;
    int flowLabel;
    int trafficClass;
    int hopLimit;
    int responderResources;
    int initiatorDepth;
    int remoteResponderResources;
    int remoteInitiatorDepth;
    int retryCount;
    int rnrRetryCount;
    int remoteRnrRetryCount;
    int ackTimeout;
    int targetAckDelay;
    long timeoutNs;
    int maxCmRetries;
    int retriesLeft;
    long deadlineNs;
    byte[] privateData = new byte[0];
    int rejectReason;
    int remoteQkey;
    int sidrStatus;
    byte[] lastSent;
    byte[] lastAnswer;
    boolean answerIsMra;
    CmHandler handler;
    Object context;

    CmConnection(final boolean active)
    {
        this.active = active;
    }

    /**
     * @return true for the side that sent the REQ.
     */
    public boolean isActive()
    {
        return active;
    }

    /**
     * @return the current state.
     */
    public CmState state()
    {
        return state;
    }

    /**
     * @return our communication ID.
     */
    public int localCommId()
    {
        return localCommId;
    }

    /**
     * @return the peer's communication ID (0 until known).
     */
    public int remoteCommId()
    {
        return remoteCommId;
    }

    /**
     * @return the transaction ID of the REQ this connection started with.
     */
    public long transactionId()
    {
        return tid;
    }

    /**
     * @return where the peer's CM is.
     */
    public MadAddress peer()
    {
        return peer;
    }

    /**
     * @return the service ID of the REQ.
     */
    public long serviceId()
    {
        return serviceId;
    }

    /**
     * @return the peer's CA GUID (from its REQ or REP).
     */
    public long remoteCaGuid()
    {
        return remoteCaGuid;
    }

    /**
     * @return our QP number.
     */
    public int localQpn()
    {
        return localQpn;
    }

    /**
     * @return the peer's QP number (0 until known).
     */
    public int remoteQpn()
    {
        return remoteQpn;
    }

    /**
     * @return the Starting PSN of our REQ or REP. In Linux (cm.c) that is the PSN our QP expects first: its rq_psn.
     */
    public int localPsn()
    {
        return localPsn;
    }

    /**
     * @return the Starting PSN of the peer's REQ or REP: the PSN the peer expects first, so our QP's sq_psn
     *     (cm.c cm_req_handler / cm_rep_handler).
     */
    public int remotePsn()
    {
        return remotePsn;
    }

    /**
     * @return path MTU code (1 = 256 ... 5 = 4096).
     */
    public int pathMtu()
    {
        return pathMtu;
    }

    /**
     * @return the REQ's transport service type (0 RC, 1 UC).
     */
    public int transportType()
    {
        return transportType;
    }

    /**
     * @return high 64 bits of our GID on the path.
     */
    public long localGidHigh()
    {
        return localGidHigh;
    }

    /**
     * @return low 64 bits of our GID on the path.
     */
    public long localGidLow()
    {
        return localGidLow;
    }

    /**
     * @return high 64 bits of the peer's GID on the path.
     */
    public long remoteGidHigh()
    {
        return remoteGidHigh;
    }

    /**
     * @return low 64 bits of the peer's GID on the path.
     */
    public long remoteGidLow()
    {
        return remoteGidLow;
    }

    /**
     * @return the path's flow label.
     */
    public int flowLabel()
    {
        return flowLabel;
    }

    /**
     * @return the path's traffic class.
     */
    public int trafficClass()
    {
        return trafficClass;
    }

    /**
     * @return the path's hop limit.
     */
    public int hopLimit()
    {
        return hopLimit;
    }

    /**
     * @return RDMA READ / atomic requests our QP accepts in flight (its max_dest_rd_atomic).
     */
    public int responderResources()
    {
        return responderResources;
    }

    /**
     * @return RDMA READ / atomic requests our QP issues in flight (its max_rd_atomic).
     */
    public int initiatorDepth()
    {
        return initiatorDepth;
    }

    /**
     * @return responder resources in the peer's REQ or REP.
     */
    public int remoteResponderResources()
    {
        return remoteResponderResources;
    }

    /**
     * @return initiator depth in the peer's REQ or REP.
     */
    public int remoteInitiatorDepth()
    {
        return remoteInitiatorDepth;
    }

    /**
     * @return transport retry count for our QP (the REQ's).
     */
    public int retryCount()
    {
        return retryCount;
    }

    /**
     * @return RNR retry count for our QP: the REQ's on the passive side, the REP's on the active side.
     */
    public int rnrRetryCount()
    {
        return rnrRetryCount;
    }

    /**
     * @return local ACK timeout code for our QP.
     */
    public int ackTimeout()
    {
        return ackTimeout;
    }

    /**
     * @return the CM response timeout this connection retransmits with, in nanoseconds.
     */
    public long timeoutNs()
    {
        return timeoutNs;
    }

    /**
     * @return how often this connection's REQ, REP or DREQ is sent again at most (Max CM Retries).
     */
    public int maxCmRetries()
    {
        return maxCmRetries;
    }

    /**
     * @return retries left for the message waiting for an answer.
     */
    public int retriesLeft()
    {
        return retriesLeft;
    }

    /**
     * @return when the connection's timer fires (engine clock), or Long.MAX_VALUE.
     */
    public long deadlineNs()
    {
        return deadlineNs;
    }

    /**
     * @return private data of the last REQ, REP, REJ or DREQ received (a copy, its full wire length).
     */
    public byte[] privateData()
    {
        return privateData.clone();
    }

    /**
     * @return the reason of the REJ received, 0 before any.
     */
    public int rejectReason()
    {
        return rejectReason;
    }

    /**
     * @return the handler, or null.
     */
    public CmHandler handler()
    {
        return handler;
    }

    /**
     * @param handler receives this connection's events from now on.
     * @return this.
     */
    public CmConnection handler(final CmHandler handler)
    {
        this.handler = handler;
        return this;
    }

    /**
     * @return the Q_Key of a SIDR_REP received (UD client), else 0.
     */
    public int remoteQkey()
    {
        return remoteQkey;
    }

    /**
     * @return the status of a SIDR_REP received (UD client; {@code CmSidrRepMessage.STATUS_*}), else 0.
     */
    public int sidrStatus()
    {
        return sidrStatus;
    }

    /**
     * @return the owner's object for this connection, or null.
     */
    public Object context()
    {
        return context;
    }

    /**
     * @param context the owner's object for this connection.
     * @return this.
     */
    public CmConnection context(final Object context)
    {
        this.context = context;
        return this;
    }

    /**
     * @return e.g. {@code active ESTABLISHED local 0x0fbc6f2d remote 0xcbda2625 peer 10.77.0.3 qp 1}.
     */
    public String toString()
    {
        final CmRejectReason reason = 0 == rejectReason ? null : CmRejectReason.of(rejectReason);
        return (active ? "active " : "passive ") + state + " local 0x" + Integer.toHexString(localCommId) +
            " remote 0x" + Integer.toHexString(remoteCommId) + " qpn 0x" + Integer.toHexString(localQpn) +
            " -> 0x" + Integer.toHexString(remoteQpn) + " peer " + (null == peer ? "?" : peer.toString()) +
            " path " + Gid.toString(localGidHigh, localGidLow) + " -> " + Gid.toString(remoteGidHigh, remoteGidLow) +
            (null == reason ? "" : " rejected " + reason);
    }
}
