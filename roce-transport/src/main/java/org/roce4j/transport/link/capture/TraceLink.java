package org.roce4j.transport.link.capture;

import org.agrona.concurrent.NanoClock;
import org.roce4j.transport.link.ForwardingLink;
import org.roce4j.transport.link.Link;

/**
 * Prints one decoded line per frame a link sends or receives, as it happens: the link's decorator for
 * {@code --trace}, a {@link FrameTracer} installed through {@link Link#tapFrames}, so it sees what crosses the medium,
 * ARP and Neighbor Discovery included.
 */
public final class TraceLink extends ForwardingLink
{
    private final FrameTracer tracer;

    /**
     * @param delegate the link to trace.
     * @param out      where lines go (e.g. {@code System.err}).
     * @param clock    time source of the lines' seconds.
     * @throws IllegalArgumentException when the link cannot show its frames.
     */
    public TraceLink(final Link delegate, final Appendable out, final NanoClock clock)
    {
        super(delegate);
        tracer = new FrameTracer(out, clock, delegate.verifiesIcrc());
        if (!delegate.tapFrames(tracer))
        {
            throw new IllegalArgumentException("link " + delegate.name() + " cannot show its frames for tracing");
        }
    }

    /**
     * @return the tracer (its frame count).
     */
    public FrameTracer tracer()
    {
        return tracer;
    }
}
