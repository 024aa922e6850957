package org.roce4j.cm.ib;

/**
 * Everything the IB CM counts: MADs in and out, every reason a MAD is dropped, duplicates, retransmissions,
 * timeouts and the messages that end connections. Names follow the kernel CM's counters where one exists
 * (drivers/infiniband/core/cm.c cm_counter_groups: xmit, xmit_retries, recv, recv_duplicates).
 */
public enum CmCounter
{
    /** MADs handed to the CM by QP1 (cm recv). */
    MADS_RECEIVED,
    /** MADs the CM handed to QP1 (cm xmit), retransmissions included. */
    MADS_SENT,
    /** MADs the CM could not send (QP1 had no free send buffer, or the post failed); timers resend later. */
    SEND_FAILURES,
    /** MADs whose payload was not exactly 256 bytes. */
    DROP_BAD_LENGTH,
    /** MADs whose base version is not 1 (IBA 13.4.2). */
    DROP_BAD_BASE_VERSION,
    /** MADs of another management class than the CM (0x07). */
    DROP_NOT_CM_CLASS,
    /** CM MADs whose class version is not 2, the only one the Linux CM registers (IB_CM_CLASS_VERSION). */
    DROP_BAD_CLASS_VERSION,
    /** CM MADs whose method is not Send (0x03); the CM class uses no other (IBA 12.6). */
    DROP_BAD_METHOD,
    /** CM MADs of an attribute this CM does not implement (ClassPortInfo, LAP, APR). */
    DROP_UNSUPPORTED_ATTRIBUTE,
    /** Responses (REP, RTU, MRA, REJ, DREP) that match no connection by their communication IDs. */
    DROP_UNMATCHED,
    /** Messages that match a connection in a state that does not take them (an RTU before any REP...). */
    DROP_WRONG_STATE,
    /** REQs dropped silently because the listener's backlog was full (the sender retries, as with the kernel). */
    DROP_BACKLOG,
    /** Duplicate REQ, REP, RTU, MRA, DREQ or DREP: answered again or ignored, as IBA 12.9 says (recv_duplicates). */
    DUPLICATES,
    /** REQ, REP or DREQ sent again because no answer came within the CM response timeout (xmit_retries). */
    RETRANSMISSIONS,
    /** REQ, REP or DREQ given up after the last retry. */
    TIMEOUTS,
    /** REJs sent, for any reason. */
    REJ_SENT,
    /** REJs sent because no listener has the REQ's service ID (reason 8, INVALID_SERVICE_ID). */
    REJ_INVALID_SERVICE_ID,
    /** REJs sent because the REQ came from a connection still in TimeWait (reason 10, STALE_CONN). */
    REJ_STALE_CONNECTION,
    /** REJs received. */
    REJ_RECEIVED,
    /** MRAs sent (answering a repeated REQ while the application decides). */
    MRA_SENT,
    /** MRAs received (the peer asked for more time). */
    MRA_RECEIVED,
    /** DREPs sent for a DREQ that matches no connection (cm_issue_drep). */
    DREP_FOR_UNKNOWN_DREQ,
    /** SIDR_REQs sent (first transmissions; retries count in RETRANSMISSIONS). */
    SIDR_REQ_SENT,
    /** SIDR_REQs received (duplicates of one still being answered count in DUPLICATES instead). */
    SIDR_REQ_RECEIVED,
    /** SIDR_REPs sent, any status. */
    SIDR_REP_SENT,
    /** SIDR_REPs sent with status 1, IB_SIDR_UNSUPPORTED: nobody listens on the service ID (cm.c). */
    SIDR_REP_UNSUPPORTED,
    /** SIDR_REPs sent with status 2, IB_SIDR_REJECT: the service refused (rdma_reject, a bad rdma_cm header). */
    SIDR_REP_REJECT,
    /** SIDR_REPs received that answered one of our SIDR_REQs, any status. */
    SIDR_REP_RECEIVED,
    /** Connections that reached ESTABLISHED. */
    ESTABLISHED,
    /** Connections that entered TimeWait. */
    TIMEWAIT_ENTERED,
    /** Connections that left TimeWait. */
    TIMEWAIT_EXITED
}
