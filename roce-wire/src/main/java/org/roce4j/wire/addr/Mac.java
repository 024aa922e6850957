package org.roce4j.wire.addr;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import static java.nio.ByteOrder.BIG_ENDIAN;

/**
 * 48-bit Ethernet MAC addresses held in the low bits of a long (first octet in bits 47..40), so the per-frame paths
 * never allocate: the one home of MAC arithmetic, parsing and formatting.
 *
 * <p>IEEE 802 clause 8.2: bit 0 of the first octet is the individual/group (I/G) bit, set for multicast and
 * broadcast; bit 1 is the universal/local (U/L) bit, set for locally administered addresses.
 */
public final class Mac
{
    /** "No MAC": an unresolved neighbour, or none configured. Not a valid address (it has bits above 48). */
    public static final long NONE = -1L;
    /** Bytes of a MAC. */
    public static final int LENGTH = 6;
    /** The 48 bits of a MAC. */
    public static final long MASK = 0xFFFF_FFFF_FFFFL;
    /** The broadcast address ff:ff:ff:ff:ff:ff. */
    public static final long BROADCAST = MASK;
    /** The I/G bit: a group (multicast or broadcast) address. */
    public static final long GROUP_BIT = 0x0100_0000_0000L;
    /** The U/L bit: a locally administered address. */
    public static final long LOCAL_BIT = 0x0200_0000_0000L;
    /** IPv4 multicast MACs: 01:00:5e followed by the low 23 bits of the group (RFC 1112 section 6.4). */
    public static final long IPV4_MULTICAST_PREFIX = 0x0100_5E00_0000L;
    /** Low bits of an IPv4 group address that go into its MAC. */
    private static final int IPV4_MULTICAST_MASK = 0x7F_FFFF;
    /** IPv6 multicast MACs: 33:33 followed by the low 32 bits of the group (RFC 2464 section 7). */
    public static final long IPV6_MULTICAST_PREFIX = 0x3333_0000_0000L;

    private Mac()
    {
    }

    /**
     * @param mac in the low 48 bits.
     * @return true for a multicast or broadcast address (I/G bit set).
     */
    public static boolean isGroup(final long mac)
    {
        return 0 != (mac & GROUP_BIT);
    }

    /**
     * @param mac a value.
     * @return true for a non-zero 48-bit address with the I/G bit clear: what a link may own.
     */
    public static boolean isUnicast(final long mac)
    {
        return 0 != mac && 0 == (mac & ~MASK) && !isGroup(mac);
    }

    /**
     * @param group an IPv4 multicast address (224.0.0.0/4) as a big-endian int.
     * @return its MAC 01:00:5e:xx:xx:xx.
     */
    public static long ipv4Multicast(final int group)
    {
        return IPV4_MULTICAST_PREFIX | (group & IPV4_MULTICAST_MASK);
    }

    /**
     * @param groupLow low 64 bits of an IPv6 multicast address (ff00::/8).
     * @return its MAC 33:33:xx:xx:xx:xx.
     */
    public static long ipv6Multicast(final long groupLow)
    {
        return IPV6_MULTICAST_PREFIX | (groupLow & 0xFFFF_FFFFL);
    }

    /**
     * The Ethernet group address of a multicast GID: the one place a RoCE multicast destination becomes a MAC (the
     * Ethernet layer on send, the links that join groups on receive).
     *
     * @param gidHigh high 64 bits of a multicast GID ({@link Gid#isMulticastGroup}).
     * @param gidLow  low 64 bits.
     * @return 01:00:5e:... for an IPv4-mapped group (RFC 1112), 33:33:... for an IPv6 one (RFC 2464), or
     *     {@link #NONE} when the GID is not a multicast group.
     */
    public static long ofMulticastGroup(final long gidHigh, final long gidLow)
    {
        if (Gid.isMulticast(gidHigh))
        {
            return ipv6Multicast(gidLow);
        }
        if (Gid.isIpv4Mapped(gidHigh, gidLow) && Gid.isIpv4Multicast((int)gidLow))
        {
            return ipv4Multicast((int)gidLow);
        }
        return NONE;
    }

    /**
     * The MAC a link gets from an IPv4 address when none is configured: {@code 02:00:a:b:c:d} in hex, a locally
     * administered unicast address (U/L bit set, I/G clear) that is unique as long as the IPv4 address is and cannot
     * clash with QEMU's {@code 52:54:00:...} guests.
     *
     * @param ipv4 big-endian IPv4 address.
     * @return e.g. 02:00:0a:00:00:01 for 10.0.0.1.
     */
    public static long ofIpv4(final int ipv4)
    {
        return LOCAL_BIT | (ipv4 & 0xFFFF_FFFFL);
    }

