package org.roce4j.transport.engine;

/**
 * Why the requester of a QP stopped sending: the states a requester waits in (rxe sets wait_psn, wait_fence and
 * similar flags; roce4j names them).
 */
enum RequesterStall
{
    /** Not stalled (or nothing to send). */
    NONE,
    /** The QP is not in RTS (or SQD with nothing in progress). */
    STATE,
    /** The send window of unacknowledged PSNs is full. */
    WINDOW,
    /** max_rd_atomic READs/atomics are outstanding (ORD). */
    ORD,
    /** A fenced WQE waits for earlier READs/atomics. */
    FENCE,
    /** A local operation (BIND_MW, LOCAL_INV) waits for every earlier WQE to complete. */
    LOCAL_OP,
    /** Waiting for the RNR timer. */
    RNR_TIMER,
    /** The link had no room for another frame. */
    LINK,
    /** The per-call packet budget ran out (fairness between QPs). */
    BUDGET,
    /** The pacer holds the QP to its DCQCN rate: its timer entry wakes it when the next packet may go. */
    RATE
}
