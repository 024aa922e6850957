package org.roce4j.transport.link.udp;

import java.util.ArrayList;
import java.util.List;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.pcap4j.core.BpfProgram;
import org.pcap4j.core.PcapHandle;
import org.roce4j.transport.link.LinkCounter;
import org.roce4j.transport.link.NetnsProcess;
import org.roce4j.transport.link.NamespacePair;
import org.roce4j.transport.link.TestEnvironment;
import org.roce4j.transport.link.LinkTestFrames;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.RoceFrameParser;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.header.Ipv4Header;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two udp links in two network namespaces joined by a veth pair, so frames cross a real Ethernet hop with kernel
 * ARP: an echo peer in a child JVM in one namespace ({@link NetnsProcess}), the sender in this JVM on a thread
 * inside the other. Every frame seen on the wire, both ways, must carry a valid ICRC.
 */
class UdpAcrossNamespacesTest
{
    private static final String ECHO_IP = "10.79.0.1";
    private static final String LOCAL_IP = "10.79.0.2";
    private static final int FRAMES = 200;
    /** IP MTU of the veth: the kernel's default for a new veth, which the largest test frame fits. */
    private static final int VETH_MTU = 1500;
    private static NamespacePair namespaces;

    /**
     * Skip (or, with ROCE4J_REQUIRE_TOOLS=1, fail) unless the machine has root, ip and libpcap.
     */
    private static void requireEnvironment()
    {
        TestEnvironment.requireNetworkAdmin();
        TestEnvironment.requireCommand("ip");
        TestEnvironment.requireLibpcap();
    }

    @BeforeAll
    static void createNamespaces()
    {
        namespaces = NamespacePair.joinedByVeth(UdpAcrossNamespacesTest::requireEnvironment,
            "echo", "rxa", ECHO_IP + "/24", "local", "rxb", LOCAL_IP + "/24", VETH_MTU);
    }

    @AfterAll
    static void removeNamespaces()
    {
        NamespacePair.close(namespaces);
    }

    @Test
    void framesCrossAVethBothWaysWithValidIcrcs() throws Exception
    {
        requireEnvironment();
        final PcapHandle capture = namespaces.second().call(() ->
        {
            // Immediate mode uses TPACKET_V2: one ring slot per frame of snaplen; 400 slots must fit unread.
            final PcapHandle handle = new PcapHandle.Builder("rxb").snaplen(9234).bufferSize(16 << 20)
                .immediateMode(true).timeoutMillis(10).build();
            handle.setFilter("udp port 4791", BpfProgram.BpfCompileMode.OPTIMIZE);
            handle.setBlockingMode(PcapHandle.BlockingMode.NONBLOCKING);
            return handle;
        });
        try (NetnsProcess echo = NetnsProcess.start(namespaces.first(), UdpEchoPeer.class, "udp:" + ECHO_IP,
            Integer.toString(FRAMES));
            UdpLink local = namespaces.second().call(() -> UdpLink.open("udp:" + LOCAL_IP)))
        {
            echo.awaitLine(line -> line.startsWith("READY"), 30_000);
            final LinkTestFrames frames = LinkTestFrames.create();
            final LinkTestFrames.Collector collector = new LinkTestFrames.Collector(FRAMES, false);
            final int echoIp = Ipv4Header.parseAddress(ECHO_IP);
            for (int i = 0; i < FRAMES; i++)
            {
                frames.send(local, null, null, echoIp, i, 0x40 + i, 0xC000 + i, 32 + i * 7);
                local.flush();
                final int sent = i + 1;
                LinkTestFrames.pollUntil(local, collector, () -> sent - collector.count() <= 16, "echoes");
            }
            LinkTestFrames.pollUntil(local, collector, () -> collector.count() == FRAMES, "every echo");
            final String done = echo.awaitLine(line -> line.startsWith("DONE"), 30_000);
            assertEquals("DONE received=" + FRAMES + " sent=" + FRAMES, done);
            assertEquals(0, echo.waitFor(30_000), "echo peer exit code");

            for (int i = 0; i < FRAMES; i++)
            {
                assertEquals(i, collector.sequence(i), "echo order");
                assertEquals(Gid.ofIpv4(echoIp), collector.sourceIp(i), "echo source");
                assertEquals(0x40 + i, collector.destQp(i), "destination QP kept");
            }
            assertEquals(0, collector.badPayload(), "payloads intact");
            assertEquals(FRAMES, local.counters().get(LinkCounter.FRAMES_RECEIVED));

            // Non-blocking reads see a capture block only once the kernel retires it: read until all arrived.
            final List<byte[]> wire = new ArrayList<>();
            final long deadline = System.nanoTime() + LinkTestFrames.PATIENCE_NS;
            while (wire.size() < 2 * FRAMES && System.nanoTime() - deadline < 0)
            {
                final byte[] frame = capture.getNextRawPacket();
                if (null != frame)
                {
                    wire.add(frame);
                }
            }
            assertEquals(2 * FRAMES, wire.size(), "frames on the veth, both ways");
            final RoceFrameParser parser = new RoceFrameParser();
            int fromEcho = 0;
            for (final byte[] captured : wire)
            {
                final FrameStatus status = parser.parse(new UnsafeBuffer(captured), 0, captured.length, true);
                assertEquals(FrameStatus.OK, status, () -> "ICRC on the wire of " +
                    Ipv4Header.addressToString(parser.ipv4().source()) + " id " + parser.ipv4().identification() +
                    " flags " + Integer.toHexString(parser.ipv4().flagsAndFragmentOffset()) + " sport " +
                    parser.udp().sourcePort() + " len " + captured.length + " tos " + parser.ipv4().tos() +
                    " carried " + Integer.toHexString(parser.carriedIcrc()) + " computed " +
                    Integer.toHexString(parser.computedIcrc()) + " frame " + org.agrona.BitUtil.toHex(captured));
                assertEquals(0, parser.ipv4().identification());
                if (echoIp == parser.ipv4().source())
                {
                    fromEcho++;
                }
            }
            assertEquals(FRAMES, fromEcho, "echoes on the wire");
            assertTrue(capture.getStats().getNumPacketsDropped() == 0, "capture dropped nothing");
        }
        finally
        {
            capture.close();
        }
    }
}
