package org.roce4j.transport.link.tunnel;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roce4j.transport.link.FrameHandler;
import org.roce4j.transport.link.LinkCounter;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.addr.Mac;
import org.roce4j.wire.header.EthernetHeader;
import org.roce4j.wire.pcap.PcapReader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
/**
 * Two tunnel links talking to each other over loopback UDP, as a QEMU guest and roce4j do: bursts, claims, pcap,
 * errors, kernel drops and allocation (layer 2 and ARP in {@link TunnelLinkArpTest}).
 */
class TunnelLinkTest extends TunnelLinkFixture
{
    @Test
    void burstOfAFullRingArrivesCompleteAndInOrder() throws IOException
    {
        final int burst = 200;
        final TunnelLink[] pair = pair(config -> config.withQueues(burst, 4));
        final TunnelLink a = pair[0];
        a.resolve(IP_B);
        assertTrue(Mac.NONE != a.resolvedMac(IP_B) || resolveNow(pair));

        for (int i = 0; i < burst; i++)
        {
            final int index = a.tryClaim(1100);
            assertTrue(index >= 0, "claim " + i);
            final int length = buildFrame(a.sendBuffer(), index, 0L, a.address().mac(), IP_A, IP_B, i, 1024);
            a.commit(index, length);
        }
        assertEquals(-1, a.tryClaim(100), "the ring is full");
        assertEquals(1, a.counters().get(LinkCounter.SEND_BACK_PRESSURE));
        assertEquals(burst, a.flush());
        pumpUntil(pair, () -> burst == receivedByB.size());

        for (int i = 0; i < burst; i++)
        {
            final byte[] frame = receivedByB.get(i);
            assertEquals(FrameStatus.OK, parser.parse(new UnsafeBuffer(frame), 0, frame.length));
            assertEquals(i, parser.bth().psn(), "frame " + i + " out of order");
            assertEquals(1024, parser.payloadLength());
        }
        assertEquals(0, pair[1].counters().get(LinkCounter.RECEIVE_FILTERED));
    }

    @Test
    void largestFrameAtMtu9000() throws IOException
    {
        final TunnelLink[] pair = pair(config -> config.withMtu(9000));
        final TunnelLink a = pair[0];
        assertEquals(9018, a.maxFrameLength());
        assertThrows(IllegalArgumentException.class, () -> a.tryClaim(9019));
        a.resolve(IP_B);
        assertTrue(Mac.NONE != a.resolvedMac(IP_B) || resolveNow(pair));

        // IP MTU 9000 = IPv4 20 + UDP 8 + BTH 12 + payload + ICRC 4.
        final int payload = 9000 - 20 - 8 - 12 - 4;
        final int index = a.tryClaim(a.maxFrameLength());
        final int length = buildFrame(a.sendBuffer(), index, 0L, a.address().mac(), IP_A, IP_B, 42, payload);
        assertEquals(14 + 9000, length);
        a.commit(index, length);
        assertEquals(1, a.flush());
        pumpUntil(pair, () -> 1 == receivedByB.size());

        final byte[] frame = receivedByB.get(0);
        assertEquals(length, frame.length);
        assertEquals(FrameStatus.OK, parser.parse(new UnsafeBuffer(frame), 0, frame.length));
        assertEquals(payload, parser.payloadLength());
        for (int i = 0; i < payload; i++)
        {
            assertEquals((byte)i, frame[parser.payloadOffset() + i], "payload byte " + i);
        }
    }

    @Test
    void abortedClaimsAreSkippedAndClaimsAreChecked() throws IOException
    {
        final TunnelLink[] pair = pair(config -> config);
        final TunnelLink a = pair[0];
        a.resolve(IP_B);
        assertTrue(Mac.NONE != a.resolvedMac(IP_B) || resolveNow(pair));

        final int first = a.tryClaim(200);
        final int second = a.tryClaim(200);
        a.abort(first);
        final int length = buildFrame(a.sendBuffer(), second, 0L, a.address().mac(), IP_A, IP_B, 5, 16);
        assertThrows(IllegalArgumentException.class, () -> a.commit(second, 201), "longer than the claim");
        assertThrows(IllegalArgumentException.class, () -> a.commit(second + 1, length), "not a claim index");
        assertThrows(IllegalArgumentException.class, () -> a.commit(first, length), "already aborted");
        a.commit(second, length);
        assertEquals(1, a.flush());
        pumpUntil(pair, () -> 1 == receivedByB.size());
        assertFrame(receivedByB.get(0), pair[1].address().mac(), a.address().mac(), 5);
    }

