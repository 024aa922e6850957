package org.roce4j.transport.link.sim;

/**
 * What a {@link SimSwitch} port counts ({@link SwitchPort#switchCounters()}): its output queue toward the attached
 * host, and the frames that host sent which the switch could not route.
 */
public enum SwitchCounter
{
    /** Frames that left the output queue toward the host. */
    FRAMES_FORWARDED,
    /** Bytes of {@link #FRAMES_FORWARDED}. */
    BYTES_FORWARDED,
    /** ECN-capable frames the output queue marked CE (RED on the queue length, RFC 3168). */
    ECN_MARKED,
    /** Frames dropped at the tail of the output queue: the buffer was full. */
    TAIL_DROPS,
    /** Bytes of {@link #TAIL_DROPS}. */
    TAIL_DROP_BYTES,
    /** Frames the host sent to an address no port has (dropped). */
    UNROUTABLE,
    /** Frames that reached the host while its receive queue was full (the host did not poll; dropped). */
    HOST_RX_DROPS
}
