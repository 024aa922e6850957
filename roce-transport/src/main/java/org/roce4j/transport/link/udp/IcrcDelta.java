package org.roce4j.transport.link.udp;

/**
 * Updates a RoCEv2 ICRC after the kernel-controlled IPv4 and UDP fields of a frame were rewritten, without reading
 * the rest of the frame.
 *
 * <p>The ICRC is a CRC-32 (IEEE polynomial, reflected, initial value and final XOR all ones) over the same number
 * of bytes before and after the rewrite, so the initial value and final XOR cancel and
 * {@code icrc(new) = icrc(old) ^ crc0(old ^ new)}, where {@code crc0} is the bare polynomial remainder (zero initial
 * value, no final XOR) of the XOR of the two messages. That XOR is zero except in IPv4 bytes 4..21 (identification,
 * flags and fragment offset, source address, UDP source port), so {@code crc0} is the remainder of those 18 bytes
 * followed by {@code n} zero bytes: the remainder of the 18 bytes multiplied by x^(8n) modulo the polynomial. The
 * powers x^(8n) come from a table, so the update costs 18 table steps and one carry-less multiplication whatever the
 * frame's length, instead of two CRC passes over the whole frame. Any error the old ICRC carried (fault injection)
 * is kept, since only the difference is applied. Over IPv6 the bytes that change are the source address (IPv6 bytes
 * 8..23) and the UDP source port (bytes 40..41): 34 table steps ({@link #deltaIpv6}).
 */
final class IcrcDelta
{
    /** The IEEE 802.3 CRC-32 polynomial, bit-reversed (as java.util.zip.CRC32 and rxe's crc32_le use it). */
    private static final int POLYNOMIAL = 0xEDB8_8320;
    /** x^0 in the reflected representation (the top bit is the coefficient of x^0). */
    private static final int ONE = 0x8000_0000;
    /** Zero runs the table covers: every IPv4 packet up to 16 KiB (the links carry at most 9216 bytes). */
    private static final int TABLE_ZERO_BYTES = 16 * 1024;
    /** First IPv4 byte that can change: the identification. */
    static final int FIRST_CHANGED_IP_BYTE = 4;
    /** Last IPv4-relative byte that can change: the low byte of the UDP source port (IPv4 header 20 + 1). */
    static final int LAST_CHANGED_IP_BYTE = 21;
    /** Last IPv6-relative byte that can change: the low byte of the UDP source port (IPv6 header 40 + 1). */
    static final int IPV6_LAST_CHANGED_BYTE = 41;

    private static final int[] BYTE_TABLE = new int[256];
    private static final int[] ZEROS = new int[TABLE_ZERO_BYTES + 1];

    static
    {
        for (int i = 0; i < 256; i++)
        {
            int c = i;
            for (int k = 0; k < 8; k++)
            {
                c = 0 != (c & 1) ? (c >>> 1) ^ POLYNOMIAL : c >>> 1;
            }
            BYTE_TABLE[i] = c;
        }
        // ZEROS[n] = x^(8n) mod P: the remainder register after n zero bytes, starting from x^0.
        int power = ONE;
        for (int n = 0; n <= TABLE_ZERO_BYTES; n++)
        {
            ZEROS[n] = power;
            power = (power >>> 8) ^ BYTE_TABLE[power & 0xFF];
        }
    }

    private IcrcDelta()
    {
    }

