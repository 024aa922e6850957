package org.roce4j.transport.link.memory;

import org.roce4j.wire.EnumCounters;

/**
 * The {@link FabricCounter}s of one {@link MemoryLink}; the thread driving that port is the single writer.
 */
public final class FabricCounters extends EnumCounters<FabricCounter>
{
    /**
     * All counters at zero.
     */
    public FabricCounters()
    {
        super(FabricCounter.class);
    }
}
