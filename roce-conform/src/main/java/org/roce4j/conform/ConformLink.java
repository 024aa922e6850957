package org.roce4j.conform;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

import org.agrona.DirectBuffer;
import org.roce4j.transport.link.ForwardingLink;
import org.roce4j.transport.link.FrameHandler;
import org.roce4j.transport.link.Link;
import org.roce4j.transport.link.fault.FaultObserver;
import org.roce4j.transport.link.fault.FaultRule;
import org.roce4j.transport.link.fault.FaultyLink;

/**
 * The conform peer's link: a decorator over any {@link Link} that records every frame in both directions into a
 * {@link Capture}, with its time and the fault done to it. Frames going out are {@link Direction#TO_DUT}, frames
 * coming in {@link Direction#FROM_DUT}.
 *
 * <p>The faults themselves are the link fault layer's: the scenario's {@link FrameRule}s become {@link FaultRule}s of
 * a {@link FaultyLink} around the link, which drops, holds and releases, duplicates and rewrites the frames and counts
 * them (INJECTED_*). This link watches it as its {@link FaultObserver} and keeps only what is conform's own: the
 * capture the checkers read, and the runner's timestamps.
 *
 * <p>It is a test instrument, not a data path: it copies and allocates per frame so every frame can be kept.
 */
public final class ConformLink extends ForwardingLink implements FaultObserver
{
    /**
     * Seed of the fault layer's random streams: conform rules draw nothing (no probabilities, no random profile), so
     * any constant does; a fixed one keeps a run repeatable should one ever draw.
     */
    private static final long SEED = 0xC0F0_12A1L;
    private static final String RELEASED = "released after delay";

    private final Link inner;
    private final FaultyLink faults;
    private final LongSupplier clockNs;
    private final Capture capture;
    private final List<FrameRule> rules = new ArrayList<>();
    private final Map<FaultRule, FrameRule> byFault = new IdentityHashMap<>();
    /**
     * When the poll before the current one began: a frame from the DUT that the current poll finds arrived after
     * that, and no earlier (the runner's clock reads it only when it polls).
     */
    private long previousPollNs;
    private int releasedToDut;

    /**
     * @param inner   the link to the DUT (in-memory fabric port, tunnel, UDP, pcap).
     * @param clockNs the runner's clock, for timestamps and delays.
     * @param capture where frames are recorded.
     */
    public ConformLink(final Link inner, final LongSupplier clockNs, final Capture capture)
    {
        super(new FaultyLink(inner, clockNs::getAsLong, SEED, "conform rules"));
        this.inner = inner;
        this.faults = (FaultyLink)delegate;
        this.clockNs = clockNs;
        this.capture = capture;
        this.previousPollNs = clockNs.getAsLong();
        faults.observe(this);
    }

    /**
     * Add a fault rule; rules of one direction are tried in the order added and the first that takes a frame
     * decides.
     *
     * @param rule the rule.
     */
    public void addRule(final FrameRule rule)
    {
        final Direction direction = rule.direction();
        final FaultRule fault = rule.faultRule(frame -> capture.peek(clockNs.getAsLong(), direction, bytes(
            frame.buffer(), frame.frameOffset(), frame.frameLength())));
        byFault.put(fault, rule);
        rules.add(rule);
        (Direction.TO_DUT == direction ? faults.transmitFaults() : faults.receiveFaults()).addRule(fault);
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
        int index = faults.tryClaim(frame.length);
        if (index < 0)
        {
            faults.flush();
            index = faults.tryClaim(frame.length);
            if (index < 0)
            {
                throw new IllegalStateException("link " + inner.name() + " is full");
            }
        }
        faults.sendBuffer().putBytes(index, frame);
        faults.commit(index, frame.length);
        faults.flush();
    }

    /**
     * Send the frames to the DUT whose delay is over (those from the DUT go on at the next {@link #poll}).
     *
     * @return number released.
     */
    public int releaseDue()
    {
        releasedToDut = 0;
        faults.flush();
        return releasedToDut;
    }

    @Override
    public String name()
    {
        return "conform(" + inner.name() + ")";
    }

    @Override
    public int poll(final FrameHandler handler, final int maxFrames)
    {
        releaseDue();
        final long pollNs = clockNs.getAsLong();
        final int delivered = faults.poll(handler, maxFrames);
        previousPollNs = pollNs;
        return delivered;
    }

    @Override
    public void onDecided(final boolean transmit, final DirectBuffer buffer, final int offset, final int length,
        final FaultRule fired)
    {
        final Direction direction = transmit ? Direction.TO_DUT : Direction.FROM_DUT;
        final long now = clockNs.getAsLong();
        final long earliest = transmit ? now : previousPollNs;
        final byte[] frame = bytes(buffer, offset, length);
        final FrameRule rule = null == fired ? null : byFault.get(fired);
        if (null != rule && FrameRule.Action.DUPLICATE == rule.action())
        {
            capture.add(earliest, now, direction, frame, null);
        }
        capture.add(earliest, now, direction, frame, null == rule ? null : rule.note());
    }

    @Override
    public void onReleased(final boolean transmit, final DirectBuffer buffer, final int offset, final int length)
    {
        capture.add(clockNs.getAsLong(), transmit ? Direction.TO_DUT : Direction.FROM_DUT,
            bytes(buffer, offset, length), RELEASED);
        releasedToDut += transmit ? 1 : 0;
    }

    private static byte[] bytes(final DirectBuffer buffer, final int offset, final int length)
    {
        final byte[] frame = new byte[length];
        buffer.getBytes(offset, frame);
        return frame;
    }
}
