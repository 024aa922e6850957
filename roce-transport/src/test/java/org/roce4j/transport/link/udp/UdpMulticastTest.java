package org.roce4j.transport.link.udp;

import org.junit.jupiter.api.Test;
import org.roce4j.transport.link.LinkCounter;
import org.roce4j.transport.link.LinkTestFrames;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.header.BthHeader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The kernel UDP link and multicast groups without root, on lo: a member receives an IPv4 group through its group
 * socket, a link that did not join does not, the member's own sends to the group are not delivered back to it, and
 * what cannot be joined is refused with the reason. Addresses are
 * picked per process as {@link UdpConformanceBase} picks them (subnet 6), and so is the group, so parallel test JVMs
 * on this host do not hear each other. (Across a veth in namespaces, IPv4 and IPv6:
 * {@link UdpMulticastAcrossNamespacesTest}.)
 */
class UdpMulticastTest
{
    private static final int FRAMES = 10;

    private static String address(final int host)
    {
        final long pid = ProcessHandle.current().pid();
        return "127." + (64 + (pid % 128)) + "." + (6 * 4 + (int)((pid / 128) % 4)) + "." + host;
    }

    private static Gid group()
    {
        final long pid = ProcessHandle.current().pid();
        return Gid.parse("::ffff:239.77." + ((pid >>> 8) & 0xFF) + "." + (pid & 0xFF));
    }

    @Test
    void aMemberOnLoopbackReceivesTheGroupAndANonMemberDoesNot()
    {
        final Gid group = group();
        try (UdpLink sender = UdpLink.open("udp:" + address(1));
            UdpLink member = UdpLink.open("udp:" + address(2));
            UdpLink outsider = UdpLink.open("udp:" + address(3)))
        {
            member.joinGroup(group.high(), group.low());
            final LinkTestFrames frames = LinkTestFrames.create();
            final LinkTestFrames.Collector atMember = new LinkTestFrames.Collector(FRAMES, false);
            final LinkTestFrames.Collector atOutsider = new LinkTestFrames.Collector(1, false);
            for (int i = 0; i < FRAMES; i++)
            {
                frames.send(sender, null, null, group, i, BthHeader.MULTICAST_QPN, 0xC000, 64);
            }
            frames.send(sender, null, null, outsider.address().ips().get(0), 99, 0x12, 0xC000, 64);
            sender.flush();
            LinkTestFrames.pollUntil(member, atMember, () -> FRAMES == atMember.count(), "the group");
            LinkTestFrames.pollUntil(outsider, atOutsider, () -> 1 == atOutsider.count(), "the unicast barrier");
            assertEquals(group, atMember.destinationIp(FRAMES - 1));
            assertEquals(99, atOutsider.sequence(0), "no group frame before the barrier");
            assertEquals(FRAMES, member.counters().get(LinkCounter.FRAMES_RECEIVED));
            assertEquals(1, outsider.counters().get(LinkCounter.FRAMES_RECEIVED));

            // The member's own send to the group comes back through IP_MULTICAST_LOOP and is dropped, as rxe never
            // receives its own multicast.
            frames.send(member, null, null, group, 50, BthHeader.MULTICAST_QPN, 0xC000, 64);
            member.flush();
            LinkTestFrames.pollUntil(member, atMember,
                () -> 1 == member.counters().get(LinkCounter.RECEIVE_FILTERED), "the member's own frame, filtered");
            assertEquals(FRAMES, member.counters().get(LinkCounter.FRAMES_RECEIVED));
            member.leaveGroup(group.high(), group.low());
        }
    }

    @Test
    void whatCannotBeJoinedIsRefusedWithTheReason()
    {
        try (UdpLink link = UdpLink.open("udp:" + address(4)))
        {
            final Gid unicast = Gid.parse("::ffff:10.0.0.1");
            final Gid ipv6Group = Gid.parse("ff0e::1");
            final IllegalArgumentException notGroup = assertThrows(IllegalArgumentException.class,
                () -> link.joinGroup(unicast.high(), unicast.low()));
            assertTrue(notGroup.getMessage().contains("not an IPv4 multicast group"), notGroup.getMessage());
            final IllegalArgumentException otherFamily = assertThrows(IllegalArgumentException.class,
                () -> link.joinGroup(ipv6Group.high(), ipv6Group.low()));
            assertTrue(otherFamily.getMessage().contains("the link's socket is IPv4"), otherFamily.getMessage());
        }
        try (UdpLink nio = UdpLink.open("udp:" + address(5) + ",transport=nio,icrc=unverified"))
        {
            final Gid group = group();
            final IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> nio.joinGroup(group.high(), group.low()));
            assertTrue(refused.getMessage().contains("on the NIO transport"), refused.getMessage());
        }
    }
}
