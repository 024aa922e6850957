package org.roce4j.wire;

import java.util.Locale;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * One counter per {@link FrameStatus}. Written by a single thread (the receive path that owns the parser) with
 * opaque stores, so other threads may read the counts at any time without locks.
 */
public final class FrameStatusCounters
{
    private final AtomicLongArray counts = new AtomicLongArray(FrameStatus.COUNT);

    /**
     * Count one frame. Single writer only.
     *
     * @param status verdict of the frame.
     */
    public void increment(final FrameStatus status)
    {
        final int i = status.ordinal();
        counts.setOpaque(i, counts.getPlain(i) + 1);
    }

    /**
     * @param status a verdict.
     * @return how many frames got it.
     */
    public long get(final FrameStatus status)
    {
        return counts.getOpaque(status.ordinal());
    }

    /**
     * @return frames counted with any status.
     */
    public long total()
    {
        long total = 0;
        for (int i = 0; i < FrameStatus.COUNT; i++)
        {
            total += counts.getOpaque(i);
        }
        return total;
    }

    /**
     * @return frames counted with a status other than OK.
     */
    public long rejected()
    {
        return total() - get(FrameStatus.OK);
    }

    /**
     * @return e.g. {@code ok=10 bad_icrc=1}, listing non-zero counters only.
     */
    public String toString()
    {
        final StringBuilder sb = new StringBuilder();
        for (final FrameStatus status : FrameStatus.values())
        {
            final long value = get(status);
            if (0 != value)
            {
                if (sb.length() > 0)
                {
                    sb.append(' ');
                }
                sb.append(status.name().toLowerCase(Locale.ROOT)).append('=').append(value);
            }
        }
        return sb.length() == 0 ? "none" : sb.toString();
    }
}
