package org.roce4j.transport.link.memory;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.roce4j.transport.link.Link;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.transport.link.LinkSpecs;
import org.roce4j.transport.provider.EngineConfig;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.addr.Mac;
import org.roce4j.wire.header.EthernetHeader;
import org.roce4j.wire.header.Ipv4Header;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code memory:IP[,mac=MAC][,mtu=N]} specs, addresses from strings, the default fabric they attach to, and the
 * per-MTU size of a port's inbound ring.
 */
class MemoryLinkConfigTest
{
    @Test
    void specsParseWithTheirDefaults()
    {
        final MemoryLinkConfig plain = MemoryLinkConfig.parse("memory:10.0.0.1");
        assertEquals(Ipv4Header.parseAddress("10.0.0.1"), plain.address().ipv4());
        assertEquals(Mac.parse("02:00:0a:00:00:01"), plain.address().mac());
        assertEquals(MemoryLinkConfig.DEFAULT_MTU, plain.mtu());

        final MemoryLinkConfig full = MemoryLinkConfig.parse(" MEMORY:10.0.0.2, mac=02:aa:bb:cc:dd:ee , mtu=9000");
        assertEquals(LinkAddress.of("02:aa:bb:cc:dd:ee", "10.0.0.2"), full.address());
        assertEquals(9000, full.mtu());

        final MemoryLinkConfig dual = MemoryLinkConfig.parse("memory:fd00:78::1,ip=10.0.0.3");
        assertEquals(List.of(Gid.parse("fd00:78::1"), Gid.parse("10.0.0.3")), dual.address().ips());
        assertEquals(Mac.parse("02:00:0a:00:00:03"), dual.address().mac(), "the MAC comes from the IPv4 address");
        assertEquals(Ipv4Header.parseAddress("10.0.0.3"), dual.address().ipv4());
    }

    @Test
    void badSpecsNameTheProblemAndTheGrammar()
    {
        for (final String[] bad : new String[][] {
            {"memory:", "no address"},
            {"memory:10.0.0", "'10.0.0' is not an IPv4 or IPv6 address"},
            {"memory:10.0.0.1,mtu=9", "mtu 9 is out of range 68..65535"},
            {"memory:10.0.0.1,mtu=big", "option mtu='big' is not a number"},
            {"memory:10.0.0.1,mac=zz", "not a MAC address"},
            {"memory:10.0.0.1,speed=10", "unknown option 'speed' (valid: ip, mac, mtu)"},
            {"memory:10.0.0.1,mtu", "option 'mtu' is not KEY=VALUE"},
            {"memory:10.0.0.1,ip=10.0.0.1", "address ::ffff:10.0.0.1 given twice"},
            {"memory:10.0.0.1,mac=01:00:5e:00:00:01", "is a multicast address"},
            {"udp:10.0.0.1", "not a memory link spec"}})
        {
            final String message = assertThrows(IllegalArgumentException.class,
                () -> MemoryLinkConfig.parse(bad[0])).getMessage();
            assertTrue(message.contains(bad[1]) && message.contains(MemoryLinkConfig.GRAMMAR),
                bad[0] + ": " + message);
        }
    }

    @Test
    void addressesFromStrings()
    {
        final LinkAddress address = LinkAddress.of("02:00:00:00:00:01", "10.0.0.1");
        assertEquals(0x02_00_00_00_00_01L, address.mac());
        assertEquals(0x0A00_0001, address.ipv4());
        assertEquals(new LinkAddress(0x02_00_C0_A8_4D_01L, Ipv4Header.parseAddress("192.168.77.1")),
            LinkAddress.ofIpv4("192.168.77.1"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> LinkAddress.of("02:00", "10.0.0.1"))
            .getMessage().contains("not a MAC address"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> LinkAddress.of("02:00:00:00:00:01", "10.0"))
            .getMessage().contains("not an IPv4 address"));
        assertEquals("ipv4 must not be null", assertThrows(IllegalArgumentException.class,
            () -> LinkAddress.ofIpv4(null)).getMessage());
    }

    @Test
    void specStringsOpenPortsOfTheJvmsDefaultFabric() throws Exception
    {
        assertSame(MemoryFabric.defaultFabric(), MemoryFabric.defaultFabric());
        try (Link a = LinkSpecs.open("memory:10.250.0.1,mtu=9000");
            Link b = LinkSpecs.open("memory:10.250.0.2"))
        {
            assertSame(a, MemoryFabric.defaultFabric().port(Ipv4Header.parseAddress("10.250.0.1")));
            assertSame(b, MemoryFabric.defaultFabric().port(Ipv4Header.parseAddress("10.250.0.2")));
            assertEquals(9000, a.mtu());
            assertEquals(1500, b.mtu());
            assertTrue(assertThrows(IllegalStateException.class, () -> LinkSpecs.open("memory:10.250.0.1"))
                .getMessage().contains("overlaps the open port"));
        }
        assertEquals(null, MemoryFabric.defaultFabric().port(Ipv4Header.parseAddress("10.250.0.1")),
            "closing the link detaches the port");
        final String message = assertThrows(IllegalArgumentException.class, () -> LinkSpecs.open("memory"))
            .getMessage();
        assertTrue(message.contains(MemoryLinkConfig.GRAMMAR), message);
    }

    @Test
    void aPortsDefaultRingHoldsTheEnginesWholeWindowOfFullFrames()
    {
        final MemoryFabric fabric = new MemoryFabric();
        assertEquals(4 << 20, fabric.ringCapacityBytes(1500), "the 4 MiB floor");
        assertEquals(16 << 20, fabric.ringCapacityBytes(9000));
        for (final int mtu : new int[] {MemoryFabric.MIN_MTU, 1500, 4200, 9000, MemoryFabric.MAX_MTU})
        {
            // Each record: 16-byte header, 8-byte due time, the frame, aligned to 64 bytes.
            final long record = (16 + 8 + mtu + EthernetHeader.VLAN_LENGTH + 63) / 64 * 64;
            assertTrue(fabric.ringCapacityBytes(mtu) >= EngineConfig.DEFAULT_SEND_WINDOW * record, "mtu " + mtu);
        }
        assertEquals(64 * 1024, MemoryFabric.builder().ringCapacityBytes(64 * 1024).build().ringCapacityBytes(9000),
            "an explicit size wins");
    }
}
