package org.roce4j.transport.link.udp;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.roce4j.transport.link.LinkCounter;
import org.roce4j.transport.link.LinkTestFrames;
import org.roce4j.transport.link.NamespacePair;
import org.roce4j.transport.link.TestEnvironment;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.header.BthHeader;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Kernel UDP links receiving multicast groups across a real Ethernet hop: a sender in one network namespace, three
 * links on three addresses of the veth end in the other; two join the group (one reading with recvmmsg on the engine
 * thread, one on the event loop), the third does not. Both members get every frame, with the group as its
 * destination (what the engine looks the group up by); the third gets none; after one member leaves, only the other
 * gets the next frames. A unicast frame to each receiver, sent after the group frames down the same FIFO veth, is the
 * barrier that shows nothing else is coming. IPv4 and IPv6 groups. The joins run on the test thread, outside both
 * namespaces: the group sockets are made on each link's event loop, in its namespace.
 */
class UdpMulticastAcrossNamespacesTest
{
    private static final String SENDER_IP = "10.82.0.1";
    private static final String[] RECEIVER_IPS = {"10.82.0.2", "10.82.0.3", "10.82.0.4"};
    private static final String SENDER_IP6 = "fd00:82::1";
    private static final String[] RECEIVER_IP6S = {"fd00:82::2", "fd00:82::3", "fd00:82::4"};
    /** Frames sent to the group each round. */
    private static final int FRAMES = 20;
    private static final int VETH_MTU = 1500;
    private static NamespacePair namespaces;

    private static void requireEnvironment()
    {
        TestEnvironment.requireNetworkAdmin();
        TestEnvironment.requireCommand("ip");
    }

    @BeforeAll
    static void createNamespaces()
    {
        namespaces = NamespacePair.joinedByVeth(UdpMulticastAcrossNamespacesTest::requireEnvironment,
            "mcsend", "mcs", SENDER_IP + "/24", "mcrecv", "mcr", RECEIVER_IPS[0] + "/24", VETH_MTU);
        if (null == namespaces)
        {
            return;
        }
        for (int i = 1; i < RECEIVER_IPS.length; i++)
        {
            namespaces.second().ip("addr", "add", RECEIVER_IPS[i] + "/24", "dev", "mcr");
        }
        // joinByVeth turns IPv6 off (no solicitations on the wire); these tests want it on the veth, without DAD.
        namespaces.first().exec("sysctl", "-q", "-w", "net.ipv6.conf.mcs.disable_ipv6=0");
        namespaces.second().exec("sysctl", "-q", "-w", "net.ipv6.conf.mcr.disable_ipv6=0");
        namespaces.first().ip("-6", "addr", "add", SENDER_IP6 + "/64", "dev", "mcs", "nodad");
        for (final String ip : RECEIVER_IP6S)
        {
            namespaces.second().ip("-6", "addr", "add", ip + "/64", "dev", "mcr", "nodad");
        }
    }

    @AfterAll
    static void removeNamespaces()
    {
        NamespacePair.close(namespaces);
    }

    @Test
    void ipv4GroupReachesItsMembersOnly()
    {
        run(Gid.parse("::ffff:239.82.0.1"), SENDER_IP, RECEIVER_IPS);
    }

    @Test
    void ipv6GroupReachesItsMembersOnly()
    {
        run(Gid.parse("ff0e::82:1"), "[" + SENDER_IP6 + "]", bracketed(RECEIVER_IP6S));
    }

    private static String[] bracketed(final String[] ips)
    {
        final String[] out = new String[ips.length];
        for (int i = 0; i < ips.length; i++)
        {
            out[i] = "[" + ips[i] + "]";
        }
        return out;
    }

