package org.roce4j.transport;

import org.roce4j.wire.EnumCounters;

/**
 * The engine's counters for one device (single writer: the engine's thread).
 */
public final class TransportCounters extends EnumCounters<TransportCounter>
{
    /**
     * All counters at zero.
     */
    public TransportCounters()
    {
        super(TransportCounter.class);
    }
}
