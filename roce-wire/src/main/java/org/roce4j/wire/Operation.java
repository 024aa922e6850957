package org.roce4j.wire;

/**
 * What an opcode does, independent of its transport and of its place in a multi-packet message.
 */
public enum Operation
{
    /** SEND, consumes a receive WQE at the responder. */
    SEND,
    /** RDMA WRITE into a remote memory region. */
    RDMA_WRITE,
    /** RDMA READ request. */
    RDMA_READ_REQUEST,
    /** RDMA READ response data. */
    RDMA_READ_RESPONSE,
    /** ACK or NAK. */
    ACKNOWLEDGE,
    /** Response to an atomic, carrying the original value. */
    ATOMIC_ACKNOWLEDGE,
    /** Atomic compare and swap. */
    COMPARE_SWAP,
    /** Atomic fetch and add. */
    FETCH_ADD,
    /** FLUSH to a placement type (IBA 1.5 A19). */
    FLUSH,
    /** 8-byte atomic write (IBA 1.5 A19). */
    ATOMIC_WRITE,
    /** Congestion notification. */
    CONGESTION_NOTIFICATION
}
