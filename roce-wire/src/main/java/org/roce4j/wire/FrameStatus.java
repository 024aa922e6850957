package org.roce4j.wire;

/**
 * The verdict of {@link RoceFrameParser} on one frame: {@link #OK} or the first reason the frame is not a
 * well-formed RoCEv2 packet. Checks run in the order of the constants, from the outermost header inwards, and the
 * ICRC last (rxe_recv.c checks in a similar order and drops silently; roce4j drops and counts).
 */
public enum FrameStatus
{
    /** A well-formed RoCEv2 packet (with a good ICRC when it was verified). */
    OK("ok"),
    /** Shorter than an Ethernet header (14 bytes, 18 with an 802.1Q tag). */
    TRUNCATED_ETHERNET("truncated Ethernet header"),
    /** EtherType is neither IPv4 nor IPv6 (ARP, for instance): not RoCEv2. */
    NOT_IP("not IP"),
    /** Shorter than the IP header. */
    TRUNCATED_IP("truncated IP header"),
    /** IP version nibble disagrees with the EtherType. */
    BAD_IP_VERSION("IP version does not match EtherType"),
    /** IPv4 IHL below 5 words. */
    BAD_IP_HEADER_LENGTH("bad IPv4 header length"),
    /** IP total/payload length larger than the frame or smaller than the headers. */
    IP_LENGTH_MISMATCH("IP length disagrees with frame"),
    /** IPv4 header checksum does not match. */
    BAD_IP_CHECKSUM("bad IPv4 header checksum"),
    /** An IPv4 fragment: RoCEv2 packets are never fragmented. */
    IP_FRAGMENT("IP fragment"),
    /** IP protocol / next header is not UDP. */
    NOT_UDP("not UDP"),
    /** Shorter than the UDP header. */
    TRUNCATED_UDP("truncated UDP header"),
    /** UDP destination port is not 4791: not RoCEv2. */
    NOT_ROCE_PORT("UDP destination port is not 4791"),
    /** UDP length disagrees with the IP length. */
    UDP_LENGTH_MISMATCH("UDP length disagrees with IP length"),
    /** Shorter than a BTH plus ICRC. */
    TRUNCATED_BTH("truncated BTH"),
    /** Opcode roce4j does not know (reserved, RD, XRC, vendor-specific). */
    UNKNOWN_OPCODE("unknown opcode"),
    /** BTH TVer is not 0 (rxe drops these). */
    BAD_TRANSPORT_VERSION("BTH transport version is not 0"),
    /** Shorter than BTH + the opcode's extension headers + ICRC. */
    TRUNCATED_HEADERS("truncated extension headers"),
    /** Bytes after the headers of an opcode that carries no payload. */
    UNEXPECTED_PAYLOAD("payload on an opcode without payload"),
    /** PadCnt larger than the data, or data plus pad not a multiple of 4 bytes (IBA 9.2: packets are 4-byte
     * multiples). */
    PAD_INCONSISTENT("PadCnt inconsistent with payload length"),
    /** ICRC does not match. */
    BAD_ICRC("bad ICRC");

    /** Number of statuses, for counter arrays indexed by ordinal. */
    public static final int COUNT = values().length;

    private final String description;

    FrameStatus(final String description)
    {
        this.description = description;
    }

    /**
     * @return a short human description.
     */
    public String description()
    {
        return description;
    }

    /**
     * @return true for the statuses that mean "this is not RoCEv2 at all" rather than "a broken RoCEv2 packet":
     *     non-IP frames, non-UDP packets and UDP to another port.
     */
    public boolean isNotRoce()
    {
        return NOT_IP == this || NOT_UDP == this || NOT_ROCE_PORT == this;
    }
}
