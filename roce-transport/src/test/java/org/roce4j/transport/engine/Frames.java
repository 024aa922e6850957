package org.roce4j.transport.engine;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RoceFrameBuilder;
import org.roce4j.wire.RoceFrameParser;

/**
 * Looks inside frames a {@link TestLink} carries: opcode and PSN, for drop predicates and for checking what went
 * over the wire.
 */
final class Frames
{
    private Frames()
    {
    }

    private static RoceFrameParser parsed(final byte[] frame)
    {
        final RoceFrameParser parser = new RoceFrameParser();
        if (FrameStatus.OK != parser.parse(new UnsafeBuffer(frame), 0, frame.length))
        {
            throw new AssertionError("not a valid RoCEv2 frame: " + parser.status());
        }
        return parser;
    }

    /**
     * @param frame a RoCEv2 frame.
     * @return its opcode.
     */
    static Opcode opcode(final byte[] frame)
    {
        return parsed(frame).opcode();
    }

    /**
     * @param frame a RoCEv2 frame.
     * @return its PSN.
     */
    static int psn(final byte[] frame)
    {
        return parsed(frame).bth().psn();
    }

    /**
     * @param frames frames.
     * @return their PSNs in order.
     */
    static List<Integer> psns(final Collection<byte[]> frames)
    {
        final List<Integer> out = new ArrayList<>();
        for (final byte[] frame : frames)
        {
            out.add(psn(frame));
        }
        return out;
    }

    /**
     * A drop predicate that drops the first {@code times} frames with a given opcode (optionally only at one PSN),
     * then lets every frame through.
     *
     * @param opcode to drop.
     * @param psn    PSN to drop, or -1 for any.
     * @param times  how many to drop.
     * @return the predicate.
     */
    static Predicate<byte[]> dropFirst(final Opcode opcode, final int psn, final int times)
    {
        final int[] left = {times};
        return frame ->
        {
            if (left[0] > 0 && opcode == opcode(frame) && (-1 == psn || psn == psn(frame)))
            {
                left[0]--;
                return true;
            }
            return false;
        };
    }

    /**
     * Combine drop predicates: a frame is dropped when any of them says so (each sees every frame).
     *
     * @param predicates to combine.
     * @return the combination.
     */
    @SafeVarargs
    static Predicate<byte[]> any(final Predicate<byte[]>... predicates)
    {
        return frame ->
        {
            boolean drop = false;
            for (final Predicate<byte[]> predicate : predicates)
            {
                drop |= predicate.test(frame);
            }
            return drop;
        };
    }

    /**
     * @param frames frames.
     * @return how many of each opcode.
     */
    static Map<Opcode, Integer> opcodeCounts(final Collection<byte[]> frames)
    {
        final Map<Opcode, Integer> out = new HashMap<>();
        for (final byte[] frame : frames)
        {
            out.merge(opcode(frame), 1, Integer::sum);
        }
        return out;
    }

    /**
     * A RoCEv2 CNP as a ConnectX NIC sends it: TOS 0xC2, UDP source port 0, BTH opcode 0x81 with BECN, PSN 0, 16
     * reserved zero bytes, ICRC.
     *
     * @param from   sender (the notification point).
     * @param to     receiver (the reaction point).
     * @param destQp the QP to notify.
     * @return the frame.
     */
    static byte[] cnp(final LinkAddress from, final LinkAddress to, final int destQp)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[128]);
        final RoceFrameBuilder builder = new RoceFrameBuilder().wrap(buffer, 0).ethernet(to.mac(), from.mac())
            .ipv4(from.ipv4(), to.ipv4(), 0xC2, RoceFrameBuilder.DEFAULT_TTL).udp(0)
            .bth(Opcode.CNP_NOTIFICATION, destQp, 0);
        builder.bthHeader().becn(true);
        builder.cnp().clear();
        final byte[] frame = new byte[builder.finish()];
        buffer.getBytes(0, frame);
        return frame;
    }
}
