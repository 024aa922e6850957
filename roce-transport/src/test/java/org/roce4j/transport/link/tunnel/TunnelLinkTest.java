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
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;

import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roce4j.transport.link.FrameHandler;
import org.roce4j.transport.link.LinkCounter;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RoceFrameBuilder;
import org.roce4j.wire.RoceFrameParser;
import org.roce4j.wire.addr.Mac;
import org.roce4j.wire.header.ArpHeader;
import org.roce4j.wire.header.EthernetHeader;
import org.roce4j.wire.header.Ipv4Header;
import org.roce4j.wire.pcap.PcapReader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Two tunnel links talking to each other over loopback UDP, as a QEMU guest and roce4j do.
 */
class TunnelLinkTest
{
    private static final int IP_A = Ipv4Header.parseAddress("10.77.0.1");
    private static final int IP_B = Ipv4Header.parseAddress("10.77.0.2");
    private static final long DEADLINE_NS = TimeUnit.SECONDS.toNanos(10);

    private final List<AutoCloseable> toClose = new ArrayList<>();
    private final RoceFrameBuilder builder = new RoceFrameBuilder();
    private final RoceFrameParser parser = new RoceFrameParser();
    private final UnsafeBuffer scratch = new UnsafeBuffer(ByteBuffer.allocateDirect(16384));
    private final List<byte[]> receivedByA = new ArrayList<>();
    private final List<byte[]> receivedByB = new ArrayList<>();
    private final FrameHandler collectA = (buffer, offset, length) -> receivedByA.add(copy(buffer, offset, length));
    private final FrameHandler collectB = (buffer, offset, length) -> receivedByB.add(copy(buffer, offset, length));

    @AfterEach
    void closeAll() throws Exception
    {
        for (final AutoCloseable closeable : toClose)
        {
            closeable.close();
        }
    }

    @Test
    void arpResolvesBothWaysAndHeldFramesGoOutAfterTheReply() throws IOException
    {
        final TunnelLink[] pair = pair(config -> config);
        final TunnelLink a = pair[0];
        final TunnelLink b = pair[1];

        // A knows nothing about B: its frame waits while A asks who has 10.77.0.2.
        final int length = buildFrame(scratch, 0L, a.address().mac(), IP_A, IP_B, 7, 64);
        assertTrue(a.send(scratch, 0, length));
        assertEquals(0, a.flush());
        assertEquals(1, a.heldFrameCount());
        assertEquals(1, a.counters().get(LinkCounter.FRAMES_HELD));
        assertEquals(1, a.counters().get(LinkCounter.ARP_REQUESTS_SENT));

        pumpUntil(pair, () -> 1 == receivedByB.size());

        assertEquals(b.address().mac(), a.resolvedMac(IP_B));
        assertEquals(0, a.heldFrameCount());
        assertEquals(1, b.counters().get(LinkCounter.ARP_RECEIVED));
        assertEquals(1, b.counters().get(LinkCounter.ARP_REPLIES_SENT));
        assertEquals(1, a.counters().get(LinkCounter.ARP_RECEIVED));
        assertEquals(0, a.counters().get(LinkCounter.SEND_UNRESOLVED));
        assertFrame(receivedByB.get(0), b.address().mac(), a.address().mac(), 7);

        // B learned A from A's request (RFC 826), so it answers without an ARP of its own.
        assertEquals(a.address().mac(), b.resolvedMac(IP_A));
        final int reply = buildFrame(scratch, 0L, b.address().mac(), IP_B, IP_A, 8, 100);
        assertTrue(b.send(scratch, 0, reply));
        assertEquals(1, b.flush());
        pumpUntil(pair, () -> 1 == receivedByA.size());

        assertEquals(0, b.counters().get(LinkCounter.ARP_REQUESTS_SENT));
        assertFrame(receivedByA.get(0), a.address().mac(), b.address().mac(), 8);
        assertEquals(1, a.counters().get(LinkCounter.FRAMES_RECEIVED));
        assertEquals(reply, a.counters().get(LinkCounter.BYTES_RECEIVED));
        assertEquals(1, a.counters().get(LinkCounter.FRAMES_SENT), "the frame; the ARP request counts apart");
        assertEquals(length, a.counters().get(LinkCounter.BYTES_SENT));
    }