    @Test
    void anOpenClaimHoldsBackLaterFrames() throws IOException
    {
        final TunnelLink[] pair = pair(config -> config);
        final TunnelLink a = pair[0];
        a.resolve(IP_B);
        assertTrue(Mac.NONE != a.resolvedMac(IP_B) || resolveNow(pair));

        final int first = a.tryClaim(200);
        final int second = a.tryClaim(200);
        a.commit(second, buildFrame(a.sendBuffer(), second, 0L, a.address().mac(), IP_A, IP_B, 2, 16));
        assertEquals(0, a.flush(), "frames leave in claim order");
        a.commit(first, buildFrame(a.sendBuffer(), first, 0L, a.address().mac(), IP_A, IP_B, 1, 16));
        assertEquals(2, a.flush());
        pumpUntil(pair, () -> 2 == receivedByB.size());
        assertFrame(receivedByB.get(0), pair[1].address().mac(), a.address().mac(), 1);
        assertFrame(receivedByB.get(1), pair[1].address().mac(), a.address().mac(), 2);
    }

    @Test
    void pcapRecordsEveryFrameSentAndReceived(@TempDir final Path dir) throws IOException
    {
        final Path file = dir.resolve("sub/a.pcap");
        final TunnelLink[] pair = pair(config -> IP_A == config.ipv4() ? config.withPcap(file) : config);
        final TunnelLink a = pair[0];
        final int length = buildFrame(scratch, 0L, a.address().mac(), IP_A, IP_B, 3, 33);
        assertTrue(a.send(scratch, 0, length));
        a.flush();
        pumpUntil(pair, () -> 1 == receivedByB.size());
        final int reply = buildFrame(scratch, 0L, pair[1].address().mac(), IP_B, IP_A, 4, 44);
        assertTrue(pair[1].send(scratch, 0, reply));
        pair[1].flush();
        pumpUntil(pair, () -> 1 == receivedByA.size());
        a.close();

        final List<byte[]> records = new ArrayList<>();
        long previousNs = 0;
        try (PcapReader reader = PcapReader.open(file))
        {
            while (reader.next())
            {
                records.add(reader.copyRecord());
                assertTrue(reader.timestampNs() >= previousNs, "timestamps in order");
                previousNs = reader.timestampNs();
            }
        }
        assertEquals(4, records.size(), "ARP request, ARP reply, A's frame, B's frame");
        assertEquals(EthernetHeader.ETHERTYPE_ARP, etherType(records.get(0)));
        assertEquals(Mac.BROADCAST, new EthernetHeader().wrap(new UnsafeBuffer(records.get(0)), 0)
            .destination());
        assertEquals(EthernetHeader.ETHERTYPE_ARP, etherType(records.get(1)));
        assertFrame(records.get(2), pair[1].address().mac(), a.address().mac(), 3);
        assertArrayEquals(receivedByB.get(0), records.get(2), "the recorded frame is the sent frame");
        assertArrayEquals(receivedByA.get(0), records.get(3), "the recorded frame is the received frame");
        assertTrue(Files.size(file) > 24 + 4 * 16);
    }

    @Test
    void bindingAPortInUseFailsWithAClearMessage() throws IOException
    {
        try (DatagramChannel holder = DatagramChannel.open())
        {
            holder.bind(new InetSocketAddress("127.0.0.1", 0));
            final int port = ((InetSocketAddress)holder.getLocalAddress()).getPort();
            final BindException ex = assertThrows(BindException.class, () -> TunnelLink.open(
                TunnelLinkConfig.of("127.0.0.1", port, "127.0.0.1", 9, IP_A)));
            assertTrue(ex.getMessage().contains("cannot bind UDP 127.0.0.1:" + port), ex.getMessage());
        }
    }

    @Test
    void badAddressesFailWithClearMessages(@TempDir final Path dir) throws IOException
    {
        final IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
            () -> TunnelLink.open("tunnel:127.0.0.1:0:no-such-host.invalid:5000,ip=10.0.0.1"));
        assertTrue(unknown.getMessage().contains("peer host 'no-such-host.invalid' is not a known address"),
            unknown.getMessage());

        final BindException foreign = assertThrows(BindException.class,
            () -> TunnelLink.open("tunnel:192.0.2.1:0:127.0.0.1:5000,ip=10.0.0.1"));
        assertTrue(foreign.getMessage().contains("cannot bind UDP 192.0.2.1:0"), foreign.getMessage());

