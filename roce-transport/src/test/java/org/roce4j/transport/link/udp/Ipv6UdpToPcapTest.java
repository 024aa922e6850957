package org.roce4j.transport.link.udp;

import org.agrona.MutableDirectBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.roce4j.transport.link.LinkCounter;
import org.roce4j.transport.link.LinkTestFrames;
import org.roce4j.transport.link.NamespacePair;
import org.roce4j.transport.link.NetworkNamespace;
import org.roce4j.transport.link.TestEnvironment;
import org.roce4j.transport.link.ethernet.NeighbourState;
import org.roce4j.transport.link.pcap.PcapLink;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.FrameSeal;
import org.roce4j.wire.RoceFrameParser;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.header.EthernetHeader;
import org.roce4j.wire.header.Ipv6Header;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * IPv6 between two network namespaces joined by a veth pair, through a real kernel: a pcap link in one (the kernel's
 * IPv6 off there, so only the link answers for its address) and a udp link in the other (its address on the veth, the
 * kernel's IPv6 on). The pcap link resolves the udp side by Neighbor Solicitation, which the kernel answers; the
 * kernel resolves the pcap link's address the same way, which the link's Neighbor Discovery agent answers. Frames go
 * to the udp link with UDP checksum 0 (as rxe sends them; the udp link accepts them as rxe's own socket does), are
 * echoed back through the kernel (the udp link rewrites the IPv6 source and UDP port and updates the ICRC), and the
 * pcap link, which sees the real bytes, finds every echo's ICRC valid and its flow label 0.
 */
class Ipv6UdpToPcapTest
{
    private static final String PCAP_IP = "fd00:7b::1";
    private static final String UDP_IP = "fd00:7b::2";
    private static final int FRAMES = 200;
    private static NamespacePair namespaces;

    private static void requireEnvironment()
    {
        TestEnvironment.requireNetworkAdmin();
        TestEnvironment.requireCommand("ip");
        TestEnvironment.requireLibpcap();
    }

    @BeforeAll
    static void createNamespaces()
    {
        namespaces = NamespacePair.createIfAvailable(Ipv6UdpToPcapTest::requireEnvironment, "p6a", "p6b");
        if (null == namespaces)
        {
            return;
        }
        final NetworkNamespace pcapSide = namespaces.first();
        final NetworkNamespace udpSide = namespaces.second();
        pcapSide.exec("sysctl", "-q", "-w", "net.ipv6.conf.all.disable_ipv6=1");
        pcapSide.exec("sysctl", "-q", "-w", "net.ipv6.conf.default.disable_ipv6=1");
        udpSide.exec("sysctl", "-q", "-w", "net.ipv6.conf.default.accept_dad=0");
        NetworkNamespace.run("ip", "link", "add", "p6a0", "mtu", "9000", "netns", pcapSide.name(), "type", "veth",
            "peer", "name", "p6b0", "mtu", "9000", "netns", udpSide.name());
        udpSide.ip("-6", "addr", "add", UDP_IP + "/64", "dev", "p6b0", "nodad");
        pcapSide.ip("link", "set", "p6a0", "up");
        udpSide.ip("link", "set", "p6b0", "up");
    }

    @AfterAll
    static void removeNamespaces()
    {
        NamespacePair.close(namespaces);
    }

    @Test
    void framesCrossBothWaysResolvedByNeighborDiscoveryWithValidIcrcs()
    {
        requireEnvironment();
        final Gid udpAddress = Gid.parse(UDP_IP);
        try (PcapLink pcap = namespaces.first().call(() ->
                PcapLink.open("pcap:p6a0,ip=" + PCAP_IP + ",mac=02:00:00:00:7b:01"));
            UdpLink udp = namespaces.second().call(() -> UdpLink.open("udp:[" + UDP_IP + "]")))
        {
            final LinkTestFrames frames = LinkTestFrames.create();
            // First from the udp side: the kernel does not know the link's MAC yet and solicits it; only the
            // link's Neighbor Discovery agent can answer (the kernel on the link's side has IPv6 off).
            final LinkTestFrames.Collector first = new LinkTestFrames.Collector(1, true);
            frames.send(udp, null, null, Gid.parse(PCAP_IP), 999, 0x99, 0xC099, 64);
            udp.flush();
            LinkTestFrames.pollUntil(pcap, first, () -> 1 == first.count(), "the frame from the udp side");
            assertEquals(1, pcap.counters().get(LinkCounter.ND_ADVERTISEMENTS_SENT),
                "the kernel solicited the link's address and the link answered: " + pcap.counters());
            assertEquals(0, first.badStatus(), "with a valid ICRC: " + first.firstBadStatus());

            final LinkTestFrames.Collector echoes = new LinkTestFrames.Collector(FRAMES, true);
            final Echo echo = new Echo(udp);
            for (int i = 0; i < FRAMES; i++)
            {
                frames.send(pcap, null, null, udpAddress, i, 0x40 + i, 0xC000 + i, 32 + i * 7);
                pcap.flush();
                final int sent = i + 1;
                LinkTestFrames.pollUntil(pcap, echoes, () ->
                {
                    udp.poll(echo, 64);
                    udp.flush();
                    return sent - echoes.count() <= 16;
                }, "echoes");
            }
            LinkTestFrames.pollUntil(pcap, echoes, () ->
            {
                udp.poll(echo, 64);
                udp.flush();
                return echoes.count() == FRAMES;
            }, "every echo");

            assertEquals(0, echoes.badStatus(), "echoes that did not parse with a valid ICRC: first " +
                echoes.firstBadStatus());
            assertEquals(0, echoes.badPayload());
            for (int i = 0; i < FRAMES; i++)
            {
                assertEquals(i, echoes.sequence(i), "echo order");
                assertEquals(udpAddress, echoes.sourceIp(i), "echo source");
                assertEquals(Gid.parse(PCAP_IP), echoes.destinationIp(i), "echo destination");
                assertEquals(0x40 + i, echoes.destQp(i), "destination QP kept");
                assertEquals(udp.port(), echoes.sourcePort(i), "the kernel's source port, the bound one");
            }
            assertEquals(0, echo.nonZeroFlowLabels, "what the udp link received (synthetic header)");
            assertEquals(FRAMES, udp.counters().get(LinkCounter.FRAMES_RECEIVED), "checksum-0 datagrams accepted");
            assertEquals(FRAMES + 1, udp.counters().get(LinkCounter.FRAMES_SENT));
            assertEquals(NeighbourState.REACHABLE, pcap.neighbourState(udpAddress));
            assertTrue(pcap.counters().get(LinkCounter.ND_SOLICITATIONS_SENT) <= 1, "the first frame taught the " +
                "link the udp side's MAC (RFC 4861 7.2.3: the kernel's solicitation carried it): " + pcap.counters());
            assertEquals(0, pcap.counters().get(LinkCounter.SEND_UNRESOLVED));
            assertEquals(0, pcap.counters().get(LinkCounter.ARP_REQUESTS_SENT), "no ARP on an IPv6-only link");
            assertEquals(0, echoes.nonZeroFlowLabels(), "the kernel sent flow label 0 (IPV6_AUTOFLOWLABEL off)");
        }
    }

    /**
     * Sends every frame back to its sender through the udp link, addresses swapped and the ICRC of the new headers
     * written (the link then rewrites what the kernel decides and updates it).
     */
    private static final class Echo implements org.roce4j.transport.link.FrameHandler
    {
        private final UdpLink link;
        private final FrameSeal seal = new FrameSeal();
        private final RoceFrameParser parser = new RoceFrameParser();
        private int nonZeroFlowLabels;

        Echo(final UdpLink link)
        {
            this.link = link;
        }

        public void onFrame(final MutableDirectBuffer buffer, final int offset, final int length)
        {
            assertEquals(FrameStatus.OK, parser.parse(buffer, offset, length, false));
            final int ip = offset + EthernetHeader.LENGTH;
            final Ipv6Header header = new Ipv6Header().wrap(buffer, ip);
            nonZeroFlowLabels += 0 == header.flowLabel() ? 0 : 1;
            final long sourceHigh = header.sourceHigh();
            final long sourceLow = header.sourceLow();
            header.source(header.destinationHigh(), header.destinationLow()).destination(sourceHigh, sourceLow);
            seal.resealFrame(buffer, offset, length);
            while (!link.send(buffer, offset, length))
            {
                link.flush();
            }
        }
    }
}
