package org.roce4j.transport.link.pcap;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.pcap4j.core.PcapHandle;
import org.pcap4j.core.PcapNativeException;
import org.roce4j.transport.TransportCounter;
import org.roce4j.transport.link.HostileInput;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.transport.link.LinkCounter;
import org.roce4j.transport.link.LinkCounters;
import org.roce4j.transport.link.NetworkNamespace;
import org.roce4j.wire.header.EthernetHeader;
import org.roce4j.wire.header.Ipv4Header;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The pcap link's receive path under hostile frames (issue 13), sent by a raw capture handle on the other end of a
 * veth pair inside a namespace made for the run: the same kinds as the tunnel gets, minus what a veth cannot carry
 * (frames beyond its MTU, and runts, which the kernel pads to a header as it sends them). The link's BPF filter
 * keeps what is neither ARP nor RoCEv2 for it in the kernel; the rest is counted or dropped, none throws, and a
 * UD SEND after every 200 frames (over IPv4 and IPv6 in turn) is delivered with its bytes.
 */
class PcapReceivePathTest
{
    private static final String LINK_END = "hos0";
    private static final String RAW_END = "hos1";
    private static final int LINK_IP = Ipv4Header.parseAddress("10.82.0.1");
    private static final int RAW_IP = Ipv4Header.parseAddress("10.82.0.2");
    private static final int FRAMES = 3000;
    /** A well-formed SEND after every this many hostile frames (the target has 32 receive buffers). */
    private static final int MARKER_EVERY = 200;
    /** Largest frame the veth takes: MTU 1500 plus the Ethernet header. */
    private static final int MAX_FRAME = 1514;
    private static NetworkNamespace namespace;
    private static long rawMac;

    @BeforeAll
    static void createVethPair()
    {
        namespace = NetworkNamespace.withPcapVethPair("hostile", LINK_END, RAW_END, 1500);
        rawMac = namespace.mac(RAW_END);
    }

    @AfterAll
    static void removeNamespace()
    {
        if (null != namespace)
        {
            namespace.close();
        }
    }

    @Test
    void hostileFramesAreCountedOrDroppedAndTheLinkStillDelivers() throws Exception
    {
        final long seed = Long.getLong("roce4j.seed", 0xCA9_7E57L);
        System.out.println("PcapReceivePathTest seed=0x" + Long.toHexString(seed) + " (rerun with -Droce4j.seed=N)");
        final SplittableRandom random = new SplittableRandom(seed);
        final LinkAddress from = new LinkAddress(rawMac, RAW_IP);
        final UnsafeBuffer frame = new UnsafeBuffer(ByteBuffer.allocateDirect(70_000));
        final byte[] bytes = new byte[MAX_FRAME];
        final PcapLink link = namespace.call(() -> PcapLink.open(
            PcapLinkConfig.parse("pcap:" + LINK_END + ",ip=" + Ipv4Header.addressToString(LINK_IP)),
            System::nanoTime));
        final PcapHandle raw = namespace.call(() -> new PcapHandle.Builder(RAW_END).snaplen(16384)
            .immediateMode(true).timeoutMillis(10).build());
        try (HostileInput target = new HostileInput(link))
        {
            final LinkCounters counters = link.counters();
            final List<byte[]> markers = new ArrayList<>();
            int sent = 0;
            for (int i = 1; i <= FRAMES; i++)
            {
                final int length = Math.min(MAX_FRAME, target.garbage(random, frame, from));
                if (length >= EthernetHeader.LENGTH)
                {
                    frame.getBytes(0, bytes, 0, length);
                    sent += send(raw, bytes, length) ? 1 : 0;
                }
                if (0 == i % MARKER_EVERY)
                {
                    // The link's BPF filter keeps most garbage in the kernel, so arrivals cannot be counted: a
                    // well-formed SEND behind the frames (the veth keeps order) shows they were all taken.
                    markers.add(marker(target, raw, frame, bytes, from, random, markers.size() % 2 == 1));
                }
            }

            final int expected = markers.size();
            assertEquals(FRAMES / MARKER_EVERY, expected);
            for (int i = 0; i < expected; i++)
            {
                target.assertReceived(i, markers.get(i));
            }
            assertEquals(expected, target.received().size(), "no hostile frame completed a receive");
            target.assertNoInternalError();
            final String all = target.engine().counters() + " / " + counters;
            assertTrue(sent > FRAMES / 2, "frames the veth took: " + sent);
            assertTrue(target.engine().counters().get(TransportCounter.DROP_BAD_ICRC) > 0, all);
            // IPv6 frames for GIDs that are not the link's: the link owns its addresses and filters them (as
            // pcap's BPF filter and its IPv4 check always did); the engine never sees them.
            assertEquals(0, target.engine().counters().get(TransportCounter.DROP_NOT_OUR_GID), "IPv6: " + all);
            assertTrue(target.engine().counters().get(TransportCounter.DROP_MALFORMED_FRAME) > 0, all);
            assertTrue(counters.get(LinkCounter.ARP_RECEIVED) > 0, all);
        }
        finally
        {
            raw.close();
        }
    }

    /** Send a well-formed UD SEND (every other one over IPv6) and wait until the engine completed it. */
    private static byte[] marker(final HostileInput target, final PcapHandle raw, final UnsafeBuffer frame,
        final byte[] bytes, final LinkAddress from, final SplittableRandom random, final boolean ipv6) throws Exception
    {
        final byte[] payload = new byte[1 + random.nextInt(1000)];
        random.nextBytes(payload);
        final int length = target.udSend(frame, from, ipv6, payload);
        frame.getBytes(0, bytes, 0, length);
        assertTrue(send(raw, bytes, length));
        final int before = target.received().size();
        target.runUntil(() -> target.received().size() > before, "a well-formed SEND after hostile frames");
        return payload;
    }

    private static boolean send(final PcapHandle raw, final byte[] bytes, final int length) throws Exception
    {
        try
        {
            raw.sendPacket(bytes, length);
            return true;
        }
        catch (final PcapNativeException ex)
        {
            // The kernel refuses some frames outright (e.g. shorter than its minimum): not sent, not counted.
            return false;
        }
    }

}
