package org.roce4j.wire;

import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Recomputes the ICRC of a whole RoCEv2 frame in place after a mutation changed fields the ICRC covers, so that the
 * mutation is the only thing wrong with it: the one home of "reseal" for conformance scenarios, tests and fault
 * tools. The frame is parsed to find its IP header and ICRC; {@link Icrc#seal} does the rest. An instance reuses its
 * parser and ICRC scratch space (no allocation per frame); {@link #reseal(byte[])} is the one-off form.
 */
public final class FrameSeal
{
    private final RoceFrameParser parser = new RoceFrameParser();
    private final Icrc icrc = new Icrc();

    /**
     * Recompute a frame's ICRC in place.
     *
     * @param buffer holding the frame.
     * @param offset of its Ethernet header.
     * @param length of the frame.
     * @return the ICRC value written.
     * @throws IllegalArgumentException when the frame does not parse up to its ICRC (a status other than
     *                                  {@link FrameStatus#OK} or {@link FrameStatus#BAD_ICRC}).
     */
    public int resealFrame(final MutableDirectBuffer buffer, final int offset, final int length)
    {
        final FrameStatus status = parser.parse(buffer, offset, length);
        if (FrameStatus.OK != status && FrameStatus.BAD_ICRC != status)
        {
            throw new IllegalArgumentException("cannot reseal a frame that does not parse: " + status);
        }
        return icrc.seal(buffer, parser.ipOffset(), parser.ipVersion(), parser.ipHeaderLength(), parser.icrcOffset());
    }

    /**
     * Recompute the ICRC of a frame in place after a mutation changed covered fields.
     *
     * @param frame a frame that parses up to its ICRC.
     * @return the same array.
     * @throws IllegalArgumentException when the frame does not parse up to its ICRC.
     */
    public static byte[] reseal(final byte[] frame)
    {
        new FrameSeal().resealFrame(new UnsafeBuffer(frame), 0, frame.length);
        return frame;
    }
}
