package org.roce4j.wire.header;

import org.agrona.MutableDirectBuffer;

/**
 * IPv4 header (RFC 791). roce4j writes it without options; the parser accepts options and skips them.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |Version|  IHL  |   DSCP    |ECN|          Total Length         |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |         Identification        |R|D|M|      Fragment Offset    |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |  Time to Live |    Protocol   |         Header Checksum       |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                       Source Address                          |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                    Destination Address                        |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * The ICRC covers this header with TOS, TTL and the checksum masked to ones; the Identification and the flags are
 * covered as sent (see {@link org.roce4j.wire.Icrc}). rxe sends DF set and a changing Identification.
 */
public final class Ipv4Header extends HeaderFlyweight
{
    /** Length of a header without options. */
    public static final int LENGTH = 20;
    /** Offset of the version and IHL byte. */
    public static final int VERSION_IHL_OFFSET = 0;
    /** Offset of the DSCP/ECN (type of service) byte. */
    public static final int TOS_OFFSET = 1;
    /** Offset of the total length. */
    public static final int TOTAL_LENGTH_OFFSET = 2;
    /** Offset of the identification. */
    public static final int IDENTIFICATION_OFFSET = 4;
    /** Offset of the flags and fragment offset. */
    public static final int FLAGS_FRAGMENT_OFFSET = 6;
    /** Offset of the time to live. */
    public static final int TTL_OFFSET = 8;
    /** Offset of the protocol. */
    public static final int PROTOCOL_OFFSET = 9;
    /** Offset of the header checksum. */
    public static final int CHECKSUM_OFFSET = 10;
    /** Offset of the source address. */
    public static final int SOURCE_OFFSET = 12;
    /** Offset of the destination address. */
    public static final int DESTINATION_OFFSET = 16;

    /** Protocol number of UDP. */
    public static final int PROTOCOL_UDP = 17;
    /** Don't Fragment bit in the 16-bit flags/fragment word. */
    public static final int FLAG_DONT_FRAGMENT = 0x4000;
    /** More Fragments bit in the 16-bit flags/fragment word. */
    public static final int FLAG_MORE_FRAGMENTS = 0x2000;
    /** Fragment offset bits in the 16-bit flags/fragment word. */
    public static final int FRAGMENT_OFFSET_MASK = 0x1FFF;

    /** {@inheritDoc} */
    public Ipv4Header wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    /**
     * @return header length in bytes from the IHL field.
     */
    public int length()
    {
        return headerLengthWords() * 4;
    }

    /**
     * @return the version nibble (4 for IPv4).
     */
    public int version()
    {
        return u8(VERSION_IHL_OFFSET) >>> 4;
    }

    /**
     * @return the IHL nibble: header length in 32-bit words.
     */
    public int headerLengthWords()
    {
        return u8(VERSION_IHL_OFFSET) & 0xF;
    }

    /**
     * Write version 4 and an IHL.
     *
     * @param words header length in 32-bit words (5 without options).
     * @return this.
     */
    public Ipv4Header versionAndHeaderLength(final int words)
    {
        u8(VERSION_IHL_OFFSET, 0x40 | (words & 0xF));
        return this;
    }

    /**
     * @return the type-of-service byte (DSCP in bits 7..2, ECN in bits 1..0).
     */
    public int tos()
    {
        return u8(TOS_OFFSET);
    }

    /**
     * @param tos type-of-service byte; rxe copies the address handle's traffic class here.
     * @return this.
     */
    public Ipv4Header tos(final int tos)
    {
        u8(TOS_OFFSET, tos);
        return this;
    }

    /**
     * @return DSCP, bits 7..2 of the TOS byte.
     */
    public int dscp()
    {
        return tos() >>> 2;
    }

    /**
     * @return ECN, bits 1..0 of the TOS byte.
     */
    public int ecn()
    {
        return tos() & 0x3;
    }

    /**
     * @return total length of the datagram (header and data).
     */
    public int totalLength()
    {
        return u16(TOTAL_LENGTH_OFFSET);
    }

    /**
     * @param length of the datagram in bytes.
     * @return this.
     */
    public Ipv4Header totalLength(final int length)
    {
        u16(TOTAL_LENGTH_OFFSET, length);
        return this;
    }

    /**
     * @return the identification field.
     */
    public int identification()
    {
        return u16(IDENTIFICATION_OFFSET);
    }

    /**
     * @param id identification; it is inside the ICRC, so it must be what really goes on the wire.
     * @return this.
     */
    public Ipv4Header identification(final int id)
    {
        u16(IDENTIFICATION_OFFSET, id);
        return this;
    }

    /**
     * @return the 16-bit flags and fragment offset word.
     */
    public int flagsAndFragmentOffset()
    {
        return u16(FLAGS_FRAGMENT_OFFSET);
    }

    /**
     * @param value flags (bits 15..13) and fragment offset (bits 12..0).
     * @return this.
     */
    public Ipv4Header flagsAndFragmentOffset(final int value)
    {
        u16(FLAGS_FRAGMENT_OFFSET, value);
        return this;
    }

    /**
     * @return the Don't Fragment flag.
     */
    public boolean dontFragment()
    {
        return 0 != (flagsAndFragmentOffset() & FLAG_DONT_FRAGMENT);
    }

