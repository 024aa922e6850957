package org.roce4j.transport.link.ethernet;

/**
 * What a link knows about the MAC of a neighbour, IPv4 (ARP) or IPv6 (Neighbor Discovery), as in the kernel's
 * neighbour table (ip neigh) without its reachability confirmation states: roce4j keeps a learnt MAC until a later
 * ARP packet or advertisement replaces it.
 */
public enum NeighbourState
{
    /** Never asked for (no entry). */
    UNKNOWN,
    /** Requests or solicitations sent, no answer yet; frames to it are held. */
    INCOMPLETE,
    /** MAC known; frames go out at once. */
    REACHABLE,
    /** No answer to the last round of requests; its held frames were dropped. The next frame starts a new round. */
    FAILED
}
