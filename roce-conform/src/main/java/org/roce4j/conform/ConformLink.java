package org.roce4j.conform;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.LongSupplier;

import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.transport.link.FrameHandler;
import org.roce4j.transport.link.Link;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.transport.link.LinkCounters;

/**
 * The conform peer's link: a decorator over any {@link Link} that records every frame in both directions into a
 * {@link Capture} and applies the scenario's {@link FrameRule}s (drop, mutate, delay, duplicate) to the frames that
 * match them. Frames going out are {@link Direction#TO_DUT}, frames coming in {@link Direction#FROM_DUT}.
 *
 * <p>It is a test instrument, not a data path: it copies and allocates per frame so every frame can be kept.
 * It is deliberately small, so the links' own fault and capture decorators can replace it once they are on main.
 */
public final class ConformLink implements Link
{
    private static final int MAX_FRAME = 16384;

    private final Link inner;
    private final LongSupplier clockNs;
    private final Capture capture;
    private final UnsafeBuffer staging = new UnsafeBuffer(new byte[MAX_FRAME]);
    private final List<FrameRule> rules = new ArrayList<>();
    private final List<Held> held = new ArrayList<>();
    private final List<byte[]> ready = new ArrayList<>();
    /**
     * When the poll before the current one began: a frame from the DUT that the current poll finds arrived after
     * that, and no earlier (the runner's clock reads it only when it polls).
     */
    private long previousPollNs;

    private record Held(long dueNs, Direction direction, byte[] frame)
    {
    }

    /**
     * @param inner   the link to the DUT (in-memory fabric port, tunnel, UDP, pcap).
     * @param clockNs the runner's clock, for timestamps and delays.
     * @param capture where frames are recorded.
     */
    public ConformLink(final Link inner, final LongSupplier clockNs, final Capture capture)
    {
        this.inner = inner;
        this.clockNs = clockNs;
        this.capture = capture;
        this.previousPollNs = clockNs.getAsLong();
    }

    /**
     * Add a fault rule; rules are tried in the order added and the first that takes a frame decides.
     *
     * @param rule the rule.
     */
    public void addRule(final FrameRule rule)
    {
        rules.add(rule);
    }

    /**
     * @return the rules not yet spent.
     */
    public List<FrameRule> pendingRules()
    {
        rules.removeIf(FrameRule::spent);
        return List.copyOf(rules);
    }

    /**
     * @return the capture.
     */
    public Capture capture()
    {
        return capture;
    }

    /**
     * Send a whole frame to the DUT through the rules.
     *
     * @param frame the frame.
     */
    public void sendFrame(final byte[] frame)
    {
        outbound(frame);
        inner.flush();
    }

    /**
     * Release delayed frames whose time has come, both ways.
     *
     * @return number released.
     */
    public int releaseDue()
    {
        final long now = clockNs.getAsLong();
        int released = 0;
        final Iterator<Held> it = held.iterator();
        while (it.hasNext())
        {
            final Held h = it.next();
            if (h.dueNs() <= now)
            {
                it.remove();
                released++;
                capture.add(now, h.direction(), h.frame(), "released after delay");
                if (Direction.TO_DUT == h.direction())
                {
                    forward(h.frame());
                }
                else
                {
                    ready.add(h.frame());
                }
            }
        }
        if (released > 0)
        {
            inner.flush();
        }
        return released;
    }

    private void outbound(final byte[] frame)
    {
        for (final byte[] out : apply(Direction.TO_DUT, frame))
        {
            forward(out);
        }
    }

    private void forward(final byte[] frame)
    {
        if (!inner.send(new UnsafeBuffer(frame), 0, frame.length))
        {
            inner.flush();
            if (!inner.send(new UnsafeBuffer(frame), 0, frame.length))
            {
                throw new IllegalStateException("link " + inner.name() + " is full");
            }
        }
    }

    /** Apply the first matching rule; record the frame; return what is to be delivered now. */
    private List<byte[]> apply(final Direction direction, final byte[] frame)
    {
        final long now = clockNs.getAsLong();
        final long earliest = Direction.FROM_DUT == direction ? previousPollNs : now;
        final CapturedFrame parsed = capture.peek(now, direction, frame);
        for (final FrameRule rule : rules)
        {
            if (rule.takes(direction, parsed))
            {
                switch (rule.action())
                {
                    case DROP:
                        capture.add(earliest, now, direction, frame, rule.note());
                        return List.of();
                    case DELAY:
                        capture.add(earliest, now, direction, frame, rule.note());
                        held.add(new Held(now + rule.delayNs(), direction, frame));
                        return List.of();
                    case DUPLICATE:
                        capture.add(earliest, now, direction, frame, null);
                        capture.add(earliest, now, direction, frame, rule.note());
                        return List.of(frame, frame);
                    default:
                        final byte[] mutated = rule.mutate(frame);
                        capture.add(earliest, now, direction, mutated, rule.note());
                        return List.of(mutated);
                }
            }
        }
        capture.add(earliest, now, direction, frame, null);
        return List.of(frame);
    }

    @Override
    public String name()
    {
        return "conform(" + inner.name() + ")";
    }

    @Override
    public LinkAddress address()
    {
        return inner.address();
    }

    @Override
    public int mtu()
    {
        return inner.mtu();
    }

    @Override
    public boolean verifiesIcrc()
    {
        return inner.verifiesIcrc();
    }

    @Override
    public int tryClaim(final int maxLength)
    {
        if (maxLength > MAX_FRAME)
        {
            throw new IllegalArgumentException("frame of " + maxLength + " bytes exceeds " + MAX_FRAME);
        }
        return 0;
    }

    @Override
    public MutableDirectBuffer sendBuffer()
    {
        return staging;
    }

    @Override
    public void commit(final int index, final int length)
    {
        final byte[] frame = new byte[length];
        staging.getBytes(index, frame);
        outbound(frame);
    }

    @Override
    public void abort(final int index)
    {
    }

    @Override
    public int flush()
    {
        return inner.flush();
    }

    @Override
    public void resolve(final int ipv4)
    {
        inner.resolve(ipv4);
    }

    @Override
    public int poll(final FrameHandler handler, final int maxFrames)
    {
        releaseDue();
        final long pollNs = clockNs.getAsLong();
        inner.poll((buffer, offset, length) ->
        {
            final byte[] frame = new byte[length];
            buffer.getBytes(offset, frame);
            ready.addAll(apply(Direction.FROM_DUT, frame));
        }, maxFrames);
        previousPollNs = pollNs;
        int delivered = 0;
        while (delivered < maxFrames && !ready.isEmpty())
        {
            final byte[] frame = ready.remove(0);
            handler.onFrame(new UnsafeBuffer(frame), 0, frame.length);
            delivered++;
        }
        return delivered;
    }

    @Override
    public LinkCounters counters()
    {
        return inner.counters();
    }

    @Override
    public void close()
    {
        inner.close();
    }
}
