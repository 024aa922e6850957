package org.roce4j.transport.link;

import org.roce4j.wire.EnumCounters;

/**
 * The counters of one link. The send side and the receive side of a link are driven by the same thread, which is
 * the single writer.
 */
public final class LinkCounters extends EnumCounters<LinkCounter>
{
    /**
     * All counters at zero.
     */
    public LinkCounters()
    {
        super(LinkCounter.class);
    }
}
