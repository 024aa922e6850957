package org.roce4j.transport.link.fault;

import org.agrona.DirectBuffer;
import org.roce4j.wire.Icrc;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.header.BthHeader;
import org.roce4j.wire.header.EthernetHeader;
import org.roce4j.wire.header.Ipv4Header;
import org.roce4j.wire.header.Ipv6Header;
import org.roce4j.wire.header.UdpHeader;

import static java.nio.ByteOrder.BIG_ENDIAN;

/**
 * The few fields of a frame that fault injection and the memory fabric's switch need: where the IP header starts,
 * the destination address to route on, and, for RoCEv2 packets, the BTH fields fault rules match on. Reads only what
 * is there and never throws: a frame too short for a field simply lacks it. It validates nothing else; checking the
 * frame is the receiver's job ({@link org.roce4j.wire.RoceFrameParser}). Reusable: wrap one frame after another.
 */
public final class FrameView
{
    /** IPv4 header length in 32-bit words when the header has no options (IHL = 5). */
    private static final int IPV4_MIN_IHL = 5;

    private DirectBuffer buffer;
    private int frameOffset;
    private int frameLength;
    private int ethernetLength;
    private int ipVersion;
    private int ipOffset;
    private int ipLength;
    private int destinationIpv4;
    private long destinationHigh;
    private long destinationLow;
    private boolean roce;
    private int udpOffset;
    private int bthOffset;
    private int opcode;
    private int destQp;
    private int psn;

    /**
     * Read a frame.
     *
     * @param buffer holding the frame.
     * @param offset of the Ethernet header.
     * @param length of the frame.
     */
    public void wrap(final DirectBuffer buffer, final int offset, final int length)
    {
        this.buffer = buffer;
        this.frameOffset = offset;
        this.frameLength = length;
        ethernetLength = 0;
        ipVersion = 0;
        ipLength = 0;
        roce = false;
        opcode = -1;
        destQp = -1;
        psn = -1;
        if (length < EthernetHeader.LENGTH)
        {
            return;
        }
        int etherType = buffer.getShort(offset + EthernetHeader.TYPE_OFFSET, BIG_ENDIAN) & 0xFFFF;
        int headerLength = EthernetHeader.LENGTH;
        if (EthernetHeader.TPID_8021Q == etherType)
        {
            if (length < EthernetHeader.VLAN_LENGTH)
            {
                return;
            }
            etherType = buffer.getShort(offset + EthernetHeader.INNER_TYPE_OFFSET, BIG_ENDIAN) & 0xFFFF;
            headerLength = EthernetHeader.VLAN_LENGTH;
        }
        ethernetLength = headerLength;
        ipOffset = offset + headerLength;
        final int available = length - headerLength;
        if (EthernetHeader.ETHERTYPE_IPV4 == etherType)
        {
            if (available >= Ipv4Header.LENGTH)
            {
                ipVersion = 4;
                destinationIpv4 = buffer.getInt(ipOffset + Ipv4Header.DESTINATION_OFFSET, BIG_ENDIAN);
                readIpv4(buffer, available);
            }
        }
        else if (EthernetHeader.ETHERTYPE_IPV6 == etherType)
        {
            if (available >= Ipv6Header.LENGTH)
            {
                ipVersion = 6;
                destinationHigh = buffer.getLong(ipOffset + Ipv6Header.DESTINATION_OFFSET, BIG_ENDIAN);
                destinationLow = buffer.getLong(ipOffset + Ipv6Header.DESTINATION_OFFSET + 8, BIG_ENDIAN);
                readIpv6(buffer, available);
            }
        }
    }

    /**
     * @return the buffer holding the frame last wrapped.
     */
    public DirectBuffer buffer()
    {
        return buffer;
    }

    /**
     * @return offset of the frame last wrapped in {@link #buffer()}.
     */
    public int frameOffset()
    {
        return frameOffset;
    }

    /**
     * @return length of the frame last wrapped.
     */
    public int frameLength()
    {
        return frameLength;
    }

    private void readIpv4(final DirectBuffer buffer, final int available)
    {
        final int versionIhl = buffer.getByte(ipOffset) & 0xFF;
        final int headerLength = (versionIhl & 0x0F) * 4;
        final int totalLength = buffer.getShort(ipOffset + Ipv4Header.TOTAL_LENGTH_OFFSET, BIG_ENDIAN) & 0xFFFF;
        ipLength = totalLength >= Ipv4Header.LENGTH && totalLength <= available ? totalLength : available;
        if ((versionIhl & 0x0F) >= IPV4_MIN_IHL && headerLength <= ipLength &&
            Ipv4Header.PROTOCOL_UDP == (buffer.getByte(ipOffset + Ipv4Header.PROTOCOL_OFFSET) & 0xFF))
        {
            readRoce(buffer, ipOffset + headerLength);
        }
    }

