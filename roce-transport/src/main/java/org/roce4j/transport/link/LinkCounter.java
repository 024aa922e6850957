package org.roce4j.transport.link;

/**
 * Counters every {@link Link} keeps, readable through {@link Link#counters()}.
 */
public enum LinkCounter
{
    /** Frames of the engine handed to the medium (the link's own ARP and ND packets count only in their counters). */
    FRAMES_SENT,
    /** Bytes of the frames counted in {@link #FRAMES_SENT}. */
    BYTES_SENT,
    /** Frames delivered to the frame handler. */
    FRAMES_RECEIVED,
    /** Bytes of frames delivered to the frame handler. */
    BYTES_RECEIVED,
    /** Frames not sent because the medium or the link's queue was full (back-pressure). */
    SEND_BACK_PRESSURE,
    /** Frames that failed to send with an I/O error. */
    SEND_ERRORS,
    /** Frames dropped because their destination MAC could not be resolved (no answer, hold pool full, not IP). */
    SEND_UNRESOLVED,
    /** Frames that had to wait for their destination's MAC (sent later, or dropped into SEND_UNRESOLVED). */
    FRAMES_HELD,
    /** Resolutions given up after the policy's requests went unanswered (the neighbour is FAILED). */
    RESOLUTION_FAILURES,
    /** Received frames dropped by the link itself: not addressed to it, malformed datagrams, ... */
    RECEIVE_FILTERED,
    /** Receive errors from the medium (truncated datagrams, I/O errors). */
    RECEIVE_ERRORS,
    /** Received frames whose ICRC the link cannot verify (the kernel UDP path hides the real IP header). */
    RECEIVE_UNVERIFIED,
    /** ARP requests sent. */
    ARP_REQUESTS_SENT,
    /** ARP replies sent (the link answering for its own IP). */
    ARP_REPLIES_SENT,
    /** ARP packets received (addressed to the link's MAC or broadcast). */
    ARP_RECEIVED,
    /** IPv6 Neighbor Solicitations sent (resolving a neighbour, RFC 4861). */
    ND_SOLICITATIONS_SENT,
    /** IPv6 Neighbor Advertisements sent (the link answering for one of its own addresses). */
    ND_ADVERTISEMENTS_SENT,
    /** IPv6 Neighbor Solicitations and Advertisements received. */
    ND_RECEIVED,
    /** Frames dropped by fault injection. */
    INJECTED_DROPS,
    /** Frames duplicated by fault injection. */
    INJECTED_DUPLICATES,
    /** Frames corrupted by fault injection. */
    INJECTED_CORRUPTIONS,
    /** Frames delayed or reordered by fault injection. */
    INJECTED_DELAYS,
    /** Frames marked Congestion Experienced by fault injection (ECN bits of the IP header set to 11). */
    INJECTED_ECN_MARKS,
    /** Frames rewritten by a fault rule's mutation ({@code FaultAction.MUTATE}). */
    INJECTED_MUTATIONS
}