    /**
     * The MAC a link gets from an IPv6 address when none is configured: {@code 02:00} and the address's low 32 bits,
     * locally administered and unicast as {@link #ofIpv4(int)}.
     *
     * @param low low 64 bits of the address.
     * @return the MAC.
     */
    public static long ofIpv6(final long low)
    {
        return LOCAL_BIT | (low & 0xFFFF_FFFFL);
    }

    /**
     * @param buffer holding a MAC.
     * @param offset of its first octet.
     * @return the MAC in the low 48 bits.
     */
    public static long read(final DirectBuffer buffer, final int offset)
    {
        return ((buffer.getShort(offset, BIG_ENDIAN) & 0xFFFFL) << 32) |
            (buffer.getInt(offset + 2, BIG_ENDIAN) & 0xFFFF_FFFFL);
    }

    /**
     * @param buffer to write into.
     * @param offset of the first octet.
     * @param mac    in the low 48 bits.
     */
    public static void write(final MutableDirectBuffer buffer, final int offset, final long mac)
    {
        buffer.putShort(offset, (short)(mac >>> 32), BIG_ENDIAN);
        buffer.putInt(offset + 2, (int)mac, BIG_ENDIAN);
    }

    /**
     * Format as {@code aa:bb:cc:dd:ee:ff}. Allocates: for tools and diagnostics only.
     *
     * @param mac in the low 48 bits.
     * @return the text form.
     */
    public static String toString(final long mac)
    {
        final StringBuilder sb = new StringBuilder(17);
        for (int shift = 40; shift >= 0; shift -= 8)
        {
            final int b = (int)(mac >>> shift) & 0xFF;
            sb.append(Character.forDigit(b >>> 4, 16)).append(Character.forDigit(b & 0xF, 16));
            if (shift > 0)
            {
                sb.append(':');
            }
        }
        return sb.toString();
    }

    /**
     * Parse {@code aa:bb:cc:dd:ee:ff} (or with '-').
     *
     * @param text the MAC address.
     * @return the 48-bit value.
     * @throws IllegalArgumentException naming the text when it is not a MAC address.
     */
    public static long parse(final String text)
    {
        if (null == text)
        {
            throw new IllegalArgumentException("a MAC address must not be null");
        }
        final String[] parts = text.trim().split("[:-]", -1);
        if (LENGTH != parts.length)
        {
            throw new IllegalArgumentException("not a MAC address (need 6 hex octets): '" + text + "'");
        }
        long mac = 0;
        for (final String part : parts)
        {
            // parseInt alone would also accept a sign ("+f") and non-ASCII digits: only 0-9, a-f, A-F make an octet.
            if (part.isEmpty() || part.length() > 2 || !isAsciiHex(part))
            {
                throw new IllegalArgumentException("not a MAC address (bad octet '" + part + "'): '" + text + "'");
            }
            mac = (mac << 8) | Integer.parseInt(part, 16);
        }
        return mac;
    }

    /**
     * Parse a MAC a link is to own: unicast and non-zero.
     *
     * @param what  what the MAC is, for the message (e.g. {@code mac}).
     * @param text  the MAC address.
     * @return the 48-bit value.
     * @throws IllegalArgumentException naming the text when it is not a unicast MAC.
     */
    public static long parseUnicast(final String what, final String text)
    {
        return requireUnicast(what, parse(text));
    }

    /**
     * @param what what the MAC is, for the message.
     * @param mac  a value.
     * @return the MAC.
     * @throws IllegalArgumentException when it is zero, wider than 48 bits, or a group address.
     */
    public static long requireUnicast(final String what, final long mac)
    {
        if (0 == mac || 0 != (mac & ~MASK))
        {
            throw new IllegalArgumentException(what + " must be a non-zero 48-bit MAC, got 0x" + Long.toHexString(mac));
        }
        if (isGroup(mac))
        {
            throw new IllegalArgumentException(what + " " + toString(mac) + " is a multicast address (I/G bit set); " +
                "a link needs a unicast MAC");
        }
        return mac;
    }

    private static boolean isAsciiHex(final String text)
    {
        for (int i = 0; i < text.length(); i++)
        {
            final char c = text.charAt(i);
            if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'))
            {
                return false;
            }
        }
        return true;
    }
}
