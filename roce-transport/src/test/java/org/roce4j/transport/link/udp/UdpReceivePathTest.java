package org.roce4j.transport.link.udp;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.SplittableRandom;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.roce4j.transport.TransportCounter;
import org.roce4j.transport.link.HostileInput;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.transport.link.LinkCounter;
import org.roce4j.transport.link.LinkCounters;
import org.roce4j.wire.header.Ipv4Header;
import org.roce4j.wire.header.UdpHeader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The kernel UDP link's receive path under hostile datagrams (issue 13): empty, short, random, truncated RoCE,
 * lying lengths and datagrams far beyond the link's MTU, from a loopback sender. Each is counted by the link
 * (RECEIVE_FILTERED, RECEIVE_ERRORS) or dropped by the engine, none reaches an exception, and afterwards a
 * well-formed UD SEND is delivered with its bytes. IPv6 cannot reach this link: it binds an IPv4 socket.
 */
class UdpReceivePathTest
{
    private static final int DATAGRAMS = 3000;

    @Test
    void hostileDatagramsAreCountedOrDroppedAndTheLinkStillDelivers() throws Exception
    {
        final long seed = Long.getLong("roce4j.seed", 0x0DD_BA11L);
        System.out.println("UdpReceivePathTest seed=0x" + Long.toHexString(seed) + " (rerun with -Droce4j.seed=N)");
        final SplittableRandom random = new SplittableRandom(seed);
        final long pid = ProcessHandle.current().pid();
        // 127/8 is all loopback; subnet 42 keeps clear of the other UDP suites.
        final String prefix = "127." + (64 + pid % 128) + "." + (42 * 4 + (int)((pid / 128) % 4)) + ".";
        final UdpLink link = UdpLink.open("udp:" + prefix + "1");
        final LinkAddress from = new LinkAddress(0x02_00_00_00_00_02L, Ipv4Header.parseAddress(prefix + "2"));
        final UnsafeBuffer frame = new UnsafeBuffer(ByteBuffer.allocateDirect(70_000));
        try (HostileInput target = new HostileInput(link);
            DatagramChannel sender = DatagramChannel.open())
        {
            sender.bind(new InetSocketAddress(InetAddress.getByName(prefix + "2"), 0));
            final InetSocketAddress to = new InetSocketAddress(InetAddress.getByName(prefix + "1"),
                UdpHeader.ROCE_V2_PORT);
            final LinkCounters counters = link.counters();
            for (int i = 0; i < DATAGRAMS; i++)
            {
                final int length = target.garbage(random, frame, from);
                final int start = Math.min(length, HostileInput.UDP_PAYLOAD_OFFSET);
                sender.send(frame.byteBuffer().duplicate().position(start).limit(length), to);
                if (0 == i % 32)
                {
                    // Pace the flood so the socket's buffer does not overflow (that would be counted too).
                    target.runUntilSeen(i + 1, () -> arrivals(counters));
                }
            }
            target.runUntilSeen(DATAGRAMS, () -> arrivals(counters));

            final byte[] payload = new byte[300];
            random.nextBytes(payload);
            final int length = target.udSend(frame, from, false, payload);
            sender.send(frame.byteBuffer().duplicate().position(HostileInput.UDP_PAYLOAD_OFFSET).limit(length), to);
            target.runUntil(() -> !target.received().isEmpty(), "the well-formed SEND");

            assertEquals(1, target.received().size(), "no hostile datagram completed a receive");
            target.assertReceived(0, payload);
            target.assertNoInternalError();
            final String all = target.engine().counters() + " / " + counters;
            assertTrue(counters.get(LinkCounter.RECEIVE_FILTERED) > 0, "datagrams shorter than BTH+ICRC: " + all);
            assertTrue(counters.get(LinkCounter.RECEIVE_ERRORS) > 0, "datagrams beyond the MTU: " + all);
            assertTrue(target.engine().counters().get(TransportCounter.DROP_MALFORMED_FRAME) > 0, all);
            assertTrue(target.engine().counters().get(TransportCounter.DROP_NO_QP) > 0, all);
        }
    }

    private static long arrivals(final LinkCounters counters)
    {
        return counters.get(LinkCounter.FRAMES_RECEIVED) + counters.get(LinkCounter.RECEIVE_FILTERED) +
            counters.get(LinkCounter.RECEIVE_ERRORS);
    }
}
