package org.roce4j.transport.link.memory;

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
    /** Deliver the frame only once the fabric clock has advanced by the rule's delay ({@code INJECTED_DELAYS}). */
    DELAY,
    /** Hold the frame back until a number of later frames have left the port ({@code INJECTED_DELAYS}). */
    REORDER
}
