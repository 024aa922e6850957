package org.roce4j.verbs;

import org.roce4j.transport.engine.AddressVector;
import org.roce4j.wire.header.Ipv4Header;
import org.roce4j.wire.header.Ipv6Header;

/**
 * A 128-bit GID (union ibv_gid) as two longs, most significant first. On RoCEv2 a GID is an IPv6 address; an IPv4
 * address appears as the IPv4-mapped GID {@code ::ffff:a.b.c.d}.
 *
 * @param high the first 8 bytes (network order).
 * @param low  the last 8 bytes (network order).
 */
public record Gid(long high, long low)
{
    /**
     * @return true for {@code ::ffff:a.b.c.d}.
     */
    public boolean isIpv4Mapped()
    {
        return AddressVector.isIpv4Mapped(high, low);
    }

    /**
     * @return e.g. {@code fe80::ff:fe00:a}, or {@code ::ffff:10.0.0.1} with the IPv4 part dotted (RFC 5952 §5).
     */
    public String toString()
    {
        if (isIpv4Mapped())
        {
            return "::ffff:" + Ipv4Header.addressToString((int)low);
        }
        return Ipv6Header.addressToString(high, low);
    }
}
