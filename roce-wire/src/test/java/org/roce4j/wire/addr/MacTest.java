package org.roce4j.wire.addr;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.roce4j.wire.header.Ipv4Header;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MacTest
{
    @Test
    void parsesAndFormats()
    {
        assertEquals(0x5254_0012_3456L, Mac.parse("52:54:00:12:34:56"));
        assertEquals(0x5254_0012_3456L, Mac.parse("52-54-00-12-34-56"));
        assertEquals(0x0A0B_0C0D_0E0FL, Mac.parse("a:B:c:D:e:F"));
        assertEquals("52:54:00:12:34:56", Mac.toString(0x5254_0012_3456L));
        assertEquals("ff:ff:ff:ff:ff:ff", Mac.toString(Mac.BROADCAST));
    }

    @Test
    void tellsGroupFromUnicast()
    {
        assertTrue(Mac.isGroup(Mac.BROADCAST));
        assertTrue(Mac.isGroup(Mac.parse("01:00:5e:00:00:01")));
        assertTrue(Mac.isGroup(Mac.parse("33:33:00:00:00:01")));
        assertFalse(Mac.isGroup(Mac.parse("52:54:00:12:34:56")));
        assertTrue(Mac.isUnicast(Mac.parse("02:00:00:00:00:01")));
        assertFalse(Mac.isUnicast(0L), "zero is no address");
        assertFalse(Mac.isUnicast(Mac.NONE), "NONE is no address");
    }

    @Test
    void mapsMulticastGidsToTheirGroupMacs()
    {
        final Gid v4 = Gid.parse("::ffff:239.255.0.1");
        final Gid v6 = Gid.parse("ff0e::1234:5678");
        assertTrue(Gid.isMulticastGroup(v4.high(), v4.low()), "IPv4-mapped 239.255.0.1 is a group");
        assertTrue(Gid.isMulticastGroup(v6.high(), v6.low()), "ff0e:: is a group");
        assertEquals(Mac.parse("01:00:5e:7f:00:01"), Mac.ofMulticastGroup(v4.high(), v4.low()));
        assertEquals(Mac.parse("33:33:12:34:56:78"), Mac.ofMulticastGroup(v6.high(), v6.low()));
        final Gid unicastV4 = Gid.parse("::ffff:10.0.0.1");
        final Gid unicastV6 = Gid.parse("fe80::1");
        assertFalse(Gid.isMulticastGroup(unicastV4.high(), unicastV4.low()));
        assertFalse(Gid.isMulticastGroup(unicastV6.high(), unicastV6.low()));
        assertEquals(Mac.NONE, Mac.ofMulticastGroup(unicastV4.high(), unicastV4.low()), "unicast has no group MAC");
        assertEquals(Mac.NONE, Mac.ofMulticastGroup(unicastV6.high(), unicastV6.low()));
        assertFalse(Gid.isIpv4Multicast(Ipv4Header.parseAddress("240.0.0.1")), "240/4 is reserved, not multicast");
        assertTrue(Gid.isIpv4Multicast(Ipv4Header.parseAddress("224.0.0.1")));
    }

    @Test
    void mapsMulticastGroupsAsTheRfcsSay()
    {
        // RFC 1112 6.4: 01:00:5e and the low 23 bits; 239.255.0.1 and 224.127.0.1 share a MAC.
        assertEquals(Mac.parse("01:00:5e:7f:00:01"), Mac.ipv4Multicast(Ipv4Header.parseAddress("239.255.0.1")));
        assertEquals(Mac.parse("01:00:5e:7f:00:01"), Mac.ipv4Multicast(Ipv4Header.parseAddress("224.127.0.1")));
        // RFC 2464 7: 33:33 and the low 32 bits; all-nodes ff02::1 and a solicited-node group.
        assertEquals(Mac.parse("33:33:00:00:00:01"), Mac.ipv6Multicast(Gid.parse("ff02::1").low()));
        assertEquals(Mac.parse("33:33:ff:12:34:56"), Mac.ipv6Multicast(Gid.parse("ff02::1:ff12:3456").low()));
    }

    @Test
    void defaultMacsAreLocallyAdministeredUnicast()
    {
        final long mac = Mac.ofIpv4(Ipv4Header.parseAddress("10.77.0.1"));
        assertEquals("02:00:0a:4d:00:01", Mac.toString(mac));
        assertTrue(Mac.isUnicast(mac));
        assertEquals(Mac.LOCAL_BIT, mac & Mac.LOCAL_BIT);
        assertEquals("02:00:00:00:00:07", Mac.toString(Mac.ofIpv6(Gid.parse("fd00::7").low())));
    }

    @Test
    void readsAndWritesBuffers()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[8]);
        Mac.write(buffer, 1, 0x5254_0012_3456L);
        assertEquals((byte)0x52, buffer.getByte(1));
        assertEquals((byte)0x56, buffer.getByte(6));
        assertEquals(0x5254_0012_3456L, Mac.read(buffer, 1));
    }

    @Test
    void refusesBadText()
    {
        for (final String bad : new String[] {"52:54:00", "52:54:00:12:34:5g", "+f:00:00:00:00:00", "1:2:3:4:5:6:7",
            "520:54:00:12:34:56", "52:54:00:12:34:"})
        {
            final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> Mac.parse(bad));
            assertTrue(ex.getMessage().contains("not a MAC address"), ex.getMessage());
        }
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Mac.parseUnicast("mac", "01:00:5e:00:00:01"))
            .getMessage().contains("is a multicast address"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Mac.requireUnicast("peer-mac", 0L))
            .getMessage().contains("peer-mac must be a non-zero 48-bit MAC"));
    }
}
