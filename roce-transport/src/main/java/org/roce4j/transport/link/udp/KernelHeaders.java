package org.roce4j.transport.link.udp;

import org.agrona.MutableDirectBuffer;
import org.roce4j.wire.Icrc;
import org.roce4j.wire.RoceFrameBuilder;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.header.BthHeader;
import org.roce4j.wire.header.EthernetHeader;
import org.roce4j.wire.header.Ipv4Header;
import org.roce4j.wire.header.Ipv6Header;
import org.roce4j.wire.header.UdpHeader;

import static java.nio.ByteOrder.BIG_ENDIAN;

/**
 * The two header transformations a kernel UDP socket forces on a RoCEv2 frame.
 *
 * <p>Outgoing ({@link #prepareOutgoing}): only the UDP payload (BTH .. ICRC) is handed to the kernel, which writes
 * its own IPv4 and UDP headers. The ICRC covers the IPv4 source address, identification and flags and the UDP
 * source port (IBA A17.3.3; rxe_icrc.c masks only TOS, TTL and the two checksums), so the frame's headers are
 * first rewritten to exactly what this kernel will send from an unconnected socket with
 * IP_MTU_DISCOVER = IP_PMTUDISC_DO: source = the bound address and port, identification 0, DF set and no
 * fragment offset (ip_select_ident gives ID 0 only to DF packets whose socket does not ignore DF; see the table in
 * roce-transport/README-links.md). Then the ICRC is updated by the CRC of the difference ({@link IcrcDelta}: about
 * 20 table steps and one carry-less multiplication, whatever the frame's length), unless those fields already held
 * the kernel's values; an ICRC that did not match the frame's own headers keeps the same error after the rewrite,
 * so deliberately corrupted frames stay corrupted. TOS and TTL come
 * from the socket (0 and the default TTL) instead of the frame and the UDP checksum is computed by the kernel: all
 * three are masked to ones by the ICRC, so they need no rewrite.
 *
 * <p>Over IPv6 the ICRC covers the source address and UDP source port but no identification or flags; the kernel
 * writes the traffic class, flow label (0: the socket turns automatic flow labels off, as rxe sends 0) and hop limit
 * from the socket, all masked by the ICRC, so only the source and its port are rewritten, with the same difference
 * update ({@link IcrcDelta#deltaIpv6}).
 *
 * <p>Incoming ({@link #writeIncomingHeaders}): a received datagram has no visible IP header, so a synthetic
 * Ethernet + IP + UDP header is written in front of its payload: source address and port from the datagram's
 * sender, destination the bound address and port 4791; over IPv4 ID 0, DF, TTL 64, a valid IPv4 header checksum;
 * over IPv6 traffic class 0, flow label 0, hop limit 64; UDP checksum 0. The ICRC inside the payload was computed by
 * the sender over the real header, which may differ (rxe sends changing IDs), so it cannot be checked on this path.
 *
 * <p>Not thread safe: one instance per thread (the engine thread rewrites outgoing frames, the event loop writes
 * incoming headers).
 */
final class KernelHeaders
{
    /** Synthetic header in front of a received payload: untagged Ethernet, IPv4 without options, UDP. */
    static final int INCOMING_HEADER_LENGTH = EthernetHeader.LENGTH + Ipv4Header.LENGTH + UdpHeader.LENGTH;
    /** Synthetic header in front of a payload received over IPv6: untagged Ethernet, IPv6, UDP. */
    static final int INCOMING_IPV6_HEADER_LENGTH = EthernetHeader.LENGTH + Ipv6Header.LENGTH + UdpHeader.LENGTH;
    /** Smallest RoCEv2 UDP payload: a BTH and an ICRC. */
    static final int MIN_ROCE_PAYLOAD = BthHeader.LENGTH + Icrc.LENGTH;
    /** IPv4 version 4 and IHL 5 (20 bytes, no options): the only header the kernel writes for this socket. */
    private static final int VERSION_IHL_NO_OPTIONS = 0x45;

    /** Outcome of {@link #prepareOutgoing}: the frame can be sent. */
    static final int OK = 0;
    /** Outcome of {@link #prepareOutgoing}: not of the link's IP version (a socket carries one family). */
    static final int WRONG_FAMILY = 1;
    /** Outcome of {@link #prepareOutgoing}: IPv4 with options, or not UDP: the kernel would not send this header. */
    static final int UNSENDABLE_IP_HEADER = 2;
    /** Outcome of {@link #prepareOutgoing}: IP or UDP lengths inconsistent with the frame. */
    static final int BAD_LENGTH = 3;

