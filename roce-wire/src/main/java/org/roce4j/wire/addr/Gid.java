package org.roce4j.wire.addr;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.roce4j.wire.header.Ipv4Header;
import org.roce4j.wire.header.Ipv6Header;

import static java.nio.ByteOrder.BIG_ENDIAN;

/**
 * A 128-bit GID (union ibv_gid), held as two longs, most significant first (network order). On RoCEv2 a GID is an
 * IPv6 address; an IPv4 address appears as the IPv4-mapped GID {@code ::ffff:a.b.c.d} (rdma_ip2gid,
 * include/rdma/ib_addr.h), and the port's first GID is the link-local address made from its MAC by modified EUI-64
 * (RFC 4291 appendix A), as the kernel lists it at index 0 of rxe's GID table.
 *
 * <p>The one home of GID and IPv6 address arithmetic: the record for code that keeps a GID, and static helpers over
 * the two-long form for the per-frame paths, which never allocate.
 *
 * @param high the first 8 bytes (network order).
 * @param low  the last 8 bytes (network order).
 */
public record Gid(long high, long low)
{
    /** Bytes of a GID, as of an IPv6 address. */
    public static final int LENGTH = 16;
    /** High 64 bits of an IPv4-mapped GID {@code ::ffff:a.b.c.d}: all zero. */
    public static final long IPV4_MAPPED_HIGH = 0L;
    /** Bits 63..32 of the low half of an IPv4-mapped GID: 0x0000ffff (RFC 4291 section 2.5.5.2). */
    public static final long IPV4_MAPPED_LOW_PREFIX = 0x0000_FFFF_0000_0000L;
    /** High 64 bits of the fe80::/64 link-local prefix (RFC 4291 section 2.5.6), rxe's RXE_PORT_SUBNET_PREFIX. */
    public static final long LINK_LOCAL_HIGH = 0xFE80_0000_0000_0000L;
    /** The unspecified address {@code ::}: an unset GID, and the source of a duplicate address detection probe. */
    public static final Gid ZERO = new Gid(0L, 0L);
    /** High 64 bits of a solicited-node multicast address ff02::1:ffXX:XXXX (RFC 4291 section 2.7.1). */
    public static final long SOLICITED_NODE_HIGH = 0xFF02_0000_0000_0000L;
    /** Low 64 bits of a solicited-node multicast address before the target's low 24 bits are put in. */
    public static final long SOLICITED_NODE_LOW_PREFIX = 0x0000_0001_FF00_0000L;

    /** Bits of the interface identifier's middle that modified EUI-64 fills with ff:fe (RFC 4291 appendix A). */
    private static final long EUI64_FFFE = 0xFFFEL;
    /** The universal/local bit of the first MAC octet, inverted by modified EUI-64, seen in the upper 24 bits. */
    private static final long EUI64_UL_BIT = 0x02_0000L;
    /** Mask of 24 bits: half a MAC, or the part of an address a solicited-node group keeps. */
    private static final long LOW_24 = 0xFF_FFFFL;
    /** Mask of the 32 bits below the IPv4-mapped prefix. */
    private static final long LOW_32 = 0xFFFF_FFFFL;

    // ---------------------------------------------------------------------------------------------------------------
    // Building
    // ---------------------------------------------------------------------------------------------------------------

    /**
     * A GID from its text: an IPv6 address ({@code fe80::1}, {@code ::ffff:10.0.0.1}, with or without brackets) or
     * an IPv4 address, which becomes its IPv4-mapped GID ({@code 10.0.0.1} is {@code ::ffff:10.0.0.1}, the GID rxe
     * and roce4j list at index 1). Never looks a name up.
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
        final String bare = trimmed.startsWith("[") && trimmed.endsWith("]") ?
            trimmed.substring(1, trimmed.length() - 1) : trimmed;
        if (bare.isEmpty() || !isIpv6Text(bare))
        {
            throw new IllegalArgumentException("not a GID (an IPv6 or IPv4 address): '" + text + "'");
        }
        try
        {
            // With only hex digits, ':' and '.', the JDK parses an IPv6 literal and never asks a resolver.
            return of(InetAddress.getByName("[" + bare + "]"));
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
        return new Gid(IPV4_MAPPED_HIGH, ipv4MappedLow(ipv4));
    }

    /**
     * @param address an IPv4 address (becomes its IPv4-mapped GID) or an IPv6 address (its scope is dropped).
     * @return the GID.
     * @throws IllegalArgumentException for anything else.
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
     * @param mac a MAC in the low 48 bits.
     * @return the link-local GID made from it: fe80:: and the modified EUI-64 interface identifier.
     */
    public static Gid linkLocal(final long mac)
    {
        return new Gid(LINK_LOCAL_HIGH, linkLocalLow(mac));
    }

