package org.roce4j.transport.link.udp;

import org.junit.jupiter.api.Test;
import org.roce4j.wire.addr.Gid;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The kernel UDP link and multicast groups: its socket is bound to a unicast address, which Linux never hands a
 * datagram sent to a group (ip(7)), so joining is refused with the reason instead of succeeding and delivering
 * nothing. The address is on lo, picked per process as {@link UdpConformanceBase} picks them (subnet 6).
 */
class UdpMulticastTest
{
    @Test
    void joiningAGroupIsRefusedWithTheReason()
    {
        final long pid = ProcessHandle.current().pid();
        final String address = "127." + (64 + (pid % 128)) + "." + (6 * 4 + (int)((pid / 128) % 4)) + ".1";
        try (UdpLink link = UdpLink.open("udp:" + address))
        {
            final Gid group = Gid.parse("::ffff:239.1.2.3");
            final IllegalStateException refused =
                assertThrows(IllegalStateException.class, () -> link.joinGroup(group.high(), group.low()));
            assertTrue(refused.getMessage().contains("cannot receive multicast group ::ffff:239.1.2.3"),
                refused.getMessage());
            assertTrue(refused.getMessage().contains("bound to the unicast address"), refused.getMessage());
            link.leaveGroup(group.high(), group.low());
        }
    }
}
