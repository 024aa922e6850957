package org.roce4j.wire.decode;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.RoceFrameParser;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.addr.Mac;
import org.roce4j.wire.header.EthernetHeader;
import org.roce4j.wire.header.Ipv4Header;
import org.roce4j.wire.header.Ipv6Header;
import org.roce4j.wire.header.NeighborDiscoveryHeader;
import org.roce4j.wire.header.UdpHeader;

import static java.nio.ByteOrder.BIG_ENDIAN;

/**
 * One-line descriptions of frames that are not RoCEv2: ARP, other EtherTypes, IP packets that are not UDP, UDP to
 * other ports. Reads only bytes the capture holds, so any input is safe.
 */
final class NonRoceDescriber
{
    /** ARP over Ethernet/IPv4: 8 bytes of fixed header, then two MAC/IP pairs (RFC 826). */
    private static final int ARP_LENGTH = 28;
    private static final int ARP_REQUEST = 1;
    private static final int ARP_REPLY = 2;
    private static final int TCP_MIN_LENGTH = 20;
    private static final int ICMP_MIN_LENGTH = 4;

    private NonRoceDescriber()
    {
    }

    /**
     * @param parser that has just parsed the frame with a status for which {@link FrameStatus#isNotRoce()} holds,
     *               or {@link FrameStatus#TRUNCATED_ETHERNET}.
     * @return the description.
     */
    static String describe(final RoceFrameParser parser)
    {
        final FrameStatus status = parser.status();
        final DirectBuffer buffer = parser.buffer();
        final int end = parser.frameOffset() + parser.capturedLength();
        switch (status)
        {
            case TRUNCATED_ETHERNET:
                return "truncated Ethernet frame (" + parser.capturedLength() + " bytes)";
            case NOT_IP:
                return describeNotIp(buffer, parser.etherType(), parser.ipOffset(), end);
            case NOT_UDP:
                return ipPrefix(parser) + describeTransport(buffer, parser, end);
            case NOT_ROCE_PORT:
            {
                final UdpHeader udp = parser.udp();
                return ipPrefix(parser) + "UDP " + udp.sourcePort() + " -> " + udp.destinationPort() +
                    ", UDP port " + udp.destinationPort() + " (not RoCEv2)";
            }
            default:
                return status.description();
        }
    }

    private static String ipPrefix(final RoceFrameParser parser)
    {
        if (4 == parser.ipVersion())
        {
            final Ipv4Header ip = parser.ipv4();
            return "IPv4 " + Ipv4Header.addressToString(ip.source()) + " -> " +
                Ipv4Header.addressToString(ip.destination()) + " ";
        }
        final Ipv6Header ip = parser.ipv6();
        return "IPv6 " + Ipv6Header.addressToString(ip.sourceHigh(), ip.sourceLow()) + " -> " +
            Ipv6Header.addressToString(ip.destinationHigh(), ip.destinationLow()) + " ";
    }

    private static String describeTransport(final DirectBuffer buffer, final RoceFrameParser parser, final int end)
    {
        final int protocol;
        final int at;
        if (4 == parser.ipVersion())
        {
            protocol = parser.ipv4().protocol();
            at = parser.ipOffset() + parser.ipHeaderLength();
        }
        else
        {
            protocol = parser.ipv6().nextHeader();
            at = parser.ipOffset() + Ipv6Header.LENGTH;
        }
        switch (protocol)
        {
            case 6:
                if (end - at >= TCP_MIN_LENGTH)
                {
                    final int sourcePort = buffer.getShort(at, BIG_ENDIAN) & 0xFFFF;
                    final int destinationPort = buffer.getShort(at + 2, BIG_ENDIAN) & 0xFFFF;
                    return "TCP " + sourcePort + " -> " + destinationPort + tcpFlags(buffer.getByte(at + 13) & 0xFF);
                }
                return "TCP (truncated)";
            case 1:
                return end - at >= ICMP_MIN_LENGTH ? "ICMP " + icmpType(buffer.getByte(at) & 0xFF) : "ICMP";
            case NeighborDiscoveryHeader.NEXT_HEADER_ICMPV6:
                return end - at >= ICMP_MIN_LENGTH ? "ICMPv6 " + icmpv6Type(buffer.getByte(at) & 0xFF) +
                    neighbourDiscovery(buffer, at, end) : "ICMPv6";
            default:
                return "protocol " + protocol + protocolName(protocol);
        }
    }

