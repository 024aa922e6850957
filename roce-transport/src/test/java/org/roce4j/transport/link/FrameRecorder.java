package org.roce4j.transport.link;

import java.util.ArrayList;
import java.util.List;

import org.agrona.MutableDirectBuffer;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.RoceFrameParser;

/**
 * A {@link FrameHandler} for link tests: parses every frame (ICRC verified) and keeps what it found, plus a copy
 * of the bytes.
 */
public final class FrameRecorder implements FrameHandler
{
    /**
     * One received frame.
     *
     * @param status         parser verdict.
     * @param opcode         BTH opcode byte, -1 when not reached.
     * @param qpn            BTH DestQP, -1 when not reached.
     * @param psn            BTH PSN, -1 when not reached.
     * @param destinationMac Ethernet destination.
     * @param bytes          the whole frame.
     */
    public record Frame(FrameStatus status, int opcode, int qpn, int psn, long destinationMac, byte[] bytes)
    {
    }

    private final RoceFrameParser parser = new RoceFrameParser();
    private final List<Frame> frames = new ArrayList<>();

    /** {@inheritDoc} */
    public void onFrame(final MutableDirectBuffer buffer, final int offset, final int length)
    {
        final byte[] bytes = new byte[length];
        buffer.getBytes(offset, bytes);
        final FrameStatus status = parser.parse(buffer, offset, length);
        final boolean bthRead = null != parser.opcode();
        frames.add(new Frame(
            status,
            bthRead ? parser.bth().opcode() : -1,
            bthRead ? parser.bth().destQp() : -1,
            bthRead ? parser.bth().psn() : -1,
            parser.ethernet().destination(),
            bytes));
    }

    /**
     * @return the frames received so far.
     */
    public List<Frame> frames()
    {
        return frames;
    }

    /**
     * @return number of frames received so far.
     */
    public int size()
    {
        return frames.size();
    }

    /**
     * @return the PSNs of the frames received so far, in order.
     */
    public List<Integer> psns()
    {
        final List<Integer> psns = new ArrayList<>(frames.size());
        for (final Frame frame : frames)
        {
            psns.add(frame.psn());
        }
        return psns;
    }

    /**
     * @param status a parser verdict.
     * @return frames received with it.
     */
    public long count(final FrameStatus status)
    {
        return frames.stream().filter(frame -> status == frame.status()).count();
    }

    /**
     * Poll a link until it delivers nothing more.
     *
     * @param link to poll.
     * @return frames delivered.
     */
    public int drain(final Link link)
    {
        int total = 0;
        int polled;
        while ((polled = link.poll(this, 64)) > 0)
        {
            total += polled;
        }
        return total;
    }

    /**
     * Forget the frames received so far.
     */
    public void clear()
    {
        frames.clear();
    }
}
