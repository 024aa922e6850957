package org.roce4j.transport.link.pcap;

/**
 * What a {@link PcapLink} knows about the MAC address of an IPv4 peer.
 */
public enum NeighbourState
{
    /** Never asked for. */
    UNKNOWN,
    /** ARP requests sent, no reply yet; frames to it are queued. */
    INCOMPLETE,
    /** MAC known; frames go out at once. */
    REACHABLE,
    /** No reply to the last round of requests; its queued frames were dropped. The next frame starts a new round. */
    FAILED
}
