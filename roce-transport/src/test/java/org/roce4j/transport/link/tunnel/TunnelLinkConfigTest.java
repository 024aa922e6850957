package org.roce4j.transport.link.tunnel;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.roce4j.transport.link.ethernet.NeighbourPolicy;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.addr.Mac;
import org.roce4j.wire.header.Ipv4Header;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TunnelLinkConfigTest
{
    @Test
    void parsesTheMinimalSpecWithDefaults()
    {
        final TunnelLinkConfig config = TunnelLinkConfig.parse("tunnel:127.0.0.1:5000:127.0.0.1:5001,ip=10.77.0.1");

        assertEquals("127.0.0.1", config.bindHost());
        assertEquals(5000, config.bindPort());
        assertEquals("127.0.0.1", config.peerHost());
        assertEquals(5001, config.peerPort());
        assertEquals(Ipv4Header.parseAddress("10.77.0.1"), config.ipv4());
        assertEquals(Mac.parse("02:00:0a:4d:00:01"), config.mac());
        assertEquals(Mac.NONE, config.peerMac());
        assertNull(config.pcap());
        assertEquals(1500, config.mtu());
        assertEquals(NeighbourPolicy.DEFAULT, config.neighbours());
        assertEquals(0.0, config.loss());
    }

    @Test
    void parsesEveryOption()
    {
        final TunnelLinkConfig config = TunnelLinkConfig.parse(
            "tunnel:localhost:0:[::1]:6001,ip=192.168.7.9,mac=02:11:22:33:44:55,peer-mac=52:54:00:4d:00:02," +
            "pcap=target/x.pcap,mtu=9000,arp-retries=3,arp-interval-ms=20,ring=8,arp-queue=0,neighbours=4," +
            "loss=0.25,seed=0x11");

        assertEquals("localhost", config.bindHost());
        assertEquals(0, config.bindPort());
        assertEquals("::1", config.peerHost());
        assertEquals(6001, config.peerPort());
        assertEquals(Mac.parse("02:11:22:33:44:55"), config.mac());
        assertEquals(Mac.parse("52:54:00:4d:00:02"), config.peerMac());
        assertEquals(Path.of("target/x.pcap"), config.pcap());
        assertEquals(9000, config.mtu());
        assertEquals(new NeighbourPolicy(3, 20, 0, 4), config.neighbours());
        assertEquals(8, config.ringFrames());
        assertEquals(0.25, config.loss());
        assertEquals(0x11, config.lossSeed());
    }

    @Test
    void takesIpv6AndRepeatedAddresses()
    {
        final TunnelLinkConfig config = TunnelLinkConfig.parse(
            "tunnel:127.0.0.1:5000:127.0.0.1:5001,ip=10.77.0.1,ip=fd00:77::1,ip=[fd00:78::1]");

        assertEquals(List.of(Gid.parse("10.77.0.1"), Gid.parse("fd00:77::1"), Gid.parse("fd00:78::1")),
            config.address().ips());
        assertEquals(Ipv4Header.parseAddress("10.77.0.1"), config.ipv4());
        assertEquals(Mac.parse("02:00:0a:4d:00:01"), config.mac(), "the MAC comes from the first IPv4 address");

        final TunnelLinkConfig v6only = TunnelLinkConfig.parse("tunnel:127.0.0.1:5000:127.0.0.1:5001,ip=fd00:77::2");
        assertEquals(0, v6only.ipv4(), "no IPv4 address");
        assertEquals(Mac.parse("02:00:00:00:00:02"), v6only.mac(), "02:00 and the low 32 bits of the IPv6 address");
        assertTrue(v6only.address().ownsIpv6(Gid.parse("fd00:77::2").high(), Gid.parse("fd00:77::2").low()));
    }

    @Test
    void toSpecRoundTrips()
    {
        final TunnelLinkConfig config = TunnelLinkConfig.parse(
            "tunnel:127.0.0.1:5000:[::1]:5001,ip=10.0.0.7,ip=fd00::7,peer-mac=52:54:00:00:00:07,pcap=a.pcap," +
            "mtu=4000,loss=0.5,seed=3");

        assertEquals(config, TunnelLinkConfig.parse(config.toSpec()));
    }

    @Test
    void ofMakesTheMacFromTheIp()
    {
        final TunnelLinkConfig config = TunnelLinkConfig.of("127.0.0.1", 0, "127.0.0.1", 1,
            Ipv4Header.parseAddress("10.77.0.1"));

        assertEquals("02:00:0a:4d:00:01", Mac.toString(config.mac()));
    }

    @Test
    void errorsNameTheBadPart()
    {
        assertError("not a tunnel link spec", "udp:127.0.0.1:1:127.0.0.1:2,ip=10.0.0.1");
        assertError("missing option ip=", "tunnel:127.0.0.1:1:127.0.0.1:2");
        assertError("BIND_PORT 'x' is not a number", "tunnel:127.0.0.1:x:127.0.0.1:2,ip=10.0.0.1");
        assertError("peer port 70000 is out of range", "tunnel:127.0.0.1:1:127.0.0.1:70000,ip=10.0.0.1");
        assertError("peer port 0 is out of range", "tunnel:127.0.0.1:1:127.0.0.1:0,ip=10.0.0.1");
        assertError("is not BIND_HOST:BIND_PORT:PEER_HOST:PEER_PORT", "tunnel:127.0.0.1:1,ip=10.0.0.1");
        assertError("too many ':'", "tunnel:::1:1:127.0.0.1:2,ip=10.0.0.1");
        assertError("unknown option 'speed'", "tunnel:127.0.0.1:1:127.0.0.1:2,ip=10.0.0.1,speed=10");
        assertError("option 'mac' given twice", "tunnel:127.0.0.1:1:127.0.0.1:2,ip=10.0.0.1,mac=02:00:00:00:00:01," +
            "mac=02:00:00:00:00:02");
        assertError("address ::ffff:10.0.0.1 given twice", "tunnel:127.0.0.1:1:127.0.0.1:2,ip=10.0.0.1,ip=10.0.0.1");
        assertError("option 'mac' has no value", "tunnel:127.0.0.1:1:127.0.0.1:2,ip=10.0.0.1,mac=");
        assertError("'10.0.0' is not an IPv4 or IPv6 address", "tunnel:127.0.0.1:1:127.0.0.1:2,ip=10.0.0");
        assertError("'fd00:::1' is not an IPv4 or IPv6 address", "tunnel:127.0.0.1:1:127.0.0.1:2,ip=fd00:::1");
        assertError("not a MAC address", "tunnel:127.0.0.1:1:127.0.0.1:2,ip=10.0.0.1,peer-mac=52:54:00");
        assertError("is a multicast address", "tunnel:127.0.0.1:1:127.0.0.1:2,ip=10.0.0.1,mac=01:00:5e:0:0:1");
        assertError("mtu 100 is out of range", "tunnel:127.0.0.1:1:127.0.0.1:2,ip=10.0.0.1,mtu=100");
        assertError("option mtu='big' is not a number", "tunnel:127.0.0.1:1:127.0.0.1:2,ip=10.0.0.1,mtu=big");
        assertError("option 'x' is not KEY=VALUE", "tunnel:127.0.0.1:1:127.0.0.1:2,ip=10.0.0.1,x");
        assertError("BIND_HOST is empty", "tunnel::1:127.0.0.1:2,ip=10.0.0.1");
        assertError("cannot own the address", "tunnel:127.0.0.1:1:127.0.0.1:2,ip=0.0.0.0");
        assertError("cannot own the address", "tunnel:127.0.0.1:1:127.0.0.1:2,ip=ff02::1");
        assertError("arp-retries 0 is out of range 1..100", "tunnel:127.0.0.1:1:127.0.0.1:2,ip=10.0.0.1,arp-retries=0");
        assertError("option 'loss' must be 0..1", "tunnel:127.0.0.1:1:127.0.0.1:2,ip=10.0.0.1,loss=2");
    }

    private static void assertError(final String expected, final String spec)
    {
        final IllegalArgumentException ex =
            assertThrows(IllegalArgumentException.class, () -> TunnelLinkConfig.parse(spec), spec);
        assertTrue(ex.getMessage().contains(expected), () -> "message '" + ex.getMessage() + "' lacks '" +
            expected + "'");
        assertTrue(ex.getMessage().contains(spec), () -> "message '" + ex.getMessage() + "' does not quote the spec");
    }
}