    private void readIpv6(final DirectBuffer buffer, final int available)
    {
        final int payloadLength = buffer.getShort(ipOffset + Ipv6Header.PAYLOAD_LENGTH_OFFSET, BIG_ENDIAN) & 0xFFFF;
        ipLength = Math.min(Ipv6Header.LENGTH + payloadLength, available);
        if (Ipv6Header.NEXT_HEADER_UDP == (buffer.getByte(ipOffset + Ipv6Header.NEXT_HEADER_OFFSET) & 0xFF))
        {
            readRoce(buffer, ipOffset + Ipv6Header.LENGTH);
        }
    }

    private void readRoce(final DirectBuffer buffer, final int udpAt)
    {
        final int ipEnd = ipOffset + ipLength;
        if (udpAt + UdpHeader.LENGTH + BthHeader.LENGTH + Icrc.LENGTH > ipEnd ||
            UdpHeader.ROCE_V2_PORT != (buffer.getShort(udpAt + 2, BIG_ENDIAN) & 0xFFFF))
        {
            return;
        }
        roce = true;
        udpOffset = udpAt;
        bthOffset = udpAt + UdpHeader.LENGTH;
        opcode = buffer.getByte(bthOffset + BthHeader.OPCODE_OFFSET) & 0xFF;
        destQp = buffer.getInt(bthOffset + BthHeader.FECN_BECN_OFFSET, BIG_ENDIAN) & BthHeader.MASK_24;
        psn = buffer.getInt(bthOffset + BthHeader.ACK_REQ_OFFSET, BIG_ENDIAN) & BthHeader.MASK_24;
    }

    /**
     * @return 14 or 18, or 0 when the frame is shorter than an Ethernet header.
     */
    public int ethernetLength()
    {
        return ethernetLength;
    }

    /**
     * @return 4 or 6 when the destination address is present, else 0 (ARP, other EtherTypes, truncated).
     */
    public int ipVersion()
    {
        return ipVersion;
    }

    /**
     * @return offset of the IP header.
     */
    public int ipOffset()
    {
        return ipOffset;
    }

    /**
     * @return IP packet length as the header says, or the bytes available when the header's length is unusable.
     */
    public int ipLength()
    {
        return ipLength;
    }

    /**
     * @return IPv4 destination (when {@link #ipVersion()} is 4).
     */
    public int destinationIpv4()
    {
        return destinationIpv4;
    }

    /**
     * @return high half of the IPv6 destination (when {@link #ipVersion()} is 6).
     */
    public long destinationHigh()
    {
        return destinationHigh;
    }

    /**
     * @return low half of the IPv6 destination (when {@link #ipVersion()} is 6).
     */
    public long destinationLow()
    {
        return destinationLow;
    }

    /**
     * @return true for UDP to port 4791 with room for a BTH and an ICRC.
     */
    public boolean isRoce()
    {
        return roce;
    }

    /**
     * @return offset of the UDP header (when {@link #isRoce()}).
     */
    public int udpOffset()
    {
        return udpOffset;
    }

    /**
     * @return offset of the BTH (when {@link #isRoce()}).
     */
    public int bthOffset()
    {
        return bthOffset;
    }

    /**
     * @return offset of the ICRC trailer: the last 4 bytes of the IP packet (when {@link #isRoce()}).
     */
    public int icrcOffset()
    {
        return ipOffset + ipLength - Icrc.LENGTH;
    }

    /**
     * @return offset of the payload (after the BTH and the opcode's extension headers), or the ICRC's offset when
     *     the opcode is unknown or the frame too short for its headers (when {@link #isRoce()}).
     */
    public int payloadOffset()
    {
        final Opcode known = Opcode.of(opcode);
        if (null == known || bthOffset + known.headerLength() > icrcOffset())
        {
            return icrcOffset();
        }
        return bthOffset + known.headerLength();
    }

    /**
     * @return BTH opcode byte, or -1 when not RoCE.
     */
    public int opcode()
    {
        return opcode;
    }

    /**
     * @return BTH DestQP, or -1 when not RoCE.
     */
    public int destQp()
    {
        return destQp;
    }

    /**
     * @return BTH PSN, or -1 when not RoCE.
     */
    public int psn()
    {
        return psn;
    }
}
