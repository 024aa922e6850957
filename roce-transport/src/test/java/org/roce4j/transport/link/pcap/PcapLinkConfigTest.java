package org.roce4j.transport.link.pcap;

import org.junit.jupiter.api.Test;
import org.roce4j.wire.header.EthernetHeader;
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
        assertNull(config.ipv4());
        assertNull(config.mac());
    }

    @Test
    void parsesAddressAndMac()
    {
        final PcapLinkConfig config = PcapLinkConfig.parse("PCAP:veth0, ip=10.77.0.1 ,mac=52:54:00:12:34:56");
        assertEquals("veth0", config.iface());
        assertEquals(Ipv4Header.parseAddress("10.77.0.1"), config.ipv4());
        assertEquals(EthernetHeader.parseMac("52:54:00:12:34:56"), config.mac());
    }

    @Test
    void explainsWhatIsWrong()
    {
        assertMessage("pcap:", "has no interface");
        assertMessage("udp:eth0", "not a pcap link spec");
        assertMessage("pcap:eth0,ip=10.1", "not an IPv4 address");
        assertMessage("pcap:eth0,mac=zz:00:00:00:00:00", "not a MAC address");
        assertMessage("pcap:eth0,mac=ff:ff:ff:ff:ff:ff", "is a multicast address");
        assertMessage("pcap:eth0,speed=10", "unknown option 'speed' (valid: ip, mac)");
        assertMessage("pcap:eth0,promisc", "is not key=value");
    }

    private static void assertMessage(final String spec, final String fragment)
    {
        final IllegalArgumentException ex =
            assertThrows(IllegalArgumentException.class, () -> PcapLinkConfig.parse(spec), spec);
        assertTrue(ex.getMessage().contains(fragment), "'" + ex.getMessage() + "' should contain '" + fragment + "'");
    }
}
