package org.roce4j.ib;

/**
 * QP attributes for modify and query (struct ibv_qp_attr). Which fields a modify applies is given by a
 * {@link QpAttrMask}; the others are ignored.
 */
public final class QpAttributes
{
    /** qp_state: the state to move to. */
    public QpState qpState = QpState.RESET;
    /** cur_qp_state: the state the caller believes the QP is in (checked when CUR_STATE is set). */
    public QpState curQpState = QpState.RESET;
    /** path_mtu. */
    public Mtu pathMtu = Mtu.MTU_256;
    /** qkey (UD). */
    public int qkey;
    /** rq_psn: the first PSN the responder expects. */
    public int rqPsn;
    /** sq_psn: the first PSN the requester sends. */
    public int sqPsn;
    /** dest_qp_num (RC/UC). */
    public int destQpNum;
    /** qp_access_flags: what remote peers may do through this QP (REMOTE_WRITE/READ/ATOMIC). */
    public int qpAccessFlags;
    /** ah_attr: the primary path (RC/UC). */
    public final AhAttributes ahAttr = new AhAttributes();
    /** pkey_index (always 0: the only P_Key is 0xFFFF). */
    public int pkeyIndex;
    /** port_num (always 1). */
    public int portNum = 1;
    /** min_rnr_timer: the RNR NAK timer code this responder advertises (0..31). */
    public int minRnrTimer;
    /** timeout: local ACK timeout, 4.096 µs * 2^timeout, 0 = infinite (0..31). */
    public int timeout;
    /**
     * retry_cnt: transport retries before RETRY_EXC_ERR (0..7; IBA 9.7.6.1.3: a silent peer fails the WQE after
     * about timeout x (retry_cnt + 1); rxe treats 7 as infinite, roce4j only with
     * EngineConfig.retryCountSevenForever).
     */
    public int retryCnt;
    /** rnr_retry: RNR retries before RNR_RETRY_EXC_ERR (0..7; 7 = infinite, IBA 9.7.5.2.8). */
    public int rnrRetry;
    /** max_rd_atomic: READs/atomics this requester may have outstanding (ORD). */
    public int maxRdAtomic;
    /** max_dest_rd_atomic: READs/atomics the responder keeps resources for (IRD). */
    public int maxDestRdAtomic;
    /** sq_draining (query only). */
    public boolean sqDraining;
    /** Capabilities (query; modify with CAP is not supported by rxe either). */
    public final QpCapabilities cap = new QpCapabilities();

    /**
     * @return e.g. {@code qp_attr{state=RTR mtu=1024 dest_qp=0x11 ...}}.
     */
    public String toString()
    {
        return "qp_attr{state=" + qpState + " mtu=" + pathMtu.bytes() + " dest_qp=0x" + Integer.toHexString(destQpNum) +
            " rq_psn=0x" + Integer.toHexString(rqPsn) + " sq_psn=0x" + Integer.toHexString(sqPsn) + " qkey=0x" +
            Integer.toHexString(qkey) + " access=" + AccessFlags.toString(qpAccessFlags) + " " + ahAttr +
            " min_rnr_timer=" + minRnrTimer + " timeout=" + timeout + " retry_cnt=" + retryCnt + " rnr_retry=" +
            rnrRetry + " max_rd_atomic=" + maxRdAtomic + " max_dest_rd_atomic=" + maxDestRdAtomic + "}";
    }
}
