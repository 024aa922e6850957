package org.roce4j.wire.mad;

import org.roce4j.wire.header.Ipv4Header;
import org.roce4j.wire.header.Ipv6Header;

/**
 * Helpers for 128-bit GIDs held as two longs (high and low 64 bits, network order), as the CM messages carry them.
 * On RoCEv2 a GID is the port's IP address: an IPv6 address as is, an IPv4 address as the IPv4-mapped IPv6 address
 * {@code ::ffff:a.b.c.d} (rdma_ip2gid in include/rdma/ib_addr.h).
 */
public final class Gid
{
    /** The low 64 bits of an IPv4-mapped GID carry 0x0000ffff in their upper 32 bits. */
    public static final long IPV4_MAPPED_MARKER = 0x0000_FFFFL;

    private Gid()
    {
    }

    /**
     * @param high 64 bits.
     * @param low  64 bits.
     * @return true for {@code ::ffff:a.b.c.d}.
     */
    public static boolean isIpv4Mapped(final long high, final long low)
    {
        return 0 == high && IPV4_MAPPED_MARKER == (low >>> 32);
    }

    /**
     * @param ipv4Address big-endian IPv4 address.
     * @return the low 64 bits of its IPv4-mapped GID (the high 64 bits are 0).
     */
    public static long ipv4MappedLow(final int ipv4Address)
    {
        return (IPV4_MAPPED_MARKER << 32) | (ipv4Address & 0xFFFF_FFFFL);
    }

    /**
     * Format a GID: dotted quad after {@code ::ffff:} when IPv4-mapped, RFC 5952 text otherwise. Allocates.
     *
     * @param high 64 bits.
     * @param low  64 bits.
     * @return e.g. {@code ::ffff:10.77.0.2} or {@code fe80::5054:ff:fe00:2}.
     */
    public static String toString(final long high, final long low)
    {
        if (isIpv4Mapped(high, low))
        {
            return "::ffff:" + Ipv4Header.addressToString((int)low);
        }
        return Ipv6Header.addressToString(high, low);
    }
}
