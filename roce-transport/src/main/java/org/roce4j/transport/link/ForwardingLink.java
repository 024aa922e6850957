package org.roce4j.transport.link;

import org.agrona.MutableDirectBuffer;

/**
 * A link decorator that passes every call to the link it wraps; decorators (faults, capture, trace, taps) extend it
 * and override what they change, in the manner of Aeron's DebugSendChannelEndpoint around a send channel.
 */
public abstract class ForwardingLink implements Link
{
    /** The wrapped link. */
    protected final Link delegate;

    /**
     * @param delegate the link to wrap.
     */
    protected ForwardingLink(final Link delegate)
    {
        if (null == delegate)
        {
            throw new IllegalArgumentException("the link to wrap must not be null");
        }
        this.delegate = delegate;
    }

    /**
     * @return the wrapped link.
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
        delegate.commit(index, length);
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
    public void resolve(final int ipv4)
    {
        delegate.resolve(ipv4);
    }

    /** {@inheritDoc} */
    public void resolve(final long high, final long low)
    {
        delegate.resolve(high, low);
    }

    /** {@inheritDoc} */
    public void joinGroup(final long high, final long low)
    {
        delegate.joinGroup(high, low);
    }

    /** {@inheritDoc} */
    public void leaveGroup(final long high, final long low)
    {
        delegate.leaveGroup(high, low);
    }

    /** {@inheritDoc} */
    public boolean tapFrames(final FrameTap tap)
    {
        return delegate.tapFrames(tap);
    }

    /** {@inheritDoc} */
    public int poll(final FrameHandler handler, final int maxFrames)
    {
        return delegate.poll(handler, maxFrames);
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

    /**
     * @return the wrapped link's description.
     */
    public String toString()
    {
        return delegate.toString();
    }
}
