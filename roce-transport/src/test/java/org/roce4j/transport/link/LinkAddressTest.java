package org.roce4j.transport.link;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.addr.Mac;
import org.roce4j.wire.header.Ipv4Header;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A link's set of addresses: which it owns, its primary IPv4 address, and the GID table rxe would build from it.
 */
class LinkAddressTest
{
    private static final long MAC = Mac.parse("52:54:00:12:34:56");

    @Test
    void ownsItsAddressesItsLinkLocalAndTheMappedFormOfItsIpv4Ones()
    {
        final LinkAddress address = new LinkAddress(MAC, List.of(Gid.parse("10.77.0.1"), Gid.parse("fd00:77::1"),
            Gid.parse("10.78.0.1")));
        assertEquals(Ipv4Header.parseAddress("10.77.0.1"), address.ipv4(), "the first IPv4 address is primary");
        assertTrue(address.ownsIpv4(Ipv4Header.parseAddress("10.78.0.1")));
        assertFalse(address.ownsIpv4(Ipv4Header.parseAddress("10.79.0.1")));
        assertTrue(owns6(address, "fd00:77::1"));
        assertTrue(owns6(address, "fe80::5054:ff:fe12:3456"), "the link-local address of its MAC");
        assertTrue(owns6(address, "::ffff:10.78.0.1"));
        assertFalse(owns6(address, "fd00:77::2"));
        assertEquals(Gid.parse("fd00:77::1"), address.primaryIpv6());
        assertEquals(List.of(Gid.parse("fd00:77::1")), address.ipv6s());
    }

    @Test
    void buildsTheGidTableInRxesOrder()
    {
        final LinkAddress address = new LinkAddress(MAC, List.of(Gid.parse("fd00:77::1"), Gid.parse("10.77.0.1"),
            Gid.parse("fe80::1234"), Gid.parse("10.78.0.1")));
        assertEquals(List.of(Gid.parse("fe80::5054:ff:fe12:3456"), Gid.parse("::ffff:10.77.0.1"),
            Gid.parse("::ffff:10.78.0.1"), Gid.parse("fd00:77::1")), address.gids(),
            "link-local first, then the IPv4 addresses, then the global IPv6 ones");
    }

    @Test
    void aLinkWithOneIpv4AddressIsWhatItWas()
    {
        final LinkAddress address = new LinkAddress(MAC, Ipv4Header.parseAddress("10.77.0.1"));
        assertEquals(List.of(Gid.parse("10.77.0.1")), address.ips());
        assertNull(address.primaryIpv6());
        assertEquals(Gid.ipv4MappedLow(address.ipv4()), address.ipv4MappedLow());
        assertEquals(Gid.linkLocalLow(MAC), address.linkLocalLow());
        assertEquals(LinkAddress.of("52:54:00:12:34:56", "10.77.0.1"), address);
        assertEquals("mac=52:54:00:12:34:56 ip=10.77.0.1 gid0=fe80::5054:ff:fe12:3456 gid1=::ffff:10.77.0.1",
            address.toString());
        assertEquals(List.of(), new LinkAddress(0L, 0).ips(), "no address at all (a udp link before phase 2)");
    }

    @Test
    void defaultMacsComeFromTheFirstIpv4AddressElseTheFirstIpv6One()
    {
        assertEquals(Mac.parse("02:00:0a:4d:00:01"), LinkAddress.defaultMac(List.of(Gid.parse("fd00::7"),
            Gid.parse("10.77.0.1"))));
        assertEquals(Mac.parse("02:00:00:00:00:07"), LinkAddress.defaultMac(List.of(Gid.parse("fd00::7"))));
        assertEquals(Mac.parse("02:00:00:00:00:07"), LinkAddress.ofIp("fd00::7").mac());
    }

    @Test
    void refusesAddressesALinkCannotOwn()
    {
        for (final String bad : new String[] {"::", "ff02::1", "0.0.0.0"})
        {
            final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
                () -> new LinkAddress(MAC, List.of(Gid.parse(bad))));
            assertTrue(ex.getMessage().contains("cannot own"), ex.getMessage());
        }
        assertThrows(IllegalArgumentException.class,
            () -> new LinkAddress(MAC, List.of(Gid.parse("10.0.0.1"), Gid.parse("10.0.0.1"))));
    }

    private static boolean owns6(final LinkAddress address, final String text)
    {
        final Gid gid = Gid.parse(text);
        return address.ownsIpv6(gid.high(), gid.low());
    }
}
