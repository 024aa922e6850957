package org.roce4j.wire;

/**
 * One counter per {@link FrameStatus}: how many frames a receive path accepted and, for every reason, how many it
 * rejected. Single writer (the path's thread); any thread may read.
 */
public final class FrameStatusCounters extends EnumCounters<FrameStatus>
{
    /**
     * All counters at zero.
     */
    public FrameStatusCounters()
    {
        super(FrameStatus.class);
    }

    /**
     * @return frames counted with a status other than OK.
     */
    public long rejected()
    {
        return total() - get(FrameStatus.OK);
    }
}