    private static void run(final Gid group, final String senderIp, final String[] receiverIps)
    {
        requireEnvironment();
        try (UdpLink sender = namespaces.first().call(() -> UdpLink.open("udp:" + senderIp));
            UdpLink direct = namespaces.second().call(() -> UdpLink.open("udp:" + receiverIps[0]));
            UdpLink eventLoop = namespaces.second().call(() -> UdpLink.open("udp:" + receiverIps[1] +
                ",recv=eventloop"));
            UdpLink outsider = namespaces.second().call(() -> UdpLink.open("udp:" + receiverIps[2])))
        {
            direct.joinGroup(group.high(), group.low());
            eventLoop.joinGroup(group.high(), group.low());
            eventLoop.joinGroup(group.high(), group.low());

            final LinkTestFrames frames = LinkTestFrames.create();
            final LinkTestFrames.Collector toDirect = new LinkTestFrames.Collector(2 * FRAMES + 2, false);
            final LinkTestFrames.Collector toEventLoop = new LinkTestFrames.Collector(2 * FRAMES + 2, false);
            final LinkTestFrames.Collector toOutsider = new LinkTestFrames.Collector(2, false);
            for (int i = 0; i < FRAMES; i++)
            {
                frames.send(sender, null, null, group, i, BthHeader.MULTICAST_QPN, 0xC000 + i, 64 + i);
            }
            sender.flush();
            frames.send(sender, null, null, outsider.address().ips().get(0), 1000, 0x11, 0xC100, 64);
            sender.flush();
            LinkTestFrames.pollUntil(direct, toDirect, () -> FRAMES == toDirect.count(), "the group at the direct one");
            LinkTestFrames.pollUntil(eventLoop, toEventLoop, () -> FRAMES == toEventLoop.count(),
                "the group at the event-loop one");
            LinkTestFrames.pollUntil(outsider, toOutsider, () -> 1 == toOutsider.count(), "the unicast barrier");
            for (int i = 0; i < FRAMES; i++)
            {
                assertEquals(i, toDirect.sequence(i), "order at the direct member");
                assertEquals(i, toEventLoop.sequence(i), "order at the event-loop member");
                assertEquals(group, toDirect.destinationIp(i), "the group is the destination");
                assertEquals(group, toEventLoop.destinationIp(i), "the group is the destination");
                assertEquals(sender.address().ips().get(0), toDirect.sourceIp(i));
                assertEquals(BthHeader.MULTICAST_QPN, toEventLoop.destQp(i));
            }
            assertEquals(1000, toOutsider.sequence(0), "the outsider got the barrier and no group frame");
            assertEquals(1, outsider.counters().get(LinkCounter.FRAMES_RECEIVED));

            direct.leaveGroup(group.high(), group.low());
            direct.leaveGroup(group.high(), group.low());
            for (int i = 0; i < FRAMES; i++)
            {
                frames.send(sender, null, null, group, FRAMES + i, BthHeader.MULTICAST_QPN, 0xC000 + i, 64 + i);
            }
            sender.flush();
            frames.send(sender, null, null, direct.address().ips().get(0), 2000, 0x11, 0xC100, 64);
            sender.flush();
            LinkTestFrames.pollUntil(eventLoop, toEventLoop, () -> 2 * FRAMES == toEventLoop.count(),
                "the group after the other member left");
            LinkTestFrames.pollUntil(direct, toDirect, () -> FRAMES + 1 == toDirect.count(), "the barrier");
            assertEquals(2000, toDirect.sequence(FRAMES), "the member that left got the barrier, no group frame");
            assertEquals(FRAMES + 1, direct.counters().get(LinkCounter.FRAMES_RECEIVED));
            assertEquals(2 * FRAMES, eventLoop.counters().get(LinkCounter.FRAMES_RECEIVED));
            for (final UdpLink link : new UdpLink[] {direct, eventLoop, outsider})
            {
                assertEquals(0, link.counters().get(LinkCounter.RECEIVE_ERRORS), link.name());
                assertEquals(0, link.counters().get(LinkCounter.RECEIVE_FILTERED), link.name());
            }
        }
    }
}
