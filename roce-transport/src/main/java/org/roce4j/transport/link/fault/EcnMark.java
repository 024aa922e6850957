package org.roce4j.transport.link.fault;

import org.agrona.MutableDirectBuffer;
import org.roce4j.wire.header.Ipv4Header;

import static java.nio.ByteOrder.BIG_ENDIAN;

/**
 * Marks a frame Congestion Experienced as an ECN-capable switch does (RFC 3168 section 5): the two ECN bits of the
 * IPv4 TOS byte or the IPv6 traffic class set to 11, and for IPv4 the header checksum updated. The RoCEv2 ICRC masks
 * the TOS byte and the traffic class (IBA A17.3.3), so it stays valid; a receiver that does DCQCN answers with a CNP
 * (rxe ignores CE).
 */
final class EcnMark
{
    /** ECN codepoint Congestion Experienced: both ECN bits set. */
    static final int CE = 0b11;
    /** The ECN bits of the IPv6 traffic class in the first word of the header (traffic class is bits 27..20). */
    private static final int IPV6_ECN_BITS = CE << 20;

    private EcnMark()
    {
    }

    /**
     * @param frame  fields of the frame.
     * @param buffer holding it.
     * @param ipv4   a flyweight of the caller's thread, for the checksum.
     * @return true when the frame is IP and is now marked; false for anything else.
     */
    static boolean markCongestion(final FrameView frame, final MutableDirectBuffer buffer, final Ipv4Header ipv4)
    {
        final int ip = frame.ipOffset();
        if (4 == frame.ipVersion())
        {
            buffer.putByte(ip + Ipv4Header.TOS_OFFSET, (byte)(buffer.getByte(ip + Ipv4Header.TOS_OFFSET) | CE));
            ipv4.wrap(buffer, ip).updateChecksum();
            return true;
        }
        if (6 == frame.ipVersion())
        {
            buffer.putInt(ip, buffer.getInt(ip, BIG_ENDIAN) | IPV6_ECN_BITS, BIG_ENDIAN);
            return true;
        }
        return false;
    }
}