    private final Ipv4Header ipv4 = new Ipv4Header();
    private final Ipv6Header ipv6 = new Ipv6Header();
    private final UdpHeader udp = new UdpHeader();
    private final boolean v6;
    private final int sourceIpv4;
    private final long sourceHigh;
    private final long sourceLow;
    private final int sourcePort;

    private int payloadOffset;
    private int payloadLength;
    private int destinationIpv4;
    private long destinationHigh;
    private long destinationLow;
    private int destinationPort;
    private boolean icrcRecomputed;

    /**
     * @param source     the address the socket is bound to (IPv4 as its IPv4-mapped GID).
     * @param sourcePort the port the socket is bound to.
     */
    KernelHeaders(final Gid source, final int sourcePort)
    {
        this.v6 = !source.isIpv4Mapped();
        this.sourceIpv4 = v6 ? 0 : source.ipv4();
        this.sourceHigh = source.high();
        this.sourceLow = source.low();
        this.sourcePort = sourcePort;
    }

    /**
     * @return the length of the synthetic header in front of a received payload.
     */
    int incomingHeaderLength()
    {
        return v6 ? INCOMING_IPV6_HEADER_LENGTH : INCOMING_HEADER_LENGTH;
    }

    /**
     * Rewrite a whole outgoing frame in place to what the kernel will send and fix its ICRC; on OK the payload
     * position and destination are available from the accessors.
     *
     * @param buffer holding the frame.
     * @param index  of the Ethernet header.
     * @param length of the frame (may include Ethernet padding after the IP packet).
     * @return {@link #OK} or the reason the frame cannot go through a kernel UDP socket.
     */
    int prepareOutgoing(final MutableDirectBuffer buffer, final int index, final int length)
    {
        if (length < EthernetHeader.LENGTH + Ipv4Header.LENGTH + UdpHeader.LENGTH + MIN_ROCE_PAYLOAD)
        {
            return BAD_LENGTH;
        }
        int ipOffset = index + EthernetHeader.LENGTH;
        int etherType = buffer.getShort(index + EthernetHeader.TYPE_OFFSET, BIG_ENDIAN) & 0xFFFF;
        if (EthernetHeader.TPID_8021Q == etherType)
        {
            // The 802.1Q tag has no meaning on a kernel socket: the priority is not carried, the VLAN is the route's.
            ipOffset = index + EthernetHeader.VLAN_LENGTH;
            etherType = buffer.getShort(index + EthernetHeader.INNER_TYPE_OFFSET, BIG_ENDIAN) & 0xFFFF;
        }
        if (v6)
        {
            return EthernetHeader.ETHERTYPE_IPV6 == etherType ? prepareIpv6(buffer, index, length, ipOffset) :
                WRONG_FAMILY;
        }
        if (EthernetHeader.ETHERTYPE_IPV4 != etherType)
        {
            return WRONG_FAMILY;
        }
        final Ipv4Header ipv4 = this.ipv4.wrap(buffer, ipOffset);
        if (VERSION_IHL_NO_OPTIONS != (buffer.getByte(ipOffset) & 0xFF) ||
            Ipv4Header.PROTOCOL_UDP != ipv4.protocol())
        {
            return UNSENDABLE_IP_HEADER;
        }
        final int totalLength = ipv4.totalLength();
        final int udpOffset = ipOffset + Ipv4Header.LENGTH;
        final UdpHeader udp = this.udp.wrap(buffer, udpOffset);
        if (totalLength > length - (ipOffset - index) ||
            totalLength < Ipv4Header.LENGTH + UdpHeader.LENGTH + MIN_ROCE_PAYLOAD ||
            udp.datagramLength() != totalLength - Ipv4Header.LENGTH)
        {
            return BAD_LENGTH;
        }

        final boolean asKernelSends = sourceIpv4 == ipv4.source() && 0 == ipv4.identification() &&
            Ipv4Header.FLAG_DONT_FRAGMENT == ipv4.flagsAndFragmentOffset() && sourcePort == udp.sourcePort();
        if (!asKernelSends)
        {
            // The ICRC covers these fields, so it changes with them. Only the difference is applied
            // (IcrcDelta): whatever error the frame's ICRC carries (zero for a frame the builder finished;
            // deliberate corruption from fault injection) reaches the wire as it was made.
            final int icrcOffset = ipOffset + totalLength - Icrc.LENGTH;
            final int delta = IcrcDelta.delta(ipv4.identification(),
                ipv4.flagsAndFragmentOffset() ^ Ipv4Header.FLAG_DONT_FRAGMENT, ipv4.source() ^ sourceIpv4,
                udp.sourcePort() ^ sourcePort, totalLength);
            ipv4.source(sourceIpv4).identification(0).flagsAndFragmentOffset(Ipv4Header.FLAG_DONT_FRAGMENT);
            udp.sourcePort(sourcePort);
            // The IPv4 checksum is masked by the ICRC and the kernel writes its own header, so it is left stale.
            Icrc.write(buffer, icrcOffset, Icrc.read(buffer, icrcOffset) ^ delta);
        }
        icrcRecomputed = !asKernelSends;
        payloadOffset = udpOffset + UdpHeader.LENGTH;
        payloadLength = totalLength - Ipv4Header.LENGTH - UdpHeader.LENGTH;
        destinationIpv4 = ipv4.destination();
        destinationPort = udp.destinationPort();
        return OK;
    }

