package org.roce4j.cm.ib;

import org.roce4j.wire.EnumCounters;

/**
 * The CM's counters (single writer: the thread running the CM; any thread may read).
 */
public final class CmCounters extends EnumCounters<CmCounter>
{
    /**
     * All counters at zero.
     */
    public CmCounters()
    {
        super(CmCounter.class);
    }
}
