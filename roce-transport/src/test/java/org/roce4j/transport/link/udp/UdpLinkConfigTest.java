package org.roce4j.transport.link.udp;

import org.junit.jupiter.api.Test;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.header.Ipv4Header;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class UdpLinkConfigTest
{
    @Test
    void parsesTheDefaults()
    {
        final UdpLinkConfig config = UdpLinkConfig.parse("udp:10.0.0.7");
        assertEquals(Ipv4Header.parseAddress("10.0.0.7"), config.ipv4());
        assertEquals(Gid.parse("10.0.0.7"), config.address());
        assertEquals(4791, config.port());
        assertNull(config.transport(), "no transport asked for");
        assertNull(config.sendMode(), "no send mode asked for");
        assertNull(config.receiveMode(), "no receive mode asked for");
        assertFalse(config.allowUnmatchedIcrc());
        assertEquals("10.0.0.7", config.addressText());
        assertFalse(config.ipv6());
    }

    @Test
    void parsesIpv6WithOrWithoutBrackets()
    {
        final UdpLinkConfig config = UdpLinkConfig.parse("udp:[fd00:77::1],port=4792");
        assertTrue(config.ipv6());
        assertEquals(Gid.parse("fd00:77::1"), config.address());
        assertEquals(0, config.ipv4());
        assertEquals("[fd00:77::1]", config.addressText());
        assertEquals(4792, config.port());
        assertEquals(config.address(), UdpLinkConfig.parse("udp:fd00:77::1").address());
    }

    @Test
    void parsesEveryOption()
    {
        final UdpLinkConfig config =
            UdpLinkConfig.parse(" UDP:127.0.0.2, port=5000 ,transport=IO_URING,send=eventloop,recv=EventLoop," +
                "icrc=unverified");
        assertEquals(5000, config.port());
        assertEquals(UdpTransport.IO_URING, config.transport());
        assertEquals(UdpSendMode.EVENT_LOOP, config.sendMode());
        assertEquals(UdpReceiveMode.EVENT_LOOP, config.receiveMode());
        assertEquals(UdpReceiveMode.DIRECT, UdpLinkConfig.parse("udp:127.0.0.2,recv=direct").receiveMode());
        assertTrue(config.allowUnmatchedIcrc());
    }

    @Test
    void explainsWhatIsWrong()
    {
        assertMessage("udp:", "has no address");
        assertMessage("tunnel:1.2.3.4", "not a udp link spec");
        assertMessage("udp:1.2.3", "'1.2.3' is not an IPv4 or IPv6 address");
        assertMessage("udp:fd00:::1", "'fd00:::1' is not an IPv4 or IPv6 address");
        assertMessage("udp:ff02::1", "'ff02::1' is not a unicast address this link could own");
        assertMessage("udp:1.2.3.4,port=0", "port 0 is out of range 1..65535");
        assertMessage("udp:1.2.3.4,port=http", "option port='http' is not a number");
        assertMessage("udp:1.2.3.4,transport=kqueue", "valid transports are epoll, io_uring, nio");
        assertMessage("udp:1.2.3.4,send=later", "valid modes are direct, eventloop");
        assertMessage("udp:1.2.3.4,recv=later", "valid modes are direct, eventloop");
        assertMessage("udp:1.2.3.4,transport=nio,recv=direct", "recv=direct needs a native transport");
        assertMessage("udp:1.2.3.4,icrc=ignore", "icrc accepts only 'unverified'");
        assertMessage("udp:1.2.3.4,mtu=9000", "unknown option 'mtu' (valid: port, transport, send, recv, icrc)");
        assertMessage("udp:1.2.3.4,epoll", "option 'epoll' is not KEY=VALUE");
        assertMessage("udp:1.2.3.4,transport=nio,send=direct", "send=direct needs a native transport");
        assertMessage(null, "udp link spec is null");
    }

    private static void assertMessage(final String spec, final String fragment)
    {
        final IllegalArgumentException ex =
            assertThrows(IllegalArgumentException.class, () -> UdpLinkConfig.parse(spec), String.valueOf(spec));
        assertTrue(ex.getMessage().contains(fragment), "'" + ex.getMessage() + "' should contain '" + fragment + "'");
    }
}
