package org.roce4j.verbs;

/**
 * Atomic operation guarantees of a device (enum ibv_atomic_cap).
 */
public enum AtomicCapability
{
    /** IBV_ATOMIC_NONE: atomics are not supported. */
    NONE,
    /** IBV_ATOMIC_HCA: atomic between QPs of this device only (not with CPU accesses); what rxe reports. */
    HCA,
    /** IBV_ATOMIC_GLOB: atomic with respect to every other access. */
    GLOB
}
