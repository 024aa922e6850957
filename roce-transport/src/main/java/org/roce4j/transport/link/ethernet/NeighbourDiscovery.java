package org.roce4j.transport.link.ethernet;

import java.nio.ByteBuffer;

import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.transport.link.LinkCounter;
import org.roce4j.transport.link.LinkCounters;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.addr.Mac;
import org.roce4j.wire.header.EthernetHeader;
import org.roce4j.wire.header.InternetChecksum;
import org.roce4j.wire.header.Ipv6Header;
import org.roce4j.wire.header.NeighborDiscoveryHeader;

/**
 * IPv6 Neighbor Discovery for a link's IPv6 addresses (RFC 4861), the IPv6 counterpart of {@link ArpAgent}:
 * <ul>
 *   <li>A Neighbor Solicitation whose target the link owns ({@link LinkAddress#ownsIpv6(long, long)}: its IPv6
 *   addresses and the link-local address of its MAC) is answered with a solicited Neighbor Advertisement carrying the
 *   link's MAC (flags S and O, section 7.2.4), sent from the target address to the solicitor; its source link-layer
 *   address option creates or updates the solicitor's entry (section 7.2.3). A solicitation from the unspecified
 *   address (duplicate address detection) is answered to all-nodes, ff02::1, without S (section 7.2.4).</li>
 *   <li>A solicitation for any other address is never answered: the link answers only for what it owns.</li>
 *   <li>An advertisement with a target link-layer address option updates the entry of a neighbour the table knows
 *   (section 7.2.5; unsolicited ones for unknown neighbours are ignored).</li>
 *   <li>Resolution sends a solicitation to the target's solicited-node multicast group (ff02::1:ffXX:XXXX, MAC
 *   33:33:ff:XX:XX:XX) with the link's MAC as source link-layer address, from the link's link-local address when the
 *   target is link-local and otherwise from its first IPv6 address (section 7.2.2).</li>
 * </ul>
 * Received messages are checked as section 7.1 requires (hop limit 255, ICMPv6 code 0, a valid checksum, at least
 * 24 bytes, a unicast target, no option of length 0) and dropped silently otherwise. Sent messages carry hop limit
 * 255 and the ICMPv6 checksum over the IPv6 pseudo-header. Single threaded; one preallocated frame buffer.
 */
final class NeighbourDiscovery
{
    /** All-nodes multicast ff02::1, high 64 bits (RFC 4291 section 2.7.1). */
    private static final long ALL_NODES_HIGH = 0xFF02_0000_0000_0000L;
    /** All-nodes multicast ff02::1, low 64 bits. */
    private static final long ALL_NODES_LOW = 1L;
    private static final int MESSAGE_LENGTH = NeighborDiscoveryHeader.LENGTH +
        NeighborDiscoveryHeader.LINK_LAYER_OPTION_LENGTH;
    private static final int FRAME_LENGTH = EthernetHeader.LENGTH + Ipv6Header.LENGTH + MESSAGE_LENGTH;

    private final EthernetLayer layer;
    private final LinkAddress address;
    private final NeighbourTable table;
    private final LinkCounters counters;
    private final UnsafeBuffer out = new UnsafeBuffer(ByteBuffer.allocateDirect(FRAME_LENGTH));
    private final EthernetHeader ethernet = new EthernetHeader();
    private final Ipv6Header ipv6Out = new Ipv6Header();
    private final Ipv6Header ipv6In = new Ipv6Header();
    private final NeighborDiscoveryHeader ndOut = new NeighborDiscoveryHeader();
    private final NeighborDiscoveryHeader ndIn = new NeighborDiscoveryHeader();

    NeighbourDiscovery(final EthernetLayer layer, final LinkAddress address, final NeighbourTable table,
        final LinkCounters counters)
    {
        this.layer = layer;
        this.address = address;
        this.table = table;
        this.counters = counters;
    }

    /**
     * @param buffer    holding a frame.
     * @param ipOffset  of its IPv6 header.
     * @param available bytes from the IPv6 header to the end of the frame.
     * @return true when it is a Neighbor Solicitation or Advertisement (whatever its validity): this agent's to
     *     handle, never the engine's.
     */
    boolean isNeighbourDiscovery(final MutableDirectBuffer buffer, final int ipOffset, final int available)
    {
        if (available < Ipv6Header.LENGTH + NeighborDiscoveryHeader.CHECKSUM_OFFSET ||
            NeighborDiscoveryHeader.NEXT_HEADER_ICMPV6 != (buffer.getByte(ipOffset + Ipv6Header.NEXT_HEADER_OFFSET) &
            0xFF))
        {
            return false;
        }
        final int type = buffer.getByte(ipOffset + Ipv6Header.LENGTH) & 0xFF;
        return NeighborDiscoveryHeader.TYPE_NEIGHBOR_SOLICITATION == type ||
            NeighborDiscoveryHeader.TYPE_NEIGHBOR_ADVERTISEMENT == type;
    }