    @Test
    void resolveAsksBeforeAnyFrameNeedsIt() throws IOException
    {
        final TunnelLink[] pair = pair(config -> config);

        pair[0].resolve(IP_B);
        assertEquals(Mac.NONE, pair[0].resolvedMac(IP_B));
        pumpUntil(pair, () -> Mac.NONE != pair[0].resolvedMac(IP_B));

        pair[0].resolve(IP_B);
        assertEquals(pair[1].address().mac(), pair[0].resolvedMac(IP_B));
        assertEquals(0, pair[0].counters().get(LinkCounter.FRAMES_HELD));
    }

    @Test
    void unansweredArpDropsTheHeldFramesAfterTheRetries() throws IOException
    {
        final long[] nowNs = {1_000_000L};
        final TunnelLinkConfig config = TunnelLinkConfig.of("127.0.0.1", 0, "127.0.0.1", freeUdpPort(), IP_A)
            .withArp(3, 10)
            .withQueues(16, 2);
        final TunnelLink a = track(TunnelLink.open(config, () -> nowNs[0]));

        for (int i = 0; i < 3; i++)
        {
            final int length = buildFrame(scratch, 0L, a.address().mac(), IP_A, IP_B, i, 16);
            assertTrue(a.send(scratch, 0, length));
        }
        assertEquals(0, a.flush());
        assertEquals(2, a.heldFrameCount(), "the queue holds 2 frames");
        assertEquals(1, a.counters().get(LinkCounter.SEND_UNRESOLVED), "the third found the queue full");
        assertEquals(1, a.counters().get(LinkCounter.ARP_REQUESTS_SENT));

        a.flush();
        assertEquals(1, a.counters().get(LinkCounter.ARP_REQUESTS_SENT), "no retry before the interval");
        nowNs[0] += TimeUnit.MILLISECONDS.toNanos(10);
        a.flush();
        assertEquals(2, a.counters().get(LinkCounter.ARP_REQUESTS_SENT));
        nowNs[0] += TimeUnit.MILLISECONDS.toNanos(10);
        a.poll(collectA, 10);
        assertEquals(3, a.counters().get(LinkCounter.ARP_REQUESTS_SENT), "poll drives retries too");
        assertEquals(0, a.counters().get(LinkCounter.RESOLUTION_FAILURES));
        nowNs[0] += TimeUnit.MILLISECONDS.toNanos(10);
        a.flush();

        assertEquals(1, a.counters().get(LinkCounter.RESOLUTION_FAILURES));
        assertEquals(0, a.heldFrameCount());
        assertEquals(3, a.counters().get(LinkCounter.SEND_UNRESOLVED));
        assertEquals(3, a.counters().get(LinkCounter.ARP_REQUESTS_SENT));
        assertEquals(0, a.counters().get(LinkCounter.FRAMES_SENT), "only the ARP requests left, counted apart");
        assertEquals(Mac.NONE, a.resolvedMac(IP_B));
    }

    @Test
    void configuredPeerMacNeedsNoArp() throws IOException
    {
        final long peerMac = Mac.parse("52:54:00:4d:00:02");
        final TunnelLink[] pair = pair(config -> IP_A == config.ipv4() ? config.withPeerMac(peerMac) : config);
        final TunnelLink a = pair[0];

        final int length = buildFrame(scratch, 0L, a.address().mac(), IP_A, IP_B, 1, 8);
        assertTrue(a.send(scratch, 0, length));
        assertEquals(1, a.flush());

        assertEquals(0, a.counters().get(LinkCounter.ARP_REQUESTS_SENT));
        assertEquals(peerMac, a.resolvedMac(IP_B));
        // B's MAC is 02:00:0a:4d:00:02, not the configured one: B filters the frame.
        pumpUntil(pair, () -> 1 == pair[1].counters().get(LinkCounter.RECEIVE_FILTERED));
        assertTrue(receivedByB.isEmpty());
    }

