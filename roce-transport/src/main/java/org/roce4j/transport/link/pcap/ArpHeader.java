package org.roce4j.transport.link.pcap;

import org.agrona.MutableDirectBuffer;
import org.roce4j.wire.header.HeaderFlyweight;

/**
 * ARP for IPv4 over Ethernet (RFC 826), after the Ethernet header.
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-------------------------------+-------------------------------+
 * |     hardware type (1)         |    protocol type (0x0800)     |
 * +---------------+---------------+-------------------------------+
 * |  hlen (6)     |  plen (4)     |  operation (1 request 2 reply)|
 * +---------------+---------------+-------------------------------+
 * |                 sender hardware address (6)                   |
 * +                               +-------------------------------+
 * |                               |  sender protocol address (4)  |
 * +-------------------------------+                               +
 * |                               |                               |
 * +-------------------------------+                               +
 * |                 target hardware address (6)                   |
 * +-------------------------------+-------------------------------+
 * |                 target protocol address (4)                   |
 * +---------------------------------------------------------------+
 * </pre>
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
    public static final int HARDWARE_ETHERNET = 1;
    /** Protocol type IPv4 (the EtherType). */
    public static final int PROTOCOL_IPV4 = 0x0800;
    /** Operation: request. */
    public static final int OPERATION_REQUEST = 1;
    /** Operation: reply. */
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
     * @return true for Ethernet hardware, IPv4 protocol, lengths 6 and 4.
     */
    public boolean isEthernetIpv4()
    {
        return HARDWARE_ETHERNET == u16(HARDWARE_TYPE_OFFSET) && PROTOCOL_IPV4 == u16(PROTOCOL_TYPE_OFFSET) &&
            6 == u8(HARDWARE_LENGTH_OFFSET) && 4 == u8(PROTOCOL_LENGTH_OFFSET);
    }

    /**
     * Write the fixed part for Ethernet/IPv4.
     *
     * @param operation {@link #OPERATION_REQUEST} or {@link #OPERATION_REPLY}.
     * @return this.
     */
    public ArpHeader ethernetIpv4(final int operation)
    {
        u16(HARDWARE_TYPE_OFFSET, HARDWARE_ETHERNET);
        u16(PROTOCOL_TYPE_OFFSET, PROTOCOL_IPV4);
        u8(HARDWARE_LENGTH_OFFSET, 6);
        u8(PROTOCOL_LENGTH_OFFSET, 4);
        u16(OPERATION_OFFSET, operation);
        return this;
    }

    /**
     * @return the operation.
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
     * @param mac sender MAC.
     * @return this.
     */
    public ArpHeader senderMac(final long mac)
    {
        u48(SENDER_MAC_OFFSET, mac);
        return this;
    }

    /**
     * @return sender IPv4 address, big-endian int.
     */
    public int senderIp()
    {
        return i32(SENDER_IP_OFFSET);
    }

    /**
     * @param ipv4 sender address.
     * @return this.
     */
    public ArpHeader senderIp(final int ipv4)
    {
        i32(SENDER_IP_OFFSET, ipv4);
        return this;
    }

    /**
     * @return target MAC in the low 48 bits.
     */
    public long targetMac()
    {
        return u48(TARGET_MAC_OFFSET);
    }

    /**
     * @param mac target MAC.
     * @return this.
     */
    public ArpHeader targetMac(final long mac)
    {
        u48(TARGET_MAC_OFFSET, mac);
        return this;
    }

    /**
     * @return target IPv4 address, big-endian int.
     */
    public int targetIp()
    {
        return i32(TARGET_IP_OFFSET);
    }

    /**
     * @param ipv4 target address.
     * @return this.
     */
    public ArpHeader targetIp(final int ipv4)
    {
        i32(TARGET_IP_OFFSET, ipv4);
        return this;
    }
}
