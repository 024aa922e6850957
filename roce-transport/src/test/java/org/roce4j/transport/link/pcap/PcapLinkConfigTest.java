package org.roce4j.transport.link.pcap;

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

class PcapLinkConfigTest
{
    @Test
    void parsesAnInterfaceAlone()
    {
        final PcapLinkConfig config = PcapLinkConfig.parse("pcap:eth1");
        assertEquals("eth1", config.iface());
        assertEquals(List.of(), config.ips());
        assertNull(config.ipv4());
        assertEquals(Mac.NONE, config.mac());
        assertEquals(NeighbourPolicy.DEFAULT, config.neighbours());
    }

    @Test
    void parsesAddressesMacAndPolicy()
    {
        final PcapLinkConfig config = PcapLinkConfig.parse("PCAP:veth0, ip=10.77.0.1 ,mac=52:54:00:12:34:56," +
            "ip=[fd00:77::1],arp-retries=3,arp-interval-ms=1000,arp-queue=16,neighbours=8");
        assertEquals("veth0", config.iface());
        assertEquals(Ipv4Header.parseAddress("10.77.0.1"), config.ipv4());
        assertEquals(List.of(Gid.parse("10.77.0.1"), Gid.parse("fd00:77::1")), config.ips());
        assertEquals(Mac.parse("52:54:00:12:34:56"), config.mac());
        assertEquals(new NeighbourPolicy(3, 1000, 16, 8), config.neighbours());
    }

    @Test
    void explainsWhatIsWrong()
    {
        assertMessage("pcap:", "has no interface");
        assertMessage("udp:eth0", "not a pcap link spec");
        assertMessage("pcap:eth0,ip=10.1", "'10.1' is not an IPv4 or IPv6 address");
        assertMessage("pcap:eth0,mac=zz:00:00:00:00:00", "not a MAC address");
        assertMessage("pcap:eth0,mac=ff:ff:ff:ff:ff:ff", "is a multicast address");
        assertMessage("pcap:eth0,speed=10", "unknown option 'speed' (valid: ip, mac, arp-retries, arp-interval-ms, " +
            "arp-queue, neighbours)");
        assertMessage("pcap:eth0,promisc", "is not KEY=VALUE");
        assertMessage("pcap:eth0,arp-queue=5000", "arp-queue 5000 is out of range 0..4096");
        assertMessage("pcap:eth0,mac=02:00:00:00:00:01,mac=02:00:00:00:00:02", "option 'mac' given twice");
    }

    private static void assertMessage(final String spec, final String fragment)
    {
        final IllegalArgumentException ex =
            assertThrows(IllegalArgumentException.class, () -> PcapLinkConfig.parse(spec), spec);
        assertTrue(ex.getMessage().contains(fragment), "'" + ex.getMessage() + "' should contain '" + fragment + "'");
    }
}
