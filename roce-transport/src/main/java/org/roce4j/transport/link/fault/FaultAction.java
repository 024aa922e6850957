package org.roce4j.transport.link.fault;

/**
 * What a {@link FaultRule} does to a frame it matches.
 */
public enum FaultAction
{
    /** Discard the frame (counted as {@code INJECTED_DROPS}). */
    DROP,
    /** Deliver extra copies right behind the frame (each copy counted as {@code INJECTED_DUPLICATES}). */
    DUPLICATE,
    /** Flip random bits after the Ethernet header, in bytes the ICRC covers ({@code INJECTED_CORRUPTIONS}). */
    CORRUPT,
    /** Flip one random bit of the ICRC trailer itself ({@code INJECTED_CORRUPTIONS}). */
    CORRUPT_ICRC,
    /**
     * Flip one random bit of the payload (after the BTH and extension headers, the pad included), or of the ICRC when
     * there is no payload: the frame parses as before but its ICRC is bad ({@code INJECTED_CORRUPTIONS}).
     */
    CORRUPT_PAYLOAD,
    /**
     * Mark the frame Congestion Experienced: ECN bits of the IPv4 TOS or IPv6 traffic class set to 11 (RFC 3168),
     * the IPv4 header checksum fixed, as an ECN-capable switch does; the ICRC masks those bits, so it stays valid
     * ({@code INJECTED_ECN_MARKS}).
     */
    ECN,
    /** Deliver the frame only once the fabric clock has advanced by the rule's delay ({@code INJECTED_DELAYS}). */
    DELAY,
    /** Hold the frame back until a number of later frames have left the port ({@code INJECTED_DELAYS}). */
    REORDER,
    /**
     * Rewrite the frame with the rule's {@link FrameMutator} (any change, the length included), on a copy the link
     * keeps for it ({@code INJECTED_MUTATIONS}).
     */
    MUTATE
}