    /**
     * The value to XOR into the ICRC of an IPv4 RoCEv2 frame after its identification, flags/fragment offset,
     * source address and UDP source port changed.
     *
     * @param identificationXor   old ^ new identification (16 bits).
     * @param flagsXor            old ^ new flags and fragment offset (16 bits).
     * @param sourceXor           old ^ new source address.
     * @param sourcePortXor       old ^ new UDP source port (16 bits).
     * @param ipTotalLength       the IPv4 total length (header .. ICRC).
     * @return the ICRC difference; 0 when nothing changed.
     */
    static int delta(final int identificationXor, final int flagsXor, final int sourceXor, final int sourcePortXor,
        final int ipTotalLength)
    {
        int crc = 0;
        crc = update(crc, identificationXor >>> 8);
        crc = update(crc, identificationXor);
        crc = update(crc, flagsXor >>> 8);
        crc = update(crc, flagsXor);
        // IPv4 bytes 8..11 (TTL, protocol, checksum): masked to ones or unchanged, so equal in both messages.
        for (int i = 0; i < 4; i++)
        {
            crc = update(crc, 0);
        }
        crc = update(crc, sourceXor >>> 24);
        crc = update(crc, sourceXor >>> 16);
        crc = update(crc, sourceXor >>> 8);
        crc = update(crc, sourceXor);
        // IPv4 bytes 16..19: the destination, unchanged.
        for (int i = 0; i < 4; i++)
        {
            crc = update(crc, 0);
        }
        crc = update(crc, sourcePortXor >>> 8);
        crc = update(crc, sourcePortXor);
        // Bytes covered after the UDP source port: the rest of the packet up to the ICRC.
        final int zeros = ipTotalLength - 4 - (LAST_CHANGED_IP_BYTE + 1);
        return multiply(zerosPower(zeros), crc);
    }

    /**
     * The value to XOR into the ICRC of an IPv6 RoCEv2 frame after its source address and UDP source port changed
     * (IPv6 bytes 8..23 and 40..41; the traffic class, flow label and hop limit the kernel writes are masked).
     *
     * @param sourceHighXor old ^ new source address, high 64 bits.
     * @param sourceLowXor  old ^ new source address, low 64 bits.
     * @param sourcePortXor old ^ new UDP source port (16 bits).
     * @param ipLength      the IPv6 packet's length (40 + payload length, up to and including the ICRC).
     * @return the ICRC difference; 0 when nothing changed.
     */
    static int deltaIpv6(final long sourceHighXor, final long sourceLowXor, final int sourcePortXor,
        final int ipLength)
    {
        int crc = 0;
        for (int shift = 56; shift >= 0; shift -= 8)
        {
            crc = update(crc, (int)(sourceHighXor >>> shift));
        }
        for (int shift = 56; shift >= 0; shift -= 8)
        {
            crc = update(crc, (int)(sourceLowXor >>> shift));
        }
        // IPv6 bytes 24..39: the destination, unchanged.
        for (int i = 0; i < 16; i++)
        {
            crc = update(crc, 0);
        }
        crc = update(crc, sourcePortXor >>> 8);
        crc = update(crc, sourcePortXor);
        // Bytes covered after the UDP source port (IPv6 byte 42 on) up to the ICRC.
        final int zeros = ipLength - 4 - (IPV6_LAST_CHANGED_BYTE + 1);
        return multiply(zerosPower(zeros), crc);
    }

    private static int update(final int crc, final int octet)
    {
        return (crc >>> 8) ^ BYTE_TABLE[(crc ^ octet) & 0xFF];
    }

    /**
     * @return x^(8n) mod P.
     */
    private static int zerosPower(final int n)
    {
        if (n <= TABLE_ZERO_BYTES)
        {
            return ZEROS[n];
        }
        int power = ZEROS[TABLE_ZERO_BYTES];
        int rest = n - TABLE_ZERO_BYTES;
        while (rest > TABLE_ZERO_BYTES)
        {
            power = multiply(power, ZEROS[TABLE_ZERO_BYTES]);
            rest -= TABLE_ZERO_BYTES;
        }
        return multiply(power, ZEROS[rest]);
    }

    /**
     * a * b mod P in the reflected representation: carry-less, from the x^0 coefficient of a (the top bit) down,
     * multiplying b by x at each step, stopping after a's last set coefficient (as zlib's multmodp).
     */
    static int multiply(final int a, final int b)
    {
        if (0 == a)
        {
            return 0;
        }
        int product = 0;
        int multiplier = b;
        int mask = ONE;
        while (true)
        {
            if (0 != (a & mask))
            {
                product ^= multiplier;
                if (0 == (a & (mask - 1)))
                {
                    return product;
                }
            }
            mask >>>= 1;
            multiplier = 0 != (multiplier & 1) ? (multiplier >>> 1) ^ POLYNOMIAL : multiplier >>> 1;
        }
    }
}
