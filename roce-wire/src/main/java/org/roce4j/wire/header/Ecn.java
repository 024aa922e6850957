package org.roce4j.wire.header;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import static java.nio.ByteOrder.BIG_ENDIAN;

/**
 * The two ECN bits of an IP header (RFC 3168 section 5): the low bits of the IPv4 TOS byte or of the IPv6 traffic
 * class. The one place that reads them from a frame and marks a frame Congestion Experienced as an ECN-capable
 * switch does: for IPv4 the header checksum is updated; the RoCEv2 ICRC masks the TOS byte and the traffic class
 * (IBA A17.3.3), so it stays valid. Static and allocation-free.
 */
public final class Ecn
{
    /** Codepoint Not-ECT: the sender does not do ECN, a switch must not mark the frame. */
    public static final int NOT_ECT = 0b00;
    /** Codepoint Congestion Experienced: both ECN bits set. */
    public static final int CE = 0b11;
    /** The traffic class is bits 27..20 of the first word of the IPv6 header, so its ECN bits are 21..20. */
    private static final int IPV6_ECN_SHIFT = 20;

    private Ecn()
    {
    }

    /**
     * @param buffer    holding the frame.
     * @param ipOffset  of its IP header, which the buffer holds whole.
     * @param ipVersion 4 or 6; anything else has no ECN bits.
     * @return the ECN codepoint, 0 to 3; {@link #NOT_ECT} for other IP versions.
     */
    public static int read(final DirectBuffer buffer, final int ipOffset, final int ipVersion)
    {
        if (4 == ipVersion)
        {
            return buffer.getByte(ipOffset + Ipv4Header.TOS_OFFSET) & CE;
        }
        if (6 == ipVersion)
        {
            return (buffer.getInt(ipOffset, BIG_ENDIAN) >>> IPV6_ECN_SHIFT) & CE;
        }
        return NOT_ECT;
    }

    /**
     * Mark a frame Congestion Experienced in place.
     *
     * @param buffer    holding the frame.
     * @param ipOffset  of its IP header, which the buffer holds whole.
     * @param ipVersion 4 or 6.
     * @param ipv4      a flyweight of the caller's thread, for the IPv4 checksum.
     * @return true when the frame is marked now; false for other IP versions.
     */
    public static boolean markCe(
        final MutableDirectBuffer buffer, final int ipOffset, final int ipVersion, final Ipv4Header ipv4)
    {
        if (4 == ipVersion)
        {
            final int tos = buffer.getByte(ipOffset + Ipv4Header.TOS_OFFSET) & 0xFF;
            ipv4.wrap(buffer, ipOffset).tos(tos | CE).updateChecksum();
            return true;
        }
        if (6 == ipVersion)
        {
            buffer.putInt(ipOffset, buffer.getInt(ipOffset, BIG_ENDIAN) | (CE << IPV6_ECN_SHIFT), BIG_ENDIAN);
            return true;
        }
        return false;
    }
}
