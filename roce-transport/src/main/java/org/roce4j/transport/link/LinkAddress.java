package org.roce4j.transport.link;

import org.roce4j.wire.header.EthernetHeader;
import org.roce4j.wire.header.Ipv4Header;
import org.roce4j.wire.header.Ipv6Header;

/**
 * The layer-2 and layer-3 identity of a link, from which the device derives its GID table the way rxe does:
 * index 0 the IPv6 link-local address made from the MAC (modified EUI-64, RFC 4291 appendix A), index 1 the
 * IPv4-mapped address {@code ::ffff:a.b.c.d}.
 *
 * @param mac  MAC address in the low 48 bits (0 for links without layer 2 of their own, such as kernel UDP).
 * @param ipv4 IPv4 address as a big-endian int.
 */
public record LinkAddress(long mac, int ipv4)
{
    /** High 64 bits of an IPv4-mapped IPv6 address: all zero. */
    public static final long IPV4_MAPPED_HIGH = 0L;
    /** Bits 63..32 of the low half of an IPv4-mapped IPv6 address: 0x0000ffff. */
    public static final long IPV4_MAPPED_LOW_PREFIX = 0x0000_FFFF_0000_0000L;
    /** High 64 bits of an fe80::/64 link-local address. */
    public static final long LINK_LOCAL_HIGH = 0xFE80_0000_0000_0000L;

    /**
     * A link address from text, e.g. {@code LinkAddress.of("02:00:00:00:00:01", "10.0.0.1")}.
     *
     * @param mac  six hex octets separated by ':' or '-'.
     * @param ipv4 a dotted quad.
     * @return the address.
     * @throws IllegalArgumentException naming the part that is not a MAC or not an IPv4 address.
     */
    public static LinkAddress of(final String mac, final String ipv4)
    {
        return new LinkAddress(EthernetHeader.parseMac(requireText(mac, "mac")),
            Ipv4Header.parseAddress(requireText(ipv4, "ipv4")));
    }

    /**
     * A link address for an IPv4 address alone, with a MAC made from it: {@code 02:00:a:b:c:d} in hex, a locally
     * administered unicast MAC (IEEE 802 U/L bit set, group bit clear) that is unique as long as the IPv4 address is.
     *
     * @param ipv4 a dotted quad.
     * @return the address, e.g. MAC 02:00:0a:00:00:01 for 10.0.0.1.
     * @throws IllegalArgumentException when it is not an IPv4 address.
     */
    public static LinkAddress ofIpv4(final String ipv4)
    {
        final int address = Ipv4Header.parseAddress(requireText(ipv4, "ipv4"));
        return new LinkAddress(0x0200_0000_0000L | (address & 0xFFFF_FFFFL), address);
    }

    private static String requireText(final String text, final String name)
    {
        if (null == text)
        {
            throw new IllegalArgumentException(name + " must not be null");
        }
        return text;
    }

    /**
     * @return low 64 bits of {@code ::ffff:ipv4}.
     */
    public long ipv4MappedLow()
    {
        return IPV4_MAPPED_LOW_PREFIX | (ipv4 & 0xFFFF_FFFFL);
    }

    /**
     * Interface identifier from the MAC by modified EUI-64: insert ff:fe in the middle and flip the
     * universal/local bit (RFC 4291 appendix A), as the kernel does for the link-local GID rxe lists at index 0.
     *
     * @return low 64 bits of the fe80:: link-local address.
     */
    public long linkLocalLow()
    {
        final long upper = (mac >>> 24) & 0xFF_FFFFL;
        final long lower = mac & 0xFF_FFFFL;
        return ((upper ^ 0x02_0000L) << 40) | (0xFFFEL << 24) | lower;
    }

    /**
     * @return e.g. {@code mac=52:54:00:12:34:56 ip=10.77.0.1}.
     */
    public String toString()
    {
        return "mac=" + EthernetHeader.macToString(mac) + " ip=" + Ipv4Header.addressToString(ipv4) +
            " gid0=" + Ipv6Header.addressToString(LINK_LOCAL_HIGH, linkLocalLow()) +
            " gid1=" + Ipv6Header.addressToString(IPV4_MAPPED_HIGH, ipv4MappedLow());
    }
}