    /**
     * @return the More Fragments flag.
     */
    public boolean moreFragments()
    {
        return 0 != (flagsAndFragmentOffset() & FLAG_MORE_FRAGMENTS);
    }

    /**
     * @return fragment offset in 8-byte units.
     */
    public int fragmentOffset()
    {
        return flagsAndFragmentOffset() & FRAGMENT_OFFSET_MASK;
    }

    /**
     * @return time to live.
     */
    public int ttl()
    {
        return u8(TTL_OFFSET);
    }

    /**
     * @param ttl time to live; rxe copies the address handle's hop limit here.
     * @return this.
     */
    public Ipv4Header ttl(final int ttl)
    {
        u8(TTL_OFFSET, ttl);
        return this;
    }

    /**
     * @return the protocol number (17 for UDP).
     */
    public int protocol()
    {
        return u8(PROTOCOL_OFFSET);
    }

    /**
     * @param protocol number.
     * @return this.
     */
    public Ipv4Header protocol(final int protocol)
    {
        u8(PROTOCOL_OFFSET, protocol);
        return this;
    }

    /**
     * @return the header checksum as carried.
     */
    public int checksum()
    {
        return u16(CHECKSUM_OFFSET);
    }

    /**
     * @param checksum header checksum.
     * @return this.
     */
    public Ipv4Header checksum(final int checksum)
    {
        u16(CHECKSUM_OFFSET, checksum);
        return this;
    }

    /**
     * @return source address as a big-endian int (a.b.c.d is a&lt;&lt;24|b&lt;&lt;16|c&lt;&lt;8|d).
     */
    public int source()
    {
        return i32(SOURCE_OFFSET);
    }

    /**
     * @param address source address as a big-endian int.
     * @return this.
     */
    public Ipv4Header source(final int address)
    {
        i32(SOURCE_OFFSET, address);
        return this;
    }

    /**
     * @return destination address as a big-endian int.
     */
    public int destination()
    {
        return i32(DESTINATION_OFFSET);
    }

    /**
     * @param address destination address as a big-endian int.
     * @return this.
     */
    public Ipv4Header destination(final int address)
    {
        i32(DESTINATION_OFFSET, address);
        return this;
    }

    /**
     * RFC 1071 one's-complement sum over the header as it stands, with the checksum field taken as zero.
     *
     * @return the checksum the header should carry.
     */
    public int computeChecksum()
    {
        // The sum with the checksum field taken as zero: the whole header's sum less the field.
        return InternetChecksum.checksum(wordSum() - u16(CHECKSUM_OFFSET));
    }

    /**
     * Compute and store the header checksum.
     *
     * @return this.
     */
    public Ipv4Header updateChecksum()
    {
        return checksum(computeChecksum());
    }

    /**
     * @return true when the carried checksum matches the header.
     */
    public boolean isChecksumValid()
    {
        // RFC 1071 verification: the one's-complement sum over the whole header, checksum included, is all ones.
        // Comparing with computeChecksum() instead would reject 0xFFFF where 0x0000 is computed (both are zero).
        return InternetChecksum.verifies(wordSum());
    }

    /**
     * Sum of the header's 16-bit words without end-around carries. The header is IHL 32-bit words long, so it is
     * read a 32-bit word at a time (two 16-bit halves each): half the reads of a 16-bit loop.
     */
    private long wordSum()
    {
        final int length = length();
        long sum = 0;
        for (int i = 0; i < length; i += 4)
        {
            final int word = i32(i);
            sum += (word >>> 16) + (word & 0xFFFF);
        }
        return sum;
    }

    /**
     * Format an address as dotted quad. Allocates: for tools and diagnostics only.
     *
     * @param address big-endian int.
     * @return text such as {@code 10.77.0.1}.
     */
    public static String addressToString(final int address)
    {
        return (address >>> 24) + "." + ((address >>> 16) & 0xFF) + "." + ((address >>> 8) & 0xFF) + "." +
            (address & 0xFF);
    }

    /**
     * Parse a dotted-quad IPv4 address.
     *
     * @param text such as {@code 10.77.0.1}.
     * @return the address as a big-endian int.
     * @throws IllegalArgumentException naming the text when it is not a dotted quad.
     */
    public static int parseAddress(final String text)
    {
        final String[] parts = text.trim().split("\\.", -1);
        if (4 != parts.length)
        {
            throw new IllegalArgumentException("not an IPv4 address (need a.b.c.d): '" + text + "'");
        }
        int address = 0;
        for (final String part : parts)
        {
            final int octet;
            try
            {
                octet = Integer.parseInt(part);
            }
            catch (final NumberFormatException ex)
            {
                throw new IllegalArgumentException("not an IPv4 address (bad octet '" + part + "'): '" + text + "'");
            }
            // parseInt also accepts a sign ("+1", "-0") and non-ASCII digits: only 0-9 make an octet.
            if (octet < 0 || octet > 255 || part.isEmpty() || part.length() > 3 || !isAsciiDigits(part))
            {
                throw new IllegalArgumentException("not an IPv4 address (octet out of range '" + part + "'): '" +
                    text + "'");
            }
            address = (address << 8) | octet;
        }
        return address;
    }

    private static boolean isAsciiDigits(final String text)
    {
        for (int i = 0; i < text.length(); i++)
        {
            final char c = text.charAt(i);
            if (c < '0' || c > '9')
            {
                return false;
            }
        }
        return true;
    }
}