    private int prepareIpv6(final MutableDirectBuffer buffer, final int index, final int length, final int ipOffset)
    {
        final Ipv6Header ip = this.ipv6.wrap(buffer, ipOffset);
        if (Ipv6Header.NEXT_HEADER_UDP != ip.nextHeader())
        {
            return UNSENDABLE_IP_HEADER;
        }
        final int ipLength = Ipv6Header.LENGTH + ip.payloadLength();
        final int udpOffset = ipOffset + Ipv6Header.LENGTH;
        final UdpHeader udp = this.udp.wrap(buffer, udpOffset);
        if (ipLength > length - (ipOffset - index) ||
            ipLength < Ipv6Header.LENGTH + UdpHeader.LENGTH + MIN_ROCE_PAYLOAD ||
            udp.datagramLength() != ip.payloadLength())
        {
            return BAD_LENGTH;
        }
        final boolean asKernelSends = sourceHigh == ip.sourceHigh() && sourceLow == ip.sourceLow() &&
            sourcePort == udp.sourcePort();
        if (!asKernelSends)
        {
            // As over IPv4: only the difference is applied, so an ICRC error made on purpose reaches the wire.
            final int icrcOffset = ipOffset + ipLength - Icrc.LENGTH;
            final int delta = IcrcDelta.deltaIpv6(ip.sourceHigh() ^ sourceHigh, ip.sourceLow() ^ sourceLow,
                udp.sourcePort() ^ sourcePort, ipLength);
            ip.source(sourceHigh, sourceLow);
            udp.sourcePort(sourcePort);
            Icrc.write(buffer, icrcOffset, Icrc.read(buffer, icrcOffset) ^ delta);
        }
        icrcRecomputed = !asKernelSends;
        payloadOffset = udpOffset + UdpHeader.LENGTH;
        payloadLength = ipLength - Ipv6Header.LENGTH - UdpHeader.LENGTH;
        destinationHigh = ip.destinationHigh();
        destinationLow = ip.destinationLow();
        destinationPort = udp.destinationPort();
        return OK;
    }

    /**
     * @return high 64 bits of the IPv6 destination of the last prepared frame.
     */
    long destinationHigh()
    {
        return destinationHigh;
    }

    /**
     * @return low 64 bits of the IPv6 destination of the last prepared frame.
     */
    long destinationLow()
    {
        return destinationLow;
    }

    /**
     * @return offset of the UDP payload (the BTH) of the last prepared frame.
     */
    int payloadOffset()
    {
        return payloadOffset;
    }

    /**
     * @return length of the UDP payload (BTH .. ICRC) of the last prepared frame.
     */
    int payloadLength()
    {
        return payloadLength;
    }

    /**
     * @return destination address of the last prepared frame, big-endian int.
     */
    int destinationIpv4()
    {
        return destinationIpv4;
    }

    /**
     * @return destination UDP port of the last prepared frame (4791 for RoCEv2).
     */
    int destinationPort()
    {
        return destinationPort;
    }

    /**
     * @return true when the last prepared frame needed the rewrite and a new ICRC.
     */
    boolean icrcRecomputed()
    {
        return icrcRecomputed;
    }

