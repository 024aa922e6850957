package org.roce4j.transport.engine;

/**
 * Life of a send WQE inside the engine (rxe enum wqe_state).
 */
enum WqeState
{
    /** Posted, no packet sent yet (or reset by a retry to be sent again). */
    POSTED,
    /** Some packets of the message sent. */
    PROCESSING,
    /** Every packet sent; waiting for the ACK or response (RC only). */
    PENDING,
    /** Completed. */
    DONE,
    /** Failed; its completion carries the error status. */
    ERROR
}
