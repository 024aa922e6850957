package org.roce4j.wire.header;

import org.agrona.DirectBuffer;

import static java.nio.ByteOrder.BIG_ENDIAN;

/**
 * The Internet checksum (RFC 1071): the one's-complement of the one's-complement sum of 16-bit big-endian words. The
 * one home of the arithmetic for the IPv4 header checksum ({@link Ipv4Header}) and the ICMPv6 checksum over the IPv6
 * pseudo-header ({@link NeighborDiscoveryHeader}). Sums are kept in a long without end-around carries and folded
 * once at the end (RFC 1071 section 4.1), so nothing allocates.
 */
public final class InternetChecksum
{
    private InternetChecksum()
    {
    }

    /**
     * Add bytes to a running sum as big-endian 16-bit words; an odd last byte is padded with a zero byte.
     *
     * @param sum    running sum (0 to start).
     * @param buffer holding the bytes.
     * @param offset of the first byte.
     * @param length of the bytes.
     * @return the new sum, unfolded.
     */
    public static long add(final long sum, final DirectBuffer buffer, final int offset, final int length)
    {
        long total = sum;
        int i = 0;
        for (; i + 1 < length; i += 2)
        {
            total += buffer.getShort(offset + i, BIG_ENDIAN) & 0xFFFF;
        }
        if (i < length)
        {
            total += (buffer.getByte(offset + i) & 0xFF) << 8;
        }
        return total;
    }

    /**
     * Add a 64-bit value (four 16-bit words) to a running sum.
     *
     * @param sum   running sum.
     * @param value big-endian bits, e.g. half an IPv6 address.
     * @return the new sum, unfolded.
     */
    public static long add(final long sum, final long value)
    {
        return sum + ((value >>> 48) & 0xFFFF) + ((value >>> 32) & 0xFFFF) + ((value >>> 16) & 0xFFFF) +
            (value & 0xFFFF);
    }

    /**
     * Fold carries back in until the sum fits 16 bits.
     *
     * @param wideSum the unfolded sum.
     * @return the folded sum.
     */
    public static int fold(final long wideSum)
    {
        long sum = wideSum;
        while (0 != (sum >>> 16))
        {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        return (int)sum;
    }

    /**
     * @param wideSum the unfolded sum over everything the checksum covers, its own field zero.
     * @return the checksum to write.
     */
    public static int checksum(final long wideSum)
    {
        return ~fold(wideSum) & 0xFFFF;
    }

    /**
     * @param wideSum the unfolded sum over everything the checksum covers, its own field as carried.
     * @return true when it verifies (the folded sum is all ones).
     */
    public static boolean verifies(final long wideSum)
    {
        return 0xFFFF == fold(wideSum);
    }
}
