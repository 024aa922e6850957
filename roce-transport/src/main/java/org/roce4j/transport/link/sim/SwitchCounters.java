package org.roce4j.transport.link.sim;

import org.roce4j.wire.EnumCounters;

/**
 * The {@link SwitchCounter}s of one switch port (single writer: the thread driving the switch).
 */
public final class SwitchCounters extends EnumCounters<SwitchCounter>
{
    /**
     * All counters at zero.
     */
    public SwitchCounters()
    {
        super(SwitchCounter.class);
    }
}
