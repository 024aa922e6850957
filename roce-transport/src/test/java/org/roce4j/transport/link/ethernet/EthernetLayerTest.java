package org.roce4j.transport.link.ethernet;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.transport.link.LinkCounter;
import org.roce4j.transport.link.LinkCounters;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RoceFrameBuilder;
import org.roce4j.wire.RoceFrameParser;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.addr.Mac;
import org.roce4j.wire.header.ArpHeader;
import org.roce4j.wire.header.EthernetHeader;
import org.roce4j.wire.header.InternetChecksum;
import org.roce4j.wire.header.Ipv6Header;
import org.roce4j.wire.header.NeighborDiscoveryHeader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shared layer 2 with hand-built frames and a medium that records what it is given: the ARP agent and the IPv6
 * Neighbor Discovery agent answer for the link's own addresses only, resolve peers (solicited-node multicast for ND,
 * with a valid ICMPv6 checksum), hold frames meanwhile and fill in destination MACs; the receive filter keeps what is
 * not the link's away from the engine.
 */
class EthernetLayerTest
{
    private static final long OWN_MAC = Mac.parse("02:00:0a:4d:00:01");
    private static final Gid OWN_V4 = Gid.parse("10.77.0.1");
    private static final Gid OWN_V6 = Gid.parse("fd00:77::1");
    private static final Gid PEER_V4 = Gid.parse("10.77.0.2");
    private static final Gid PEER_V6 = Gid.parse("fd00:77::2");
    private static final long PEER_MAC = Mac.parse("52:54:00:12:34:56");
    private static final LinkAddress ADDRESS = new LinkAddress(OWN_MAC, List.of(OWN_V4, OWN_V6));

    private final AtomicLong clock = new AtomicLong(1_000_000_000L);
    private final LinkCounters counters = new LinkCounters();
    private final List<byte[]> wire = new ArrayList<>();
    private final EthernetLayer layer = new EthernetLayer("test", ADDRESS, Mac.NONE,
        new NeighbourPolicy(3, 1000, 16, 8), 9018, this::record, counters, clock::get);
    private final UnsafeBuffer in = new UnsafeBuffer(ByteBuffer.allocateDirect(2048));
    private final UnsafeBuffer out = new UnsafeBuffer(ByteBuffer.allocateDirect(2048));
    private final RoceFrameBuilder builder = new RoceFrameBuilder();

    private int record(final UnsafeBuffer buffer, final int offset, final int length)
    {
        final byte[] copy = new byte[length];
        buffer.getBytes(offset, copy);
        wire.add(copy);
        return EthernetLayer.SENT;
    }

    @Test
    void answersArpForEachOwnIpv4AddressAndLearnsTheAsker()
    {
        assertFalse(layer.receive(in, 0, arp(ArpHeader.OPERATION_REQUEST, Mac.BROADCAST, PEER_MAC, PEER_V4, OWN_V4)));
        assertEquals(1, wire.size(), "one reply");
        final UnsafeBuffer reply = new UnsafeBuffer(wire.get(0));
        assertEquals(EthernetHeader.MIN_FRAME_LENGTH, wire.get(0).length, "padded to the Ethernet minimum");
        assertEquals(PEER_MAC, new EthernetHeader().wrap(reply, 0).destination());
        final ArpHeader arp = new ArpHeader().wrap(reply, EthernetHeader.LENGTH);
        assertEquals(ArpHeader.OPERATION_REPLY, arp.operation());
        assertEquals(OWN_MAC, arp.senderMac());
        assertEquals(OWN_V4.ipv4(), arp.senderIp());
        assertEquals(PEER_V4.ipv4(), arp.targetIp());
        assertEquals(1, counters.get(LinkCounter.ARP_REPLIES_SENT));
        assertEquals(NeighbourState.REACHABLE, layer.state(PEER_V4.high(), PEER_V4.low()), "RFC 826: learnt");
        assertEquals(PEER_MAC, layer.resolvedMac(PEER_V4.high(), PEER_V4.low()));
    }

