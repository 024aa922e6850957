package org.roce4j.wire.header;

import org.agrona.MutableDirectBuffer;

/**
 * IPv6 fixed header (RFC 8200). RoCEv2 uses it without extension headers; the next header is UDP.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |Version| Traffic Class |           Flow Label                  |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |         Payload Length        |  Next Header  |   Hop Limit   |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                                                               |
 *  +                     Source Address (128)                      +
 *  |                                                               |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                                                               |
 *  +                  Destination Address (128)                    +
 *  |                                                               |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * The ICRC covers this header with traffic class, flow label and hop limit masked to ones. rxe sends flow label 0.
 * Addresses are handled as two longs (high and low 64 bits) so nothing allocates.
 */
public final class Ipv6Header extends HeaderFlyweight
{
    /** Length of the fixed header. */
    public static final int LENGTH = 40;
    /** Offset of the version/traffic class/flow label word. */
    public static final int VERSION_CLASS_FLOW_OFFSET = 0;
    /** Offset of the payload length. */
    public static final int PAYLOAD_LENGTH_OFFSET = 4;
    /** Offset of the next header. */
    public static final int NEXT_HEADER_OFFSET = 6;
    /** Offset of the hop limit. */
    public static final int HOP_LIMIT_OFFSET = 7;
    /** Offset of the source address. */
    public static final int SOURCE_OFFSET = 8;
    /** Offset of the destination address. */
    public static final int DESTINATION_OFFSET = 24;
    /** Next-header value of UDP. */
    public static final int NEXT_HEADER_UDP = 17;

    /** {@inheritDoc} */
    public Ipv6Header wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    /**
     * @return 40.
     */
    public int length()
    {
        return LENGTH;
    }

    /**
     * @return the version nibble (6 for IPv6).
     */
    public int version()
    {
        return u8(VERSION_CLASS_FLOW_OFFSET) >>> 4;
    }

    /**
     * @return traffic class, 8 bits.
     */
    public int trafficClass()
    {
        return (i32(VERSION_CLASS_FLOW_OFFSET) >>> 20) & 0xFF;
    }

    /**
     * @return flow label, 20 bits.
     */
    public int flowLabel()
    {
        return i32(VERSION_CLASS_FLOW_OFFSET) & 0xFFFFF;
    }

    /**
     * Write version 6, a traffic class and a flow label.
     *
     * @param trafficClass 8 bits.
     * @param flowLabel    20 bits.
     * @return this.
     */
    public Ipv6Header versionClassFlow(final int trafficClass, final int flowLabel)
    {
        i32(VERSION_CLASS_FLOW_OFFSET, (6 << 28) | ((trafficClass & 0xFF) << 20) | (flowLabel & 0xFFFFF));
        return this;
    }

    /**
     * @return payload length (bytes after this header).
     */
    public int payloadLength()
    {
        return u16(PAYLOAD_LENGTH_OFFSET);
    }

    /**
     * @param length bytes after this header.
     * @return this.
     */
    public Ipv6Header payloadLength(final int length)
    {
        u16(PAYLOAD_LENGTH_OFFSET, length);
        return this;
    }

    /**
     * @return next header (17 for UDP).
     */
    public int nextHeader()
    {
        return u8(NEXT_HEADER_OFFSET);
    }

    /**
     * @param nextHeader protocol of the payload.
     * @return this.
     */
    public Ipv6Header nextHeader(final int nextHeader)
    {
        u8(NEXT_HEADER_OFFSET, nextHeader);
        return this;
    }

    /**
     * @return hop limit.
     */
    public int hopLimit()
    {
        return u8(HOP_LIMIT_OFFSET);
    }

    /**
     * @param hopLimit hop limit.
     * @return this.
     */
    public Ipv6Header hopLimit(final int hopLimit)
    {
        u8(HOP_LIMIT_OFFSET, hopLimit);
        return this;
    }

    /**
     * @return high 64 bits of the source address.
     */
    public long sourceHigh()
    {
        return i64(SOURCE_OFFSET);
    }

    /**
     * @return low 64 bits of the source address.
     */
    public long sourceLow()
    {
        return i64(SOURCE_OFFSET + 8);
    }

    /**
     * @param high 64 bits.
     * @param low  64 bits.
     * @return this.
     */
    public Ipv6Header source(final long high, final long low)
    {
        i64(SOURCE_OFFSET, high);
        i64(SOURCE_OFFSET + 8, low);
        return this;
    }

    /**
     * @return high 64 bits of the destination address.
     */
    public long destinationHigh()
    {
        return i64(DESTINATION_OFFSET);
    }

    /**
     * @return low 64 bits of the destination address.
     */
    public long destinationLow()
    {
        return i64(DESTINATION_OFFSET + 8);
    }

    /**
     * @param high 64 bits.
     * @param low  64 bits.
     * @return this.
     */
    public Ipv6Header destination(final long high, final long low)
    {
        i64(DESTINATION_OFFSET, high);
        i64(DESTINATION_OFFSET + 8, low);
        return this;
    }

    /**
     * Format a 128-bit address in RFC 5952 style (lowercase, longest zero run compressed). Allocates.
     *
     * @param high 64 bits.
     * @param low  64 bits.
     * @return text such as {@code fe80::5054:ff:fe12:3456}.
     */
    public static String addressToString(final long high, final long low)
    {
        final int[] groups = new int[8];
        for (int i = 0; i < 4; i++)
        {
            groups[i] = (int)(high >>> (48 - 16 * i)) & 0xFFFF;
            groups[4 + i] = (int)(low >>> (48 - 16 * i)) & 0xFFFF;
        }
        int bestStart = -1;
        int bestLength = 1;
        for (int i = 0; i < 8; )
        {
            if (0 == groups[i])
            {
                int j = i;
                while (j < 8 && 0 == groups[j])
                {
                    j++;
                }
                if (j - i > bestLength)
                {
                    bestStart = i;
                    bestLength = j - i;
                }
                i = j;
            }
            else
            {
                i++;
            }
        }
        final StringBuilder sb = new StringBuilder(39);
        for (int i = 0; i < 8; i++)
        {
            if (i == bestStart)
            {
                sb.append("::");
                i += bestLength - 1;
                continue;
            }
            if (sb.length() > 0 && ':' != sb.charAt(sb.length() - 1))
            {
                sb.append(':');
            }
            sb.append(Integer.toHexString(groups[i]));
        }
        return sb.toString();
    }
}