        final Path notADirectory = Files.createFile(dir.resolve("file"));
        final IOException pcap = assertThrows(IOException.class,
            () -> TunnelLink.open("tunnel:127.0.0.1:0:127.0.0.1:5000,ip=10.0.0.1,pcap=" + notADirectory + "/x.pcap"));
        assertTrue(pcap.getMessage().contains("cannot create pcap file"), pcap.getMessage());
    }

    @Test
    void datagramsTheKernelDropsForAFullSocketAreCounted() throws IOException
    {
        final TunnelLink link = track(TunnelLink.open(TunnelLinkConfig.of("127.0.0.1", 0, "127.0.0.1", 9, IP_A)));
        // Frames addressed to the link's MAC, sent while it does not poll: far more than its socket buffer holds
        // (4 MiB asked for, at most twice net.core.rmem_max granted), so the kernel must drop some.
        final int frames = 4_000;
        final int length = 8_000;
        final ByteBuffer frame = ByteBuffer.allocateDirect(length);
        new EthernetHeader().wrap(new UnsafeBuffer(frame), 0).destination(link.address().mac())
            .source(0x02_00_00_00_00_99L).etherType(EthernetHeader.ETHERTYPE_IPV4);
        try (DatagramChannel sender = DatagramChannel.open())
        {
            final InetSocketAddress target = new InetSocketAddress("127.0.0.1", link.localPort());
            for (int i = 0; i < frames; i++)
            {
                frame.clear();
                assertEquals(length, sender.send(frame, target), "loopback sends never block");
            }
        }
        final long deadline = System.nanoTime() + DEADLINE_NS;
        final FrameHandler ignore = (buffer, offset, frameLength) -> { };
        // The frames are IPv4 to 0.0.0.0, not the link's address: the link filters those it reads.
        while (link.counters().get(LinkCounter.RECEIVE_FILTERED) + link.counters().get(LinkCounter.RECEIVE_ERRORS) <
            frames)
        {
            link.poll(ignore, 64);
            if (System.nanoTime() - deadline > 0)
            {
                fail("frames neither received nor counted as dropped: " + link.counters());
            }
        }
        assertEquals(frames, link.counters().get(LinkCounter.RECEIVE_FILTERED) +
            link.counters().get(LinkCounter.RECEIVE_ERRORS), "every frame filtered or counted: " + link.counters());
        assertTrue(link.counters().get(LinkCounter.RECEIVE_ERRORS) > 0, "the kernel dropped some: " +
            link.counters());
    }

    @Test
    void sendAndReceiveAllocateNothingPerFrame() throws IOException
    {
        final TunnelLink[] pair = pair(config -> config);
        final TunnelLink a = pair[0];
        final TunnelLink b = pair[1];
        a.resolve(IP_B);
        assertTrue(Mac.NONE != a.resolvedMac(IP_B) || resolveNow(pair));
        final int length = buildFrame(scratch, 0L, a.address().mac(), IP_A, IP_B, 1, 256);
        final long[] received = {0};
        final FrameHandler counting = (buffer, offset, frameLength) -> received[0]++;
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        final long thread = Thread.currentThread().getId();

        final int warmUp = 20_000;
        final int measured = 20_000;
        exchange(a, b, length, counting, received, warmUp);
        final long before = threads.getThreadAllocatedBytes(thread);
        exchange(a, b, length, counting, received, measured);
        final long allocated = threads.getThreadAllocatedBytes(thread) - before;

        assertEquals(warmUp + measured, received[0]);
        assertTrue(allocated < measured, "allocated " + allocated + " bytes for " + measured + " frames");
    }

    private void exchange(
        final TunnelLink a, final TunnelLink b, final int length, final FrameHandler handler, final long[] received,
        final int frames)
    {
        final long target = received[0] + frames;
        int sent = 0;
        final long deadline = System.nanoTime() + DEADLINE_NS;
        while (received[0] < target)
        {
            // Keep at most 32 frames in flight so the socket buffer never overflows.
            if (sent < frames && sent - (received[0] - (target - frames)) < 32)
            {
                final int index = a.tryClaim(length);
                if (index >= 0)
                {
                    a.sendBuffer().putBytes(index, scratch, 0, length);
                    a.commit(index, length);
                    sent++;
                }
                a.flush();
            }
            b.poll(handler, 16);
            if (System.nanoTime() - deadline > 0)
            {
                throw new AssertionError("exchange stalled at " + received[0] + " of " + target);
            }
        }
    }
}