    /**
     * Read a GID from a buffer.
     *
     * @param buffer holding it.
     * @param offset of its first byte.
     * @return the GID.
     */
    public static Gid read(final DirectBuffer buffer, final int offset)
    {
        return new Gid(buffer.getLong(offset, BIG_ENDIAN), buffer.getLong(offset + 8, BIG_ENDIAN));
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Two-long helpers for the per-frame paths (no allocation)
    // ---------------------------------------------------------------------------------------------------------------

    /**
     * @param high 64 bits.
     * @param low  64 bits.
     * @return true for {@code ::ffff:a.b.c.d}.
     */
    public static boolean isIpv4Mapped(final long high, final long low)
    {
        return IPV4_MAPPED_HIGH == high && IPV4_MAPPED_LOW_PREFIX == (low & ~LOW_32);
    }

    /**
     * @param ipv4 big-endian IPv4 address.
     * @return the low 64 bits of its IPv4-mapped GID (the high 64 bits are {@link #IPV4_MAPPED_HIGH}).
     */
    public static long ipv4MappedLow(final int ipv4)
    {
        return IPV4_MAPPED_LOW_PREFIX | (ipv4 & LOW_32);
    }

    /**
     * Interface identifier from a MAC by modified EUI-64: ff:fe inserted in the middle and the universal/local bit
     * flipped (RFC 4291 appendix A), as the kernel builds the link-local GID rxe lists at index 0.
     *
     * @param mac in the low 48 bits.
     * @return the low 64 bits of the fe80:: link-local address.
     */
    public static long linkLocalLow(final long mac)
    {
        final long upper = (mac >>> 24) & LOW_24;
        final long lower = mac & LOW_24;
        return ((upper ^ EUI64_UL_BIT) << 40) | (EUI64_FFFE << 24) | lower;
    }

    /**
     * The MAC inside a link-local address made by modified EUI-64 (the inverse of {@link #linkLocalLow(long)}).
     *
     * @param high 64 bits.
     * @param low  64 bits.
     * @return the MAC, or {@link Mac#NONE} when the address is not fe80::/64 with ff:fe in its identifier.
     */
    public static long macOfLinkLocal(final long high, final long low)
    {
        if (LINK_LOCAL_HIGH != high || EUI64_FFFE != ((low >>> 24) & 0xFFFFL))
        {
            return Mac.NONE;
        }
        return ((((low >>> 40) & LOW_24) ^ EUI64_UL_BIT) << 24) | (low & LOW_24);
    }

    /**
     * @param high 64 bits of an IPv6 address.
     * @return true for a multicast address, ff00::/8 (RFC 4291 section 2.7).
     */
    public static boolean isMulticast(final long high)
    {
        return 0xFF == (high >>> 56);
    }

    /**
     * @param ipv4 an IPv4 address as a big-endian int.
     * @return true for a multicast address, 224.0.0.0/4 (its first nibble is 0xE, RFC 5771).
     */
    public static boolean isIpv4Multicast(final int ipv4)
    {
        return 0xE == (ipv4 >>> 28);
    }

    /**
     * Whether a GID names a multicast group, as the kernel's rdma_is_multicast_addr decides for ib_attach_mcast and
     * rxe_chk_dgid: an IPv6 multicast address (ff00::/8) or an IPv4-mapped one of 224.0.0.0/4.
     *
     * @param high 64 bits of a GID.
     * @param low  64 bits of a GID.
     * @return true for a multicast group.
     */
    public static boolean isMulticastGroup(final long high, final long low)
    {
        return isMulticast(high) || (isIpv4Mapped(high, low) && isIpv4Multicast((int)low));
    }

    /**
     * @param high 64 bits of an IPv6 address.
     * @return true for a unicast link-local address, fe80::/10 (RFC 4291 section 2.5.6).
     */
    public static boolean isLinkLocal(final long high)
    {
        return 0xFE80 == ((high >>> 48) & 0xFFC0);
    }

    /**
     * @param low 64 bits of a unicast IPv6 address (the high half does not enter).
     * @return low 64 bits of its solicited-node multicast group, whose high half is {@link #SOLICITED_NODE_HIGH}.
     */
    public static long solicitedNodeLow(final long low)
    {
        return SOLICITED_NODE_LOW_PREFIX | (low & LOW_24);
    }

    /**
     * Format a GID: dotted quad after {@code ::ffff:} when IPv4-mapped (RFC 5952 section 5), RFC 5952 text
     * otherwise, as inet_ntop and ibv_rc_pingpong print it. Allocates.
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

    /**
     * Write a GID into a buffer.
     *
     * @param buffer to write into.
     * @param offset of the first byte.
     * @param high   64 bits.
     * @param low    64 bits.
     */
    public static void write(final MutableDirectBuffer buffer, final int offset, final long high, final long low)
    {
        buffer.putLong(offset, high, BIG_ENDIAN);
        buffer.putLong(offset + 8, low, BIG_ENDIAN);
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Instance views
    // ---------------------------------------------------------------------------------------------------------------

    /**
     * @return true for {@code ::ffff:a.b.c.d}.
     */
    public boolean isIpv4Mapped()
    {
        return isIpv4Mapped(high, low);
    }

    /**
     * @return the IPv4 address of an IPv4-mapped GID (big-endian int); meaningless for other GIDs.
     */
    public int ipv4()
    {
        return (int)low;
    }

    /**
     * @return true for a link-local address, fe80::/10.
     */
    public boolean isLinkLocal()
    {
        return isLinkLocal(high);
    }

    /**
     * @return true for a multicast address, ff00::/8.
     */
    public boolean isMulticast()
    {
        return isMulticast(high);
    }

    /**
     * @return the address as the JDK knows it: an {@link Inet4Address} for an IPv4-mapped GID, an
     *     {@link Inet6Address} otherwise.
     */
    public InetAddress toInetAddress()
    {
        try
        {
            if (isIpv4Mapped())
            {
                return InetAddress.getByAddress(ByteBuffer.allocate(4).putInt((int)low).array());
            }
            return InetAddress.getByAddress(ByteBuffer.allocate(LENGTH).putLong(high).putLong(low).array());
        }
        catch (final UnknownHostException ex)
        {
            // getByAddress refuses only arrays of other lengths.
            throw new IllegalStateException(ex);
        }
    }

    /**
     * @return e.g. {@code fe80::ff:fe00:a}, or {@code ::ffff:10.0.0.1} with the IPv4 part dotted (RFC 5952 §5).
     */
    public String toString()
    {
        return toString(high, low);
    }

    /**
     * @return the GID as Linux writes it in sysfs ({@code /sys/class/infiniband/DEV/ports/N/gids/I}) and show_gids
     *     prints it: eight groups of four lower-case hex digits, e.g. {@code fe80:0000:0000:0000:5054:00ff:fe4d:0002}.
     */
    public String toSysfsString()
    {
        final StringBuilder text = new StringBuilder(39);
        for (int group = 0; group < 8; group++)
        {
            final long half = group < 4 ? high : low;
            final int shift = 48 - 16 * (group % 4);
            final String hex = Long.toHexString((half >>> shift) & 0xFFFF);
            text.append(0 == group ? "" : ":").append("0000", hex.length(), 4).append(hex);
        }
        return text.toString();
    }

    private static boolean isIpv6Text(final String text)
    {
        for (int i = 0; i < text.length(); i++)
        {
            final char c = text.charAt(i);
            if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' || ':' == c || '.' == c))
            {
                return false;
            }
        }
        return true;
    }
}
