package org.roce4j.transport.link;

import org.agrona.MutableDirectBuffer;

/**
 * A link decorator that shows every frame to a {@link FrameTap} before passing it on: outgoing frames as they are
 * committed (marked dropped when the underlying link's fault injection dropped them, which it tells by its
 * INJECTED_DROPS counter moving), incoming frames as they are polled. Everything else is delegated.
 */
public final class TappedLink implements Link
{
    private final Link delegate;
    private final FrameTap tap;
    private FrameHandler handler;
    private final FrameHandler tappingHandler = this::onIncoming;

    /**
     * @param delegate the link to watch.
     * @param tap      what to show frames to.
     */
    public TappedLink(final Link delegate, final FrameTap tap)
    {
        this.delegate = delegate;
        this.tap = tap;
    }

    /**
     * @return the watched link.
     */
    public Link delegate()
    {
        return delegate;
    }

    /** {@inheritDoc} */
    public String name()
    {
        return delegate.name();
    }

    /** {@inheritDoc} */
    public LinkAddress address()
    {
        return delegate.address();
    }

    /** {@inheritDoc} */
    public int mtu()
    {
        return delegate.mtu();
    }

    /** {@inheritDoc} */
    public boolean verifiesIcrc()
    {
        return delegate.verifiesIcrc();
    }

    /** {@inheritDoc} */
    public int tryClaim(final int maxLength)
    {
        return delegate.tryClaim(maxLength);
    }

    /** {@inheritDoc} */
    public MutableDirectBuffer sendBuffer()
    {
        return delegate.sendBuffer();
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
    public void abort(final int index)
    {
        delegate.abort(index);
    }

    /** {@inheritDoc} */
    public int flush()
    {
        return delegate.flush();
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

    /** {@inheritDoc} */
    public LinkCounters counters()
    {
        return delegate.counters();
    }

    /** {@inheritDoc} */
    public void close()
    {
        delegate.close();
    }
}