    /**
     * Handle a received solicitation or advertisement ({@link #isNeighbourDiscovery} said so).
     *
     * @param buffer    holding the frame.
     * @param sourceMac the frame's Ethernet source.
     * @param ipOffset  of the IPv6 header.
     * @param available bytes from the IPv6 header to the end of the frame.
     */
    void onMessage(final MutableDirectBuffer buffer, final long sourceMac, final int ipOffset, final int available)
    {
        final Ipv6Header ip = ipv6In.wrap(buffer, ipOffset);
        final int length = ip.payloadLength();
        if (length < NeighborDiscoveryHeader.LENGTH || Ipv6Header.LENGTH + length > available ||
            NeighborDiscoveryHeader.HOP_LIMIT != ip.hopLimit())
        {
            return;
        }
        final NeighborDiscoveryHeader nd = ndIn.wrap(buffer, ipOffset + Ipv6Header.LENGTH);
        final long sourceHigh = ip.sourceHigh();
        final long sourceLow = ip.sourceLow();
        if (0 != nd.code() || Gid.isMulticast(nd.targetHigh()) || !InternetChecksum.verifies(
            nd.sum(sourceHigh, sourceLow, ip.destinationHigh(), ip.destinationLow(), length)))
        {
            return;
        }
        final long targetHigh = nd.targetHigh();
        final long targetLow = nd.targetLow();
        if (NeighborDiscoveryHeader.TYPE_NEIGHBOR_SOLICITATION == nd.type())
        {
            final long linkLayer = nd.linkLayerOption(length, NeighborDiscoveryHeader.OPTION_SOURCE_LINK_LAYER);
            if (NeighborDiscoveryHeader.MALFORMED_OPTIONS == linkLayer || !address.ownsIpv6(targetHigh, targetLow))
            {
                return;
            }
            final boolean duplicateAddressDetection = 0 == sourceHigh && 0 == sourceLow;
            if (duplicateAddressDetection)
            {
                advertise(targetHigh, targetLow, ALL_NODES_HIGH, ALL_NODES_LOW, Mac.ipv6Multicast(ALL_NODES_LOW),
                    NeighborDiscoveryHeader.FLAG_OVERRIDE);
                return;
            }
            if (Mac.NONE != linkLayer && Mac.isUnicast(linkLayer))
            {
                table.learn(sourceHigh, sourceLow, linkLayer, true);
            }
            advertise(targetHigh, targetLow, sourceHigh, sourceLow, Mac.NONE != linkLayer ? linkLayer : sourceMac,
                NeighborDiscoveryHeader.FLAG_SOLICITED | NeighborDiscoveryHeader.FLAG_OVERRIDE);
        }
        else
        {
            final long linkLayer = nd.linkLayerOption(length, NeighborDiscoveryHeader.OPTION_TARGET_LINK_LAYER);
            if (Mac.isUnicast(linkLayer) && !address.ownsIpv6(targetHigh, targetLow))
            {
                table.learn(targetHigh, targetLow, linkLayer, false);
            }
        }
    }

    /**
     * Send a solicitation for an address to its solicited-node group.
     *
     * @param targetHigh 64 bits of the address to resolve.
     * @param targetLow  64 bits of the address to resolve.
     */
    void solicit(final long targetHigh, final long targetLow)
    {
        final long sourceHigh;
        final long sourceLow;
        final Gid primary = address.primaryIpv6();
        if (Gid.isLinkLocal(targetHigh) || null == primary)
        {
            sourceHigh = Gid.LINK_LOCAL_HIGH;
            sourceLow = address.linkLocalLow();
        }
        else
        {
            sourceHigh = primary.high();
            sourceLow = primary.low();
        }
        final long groupLow = Gid.solicitedNodeLow(targetLow);
        final int length = ndOut.wrap(out, EthernetHeader.LENGTH + Ipv6Header.LENGTH)
            .neighborSolicitation(targetHigh, targetLow, address.mac());
        send(sourceHigh, sourceLow, Gid.SOLICITED_NODE_HIGH, groupLow, Mac.ipv6Multicast(groupLow), length);
        counters.increment(LinkCounter.ND_SOLICITATIONS_SENT);
    }

    private void advertise(final long targetHigh, final long targetLow, final long destinationHigh,
        final long destinationLow, final long destinationMac, final int flags)
    {
        final int length = ndOut.wrap(out, EthernetHeader.LENGTH + Ipv6Header.LENGTH)
            .neighborAdvertisement(flags, targetHigh, targetLow, address.mac());
        send(targetHigh, targetLow, destinationHigh, destinationLow, destinationMac, length);
        counters.increment(LinkCounter.ND_ADVERTISEMENTS_SENT);
    }

    private void send(final long sourceHigh, final long sourceLow, final long destinationHigh,
        final long destinationLow, final long destinationMac, final int messageLength)
    {
        ethernet.wrap(out, 0).destination(destinationMac).source(address.mac())
            .etherType(EthernetHeader.ETHERTYPE_IPV6);
        ipv6Out.wrap(out, EthernetHeader.LENGTH)
            .versionClassFlow(0, 0)
            .payloadLength(messageLength)
            .nextHeader(NeighborDiscoveryHeader.NEXT_HEADER_ICMPV6)
            .hopLimit(NeighborDiscoveryHeader.HOP_LIMIT)
            .source(sourceHigh, sourceLow)
            .destination(destinationHigh, destinationLow);
        ndOut.updateChecksum(sourceHigh, sourceLow, destinationHigh, destinationLow, messageLength);
        layer.transmitControl(out, EthernetHeader.LENGTH + Ipv6Header.LENGTH + messageLength);
    }
}