    @Test
    void neverAnswersArpForAnAddressItDoesNotOwn()
    {
        final Gid foreign = Gid.parse("10.77.0.9");
        layer.receive(in, 0, arp(ArpHeader.OPERATION_REQUEST, Mac.BROADCAST, PEER_MAC, PEER_V4, foreign));
        assertEquals(List.of(), wire);
        assertEquals(NeighbourState.UNKNOWN, layer.state(PEER_V4.high(), PEER_V4.low()),
            "an unknown sender of a request not for us is not added (RFC 826 merge rule)");
        layer.receive(in, 0, arp(ArpHeader.OPERATION_REQUEST, Mac.BROADCAST, PEER_MAC, Gid.parse("0.0.0.0"), OWN_V4));
        assertEquals(1, wire.size(), "a probe (sender 0.0.0.0) is answered ...");
        assertEquals(NeighbourState.UNKNOWN, layer.state(0, Gid.ipv4MappedLow(0)), "... but its sender not learnt");
        assertEquals(2, counters.get(LinkCounter.ARP_RECEIVED));
    }

    @Test
    void resolvesIpv4ByArpAndSendsTheHeldFrameWithTheLearntMac()
    {
        final int length = roceFrame(OWN_V4, PEER_V4);
        assertEquals(EthernetLayer.HELD, layer.send(out, 0, length));
        assertEquals(1, counters.get(LinkCounter.FRAMES_HELD));
        assertEquals(1, wire.size(), "an ARP request at once");
        final ArpHeader request = new ArpHeader().wrap(new UnsafeBuffer(wire.get(0)), EthernetHeader.LENGTH);
        assertEquals(ArpHeader.OPERATION_REQUEST, request.operation());
        assertEquals(PEER_V4.ipv4(), request.targetIp());
        assertEquals(Mac.BROADCAST, Mac.read(new UnsafeBuffer(wire.get(0)), 0));

        layer.receive(in, 0, arp(ArpHeader.OPERATION_REPLY, OWN_MAC, PEER_MAC, PEER_V4, OWN_V4));
        assertEquals(2, wire.size(), "the held frame left");
        assertEquals(PEER_MAC, Mac.read(new UnsafeBuffer(wire.get(1)), 0));
        assertEquals(1, counters.get(LinkCounter.FRAMES_SENT));
        assertEquals(EthernetLayer.SENT, layer.send(out, 0, roceFrame(OWN_V4, PEER_V4)), "now at once");
    }

    @Test
    void answersNeighborSolicitationsForItsOwnIpv6AddressesWithAValidAdvertisement()
    {
        final Gid solicitor = Gid.parse("fd00:77::2");
        assertFalse(layer.receive(in, 0, solicitation(PEER_MAC, solicitor, OWN_V6, PEER_MAC)));
        assertEquals(1, wire.size(), "one advertisement");
        final UnsafeBuffer na = new UnsafeBuffer(wire.get(0));
        assertEquals(PEER_MAC, Mac.read(na, 0), "to the solicitor's link-layer address");
        assertEquals(OWN_MAC, Mac.read(na, EthernetHeader.SOURCE_OFFSET));
        final Ipv6Header ip = new Ipv6Header().wrap(na, EthernetHeader.LENGTH);
        assertEquals(NeighborDiscoveryHeader.HOP_LIMIT, ip.hopLimit());
        assertEquals(OWN_V6, new Gid(ip.sourceHigh(), ip.sourceLow()), "from the target address");
        assertEquals(solicitor, new Gid(ip.destinationHigh(), ip.destinationLow()));
        final NeighborDiscoveryHeader nd = new NeighborDiscoveryHeader().wrap(na, EthernetHeader.LENGTH + 40);
        assertEquals(NeighborDiscoveryHeader.TYPE_NEIGHBOR_ADVERTISEMENT, nd.type());
        assertEquals(NeighborDiscoveryHeader.FLAG_SOLICITED | NeighborDiscoveryHeader.FLAG_OVERRIDE, nd.flags());
        assertEquals(OWN_V6, new Gid(nd.targetHigh(), nd.targetLow()));
        assertEquals(OWN_MAC, nd.linkLayerOption(ip.payloadLength(), NeighborDiscoveryHeader.OPTION_TARGET_LINK_LAYER));
        assertTrue(InternetChecksum.verifies(nd.sum(ip.sourceHigh(), ip.sourceLow(), ip.destinationHigh(),
            ip.destinationLow(), ip.payloadLength())), "ICMPv6 checksum over the pseudo-header");
        assertEquals(1, counters.get(LinkCounter.ND_ADVERTISEMENTS_SENT));
        assertEquals(NeighbourState.REACHABLE, layer.state(solicitor.high(), solicitor.low()),
            "RFC 4861 7.2.3: the solicitor's link-layer option creates its entry");

        final Gid linkLocal = Gid.linkLocal(OWN_MAC);
        layer.receive(in, 0, solicitation(PEER_MAC, Gid.linkLocal(PEER_MAC), linkLocal, PEER_MAC));
        assertEquals(2, wire.size(), "its link-local address (from its MAC) is its own too");
    }

