package org.roce4j.wire.header;

import org.agrona.MutableDirectBuffer;

/**
 * ARP for IPv4 over Ethernet (RFC 826), the only ARP a RoCEv2 link needs.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |    Hardware type (1)          |    Protocol type (0x0800)     |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |  HW len (6)   | Proto len (4) |  Operation (1 request 2 reply)|
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                 Sender hardware address (48)                  |
 *  +                               +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                               |   Sender protocol address     |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |   (cont.)                     |                               |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+                               +
 *  |                 Target hardware address (48)                  |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                 Target protocol address                       |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * 28 bytes after the Ethernet header; MACs are in the low 48 bits of a long, IPv4 addresses are big-endian ints.
 */
public final class ArpHeader extends HeaderFlyweight
{
    /** Length of an Ethernet/IPv4 ARP packet. */
    public static final int LENGTH = 28;
    /** Offset of the hardware type. */
    public static final int HARDWARE_TYPE_OFFSET = 0;
    /** Offset of the protocol type. */
    public static final int PROTOCOL_TYPE_OFFSET = 2;
    /** Offset of the hardware address length. */
    public static final int HARDWARE_LENGTH_OFFSET = 4;
    /** Offset of the protocol address length. */
    public static final int PROTOCOL_LENGTH_OFFSET = 5;
    /** Offset of the operation. */
    public static final int OPERATION_OFFSET = 6;
    /** Offset of the sender hardware address. */
    public static final int SENDER_MAC_OFFSET = 8;
    /** Offset of the sender protocol address. */
    public static final int SENDER_IP_OFFSET = 14;
    /** Offset of the target hardware address. */
    public static final int TARGET_MAC_OFFSET = 18;
    /** Offset of the target protocol address. */
    public static final int TARGET_IP_OFFSET = 24;

    /** Hardware type Ethernet (RFC 826, IANA ARP parameters). */
    public static final int HARDWARE_TYPE_ETHERNET = 1;
    /** Protocol type IPv4: the IPv4 EtherType. */
    public static final int PROTOCOL_TYPE_IPV4 = 0x0800;
    /** Length of an Ethernet address. */
    public static final int MAC_LENGTH = 6;
    /** Length of an IPv4 address. */
    public static final int IPV4_LENGTH = 4;
    /** ARP operation: request. */
    public static final int OPERATION_REQUEST = 1;
    /** ARP operation: reply. */
    public static final int OPERATION_REPLY = 2;

    /**
     * {@inheritDoc}
     */
    public ArpHeader wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    /**
     * @return {@link #LENGTH}.
     */
    public int length()
    {
        return LENGTH;
    }

    /**
     * @return true when the fixed fields say Ethernet hardware addresses and IPv4 protocol addresses.
     */
    public boolean isEthernetIpv4()
    {
        return HARDWARE_TYPE_ETHERNET == u16(HARDWARE_TYPE_OFFSET) &&
            PROTOCOL_TYPE_IPV4 == u16(PROTOCOL_TYPE_OFFSET) &&
            MAC_LENGTH == u8(HARDWARE_LENGTH_OFFSET) &&
            IPV4_LENGTH == u8(PROTOCOL_LENGTH_OFFSET);
    }

    /**
     * Write the fixed fields for Ethernet/IPv4 and an operation.
     *
     * @param operation {@link #OPERATION_REQUEST} or {@link #OPERATION_REPLY}.
     * @return this.
     */
    public ArpHeader ethernetIpv4(final int operation)
    {
        u16(HARDWARE_TYPE_OFFSET, HARDWARE_TYPE_ETHERNET);
        u16(PROTOCOL_TYPE_OFFSET, PROTOCOL_TYPE_IPV4);
        u8(HARDWARE_LENGTH_OFFSET, MAC_LENGTH);
        u8(PROTOCOL_LENGTH_OFFSET, IPV4_LENGTH);
        u16(OPERATION_OFFSET, operation);
        return this;
    }

    /**
     * @return the operation (1 request, 2 reply).
     */
    public int operation()
    {
        return u16(OPERATION_OFFSET);
    }

    /**
     * @return sender MAC in the low 48 bits.
     */
    public long senderMac()
    {
        return u48(SENDER_MAC_OFFSET);
    }

    /**
     * @param mac in the low 48 bits.
     * @return this.
     */
    public ArpHeader senderMac(final long mac)
    {
        u48(SENDER_MAC_OFFSET, mac);
        return this;
    }

    /**
     * @return sender IPv4 address.
     */
    public int senderIp()
    {
        return i32(SENDER_IP_OFFSET);
    }

    /**
     * @param ip IPv4 address.
     * @return this.
     */
    public ArpHeader senderIp(final int ip)
    {
        i32(SENDER_IP_OFFSET, ip);
        return this;
    }

    /**
     * @return target MAC in the low 48 bits (zero in a request).
     */
    public long targetMac()
    {
        return u48(TARGET_MAC_OFFSET);
    }

    /**
     * @param mac in the low 48 bits.
     * @return this.
     */
    public ArpHeader targetMac(final long mac)
    {
        u48(TARGET_MAC_OFFSET, mac);
        return this;
    }

    /**
     * @return target IPv4 address.
     */
    public int targetIp()
    {
        return i32(TARGET_IP_OFFSET);
    }

    /**
     * @param ip IPv4 address.
     * @return this.
     */
    public ArpHeader targetIp(final int ip)
    {
        i32(TARGET_IP_OFFSET, ip);
        return this;
    }

}
