package org.roce4j.conform;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.roce4j.wire.RoceFrameParser;

/**
 * Every frame the conform link saw in one scenario, in order, both directions, faults marked: what the checkers
 * read, what the report prints and what the per-scenario pcap holds.
 */
public final class Capture
{
    private final List<CapturedFrame> frames = new ArrayList<>();
    private final List<Long> windowStartsNs = new ArrayList<>();
    private final RoceFrameParser parser = new RoceFrameParser();

    /**
     * Record a frame.
     *
     * @param timeNs    the runner's clock.
     * @param direction which way.
     * @param frame     the bytes (kept).
     * @param fault     fault note or null.
     * @return the record.
     */
    public CapturedFrame add(final long timeNs, final Direction direction, final byte[] frame, final String fault)
    {
        return add(timeNs, timeNs, direction, frame, fault);
    }

    /**
     * Record a frame whose time is known only within a window: one the runner found when it polled at
     * {@code timeNs} passed the link after {@code earliestNs}, when the poll before began.
     *
     * @param earliestNs the earliest the frame can have passed the link.
     * @param timeNs     the runner's clock when it saw the frame.
     * @param direction  which way.
     * @param frame      the bytes (kept).
     * @param fault      fault note or null.
     * @return the record.
     */
    public CapturedFrame add(final long earliestNs, final long timeNs, final Direction direction, final byte[] frame,
        final String fault)
    {
        final CapturedFrame captured = CapturedFrame.parse(frames.size(), timeNs, direction, frame, fault, parser);
        frames.add(captured);
        windowStartsNs.add(Math.min(earliestNs, timeNs));
        return captured;
    }

    /**
     * @param index a frame's capture index.
     * @return the earliest the frame can have passed the link: its time, or for a frame from a DUT the runner
     *     polls, when the poll before the one that found it began.
     */
    public long earliestNs(final int index)
    {
        return windowStartsNs.get(index);
    }

    /**
     * Parse a frame without recording it (to match rules before deciding what happens to it).
     *
     * @param timeNs    clock.
     * @param direction which way.
     * @param frame     bytes.
     * @return the parsed frame, index -1.
     */
    CapturedFrame peek(final long timeNs, final Direction direction, final byte[] frame)
    {
        return CapturedFrame.parse(-1, timeNs, direction, frame, null, parser);
    }

    /**
     * @return every frame so far (unmodifiable view).
     */
    public List<CapturedFrame> frames()
    {
        return Collections.unmodifiableList(frames);
    }

    /**
     * @param direction which way.
     * @return the frames that went that way and were delivered (dropped ones left out).
     */
    public List<CapturedFrame> delivered(final Direction direction)
    {
        final List<CapturedFrame> out = new ArrayList<>();
        for (final CapturedFrame frame : frames)
        {
            if (direction == frame.direction() && !frame.dropped())
            {
                out.add(frame);
            }
        }
        return out;
    }

    /**
     * @return number of frames.
     */
    public int size()
    {
        return frames.size();
    }
}
