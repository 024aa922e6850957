package org.roce4j.verbs;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Predicate;

import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.transport.link.FrameHandler;
import org.roce4j.transport.link.Link;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.transport.link.LinkCounter;
import org.roce4j.transport.link.LinkCounters;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RoceFrameParser;

/**
 * A point-to-point test link: each committed frame is copied into the peer's queue (thread safe, so two devices
 * in DEDICATED mode can use it), optionally dropped by a filter and recorded in a trace shared by both ends. A test
 * double: it allocates per frame.
 */
final class PairLink implements Link
{
    /** One frame as it left a link. */
    record Sent(String from, byte[] frame, boolean dropped)
    {
        Opcode opcode()
        {
            return parse().opcode();
        }

        int psn()
        {
            return parse().bth().psn();
        }

        boolean solicited()
        {
            return parse().bth().solicitedEvent();
        }

        RoceFrameParser parse()
        {
            final RoceFrameParser parser = new RoceFrameParser();
            final FrameStatus status = parser.parse(new UnsafeBuffer(frame), 0, frame.length);
            if (FrameStatus.OK != status)
            {
                throw new AssertionError("recorded frame does not parse: " + status);
            }
            return parser;
        }

        public String toString()
        {
            return from + " " + opcode() + " psn=" + psn() + (dropped ? " (dropped)" : "");
        }
    }

    private final String name;
    private final LinkAddress address;
    private final int mtu;
    private final UnsafeBuffer staging = new UnsafeBuffer(new byte[16384]);
    private final ConcurrentLinkedQueue<byte[]> inbound = new ConcurrentLinkedQueue<>();
    private final LinkCounters counters = new LinkCounters();
    private final List<Sent> trace;
    private PairLink peer;
    private volatile Predicate<byte[]> dropFilter = frame -> false;
    private volatile Predicate<byte[]> holdFilter = frame -> false;
    private final ConcurrentLinkedQueue<byte[]> held = new ConcurrentLinkedQueue<>();
    private volatile boolean recording;
    private volatile boolean closed;

    private PairLink(final String name, final LinkAddress address, final int mtu, final List<Sent> trace)
    {
        this.name = name;
        this.address = address;
        this.mtu = mtu;
        this.trace = trace;
    }

    static PairLink[] pair(final LinkAddress a, final LinkAddress b, final int mtu)
    {
        final List<Sent> trace = new ArrayList<>();
        final PairLink first = new PairLink("A", a, mtu, trace);
        final PairLink second = new PairLink("B", b, mtu, trace);
        first.peer = second;
        second.peer = first;
        return new PairLink[] {first, second};
    }

    /**
     * @param filter frames for which it returns true are counted and dropped.
     */
    void dropWhen(final Predicate<byte[]> filter)
    {
        this.dropFilter = filter;
    }

    /**
     * @param filter frames for which it returns true are held back (in order) until {@link #release()}.
     */
    void holdWhen(final Predicate<byte[]> filter)
    {
        this.holdFilter = filter;
    }

    /**
     * Stop holding and deliver what was held, in order.
     */
    void release()
    {
        holdFilter = frame -> false;
        byte[] frame;
        while (null != (frame = held.poll()))
        {
            peer.inbound.add(frame);
        }
    }

    /**
     * @return frames held back so far.
     */
    int heldFrames()
    {
        return held.size();
    }

    /**
     * @param on record every frame this link sends into the shared trace.
     */
    void record(final boolean on)
    {
        this.recording = on;
    }

    /**
     * @return a copy of the trace shared by both ends, in send order.
     */
    List<Sent> trace()
    {
        synchronized (trace)
        {
            return new ArrayList<>(trace);
        }
    }

    boolean isClosed()
    {
        return closed;
    }

    public String name()
    {
        return "pair:" + name;
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
        return 0;
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
        counters.add(LinkCounter.BYTES_SENT, length);
        final boolean drop = dropFilter.test(frame);
        if (recording)
        {
            synchronized (trace)
            {
                trace.add(new Sent(name, frame, drop));
            }
        }
        if (drop)
        {
            counters.increment(LinkCounter.INJECTED_DROPS);
            return;
        }
        if (holdFilter.test(frame))
        {
            held.add(frame);
            return;
        }
        peer.inbound.add(frame);
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
        byte[] frame;
        while (n < maxFrames && null != (frame = inbound.poll()))
        {
            counters.increment(LinkCounter.FRAMES_RECEIVED);
            counters.add(LinkCounter.BYTES_RECEIVED, frame.length);
            handler.onFrame(new UnsafeBuffer(frame), 0, frame.length);
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
        closed = true;
    }
}
