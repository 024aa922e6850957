package org.roce4j.transport.link.tunnel;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.concurrent.TimeUnit;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.roce4j.transport.link.LinkCounter;
import org.roce4j.wire.addr.Mac;
import org.roce4j.wire.header.ArpHeader;
import org.roce4j.wire.header.EthernetHeader;
import org.roce4j.wire.header.Ipv4Header;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
/**
 * Two tunnel links over loopback UDP: layer 2, ARP resolution both ways, frames held until it, retries, filtering.
 */
class TunnelLinkArpTest extends TunnelLinkFixture
{
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
}
