package org.roce4j.cm;

import org.roce4j.cm.oob.QpInfo;
import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.Mtu;
import org.roce4j.ib.QpAttrMask;
import org.roce4j.ib.QpAttributes;
import org.roce4j.ib.QpState;
import org.roce4j.ib.QpType;
import org.roce4j.wire.addr.Gid;
import org.roce4j.verbs.QueuePair;

/**
 * Moves a QP through INIT, RTR and RTS with the attributes the rdma-core examples use (pp_connect_ctx in
 * ibv_rc_pingpong.c and its UC/UD siblings), so a roce4j QP connects the way a C peer expects:
 * <ul>
 *   <li>RC RTR: path MTU, the peer's QPN and PSN, max_dest_rd_atomic, min_rnr_timer 12 (0.64 ms), the peer's GID
 *   with hop limit 1 (as ibv_rc_pingpong; RoCEv2 routers are not crossed); RTS: timeout 14 (about 67 ms),
 *   retry_cnt 7, rnr_retry 7, our PSN, max_rd_atomic.</li>
 *   <li>UC: the same without the reliability attributes.</li>
 *   <li>UD: INIT with the Q_Key, RTR, RTS with our PSN; the peer is named per send by an address handle.</li>
 * </ul>
 */
public final class QpSetup
{
    /** min_rnr_timer of ibv_rc_pingpong: code 12, 0.64 ms. */
    public static final int DEFAULT_MIN_RNR_TIMER = 12;
    /** Local ACK timeout of ibv_rc_pingpong: 14, 4.096 µs × 2^14 ≈ 67 ms. */
    public static final int DEFAULT_TIMEOUT = 14;
    /** retry_cnt and rnr_retry of ibv_rc_pingpong: 7 (rnr_retry 7 means retry forever). */
    public static final int DEFAULT_RETRY = 7;
    /** Q_Key of ibv_ud_pingpong and perftest. */
    public static final int DEFAULT_QKEY = 0x1111_1111;

    private Mtu mtu = Mtu.MTU_1024;
    private int sgidIndex = 1;
    private int hopLimit = 1;
    private int trafficClass;
    private int serviceLevel;
    private int accessFlags = AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC;
    private int maxRdAtomic = 1;
    private int maxDestRdAtomic = 1;
    private int minRnrTimer = DEFAULT_MIN_RNR_TIMER;
    private int timeout = DEFAULT_TIMEOUT;
    private int retryCount = DEFAULT_RETRY;
    private int rnrRetry = DEFAULT_RETRY;
    private int qkey = DEFAULT_QKEY;

    /**
     * @param mtu path MTU.
     * @return this.
     */
    public QpSetup mtu(final Mtu mtu)
    {
        this.mtu = mtu;
        return this;
    }

    /**
     * @param index local GID index to send from (1: IPv4 on roce4j and rxe).
     * @return this.
     */
    public QpSetup sgidIndex(final int index)
    {
        this.sgidIndex = index;
        return this;
    }

    /**
     * @param hopLimit hop limit / TTL of the path.
     * @return this.
     */
    public QpSetup hopLimit(final int hopLimit)
    {
        this.hopLimit = hopLimit;
        return this;
    }

    /**
     * @param trafficClass IP traffic class / TOS.
     * @return this.
     */
    public QpSetup trafficClass(final int trafficClass)
    {
        this.trafficClass = trafficClass;
        return this;
    }

    /**
     * @param serviceLevel SL (ibv_rc_pingpong -l).
     * @return this.
     */
    public QpSetup serviceLevel(final int serviceLevel)
    {
        this.serviceLevel = serviceLevel;
        return this;
    }

    /**
     * @param flags what the peer may do through this QP.
     * @return this.
     */
    public QpSetup accessFlags(final int flags)
    {
        this.accessFlags = flags;
        return this;
    }

    /**
     * @param outstanding READs/atomics this side may have in flight (ORD) and the responder resources it keeps (IRD).
     * @return this.
     */
    public QpSetup readAtomicDepth(final int outstanding)
    {
        this.maxRdAtomic = outstanding;
        this.maxDestRdAtomic = outstanding;
        return this;
    }

    /**
     * Set the two depths separately, as perftest does from the exchanged out_reads (ctx_modify_qp_to_rtr/rts):
     * max_rd_atomic from the peer's, max_dest_rd_atomic from ours.
     *
     * @param initiatorDepth     READs/atomics this side may have in flight (max_rd_atomic, at RTS).
     * @param responderResources READs/atomics of the peer this side keeps state for (max_dest_rd_atomic, at RTR).
     * @return this.
     */
    public QpSetup readAtomicDepths(final int initiatorDepth, final int responderResources)
    {
        this.maxRdAtomic = initiatorDepth;
        this.maxDestRdAtomic = responderResources;
        return this;
    }

    /**
     * @param timeout local ACK timeout exponent (0..31).
     * @return this.
     */
    public QpSetup timeout(final int timeout)
    {
        this.timeout = timeout;
        return this;
    }

