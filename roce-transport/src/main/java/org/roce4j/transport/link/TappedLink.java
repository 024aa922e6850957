package org.roce4j.transport.link;

import org.agrona.MutableDirectBuffer;

/**
 * A link decorator that shows every frame the engine sends and receives to a {@link FrameTap} at the link's API:
 * outgoing frames as they are committed (marked dropped when the underlying link's fault injection dropped them,
 * which it tells by its INJECTED_DROPS counter moving), incoming frames as they are polled. It sees the engine's
 * frames only; {@link Link#tapFrames(FrameTap)} shows what crosses the medium, the link's own ARP and ND included.
 */
public final class TappedLink extends ForwardingLink
{
    private final FrameTap tap;
    private FrameHandler handler;
    private final FrameHandler tappingHandler = this::onIncoming;

    /**
     * @param delegate the link to watch.
     * @param tap      what to show frames to.
     */
    public TappedLink(final Link delegate, final FrameTap tap)
    {
        super(delegate);
        this.tap = tap;
    }

    /** {@inheritDoc} */
    public void commit(final int index, final int length)
    {
        final long dropsBefore = delegate.counters().get(LinkCounter.INJECTED_DROPS);
        // The tap looks after the commit to learn whether the frame was dropped; a committed frame's bytes stay in
        // the send buffer until the next claim, which cannot happen before the tap returns.
        final MutableDirectBuffer buffer = delegate.sendBuffer();
        delegate.commit(index, length);
        final boolean dropped = delegate.counters().get(LinkCounter.INJECTED_DROPS) != dropsBefore;
        tap.onFrame(true, dropped, buffer, index, length);
    }

    /** {@inheritDoc} */
    public int poll(final FrameHandler handler, final int maxFrames)
    {
        this.handler = handler;
        return delegate.poll(tappingHandler, maxFrames);
    }

    private void onIncoming(final MutableDirectBuffer buffer, final int offset, final int length)
    {
        tap.onFrame(false, false, buffer, offset, length);
        handler.onFrame(buffer, offset, length);
    }
}
