package org.roce4j.transport.link.tunnel;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.roce4j.wire.header.EthernetHeader;
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
        assertEquals(EthernetHeader.parseMac("02:00:0a:4d:00:01"), config.mac());
        assertEquals(TunnelLinkConfig.NO_MAC, config.peerMac());
        assertNull(config.pcap());
        assertEquals(1500, config.mtu());
        assertEquals(TunnelLinkConfig.DEFAULT_ARP_RETRIES, config.arpRetries());
        assertEquals(TunnelLinkConfig.DEFAULT_ARP_INTERVAL_MS, config.arpIntervalMs());
    }

    @Test
    void parsesEveryOption()
    {
        final TunnelLinkConfig config = TunnelLinkConfig.parse(
            "tunnel:localhost:0:[::1]:6001,ip=192.168.7.9,mac=02:11:22:33:44:55,peer-mac=52:54:00:4d:00:02," +
            "pcap=target/x.pcap,mtu=9000,arp-retries=3,arp-interval-ms=20,ring=8,arp-queue=0");

        assertEquals("localhost", config.bindHost());
        assertEquals(0, config.bindPort());
        assertEquals("::1", config.peerHost());
        assertEquals(6001, config.peerPort());
        assertEquals(EthernetHeader.parseMac("02:11:22:33:44:55"), config.mac());
        assertEquals(EthernetHeader.parseMac("52:54:00:4d:00:02"), config.peerMac());
        assertEquals(Path.of("target/x.pcap"), config.pcap());
        assertEquals(9000, config.mtu());
        assertEquals(3, config.arpRetries());
        assertEquals(20, config.arpIntervalMs());
        assertEquals(8, config.ringFrames());
        assertEquals(0, config.arpQueueFrames());
    }

    @Test
    void toSpecRoundTrips()
    {
        final TunnelLinkConfig config = TunnelLinkConfig.parse(
            "tunnel:127.0.0.1:5000:[::1]:5001,ip=10.0.0.7,peer-mac=52:54:00:00:00:07,pcap=a.pcap,mtu=4000");

        assertEquals(config, TunnelLinkConfig.parse(config.toSpec()));
    }

    @Test
    void defaultMacIsLocallyAdministeredUnicastFromTheIp()
    {
        final long mac = TunnelLinkConfig.defaultMac(Ipv4Header.parseAddress("10.77.0.1"));

        assertEquals("02:00:0a:4d:00:01", EthernetHeader.macToString(mac));
    }

    @Test
    void errorsNameTheBadPart()
    {
        assertError("must start with 'tunnel:'", "udp:127.0.0.1:1:127.0.0.1:2,ip=10.0.0.1");
        assertError("missing option ip=", "tunnel:127.0.0.1:1:127.0.0.1:2");
        assertError("BIND_PORT 'x' is not a number", "tunnel:127.0.0.1:x:127.0.0.1:2,ip=10.0.0.1");
        assertError("peer port 70000 is out of range", "tunnel:127.0.0.1:1:127.0.0.1:70000,ip=10.0.0.1");
        assertError("peer port 0 is out of range", "tunnel:127.0.0.1:1:127.0.0.1:0,ip=10.0.0.1");
        assertError("is not BIND_HOST:BIND_PORT:PEER_HOST:PEER_PORT", "tunnel:127.0.0.1:1,ip=10.0.0.1");
        assertError("too many ':'", "tunnel:::1:1:127.0.0.1:2,ip=10.0.0.1");
        assertError("unknown option 'speed'", "tunnel:127.0.0.1:1:127.0.0.1:2,ip=10.0.0.1,speed=10");
        assertError("option 'ip' given twice", "tunnel:127.0.0.1:1:127.0.0.1:2,ip=10.0.0.1,ip=10.0.0.2");
        assertError("option 'mac' has no value", "tunnel:127.0.0.1:1:127.0.0.1:2,ip=10.0.0.1,mac=");
        assertError("not an IPv4 address", "tunnel:127.0.0.1:1:127.0.0.1:2,ip=10.0.0");
        assertError("not a MAC address", "tunnel:127.0.0.1:1:127.0.0.1:2,ip=10.0.0.1,peer-mac=52:54:00");
        assertError("is a multicast/broadcast address",
            "tunnel:127.0.0.1:1:127.0.0.1:2,ip=10.0.0.1,mac=01:00:5e:0:0:1");
        assertError("mtu 100 is out of range", "tunnel:127.0.0.1:1:127.0.0.1:2,ip=10.0.0.1,mtu=100");
        assertError("option mtu='big' is not a number", "tunnel:127.0.0.1:1:127.0.0.1:2,ip=10.0.0.1,mtu=big");
        assertError("option 'x' is not KEY=VALUE", "tunnel:127.0.0.1:1:127.0.0.1:2,ip=10.0.0.1,x");
        assertError("BIND_HOST is empty", "tunnel::1:127.0.0.1:2,ip=10.0.0.1");
        assertError("not 0.0.0.0", "tunnel:127.0.0.1:1:127.0.0.1:2,ip=0.0.0.0");
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
