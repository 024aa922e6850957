package org.roce4j.transport;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;

import org.roce4j.transport.link.LinkAddress;
import org.roce4j.wire.header.Ipv4Header;
import org.roce4j.wire.header.Ipv6Header;

/**
 * A 128-bit GID (union ibv_gid) as two longs, most significant first. On RoCEv2 a GID is an IPv6 address; an IPv4
 * address appears as the IPv4-mapped GID {@code ::ffff:a.b.c.d}.
 *
 * <p>Other GID code today: {@code org.roce4j.wire.mad.Gid} holds static helpers for the two-long form the CM messages
 * carry, the engine's {@code AddressVector.isIpv4Mapped} and {@link LinkAddress}'s IPv4-mapped constants say the same
 * things again; the engine issue (15) is to make this record their one home.
 *
 * @param high the first 8 bytes (network order).
 * @param low  the last 8 bytes (network order).
 */
public record Gid(long high, long low)
{
    /**
     * A GID from its text: an IPv6 address ({@code fe80::1}, {@code ::ffff:10.0.0.1}) or an IPv4 address, which
     * becomes its IPv4-mapped GID ({@code 10.0.0.1} is {@code ::ffff:10.0.0.1}, the GID rxe and roce4j list at index
     * 1). Never looks a name up.
     *
     * @param text the address.
     * @return the GID.
     * @throws IllegalArgumentException when the text is neither an IPv4 nor an IPv6 address.
     */
    public static Gid parse(final String text)
    {
        if (null == text)
        {
            throw new IllegalArgumentException("a GID must not be null");
        }
        final String trimmed = text.trim();
        if (trimmed.indexOf(':') < 0)
        {
            return ofIpv4(Ipv4Header.parseAddress(trimmed));
        }
        try
        {
            // With a ':' the JDK parses the text as an IPv6 literal and never asks a resolver.
            return of(InetAddress.getByName(trimmed.startsWith("[") ? trimmed : "[" + trimmed + "]"));
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalArgumentException("not a GID (an IPv6 or IPv4 address): '" + text + "'", ex);
        }
    }

    /**
     * @param ipv4 an IPv4 address as a big-endian int.
     * @return its IPv4-mapped GID {@code ::ffff:a.b.c.d}.
     */
    public static Gid ofIpv4(final int ipv4)
    {
        return new Gid(LinkAddress.IPV4_MAPPED_HIGH, LinkAddress.IPV4_MAPPED_LOW_PREFIX | (ipv4 & 0xFFFF_FFFFL));
    }

    /**
     * @param address an IPv4 address (becomes its IPv4-mapped GID) or an IPv6 address.
     * @return the GID.
     */
    public static Gid of(final InetAddress address)
    {
        if (address instanceof Inet4Address)
        {
            return ofIpv4(ByteBuffer.wrap(address.getAddress()).getInt());
        }
        if (address instanceof Inet6Address)
        {
            final ByteBuffer bytes = ByteBuffer.wrap(address.getAddress());
            return new Gid(bytes.getLong(), bytes.getLong());
        }
        throw new IllegalArgumentException("a GID needs an IPv4 or IPv6 address, got " + address);
    }

    /**
     * @return true for {@code ::ffff:a.b.c.d}.
     */
    public boolean isIpv4Mapped()
    {
        return org.roce4j.wire.mad.Gid.isIpv4Mapped(high, low);
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