    /**
     * Write the synthetic Ethernet + IPv4 + UDP header of a received datagram.
     *
     * @param buffer          to write into.
     * @param index           of the Ethernet header; the payload follows at {@code index + INCOMING_HEADER_LENGTH}.
     * @param destinationMac  the link's MAC (0 for the udp link).
     * @param sourceIpv4      the datagram's sender.
     * @param sourcePort      the datagram's sender port.
     * @param destinationIpv4 the bound address, or the joined group the datagram came to.
     * @param payloadLength   UDP payload length.
     */
    void writeIncomingHeaders(
        final MutableDirectBuffer buffer,
        final int index,
        final long destinationMac,
        final int sourceIpv4,
        final int sourcePort,
        final int destinationIpv4,
        final int payloadLength)
    {
        // Ethernet: the source MAC is unknown on this path and left zero.
        buffer.putShort(index, (short)(destinationMac >>> 32), BIG_ENDIAN);
        buffer.putInt(index + 2, (int)destinationMac, BIG_ENDIAN);
        buffer.putShort(index + EthernetHeader.SOURCE_OFFSET, (short)0, BIG_ENDIAN);
        buffer.putInt(index + EthernetHeader.SOURCE_OFFSET + 2, 0, BIG_ENDIAN);
        buffer.putShort(index + EthernetHeader.TYPE_OFFSET, (short)EthernetHeader.ETHERTYPE_IPV4, BIG_ENDIAN);

        final int ipOffset = index + EthernetHeader.LENGTH;
        ipv4.wrap(buffer, ipOffset)
            .versionAndHeaderLength(Ipv4Header.LENGTH / 4)
            .tos(0)
            .totalLength(Ipv4Header.LENGTH + UdpHeader.LENGTH + payloadLength)
            .identification(0)
            .flagsAndFragmentOffset(Ipv4Header.FLAG_DONT_FRAGMENT)
            .ttl(RoceFrameBuilder.DEFAULT_TTL)
            .protocol(Ipv4Header.PROTOCOL_UDP)
            .checksum(0)
            .source(sourceIpv4)
            .destination(destinationIpv4)
            .updateChecksum();
        udp.wrap(buffer, ipOffset + Ipv4Header.LENGTH)
            .sourcePort(sourcePort)
            .destinationPort(UdpHeader.ROCE_V2_PORT)
            .datagramLength(UdpHeader.LENGTH + payloadLength)
            .checksum(0);
    }

    /**
     * Write the synthetic Ethernet + IPv6 + UDP header of a datagram received over IPv6.
     *
     * @param buffer          to write into.
     * @param index           of the Ethernet header; the payload follows at
     *                        {@code index + INCOMING_IPV6_HEADER_LENGTH}.
     * @param sourceHigh      the datagram's sender, high 64 bits.
     * @param sourceLow       the datagram's sender, low 64 bits.
     * @param sourcePort      the datagram's sender port.
     * @param destinationHigh the bound address or the joined group the datagram came to, high 64 bits.
     * @param destinationLow  low 64 bits of it.
     * @param payloadLength   UDP payload length.
     */
    void writeIncomingIpv6Headers(
        final MutableDirectBuffer buffer,
        final int index,
        final long sourceHigh,
        final long sourceLow,
        final int sourcePort,
        final long destinationHigh,
        final long destinationLow,
        final int payloadLength)
    {
        // Ethernet: neither MAC is known on this path (the kernel owns layer 2); both are left zero.
        buffer.setMemory(index, 2 * 6, (byte)0);
        buffer.putShort(index + EthernetHeader.TYPE_OFFSET, (short)EthernetHeader.ETHERTYPE_IPV6, BIG_ENDIAN);
        final int ipOffset = index + EthernetHeader.LENGTH;
        ipv6.wrap(buffer, ipOffset)
            .versionClassFlow(0, 0)
            .payloadLength(UdpHeader.LENGTH + payloadLength)
            .nextHeader(Ipv6Header.NEXT_HEADER_UDP)
            .hopLimit(RoceFrameBuilder.DEFAULT_TTL)
            .source(sourceHigh, sourceLow)
            .destination(destinationHigh, destinationLow);
        udp.wrap(buffer, ipOffset + Ipv6Header.LENGTH)
            .sourcePort(sourcePort)
            .destinationPort(UdpHeader.ROCE_V2_PORT)
            .datagramLength(UdpHeader.LENGTH + payloadLength)
            .checksum(0);
    }
}
