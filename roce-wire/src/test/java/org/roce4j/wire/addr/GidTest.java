package org.roce4j.wire.addr;

import java.net.InetAddress;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.roce4j.wire.header.Ipv4Header;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class GidTest
{
    @Test
    void sysfsFormIsEightGroupsOfFourHexDigits()
    {
        // As rxe's GID table lists them under /sys/class/infiniband/rxe0/ports/1/gids/ (evidence/interop-stall).
        assertEquals("fe80:0000:0000:0000:5054:00ff:fe4d:0002",
            Gid.linkLocal(Mac.parse("52:54:00:4d:00:02")).toSysfsString());
        assertEquals("0000:0000:0000:0000:0000:ffff:0a4d:0002", Gid.parse("10.77.0.2").toSysfsString());
        assertEquals("fd00:0077:0000:0000:0000:0000:0000:0002", Gid.parse("fd00:77::2").toSysfsString());
    }

    @Test
    void ipv4MappedGidsAreBuiltAndRecognised()
    {
        final int ipv4 = Ipv4Header.parseAddress("10.77.0.2");
        final Gid gid = Gid.ofIpv4(ipv4);
        assertEquals(0L, gid.high());
        assertEquals(0x0000_FFFF_0A4D_0002L, gid.low());
        assertTrue(gid.isIpv4Mapped());
        assertEquals(ipv4, gid.ipv4());
        assertEquals("::ffff:10.77.0.2", gid.toString());
        assertEquals(gid.low(), Gid.ipv4MappedLow(ipv4));
        assertFalse(Gid.isIpv4Mapped(1L, gid.low()), "a non-zero high half is not IPv4-mapped");
        assertFalse(Gid.isIpv4Mapped(0L, 0x0000_FFFE_0A4D_0002L), "the marker must be ffff");
        assertEquals(gid, Gid.parse("10.77.0.2"), "an IPv4 address parses to its mapped GID");
        assertEquals(gid, Gid.parse("::ffff:10.77.0.2"));
    }

    @Test
    void linkLocalGidsComeFromTheMacByModifiedEui64AndBack()
    {
        // QEMU's first NIC: 52:54:00:12:34:56 gives fe80::5054:ff:fe12:3456, as the kernel lists it for rxe.
        final long mac = Mac.parse("52:54:00:12:34:56");
        final Gid gid = Gid.linkLocal(mac);
        assertEquals("fe80::5054:ff:fe12:3456", gid.toString());
        assertTrue(gid.isLinkLocal());
        assertEquals(mac, Gid.macOfLinkLocal(gid.high(), gid.low()));
        assertEquals("fe80::ff:fe00:1", Gid.linkLocal(Mac.parse("02:00:00:00:00:01")).toString(),
            "the U/L bit of a locally administered MAC is flipped off");
        assertEquals(Mac.NONE, Gid.macOfLinkLocal(Gid.LINK_LOCAL_HIGH, 0x1234L), "no ff:fe, no MAC");
        assertEquals(Mac.NONE, Gid.macOfLinkLocal(0xFD00_0000_0000_0000L, gid.low()), "not fe80::/64");
    }

    @Test
    void parsesAndFormatsIpv6AsRfc5952()
    {
        final Gid gid = Gid.parse("FD00:77:0:0:0:0:0:1");
        assertEquals(0xFD00_0077_0000_0000L, gid.high());
        assertEquals(1L, gid.low());
        assertEquals("fd00:77::1", gid.toString());
        assertEquals(gid, Gid.parse("[fd00:77::1]"), "brackets are allowed");
        assertEquals(gid, Gid.parse(gid.toString()));
        assertFalse(gid.isIpv4Mapped());
        assertFalse(gid.isLinkLocal());
        assertTrue(Gid.parse("ff02::1").isMulticast());
        assertEquals(Gid.ZERO, Gid.parse("::"));
    }

    @Test
    void convertsToAndFromTheJdksAddresses() throws Exception
    {
        assertEquals(InetAddress.getByName("10.0.0.1"), Gid.parse("10.0.0.1").toInetAddress());
        assertEquals(InetAddress.getByName("fd00::1"), Gid.parse("fd00::1").toInetAddress());
        assertEquals(Gid.parse("fd00::1"), Gid.of(InetAddress.getByName("fd00::1")));
        assertEquals(Gid.parse("10.0.0.1"), Gid.of(InetAddress.getByName("10.0.0.1")));
    }

    @Test
    void readsAndWritesBuffers()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[20]);
        final Gid gid = Gid.parse("fe80::5054:ff:fe12:3456");
        Gid.write(buffer, 2, gid.high(), gid.low());
        assertEquals((byte)0xFE, buffer.getByte(2));
        assertEquals((byte)0x56, buffer.getByte(17));
        assertEquals(gid, Gid.read(buffer, 2));
    }

    @Test
    void solicitedNodeGroupsKeepTheLow24Bits()
    {
        // RFC 4291 2.7.1: ff02::1:ffXX:XXXX.
        final Gid target = Gid.parse("fd00:77::12:3456");
        assertEquals("ff02::1:ff12:3456", new Gid(Gid.SOLICITED_NODE_HIGH, Gid.solicitedNodeLow(target.low()))
            .toString());
    }

    @Test
    void refusesWhatIsNotAnAddressWithoutLookingItUp()
    {
        for (final String bad : new String[] {"", "10.0.0", "fd00:::1", "localhost", "example.com:1", "1.2.3.4.5",
            "fd00::1%eth0"})
        {
            final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> Gid.parse(bad));
            assertTrue(ex.getMessage().contains("'" + bad + "'") || ex.getMessage().contains(bad), ex.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> Gid.parse(null));
    }
}
