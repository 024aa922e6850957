package org.roce4j.transport.link.fault;

import java.util.SplittableRandom;

import org.agrona.MutableDirectBuffer;
import org.roce4j.wire.Icrc;
import org.roce4j.wire.header.BthHeader;
import org.roce4j.wire.header.Ipv4Header;
import org.roce4j.wire.header.Ipv6Header;
import org.roce4j.wire.header.UdpHeader;

/**
 * The bit flips of {@link FaultInjector}'s corruption faults ({@link FaultAction#CORRUPT},
 * {@link FaultAction#CORRUPT_ICRC}, {@link FaultAction#CORRUPT_PAYLOAD} and the random corruption rate), in place and
 * without allocating: the picked offsets live in arrays of {@link FaultRule#MAX_CORRUPT_BITS} reused for every frame.
 * Bits are only flipped where the ICRC covers them, so the receiver detects every corruption (see
 * {@link FaultInjector}). One per injector, used by the thread that drives it.
 */
final class FrameCorruptor
{
    /** Random picks of a bit to corrupt that land in a masked byte or repeat a bit are retried this often. */
    private static final int MAX_PICK_ATTEMPTS = 64;

    private final int[] flipOffsets = new int[FaultRule.MAX_CORRUPT_BITS];
    private final int[] flipBits = new int[FaultRule.MAX_CORRUPT_BITS];

    /**
     * Flip one bit of the payload (after the transport headers, pad included), or of the ICRC when there is none: the
     * frame parses as it did, but its ICRC no longer matches. Non-RoCE frames get one bit flipped after the Ethernet
     * header as {@link FaultAction#CORRUPT} does.
     *
     * @param frame  fields of the frame.
     * @param buffer holding the frame.
     * @param random stream the offset and bit are drawn from.
     */
    void corruptPayload(final FrameView frame, final MutableDirectBuffer buffer, final SplittableRandom random)
    {
        if (!frame.isRoce())
        {
            if (0 != frame.ethernetLength())
            {
                final int start = frame.ipOffset();
                final int end = 0 != frame.ipVersion() ? start + frame.ipLength() : start;
                if (end > start)
                {
                    flip(buffer, start + random.nextInt(end - start), random.nextInt(Byte.SIZE));
                }
            }
            return;
        }
        final int start = frame.payloadOffset();
        final int end = frame.icrcOffset();
        final int at = end > start ? start + random.nextInt(end - start) : end + random.nextInt(Icrc.LENGTH);
        flip(buffer, at, random.nextInt(Byte.SIZE));
    }

    private static void flip(final MutableDirectBuffer buffer, final int at, final int bit)
    {
        buffer.putByte(at, (byte)(buffer.getByte(at) ^ (1 << bit)));
    }

    /**
     * Flip {@code requestedBits} distinct bits (and one ICRC bit when {@code icrc}), at most
     * {@link FaultRule#MAX_CORRUPT_BITS} in all, never in a byte the ICRC masks.
     *
     * @param frame         fields of the frame.
     * @param buffer        holding the frame.
     * @param offset        of the frame.
     * @param length        of the frame.
     * @param requestedBits bits to flip after the Ethernet header.
     * @param icrc          flip one bit of the ICRC of a RoCEv2 frame too (at least one bit of any other).
     * @param random        stream the offsets and bits are drawn from.
     */
    void corrupt(
        final FrameView frame,
        final MutableDirectBuffer buffer,
        final int offset,
        final int length,
        final int requestedBits,
        final boolean icrc,
        final SplittableRandom random)
    {
        int flips = 0;
        int bits = requestedBits;
        if (icrc)
        {
            if (frame.isRoce())
            {
                flipOffsets[0] = frame.icrcOffset() + random.nextInt(Icrc.LENGTH);
                flipBits[0] = random.nextInt(Byte.SIZE);
                flips = 1;
            }
            else
            {
                bits = Math.max(bits, 1);
            }
        }
        bits = Math.min(bits, FaultRule.MAX_CORRUPT_BITS - flips);

        final int start;
        final int end;
        if (0 != frame.ipVersion())
        {
            start = frame.ipOffset();
            end = frame.isRoce() ? frame.ipOffset() + frame.ipLength() : offset + length;
        }
        else
        {
            start = offset + frame.ethernetLength();
            end = offset + length;
        }
        if (end <= start)
        {
            return;
        }
        for (int b = 0; b < bits; b++)
        {
            for (int attempt = 0; attempt < MAX_PICK_ATTEMPTS; attempt++)
            {
                final int at = start + random.nextInt(end - start);
                final int bit = random.nextInt(Byte.SIZE);
                if (!(frame.isRoce() && isIcrcMasked(frame, at)) && !alreadyPicked(flips, at, bit))
                {
                    flipOffsets[flips] = at;
                    flipBits[flips] = bit;
                    flips++;
                    break;
                }
            }
        }
        for (int i = 0; i < flips; i++)
        {
            flip(buffer, flipOffsets[i], flipBits[i]);
        }
    }

    private boolean alreadyPicked(final int flips, final int at, final int bit)
    {
        for (int i = 0; i < flips; i++)
        {
            if (flipOffsets[i] == at && flipBits[i] == bit)
            {
                return true;
            }
        }
        return false;
    }

    /**
     * The "variant" bytes the ICRC computation replaces by ones (IBA A17.3.3, rxe_icrc.c): flipping them would go
     * unnoticed by the ICRC; in IPv4 the header checksum would still catch them, but keeping out of them makes
     * detection certain for both IP versions.
     */
    private static boolean isIcrcMasked(final FrameView frame, final int at)
    {
        final int ip = at - frame.ipOffset();
        if (4 == frame.ipVersion())
        {
            if (Ipv4Header.TOS_OFFSET == ip || Ipv4Header.TTL_OFFSET == ip ||
                Ipv4Header.CHECKSUM_OFFSET == ip || Ipv4Header.CHECKSUM_OFFSET + 1 == ip)
            {
                return true;
            }
        }
        else if (ip < Ipv6Header.PAYLOAD_LENGTH_OFFSET || Ipv6Header.HOP_LIMIT_OFFSET == ip)
        {
            // Bytes 0..3 hold version, traffic class and flow label; the last two are masked. The version nibble
            // is covered but shares byte 0, so the whole word is left alone.
            return true;
        }
        final int udp = at - frame.udpOffset();
        return UdpHeader.CHECKSUM_OFFSET == udp || UdpHeader.CHECKSUM_OFFSET + 1 == udp ||
            at - frame.bthOffset() == BthHeader.FECN_BECN_OFFSET;
    }
}