    /**
     * @return for a Neighbor Solicitation or Advertisement, its target and the MAC it carries, e.g.
     *     {@code  fd00:77::1 (mac 02:00:0a:4d:00:01)}; else nothing.
     */
    private static String neighbourDiscovery(final DirectBuffer buffer, final int at, final int end)
    {
        final int type = buffer.getByte(at) & 0xFF;
        if (end - at < NeighborDiscoveryHeader.LENGTH || (NeighborDiscoveryHeader.TYPE_NEIGHBOR_SOLICITATION != type &&
            NeighborDiscoveryHeader.TYPE_NEIGHBOR_ADVERTISEMENT != type))
        {
            return "";
        }
        final NeighborDiscoveryHeader nd = new NeighborDiscoveryHeader().wrap(new UnsafeBuffer(buffer, at, end - at),
            0);
        final long mac = nd.linkLayerOption(end - at, NeighborDiscoveryHeader.TYPE_NEIGHBOR_SOLICITATION == type ?
            NeighborDiscoveryHeader.OPTION_SOURCE_LINK_LAYER : NeighborDiscoveryHeader.OPTION_TARGET_LINK_LAYER);
        return " " + Gid.toString(nd.targetHigh(), nd.targetLow()) + (mac >= 0 ? " (mac " + Mac.toString(mac) + ")" :
            "");
    }

    private static String tcpFlags(final int flags)
    {
        final StringBuilder sb = new StringBuilder(" [");
        final String[] names = {"FIN", "SYN", "RST", "PSH", "ACK", "URG"};
        for (int i = 0; i < names.length; i++)
        {
            if (0 != (flags & (1 << i)))
            {
                if (sb.length() > 2)
                {
                    sb.append(',');
                }
                sb.append(names[i]);
            }
        }
        return sb.append(']').toString();
    }

    private static String icmpType(final int type)
    {
        switch (type)
        {
            case 0:
                return "echo reply";
            case 3:
                return "destination unreachable";
            case 8:
                return "echo request";
            case 11:
                return "time exceeded";
            default:
                return "type " + type;
        }
    }

    private static String icmpv6Type(final int type)
    {
        switch (type)
        {
            case 1:
                return "destination unreachable";
            case 128:
                return "echo request";
            case 129:
                return "echo reply";
            case 133:
                return "router solicitation";
            case 134:
                return "router advertisement";
            case 135:
                return "neighbor solicitation";
            case 136:
                return "neighbor advertisement";
            case 143:
                return "multicast listener report v2";
            default:
                return "type " + type;
        }
    }

    private static String protocolName(final int protocol)
    {
        switch (protocol)
        {
            case 0:
                return " (IPv6 hop-by-hop options)";
            case 2:
                return " (IGMP)";
            case 17:
                return " (UDP)";
            case 41:
                return " (IPv6 in IP)";
            case 47:
                return " (GRE)";
            case 50:
                return " (ESP)";
            case 132:
                return " (SCTP)";
            default:
                return "";
        }
    }

    private static String describeNotIp(
        final DirectBuffer buffer, final int etherType, final int at, final int end)
    {
        if (EthernetHeader.ETHERTYPE_ARP == etherType)
        {
            if (end - at < ARP_LENGTH)
            {
                return "ARP (truncated)";
            }
            final int operation = buffer.getShort(at + 6, BIG_ENDIAN) & 0xFFFF;
            final long senderMac = ((long)(buffer.getShort(at + 8, BIG_ENDIAN) & 0xFFFF) << 32) |
                (buffer.getInt(at + 10, BIG_ENDIAN) & 0xFFFF_FFFFL);
            final String senderIp = Ipv4Header.addressToString(buffer.getInt(at + 14, BIG_ENDIAN));
            final String targetIp = Ipv4Header.addressToString(buffer.getInt(at + 24, BIG_ENDIAN));
            if (ARP_REQUEST == operation)
            {
                return "ARP who-has " + targetIp + " tell " + senderIp;
            }
            if (ARP_REPLY == operation)
            {
                return "ARP " + senderIp + " is-at " + Mac.toString(senderMac);
            }
            return "ARP operation " + operation;
        }
        return "EtherType " + Text.hex(etherType, 4) + etherTypeName(etherType) + ", not IP";
    }

    private static String etherTypeName(final int etherType)
    {
        switch (etherType)
        {
            case 0x8035:
                return " (RARP)";
            case 0x8808:
                return " (Ethernet flow control: PAUSE/PFC)";
            case 0x8809:
                return " (slow protocols: LACP)";
            case 0x88A8:
                return " (802.1ad QinQ)";
            case 0x88CC:
                return " (LLDP)";
            case 0x88E5:
                return " (MACsec)";
            case 0x8906:
                return " (FCoE)";
            case 0x8915:
                return " (RoCE v1, not decoded)";
            default:
                return "";
        }
    }
}
