package org.roce4j.transport.link.udp;

import org.agrona.MutableDirectBuffer;
import org.roce4j.wire.Icrc;
import org.roce4j.wire.header.BthHeader;
import org.roce4j.wire.header.EthernetHeader;
import org.roce4j.wire.header.Ipv4Header;
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
 * <p>Incoming ({@link #writeIncomingHeaders}): a received datagram has no visible IP header, so a synthetic
 * Ethernet + IPv4 + UDP header is written in front of its payload: source address and port from the datagram's
 * sender, destination the bound address and port 4791, ID 0, DF, TTL 64, a valid IPv4 header checksum and UDP
 * checksum 0. The ICRC inside the payload was computed by the sender over the real header, which may differ (rxe
 * sends changing IDs), so it cannot be checked on this path.
 *
 * <p>Not thread safe: one instance per thread (the engine thread rewrites outgoing frames, the event loop writes
 * incoming headers).
 */
final class KernelHeaders
{
    /** Synthetic header in front of a received payload: untagged Ethernet, IPv4 without options, UDP. */
    static final int INCOMING_HEADER_LENGTH = EthernetHeader.LENGTH + Ipv4Header.LENGTH + UdpHeader.LENGTH;
    /** Smallest RoCEv2 UDP payload: a BTH and an ICRC. */
    static final int MIN_ROCE_PAYLOAD = BthHeader.LENGTH + Icrc.LENGTH;
    /** IPv4 version 4 and IHL 5 (20 bytes, no options): the only header the kernel writes for this socket. */
    private static final int VERSION_IHL_NO_OPTIONS = 0x45;
    /** TTL written into synthetic headers (the Linux default, net.ipv4.ip_default_ttl); masked by the ICRC. */
    private static final int SYNTHETIC_TTL = 64;

    /** Outcome of {@link #prepareOutgoing}: the frame can be sent. */
    static final int OK = 0;
    /** Outcome of {@link #prepareOutgoing}: not an IPv4 frame (the udp link carries IPv4 only). */
    static final int NOT_IPV4 = 1;
    /** Outcome of {@link #prepareOutgoing}: IPv4 with options, or not UDP: the kernel would not send this header. */
    static final int UNSENDABLE_IP_HEADER = 2;
    /** Outcome of {@link #prepareOutgoing}: IP or UDP lengths inconsistent with the frame. */
    static final int BAD_LENGTH = 3;

    private final Ipv4Header ipv4 = new Ipv4Header();
    private final UdpHeader udp = new UdpHeader();
    private final int sourceIpv4;
    private final int sourcePort;

    private int payloadOffset;
    private int payloadLength;
    private int destinationIpv4;
    private int destinationPort;
    private boolean icrcRecomputed;

    /**
     * @param sourceIpv4 the address the socket is bound to.
     * @param sourcePort the port the socket is bound to.
     */
    KernelHeaders(final int sourceIpv4, final int sourcePort)
    {
        this.sourceIpv4 = sourceIpv4;
        this.sourcePort = sourcePort;
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
        if (EthernetHeader.ETHERTYPE_IPV4 != etherType)
        {
            return NOT_IPV4;
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
     * @param destinationIpv4 the bound address.
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
            .ttl(SYNTHETIC_TTL)
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
}
