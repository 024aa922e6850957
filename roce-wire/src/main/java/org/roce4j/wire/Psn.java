package org.roce4j.wire;

/**
 * Arithmetic on 24-bit Packet Sequence Numbers, which wrap from 0xFFFFFF to 0 (IBA 9.7.1).
 *
 * <p>Comparison follows rxe's psn_compare(): shift the 24-bit difference into the top of an int and look at the
 * sign, so that a PSN up to 2^23 - 1 ahead compares greater even across the wrap. Every PSN comparison in roce4j
 * goes through this class.
 */
public final class Psn
{
    /** Mask of a PSN. */
    public static final int MASK = 0xFF_FFFF;
    /** Half the PSN space: the largest distance that still orders two PSNs (IBA 9.7.1 "valid PSN range"). */
    public static final int HALF_SPACE = 1 << 23;

    private Psn()
    {
    }

    /**
     * @param a a PSN.
     * @param b a PSN.
     * @return negative if a is before b, zero if equal, positive if a is after b (modulo 2^24).
     */
    public static int compare(final int a, final int b)
    {
        return (a - b) << 8;
    }

    /**
     * @param a a PSN.
     * @param b a PSN.
     * @return signed distance a - b in -2^23 .. 2^23 - 1.
     */
    public static int diff(final int a, final int b)
    {
        return ((a - b) << 8) >> 8;
    }

    /**
     * @param psn   a PSN.
     * @param delta packets to advance (may be negative).
     * @return psn + delta modulo 2^24.
     */
    public static int add(final int psn, final int delta)
    {
        return (psn + delta) & MASK;
    }

    /**
     * @param psn a PSN.
     * @return the next PSN.
     */
    public static int next(final int psn)
    {
        return (psn + 1) & MASK;
    }

    /**
     * @param psn   a PSN.
     * @param first start of a range, inclusive.
     * @param last  end of a range, inclusive.
     * @return true when first &lt;= psn &lt;= last in PSN order.
     */
    public static boolean inRange(final int psn, final int first, final int last)
    {
        return compare(psn, first) >= 0 && compare(psn, last) <= 0;
    }
}