    @Test
    void framesForOtherMacsAndRuntsAreFilteredAndCounted() throws IOException
    {
        final TunnelLink[] pair = pair(config -> config);
        final TunnelLink a = pair[0];
        final TunnelLink b = pair[1];
        final long otherMac = Mac.parse("02:00:00:00:00:99");

        final int length = buildFrame(scratch, otherMac, a.address().mac(), IP_A, IP_B, 1, 8);
        assertTrue(a.send(scratch, 0, length));
        assertEquals(1, a.flush());
        try (DatagramChannel raw = DatagramChannel.open())
        {
            raw.send(ByteBuffer.wrap(new byte[] {1, 2, 3}), new InetSocketAddress("127.0.0.1", b.localPort()));
        }
        pumpUntil(pair, () -> 2 == b.counters().get(LinkCounter.RECEIVE_FILTERED));

        assertTrue(receivedByB.isEmpty());
        assertEquals(0, b.counters().get(LinkCounter.FRAMES_RECEIVED));
        assertEquals(0, a.counters().get(LinkCounter.ARP_REQUESTS_SENT), "a non-zero destination MAC is kept");
    }

    @Test
    void answersArpOnlyForItsOwnAddress() throws IOException
    {
        final int port = freeUdpPort();
        final TunnelLink link = track(TunnelLink.open(TunnelLinkConfig.of("127.0.0.1", 0, "127.0.0.1", port, IP_A)));
        try (DatagramChannel guest = DatagramChannel.open())
        {
            guest.bind(new InetSocketAddress("127.0.0.1", port));
            guest.configureBlocking(false);
            final long guestMac = Mac.parse("52:54:00:4d:00:02");
            final InetSocketAddress linkAddress = new InetSocketAddress("127.0.0.1", link.localPort());
            guest.send(arpRequest(guestMac, IP_B, Ipv4Header.parseAddress("10.77.0.9")), linkAddress);
            guest.send(arpRequest(guestMac, IP_B, IP_A), linkAddress);

            final ByteBuffer reply = ByteBuffer.allocate(2048);
            final long deadline = System.nanoTime() + DEADLINE_NS;
            while (null == guest.receive(reply))
            {
                link.poll(collectA, 10);
                if (System.nanoTime() - deadline > 0)
                {
                    fail("no ARP reply");
                }
                Thread.onSpinWait();
            }

            final UnsafeBuffer frame = new UnsafeBuffer(reply.array(), 0, reply.position());
            assertEquals(EthernetHeader.MIN_FRAME_LENGTH, reply.position());
            final EthernetHeader ethernet = new EthernetHeader().wrap(frame, 0);
            assertEquals(guestMac, ethernet.destination());
            assertEquals(link.address().mac(), ethernet.source());
            assertEquals(EthernetHeader.ETHERTYPE_ARP, ethernet.etherType());
            final ArpHeader arp = new ArpHeader().wrap(frame, EthernetHeader.LENGTH);
            assertTrue(arp.isEthernetIpv4());
            assertEquals(ArpHeader.OPERATION_REPLY, arp.operation());
            assertEquals(link.address().mac(), arp.senderMac());
            assertEquals(IP_A, arp.senderIp());
            assertEquals(guestMac, arp.targetMac());
            assertEquals(IP_B, arp.targetIp());
            assertEquals(2, link.counters().get(LinkCounter.ARP_RECEIVED));
            assertEquals(1, link.counters().get(LinkCounter.ARP_REPLIES_SENT));
            assertEquals(guestMac, link.resolvedMac(IP_B), "learned from the request for us");
            assertTrue(receivedByA.isEmpty(), "ARP is never handed to the frame handler");
        }
    }

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

