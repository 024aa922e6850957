package org.roce4j.ib;

/**
 * Work completion status (enum ibv_wc_status), with the libibverbs values, meanings and the texts
 * ibv_wc_status_str() gives them (rdma-core libibverbs/enum_strs.c), which the tools print.
 */
public enum WcStatus
{
    /** 0: the operation completed. */
    SUCCESS("success"),
    /** 1: local length error: a receive buffer too small for the message, or a send too long for the QP. */
    LOC_LEN_ERR("local length error"),
    /** 2: local QP operation error: an internal consistency error, e.g. a malformed WQE. */
    LOC_QP_OP_ERR("local QP operation error"),
    /** 3: local EE context operation error (RD only; never reported by roce4j). */
    LOC_EEC_OP_ERR("local EE context operation error"),
    /** 4: local protection error: an SGE's lkey, bounds or access flags do not allow the access. */
    LOC_PROT_ERR("local protection error"),
    /** 5: the WR was flushed because the QP entered the error state. */
    WR_FLUSH_ERR("Work Request Flushed Error"),
    /** 6: memory window bind error. */
    MW_BIND_ERR("memory management operation error"),
    /** 7: bad response: an unexpected opcode in a response. */
    BAD_RESP_ERR("bad response error"),
    /** 8: local access error: a protection error on a local buffer written by an incoming RDMA WRITE with imm. */
    LOC_ACCESS_ERR("local access error"),
    /** 9: remote invalid request: the responder NAKed with Invalid Request. */
    REM_INV_REQ_ERR("remote invalid request error"),
    /** 10: remote access error: the responder NAKed with Remote Access Error (rkey, bounds, permission). */
    REM_ACCESS_ERR("remote access error"),
    /** 11: remote operational error: the responder NAKed with Remote Operational Error. */
    REM_OP_ERR("remote operation error"),
    /** 12: transport retry counter exceeded: no ACK after retry_cnt retransmissions. */
    RETRY_EXC_ERR("transport retry counter exceeded"),
    /** 13: RNR retry counter exceeded: the responder kept answering RNR NAK. */
    RNR_RETRY_EXC_ERR("RNR retry counter exceeded"),
    /** 14: local RDD violation (RD only). */
    LOC_RDD_VIOL_ERR("local RDD violation error"),
    /** 15: remote invalid RD request (RD only). */
    REM_INV_RD_REQ_ERR("remote invalid RD request"),
    /** 16: remote aborted. */
    REM_ABORT_ERR("aborted error"),
    /** 17: invalid EE context number (RD only). */
    INV_EECN_ERR("invalid EE context number"),
    /** 18: invalid EE context state (RD only). */
    INV_EEC_STATE_ERR("invalid EE context state"),
    /** 19: fatal error. */
    FATAL_ERR("fatal error"),
    /** 20: response timeout. */
    RESP_TIMEOUT_ERR("response timeout error"),
    /** 21: general error. */
    GENERAL_ERR("general error");

    private static final WcStatus[] VALUES = values();

    private final String description;

    WcStatus(final String description)
    {
        this.description = description;
    }

    /**
     * @return what ibv_wc_status_str() returns for this status, e.g. "transport retry counter exceeded".
     */
    public String description()
    {
        return description;
    }

    /**
     * @return the libibverbs enum value.
     */
    public int verbsValue()
    {
        return ordinal();
    }

    /**
     * @param ordinal from {@link #ordinal()}.
     * @return the constant.
     */
    public static WcStatus fromOrdinal(final int ordinal)
    {
        return VALUES[ordinal];
    }
}
