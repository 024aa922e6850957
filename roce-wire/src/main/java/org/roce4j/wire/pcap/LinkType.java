package org.roce4j.wire.pcap;

/**
 * The pcap link-layer header types roce4j reads and writes (tcpdump.org/linktypes.html).
 */
public final class LinkType
{
    /** LINKTYPE_ETHERNET: IEEE 802.3 Ethernet. The only link type roce4j writes. */
    public static final int ETHERNET = 1;
    /** LINKTYPE_RAW: a raw IPv4 or IPv6 packet with no link header. */
    public static final int RAW = 101;
    /** LINKTYPE_LINUX_SLL: Linux "cooked" capture (tcpdump -i any). */
    public static final int LINUX_SLL = 113;

    private LinkType()
    {
    }
}