    private TunnelLink[] pair(final UnaryOperator<TunnelLinkConfig> customize) throws IOException
    {
        final int portA = freeUdpPort();
        final int portB = freeUdpPort();
        final TunnelLink a = track(TunnelLink.open(
            customize.apply(TunnelLinkConfig.of("127.0.0.1", portA, "127.0.0.1", portB, IP_A))));
        final TunnelLink b = track(TunnelLink.open(
            customize.apply(TunnelLinkConfig.of("127.0.0.1", portB, "127.0.0.1", portA, IP_B))));
        return new TunnelLink[] {a, b};
    }

    private boolean resolveNow(final TunnelLink[] pair)
    {
        pumpUntil(pair, () -> Mac.NONE != pair[0].resolvedMac(IP_B));
        receivedByA.clear();
        receivedByB.clear();
        return true;
    }

    private void pumpUntil(final TunnelLink[] pair, final BooleanSupplier done)
    {
        final long deadline = System.nanoTime() + DEADLINE_NS;
        while (!done.getAsBoolean())
        {
            pair[0].flush();
            pair[1].flush();
            pair[0].poll(collectA, 16);
            pair[1].poll(collectB, 16);
            if (System.nanoTime() - deadline > 0)
            {
                fail("condition not met within 10 s; A " + pair[0].counters() + " B " + pair[1].counters());
            }
            Thread.onSpinWait();
        }
    }

    private TunnelLink track(final TunnelLink link)
    {
        toClose.add(link);
        return link;
    }

    private int buildFrame(
        final MutableDirectBuffer buffer, final long destinationMac, final long sourceMac, final int sourceIp,
        final int destinationIp, final int psn, final int payloadLength)
    {
        return buildFrame(buffer, 0, destinationMac, sourceMac, sourceIp, destinationIp, psn, payloadLength);
    }

    private int buildFrame(
        final MutableDirectBuffer buffer, final int offset, final long destinationMac, final long sourceMac,
        final int sourceIp, final int destinationIp, final int psn, final int payloadLength)
    {
        builder.wrap(buffer, offset)
            .ethernet(destinationMac, sourceMac)
            .ipv4(sourceIp, destinationIp)
            .udp(0xC000)
            .bth(Opcode.RC_SEND_ONLY, 0x11, psn);
        final int payloadOffset = builder.payloadOffset();
        for (int i = 0; i < payloadLength; i++)
        {
            buffer.putByte(payloadOffset + i, (byte)i);
        }
        return builder.payloadLength(payloadLength).finish();
    }

    private void assertFrame(final byte[] frame, final long destinationMac, final long sourceMac, final int psn)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(frame);
        assertEquals(FrameStatus.OK, parser.parse(buffer, 0, frame.length), "parse with ICRC check");
        assertEquals(destinationMac, parser.ethernet().destination(), "destination MAC filled in by the link");
        assertEquals(sourceMac, parser.ethernet().source());
        assertEquals(psn, parser.bth().psn());
    }

    private static int etherType(final byte[] frame)
    {
        return new EthernetHeader().wrap(new UnsafeBuffer(frame), 0).etherType();
    }

    private static ByteBuffer arpRequest(final long senderMac, final int senderIp, final int targetIp)
    {
        final UnsafeBuffer frame = new UnsafeBuffer(new byte[EthernetHeader.MIN_FRAME_LENGTH]);
        new EthernetHeader().wrap(frame, 0).destination(Mac.BROADCAST).source(senderMac)
            .etherType(EthernetHeader.ETHERTYPE_ARP);
        new ArpHeader().wrap(frame, EthernetHeader.LENGTH).ethernetIpv4(ArpHeader.OPERATION_REQUEST)
            .senderMac(senderMac).senderIp(senderIp).targetMac(0).targetIp(targetIp);
        return ByteBuffer.wrap(frame.byteArray());
    }

    private static byte[] copy(final MutableDirectBuffer buffer, final int offset, final int length)
    {
        final byte[] bytes = new byte[length];
        buffer.getBytes(offset, bytes);
        return bytes;
    }

    private static int freeUdpPort() throws IOException
    {
        try (DatagramChannel probe = DatagramChannel.open())
        {
            probe.bind(new InetSocketAddress("127.0.0.1", 0));
            return ((InetSocketAddress)probe.getLocalAddress()).getPort();
        }
    }
}