    @Test
    void neverAnswersASolicitationForAnAddressItDoesNotOwnNorABrokenOne()
    {
        layer.receive(in, 0, solicitation(PEER_MAC, PEER_V6, Gid.parse("fd00:77::99"), PEER_MAC));
        assertEquals(List.of(), wire, "not its address");
        final int length = solicitation(PEER_MAC, PEER_V6, OWN_V6, PEER_MAC);
        in.putByte(EthernetHeader.LENGTH + Ipv6Header.HOP_LIMIT_OFFSET, (byte)64);
        layer.receive(in, 0, length);
        assertEquals(List.of(), wire, "hop limit below 255: maybe forwarded, RFC 4861 7.1.1");
        solicitation(PEER_MAC, PEER_V6, OWN_V6, PEER_MAC);
        final int optionMac = EthernetHeader.LENGTH + 40 + NeighborDiscoveryHeader.LENGTH + 2;
        in.putByte(optionMac, (byte)(in.getByte(optionMac) ^ 1));
        layer.receive(in, 0, length);
        assertEquals(List.of(), wire, "a bad checksum (one bit of the option flipped)");
        assertEquals(3, counters.get(LinkCounter.ND_RECEIVED));
        assertEquals(0, counters.get(LinkCounter.FRAMES_RECEIVED), "none reached the engine");
    }

    @Test
    void answersDuplicateAddressDetectionToAllNodes()
    {
        layer.receive(in, 0, solicitation(PEER_MAC, Gid.ZERO, OWN_V6, Mac.NONE));
        assertEquals(1, wire.size());
        final UnsafeBuffer na = new UnsafeBuffer(wire.get(0));
        assertEquals(Mac.parse("33:33:00:00:00:01"), Mac.read(na, 0));
        final Ipv6Header ip = new Ipv6Header().wrap(na, EthernetHeader.LENGTH);
        assertEquals(Gid.parse("ff02::1"), new Gid(ip.destinationHigh(), ip.destinationLow()));
        final NeighborDiscoveryHeader nd = new NeighborDiscoveryHeader().wrap(na, EthernetHeader.LENGTH + 40);
        assertEquals(NeighborDiscoveryHeader.FLAG_OVERRIDE, nd.flags(), "not solicited (RFC 4861 7.2.4)");
    }

    @Test
    void resolvesIpv6BySolicitationToTheSolicitedNodeGroupAndLearnsFromTheAdvertisement()
    {
        final int length = roceFrame(OWN_V6, PEER_V6);
        assertEquals(EthernetLayer.HELD, layer.send(out, 0, length));
        assertEquals(1, wire.size());
        final UnsafeBuffer ns = new UnsafeBuffer(wire.get(0));
        assertEquals(Mac.parse("33:33:ff:00:00:02"), Mac.read(ns, 0), "RFC 2464 multicast MAC of the group");
        final Ipv6Header ip = new Ipv6Header().wrap(ns, EthernetHeader.LENGTH);
        assertEquals(Gid.parse("ff02::1:ff00:2"), new Gid(ip.destinationHigh(), ip.destinationLow()));
        assertEquals(OWN_V6, new Gid(ip.sourceHigh(), ip.sourceLow()), "from the link's global address");
        final NeighborDiscoveryHeader nd = new NeighborDiscoveryHeader().wrap(ns, EthernetHeader.LENGTH + 40);
        assertEquals(NeighborDiscoveryHeader.TYPE_NEIGHBOR_SOLICITATION, nd.type());
        assertEquals(PEER_V6, new Gid(nd.targetHigh(), nd.targetLow()));
        assertEquals(OWN_MAC, nd.linkLayerOption(ip.payloadLength(), NeighborDiscoveryHeader.OPTION_SOURCE_LINK_LAYER));
        assertTrue(InternetChecksum.verifies(nd.sum(ip.sourceHigh(), ip.sourceLow(), ip.destinationHigh(),
            ip.destinationLow(), ip.payloadLength())));
        assertEquals(1, counters.get(LinkCounter.ND_SOLICITATIONS_SENT));

        layer.receive(in, 0, advertisement(PEER_MAC, PEER_V6, OWN_V6, PEER_V6, PEER_MAC));
        assertEquals(2, wire.size(), "the held frame left");
        final UnsafeBuffer sent = new UnsafeBuffer(wire.get(1));
        assertEquals(PEER_MAC, Mac.read(sent, 0));
        assertEquals(FrameStatus.OK, new RoceFrameParser().parse(sent, 0, wire.get(1).length, true));

        final Gid linkLocalPeer = Gid.linkLocal(PEER_MAC);
        layer.resolve(linkLocalPeer.high(), linkLocalPeer.low());
        final Ipv6Header second = new Ipv6Header().wrap(new UnsafeBuffer(wire.get(2)), EthernetHeader.LENGTH);
        assertEquals(Gid.linkLocal(OWN_MAC), new Gid(second.sourceHigh(), second.sourceLow()),
            "a link-local target is solicited from the link-local address");
    }

