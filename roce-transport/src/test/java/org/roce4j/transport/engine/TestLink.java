package org.roce4j.transport.engine;

import java.util.ArrayDeque;
import java.util.function.Predicate;

import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.transport.link.FrameHandler;
import org.roce4j.transport.link.Link;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.transport.link.LinkCounter;
import org.roce4j.transport.link.LinkCounters;

/**
 * A minimal point-to-point link for engine unit tests: frames are copied into the peer's queue; a test can look
 * at, drop or hold frames in flight. Allocates per frame (it is a test double, not the fabric).
 */
final class TestLink implements Link
{
    private final LinkAddress address;
    private final int mtu;
    private final UnsafeBuffer staging = new UnsafeBuffer(new byte[16384]);
    private final ArrayDeque<byte[]> inbound = new ArrayDeque<>();
    private final LinkCounters counters = new LinkCounters();
    private TestLink peer;
    private Predicate<byte[]> dropFilter = frame -> false;
    final ArrayDeque<byte[]> sent = new ArrayDeque<>();
    /** Beside each frame in {@link #sent}: how many received frames the engine had handled when it was sent. */
    final ArrayDeque<Long> handledBeforeSent = new ArrayDeque<>();
    boolean recordSent;
    /** Frames {@link #poll} delivered and the engine finished handling, so far. */
    long handled;
    /** While set, every claim fails: the link pushes back as a full send ring does. */
    boolean full;

    TestLink(final LinkAddress address, final int mtu)
    {
        this.address = address;
        this.mtu = mtu;
    }

    static TestLink[] pair(final LinkAddress a, final LinkAddress b, final int mtu)
    {
        final TestLink first = new TestLink(a, mtu);
        final TestLink second = new TestLink(b, mtu);
        first.peer = second;
        second.peer = first;
        return new TestLink[] {first, second};
    }

    void dropWhen(final Predicate<byte[]> filter)
    {
        this.dropFilter = filter;
    }

    void inject(final byte[] frame)
    {
        inbound.addLast(frame);
    }

    int pending()
    {
        return inbound.size();
    }

    public String name()
    {
        return "test:" + address;
    }

    public LinkAddress address()
    {
        return address;
    }

    public int mtu()
    {
        return mtu;
    }

    public boolean verifiesIcrc()
    {
        return true;
    }

    public int tryClaim(final int maxLength)
    {
        if (maxLength > staging.capacity())
        {
            throw new IllegalArgumentException("frame too large: " + maxLength);
        }
        return full ? -1 : 0;
    }

    public MutableDirectBuffer sendBuffer()
    {
        return staging;
    }

    public void commit(final int index, final int length)
    {
        final byte[] frame = new byte[length];
        staging.getBytes(index, frame);
        counters.increment(LinkCounter.FRAMES_SENT);
        if (recordSent)
        {
            sent.addLast(frame);
            handledBeforeSent.addLast(handled);
        }
        if (dropFilter.test(frame))
        {
            counters.increment(LinkCounter.INJECTED_DROPS);
            return;
        }
        peer.inbound.addLast(frame);
    }

    public void abort(final int index)
    {
    }

    public int flush()
    {
        return 0;
    }

    public int poll(final FrameHandler handler, final int maxFrames)
    {
        int n = 0;
        while (n < maxFrames && !inbound.isEmpty())
        {
            final byte[] frame = inbound.pollFirst();
            handler.onFrame(new UnsafeBuffer(frame), 0, frame.length);
            handled++;
            counters.increment(LinkCounter.FRAMES_RECEIVED);
            n++;
        }
        return n;
    }

    public LinkCounters counters()
    {
        return counters;
    }

    public void close()
    {
    }
}
