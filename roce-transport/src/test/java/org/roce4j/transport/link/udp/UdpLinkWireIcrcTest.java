package org.roce4j.transport.link.udp;

import java.util.ArrayList;
import java.util.List;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.pcap4j.core.BpfProgram;
import org.pcap4j.core.PcapHandle;
import org.roce4j.transport.link.LinkCounter;
import org.roce4j.transport.link.TestEnvironment;
import org.roce4j.transport.link.LinkTestFrames;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.RoceFrameParser;
import org.roce4j.wire.addr.Gid;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * What the kernel really puts on the wire for frames sent through a {@link UdpLink}: captured with libpcap on
 * {@code lo}, every frame must pass the full RoceFrameParser check including the ICRC. This proves the rewrite to
 * IPv4 ID 0, DF and the bound source address and port (the frames are built with UDP source port 0xC000, so the
 * ICRC the engine computed would not match without the rewrite). Needs root (packet capture) and libpcap.
 */
class UdpLinkWireIcrcTest
{
    private static final int FRAMES = 6;
    private static final int[] PAYLOADS = {8, 9, 64, 1021, 1500, 4096};
    /** Capture ring size: 16 MiB. */
    private static final int CAPTURE_BUFFER_BYTES = 16 << 20;

    private PcapHandle capture;
    private UdpLink sender;
    private UdpLink receiver;

    @BeforeEach
    void requireCapture()
    {
        TestEnvironment.requireNetworkAdmin();
        TestEnvironment.requireLibpcap();
    }

    @AfterEach
    void close()
    {
        if (null != sender)
        {
            sender.close();
        }
        if (null != receiver)
        {
            receiver.close();
        }
        if (null != capture)
        {
            capture.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "transport=epoll", "transport=io_uring", "transport=epoll,send=eventloop", "transport=io_uring,send=eventloop"})
    void everyCapturedFrameCarriesAValidIcrc(final String options) throws Exception
    {
        final List<byte[]> wire = sendAndCapture(options, 40);
        final RoceFrameParser parser = new RoceFrameParser();
        for (int i = 0; i < FRAMES; i++)
        {
            final byte[] frame = wire.get(i);
            final FrameStatus status = parser.parse(new UnsafeBuffer(frame), 0, frame.length, true);
            assertEquals(FrameStatus.OK, status, "captured frame " + i + " (" + options + ")");
            assertEquals(0, parser.ipv4().identification(), "IPv4 identification on the wire");
            assertTrue(parser.ipv4().dontFragment(), "DF on the wire");
            assertEquals(sender.port(), parser.udp().sourcePort(), "UDP source port on the wire is the bound port");
            assertEquals(sender.address().ipv4(), parser.ipv4().source(), "IPv4 source");
            assertEquals(PAYLOADS[i], parser.payloadLength(), "payload length");
        }
        assertEquals(FRAMES, sender.counters().get(LinkCounter.FRAMES_SENT), "FRAMES_SENT");
    }

    @Test
    void nioOnJava17CannotMatchTheKernelsIpv4Ids() throws Exception
    {
        TestEnvironment.require(Runtime.version().feature() < 19,
            "Java " + Runtime.version().feature() + " sets IP_DONTFRAGMENT on NIO sockets; this test shows the " +
            "Java 17 trap");
        final List<byte[]> wire = sendAndCapture("transport=nio,icrc=unverified", 44);
        final RoceFrameParser parser = new RoceFrameParser();
        int badIcrc = 0;
        for (final byte[] frame : wire)
        {
            final FrameStatus status = parser.parse(new UnsafeBuffer(frame), 0, frame.length, true);
            if (0 == parser.ipv4().identification())
            {
                assertEquals(FrameStatus.OK, status, "a frame the kernel happened to send with ID 0 verifies");
            }
            if (FrameStatus.BAD_ICRC == status)
            {
                badIcrc++;
            }
        }
        assertTrue(badIcrc >= FRAMES - 1, "without IP_PMTUDISC_DO the kernel writes IPv4 IDs the ICRC did not " +
            "cover: " + badIcrc + " of " + FRAMES + " frames had a bad ICRC");
    }

    private List<byte[]> sendAndCapture(final String options, final int subnet) throws Exception
    {
        final long pid = ProcessHandle.current().pid();
        final String prefix = "127." + (64 + (pid % 128)) + "." + (subnet * 4 + (int)((pid / 128) % 4)) + ".";
        final String from = prefix + "1";
        final String to = prefix + "2";
        capture = new PcapHandle.Builder("lo")
            .snaplen(16384)
            // A roomy ring: before the filter below is set, the capture sees all of lo's traffic (other programs'
            // too), which must not crowd out the frames of this test.
            .bufferSize(CAPTURE_BUFFER_BYTES)
            .immediateMode(true)
            .timeoutMillis(10)
            .build();
        capture.setFilter("udp dst port 4791 and src host " + from + " and dst host " + to,
            BpfProgram.BpfCompileMode.OPTIMIZE);
        capture.setBlockingMode(PcapHandle.BlockingMode.NONBLOCKING);
        // Empty the ring of what it caught before the filter was set: on a busy lo (other programs, other test
        // runs) a full ring drops this test's frames. Nothing can match the filter yet, the links are not open.
        while (null != capture.getNextRawPacket())
        {
            continue;
        }

        sender = UdpLink.open("udp:" + from + "," + options);
        receiver = UdpLink.open("udp:" + to + "," + options);
        final LinkTestFrames frames = LinkTestFrames.create();
        final LinkTestFrames.Collector collector = new LinkTestFrames.Collector(FRAMES, false);
        for (int i = 0; i < FRAMES; i++)
        {
            frames.send(sender, receiver, collector, receiver, i, 0x11 + i, 0xC000 + i, PAYLOADS[i]);
            sender.flush();
        }
        LinkTestFrames.pollUntil(receiver, collector, () -> collector.count() == FRAMES, "frames through the kernel");
        assertEquals(Gid.parse(from), collector.sourceIp(0), "source seen by the receiver");

        final List<byte[]> wire = new ArrayList<>();
        final long deadline = System.nanoTime() + LinkTestFrames.PATIENCE_NS;
        while (wire.size() < FRAMES)
        {
            final byte[] frame = capture.getNextRawPacket();
            if (null != frame)
            {
                wire.add(frame);
            }
            else if (System.nanoTime() - deadline > 0)
            {
                fail("captured only " + wire.size() + " of " + FRAMES + " frames on lo (libpcap: received " +
                    capture.getStats().getNumPacketsReceived() + ", dropped " +
                    capture.getStats().getNumPacketsDropped() + ")");
            }
        }
        return wire;
    }
}