    @Test
    void unsolicitedAdvertisementsForUnknownNeighboursAreIgnored()
    {
        layer.receive(in, 0, advertisement(PEER_MAC, PEER_V6, Gid.parse("ff02::1"), PEER_V6, PEER_MAC));
        assertEquals(NeighbourState.UNKNOWN, layer.state(PEER_V6.high(), PEER_V6.low()));
    }

    @Test
    void mapsMulticastDestinationsWithoutAsking()
    {
        assertEquals(EthernetLayer.SENT, layer.send(out, 0, roceFrame(OWN_V6, Gid.parse("ff0e::1:2"))));
        assertEquals(Mac.parse("33:33:00:01:00:02"), Mac.read(new UnsafeBuffer(wire.get(0)), 0));
        assertEquals(EthernetLayer.SENT, layer.send(out, 0, roceFrame(OWN_V4, Gid.parse("239.1.2.3"))));
        assertEquals(Mac.parse("01:00:5e:01:02:03"), Mac.read(new UnsafeBuffer(wire.get(1)), 0));
    }

    @Test
    void deliversMulticastOnlyForJoinedGroupsAsRxeMcastAddPutsTheirMacsOnTheNetdev()
    {
        final Gid group = Gid.parse("239.1.2.3");
        final Gid sameMac = Gid.parse("224.129.2.3");
        final long groupMac = Mac.ofMulticastGroup(group.high(), group.low());
        assertEquals(groupMac, Mac.ofMulticastGroup(sameMac.high(), sameMac.low()), "RFC 1112: 23 bits, shared MAC");
        assertFalse(layer.receive(in, 0, copyIn(roceFrame(PEER_V4, group), groupMac)), "not joined");
        layer.joinGroup(group.high(), group.low());
        layer.joinGroup(sameMac.high(), sameMac.low());
        assertTrue(layer.receive(in, 0, copyIn(roceFrame(PEER_V4, group), groupMac)), "joined");
        layer.leaveGroup(sameMac.high(), sameMac.low());
        assertTrue(layer.receive(in, 0, copyIn(roceFrame(PEER_V4, group), groupMac)), "the MAC is still joined");
        layer.leaveGroup(group.high(), group.low());
        assertFalse(layer.receive(in, 0, copyIn(roceFrame(PEER_V4, group), groupMac)), "left");

        final Gid v6 = Gid.parse("ff0e::1:2");
        final long v6Mac = Mac.ofMulticastGroup(v6.high(), v6.low());
        assertFalse(layer.receive(in, 0, copyIn(roceFrame(PEER_V6, v6), v6Mac)), "not joined");
        layer.joinGroup(v6.high(), v6.low());
        assertTrue(layer.receive(in, 0, copyIn(roceFrame(PEER_V6, v6), v6Mac)), "joined, RFC 2464 MAC");
        assertEquals(3, counters.get(LinkCounter.FRAMES_RECEIVED));
        assertEquals(3, counters.get(LinkCounter.RECEIVE_FILTERED));
        assertThrows(IllegalArgumentException.class, () -> layer.joinGroup(OWN_V4.high(), OWN_V4.low()),
            "a unicast address is no group");

        layer.resolve(group.ipv4());
        assertEquals(List.of(), wire, "a group is never resolved by ARP");
    }

