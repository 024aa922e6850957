package org.roce4j.conform;

/**
 * Which way a captured frame went, seen from the conform peer.
 */
public enum Direction
{
    /** Sent by the conform peer to the DUT. */
    TO_DUT,
    /** Sent by the DUT to the conform peer. */
    FROM_DUT
}