    /**
     * @param retryCount transport retries (0..7).
     * @param rnrRetry   RNR retries (0..7, 7 = forever).
     * @return this.
     */
    public QpSetup retries(final int retryCount, final int rnrRetry)
    {
        this.retryCount = retryCount;
        this.rnrRetry = rnrRetry;
        return this;
    }

    /**
     * @param code min_rnr_timer (0..31).
     * @return this.
     */
    public QpSetup minRnrTimer(final int code)
    {
        this.minRnrTimer = code;
        return this;
    }

    /**
     * @param qkey UD Q_Key.
     * @return this.
     */
    public QpSetup qkey(final int qkey)
    {
        this.qkey = qkey;
        return this;
    }

    /**
     * @return the path MTU.
     */
    public Mtu mtu()
    {
        return mtu;
    }

    /**
     * @return the UD Q_Key.
     */
    public int qkey()
    {
        return qkey;
    }

    /**
     * RESET → INIT.
     *
     * @param qp the QP.
     */
    public void toInit(final QueuePair qp)
    {
        final QpAttributes attr = new QpAttributes();
        attr.qpState = QpState.INIT;
        attr.pkeyIndex = 0;
        attr.portNum = 1;
        if (qp.type().isDatagram())
        {
            attr.qkey = qkey;
            qp.modify(attr, QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.QKEY);
        }
        else
        {
            attr.qpAccessFlags = accessFlags;
            qp.modify(attr, QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.ACCESS_FLAGS);
        }
    }

    /**
     * Connect two RC or UC QPs this JVM holds both ends of (two devices of one program, tests, examples): each goes
     * RESET → INIT → RTR → RTS towards the other, with the other's QPN, starting PSN and GID at this setup's GID index
     * (1, the IPv4-mapped GID, by default). Between processes each side sends its {@link QpInfo} to the other out of
     * band instead (ibv_rc_pingpong's TCP exchange) or lets rdma_cm connect them.
     *
     * @param a    one QP, in RESET.
     * @param psnA its starting PSN.
     * @param b    the other QP, in RESET.
     * @param psnB its starting PSN.
     */
    public void connectPair(final QueuePair a, final int psnA, final QueuePair b, final int psnB)
    {
        toInit(a);
        toInit(b);
        toRts(a, psnA, info(b, psnB));
        toRts(b, psnB, info(a, psnA));
    }

    private QpInfo info(final QueuePair qp, final int psn)
    {
        final Gid gid = qp.pd().device().queryGid(sgidIndex);
        return QpInfo.of(0, qp.qpNum(), psn, gid.high(), gid.low());
    }

    /**
     * INIT → RTR → RTS towards a peer.
     *
     * @param qp       the QP, in INIT.
     * @param localPsn our starting PSN.
     * @param remote   the peer's QPN, PSN and GID (ignored for UD but the PSN).
     */
    public void toRts(final QueuePair qp, final int localPsn, final QpInfo remote)
    {
        final QpAttributes attr = new QpAttributes();
        final QpType type = qp.type();
        attr.qpState = QpState.RTR;
        if (type.isDatagram())
        {
            qp.modify(attr, QpAttrMask.STATE);
            attr.qpState = QpState.RTS;
            attr.sqPsn = localPsn;
            qp.modify(attr, QpAttrMask.STATE | QpAttrMask.SQ_PSN);
            return;
        }
        attr.pathMtu = mtu;
        attr.destQpNum = remote.qpn();
        attr.rqPsn = remote.psn();
        attr.ahAttr.dgid(remote.gidHigh(), remote.gidLow()).sgidIndex(sgidIndex).hopLimit(hopLimit)
            .trafficClass(trafficClass).serviceLevel(serviceLevel);
        int mask = QpAttrMask.STATE | QpAttrMask.AV | QpAttrMask.PATH_MTU | QpAttrMask.DEST_QPN | QpAttrMask.RQ_PSN;
        if (QpType.RC == type)
        {
            attr.maxDestRdAtomic = maxDestRdAtomic;
            attr.minRnrTimer = minRnrTimer;
            mask |= QpAttrMask.MAX_DEST_RD_ATOMIC | QpAttrMask.MIN_RNR_TIMER;
        }
        qp.modify(attr, mask);
        attr.qpState = QpState.RTS;
        attr.sqPsn = localPsn;
        mask = QpAttrMask.STATE | QpAttrMask.SQ_PSN;
        if (QpType.RC == type)
        {
            attr.timeout = timeout;
            attr.retryCnt = retryCount;
            attr.rnrRetry = rnrRetry;
            attr.maxRdAtomic = maxRdAtomic;
            mask |= QpAttrMask.TIMEOUT | QpAttrMask.RETRY_CNT | QpAttrMask.RNR_RETRY | QpAttrMask.MAX_QP_RD_ATOMIC;
        }
        qp.modify(attr, mask);
    }
}