    @Test
    void deliversOnlyWhatIsAddressedToTheLinksMacAndAddresses()
    {
        assertTrue(layer.receive(in, 0, copyIn(roceFrame(PEER_V4, OWN_V4), OWN_MAC)), "ours");
        assertTrue(layer.receive(in, 0, copyIn(roceFrame(PEER_V6, OWN_V6), OWN_MAC)), "ours, IPv6");
        assertTrue(layer.receive(in, 0, copyIn(roceFrame(PEER_V6, Gid.linkLocal(OWN_MAC)), OWN_MAC)),
            "its link-local GID");
        assertFalse(layer.receive(in, 0, copyIn(roceFrame(PEER_V4, OWN_V4), PEER_MAC)), "another MAC");
        assertFalse(layer.receive(in, 0, copyIn(roceFrame(PEER_V4, Gid.parse("10.77.0.9")), OWN_MAC)),
            "another IPv4 address");
        assertFalse(layer.receive(in, 0, copyIn(roceFrame(PEER_V6, Gid.parse("fd00:77::9")), OWN_MAC)),
            "another IPv6 address");
        assertFalse(layer.receive(in, 0, 13), "a runt");
        assertEquals(3, counters.get(LinkCounter.FRAMES_RECEIVED));
        assertEquals(4, counters.get(LinkCounter.RECEIVE_FILTERED));
    }

    private int copyIn(final int length, final long destinationMac)
    {
        in.putBytes(0, out, 0, length);
        Mac.write(in, 0, destinationMac);
        return length;
    }

    private int roceFrame(final Gid from, final Gid to)
    {
        builder.wrap(out, 0).ethernet(0L, OWN_MAC);
        if (from.isIpv4Mapped())
        {
            builder.ipv4(from.ipv4(), to.ipv4());
        }
        else
        {
            builder.ipv6(from.high(), from.low(), to.high(), to.low());
        }
        builder.udp(0xC000).bth(Opcode.UD_SEND_ONLY, 0x11, 1);
        builder.deth().qkey(1).srcQp(2);
        return builder.finish();
    }

    private int arp(final int operation, final long destination, final long senderMac, final Gid sender,
        final Gid target)
    {
        in.setMemory(0, EthernetHeader.MIN_FRAME_LENGTH, (byte)0);
        new EthernetHeader().wrap(in, 0).destination(destination).source(senderMac)
            .etherType(EthernetHeader.ETHERTYPE_ARP);
        new ArpHeader().wrap(in, EthernetHeader.LENGTH).ethernetIpv4(operation).senderMac(senderMac)
            .senderIp(sender.ipv4()).targetMac(0).targetIp(target.ipv4());
        return EthernetHeader.MIN_FRAME_LENGTH;
    }

    private int solicitation(final long sourceMac, final Gid source, final Gid target, final long optionMac)
    {
        final long groupLow = Gid.solicitedNodeLow(target.low());
        final NeighborDiscoveryHeader nd = new NeighborDiscoveryHeader().wrap(in, EthernetHeader.LENGTH + 40);
        int length = nd.neighborSolicitation(target.high(), target.low(), optionMac);
        if (Mac.NONE == optionMac)
        {
            length = NeighborDiscoveryHeader.LENGTH;
        }
        return icmpFrame(Mac.ipv6Multicast(groupLow), sourceMac, source, new Gid(Gid.SOLICITED_NODE_HIGH, groupLow),
            nd, length);
    }

    private int advertisement(final long sourceMac, final Gid source, final Gid destination, final Gid target,
        final long targetMac)
    {
        final NeighborDiscoveryHeader nd = new NeighborDiscoveryHeader().wrap(in, EthernetHeader.LENGTH + 40);
        final int length = nd.neighborAdvertisement(NeighborDiscoveryHeader.FLAG_SOLICITED |
            NeighborDiscoveryHeader.FLAG_OVERRIDE, target.high(), target.low(), targetMac);
        return icmpFrame(destination.isMulticast() ? Mac.ipv6Multicast(destination.low()) : OWN_MAC, sourceMac,
            source, destination, nd, length);
    }

    private int icmpFrame(final long destinationMac, final long sourceMac, final Gid source, final Gid destination,
        final NeighborDiscoveryHeader nd, final int length)
    {
        new EthernetHeader().wrap(in, 0).destination(destinationMac).source(sourceMac)
            .etherType(EthernetHeader.ETHERTYPE_IPV6);
        new Ipv6Header().wrap(in, EthernetHeader.LENGTH).versionClassFlow(0, 0).payloadLength(length)
            .nextHeader(NeighborDiscoveryHeader.NEXT_HEADER_ICMPV6).hopLimit(NeighborDiscoveryHeader.HOP_LIMIT)
            .source(source.high(), source.low()).destination(destination.high(), destination.low());
        nd.updateChecksum(source.high(), source.low(), destination.high(), destination.low(), length);
        return EthernetHeader.LENGTH + 40 + length;
    }
}
