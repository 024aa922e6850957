package org.roce4j.transport.link.fault;

import java.util.function.Supplier;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.transport.link.ForwardingLink;
import org.roce4j.transport.link.FrameHandler;
import org.roce4j.transport.link.Link;
import org.roce4j.transport.link.LinkCounter;
import org.roce4j.transport.link.LinkCounters;
import org.roce4j.wire.header.EthernetHeader;

/**
 * Injects faults into any link, in the manner of Aeron's DebugSendChannelEndpoint: a decorator with one
 * {@link FaultInjector} per direction (the memory fabric's rules and random profile), sharing the fabric's
 * {@link ReorderBuffer} and {@link DelayLine} for the frames it holds back. Built from the {@code --faults} grammar
 * ({@link FaultSpec}) or configured fluently through {@link #transmitFaults()} and {@link #receiveFaults()}.
 *
 * <p><b>Sending.</b> At {@link #commit} the frame in the wrapped link's send buffer is decided: dropped (the claim is
 * aborted), corrupted or marked in place, duplicated (the copies are claimed and committed behind it), or held back
 * (reordered behind later frames, at most {@link FaultInjector#DEFAULT_REORDER_MAX_HOLD_NS}; or delayed) and
 * committed later by {@link #flush()} or a later commit. <b>Receiving.</b> {@link #poll} decides every frame the
 * wrapped link delivers in the same way: dropped, corrupted in place (on a link that cannot check ICRCs, the udp link,
 * a corrupted frame is dropped, as the NIC that checked its ICRC would have), marked, duplicated (copies delivered
 * behind it) or held back and delivered by a later poll. What is injected counts in the wrapped link's counters
 * (INJECTED_*) and per direction and kind in {@link #injected()} (printed by {@link #report()}).
 *
 * <p><b>Cost.</b> A direction without rules or rates passes frames straight through. With rules, each frame is read
 * once ({@link FrameView}) and the rules tested: no allocation and no lock when none fires; a frame that is held
 * or duplicated is copied. Single threaded like the link it wraps.
 */
public final class FaultyLink extends ForwardingLink
{
    /** Frames held back for reordering at once, per direction. */
    private static final int REORDER_SLOTS = 64;
    /** Delayed frames held at once, per direction. */
    private static final int DELAY_SLOTS = 256;

    private final NanoClock clock;
    private final String description;
    private final FaultInjector tx;
    private final FaultInjector rx;
    private final FrameView frame = new FrameView();
    private final int slotLength;
    private final ReorderBuffer<Void> txReorder;
    private final ReorderBuffer<Void> rxReorder;
    private final DelayLine txDelay;
    private final DelayLine rxDelay;
    private final UnsafeBuffer pristine;
    private final UnsafeBuffer copy;
    private final UnsafeBuffer rewritten;
    private final ReorderBuffer.Release<Void> txRelease = this::onTxRelease;
    private final ReorderBuffer.Release<Void> rxRelease = this::onRxRelease;
    private final FrameHandler txDue = this::sendReleased;
    private final FrameHandler rxDue = this::deliverHeld;
    private final FrameHandler rxDecide = this::onReceived;
    private FrameHandler handler;
    private FaultObserver observer;
    private int delivered;

    /**
     * Wrap a link with rules from the {@code --faults} grammar.
     *
     * @param delegate the link.
     * @param spec     the parsed rules and seed.
     * @param clock    time source of delays and reorder bounds.
     */
    public FaultyLink(final Link delegate, final FaultSpec spec, final NanoClock clock)
    {
        this(delegate, clock, spec.seed(), spec.text());
        for (final Supplier<FaultRule> rule : spec.tx())
        {
            tx.addRule(rule.get());
        }
        for (final Supplier<FaultRule> rule : spec.rx())
        {
            rx.addRule(rule.get());
        }
    }

    /**
     * Wrap a link with no faults yet: configure {@link #transmitFaults()} and {@link #receiveFaults()}.
     *
     * @param delegate    the link.
     * @param clock       time source of delays and reorder bounds.
     * @param seed        of both directions' random streams (the receive side's is derived from it).
     * @param description what the faults are, for {@link #report()}.
     */
    public FaultyLink(final Link delegate, final NanoClock clock, final long seed, final String description)
    {
        super(delegate);
        this.clock = clock;
        this.description = description;
        final LinkCounters counters = delegate.counters();
        // Two directions, two independent streams: the receive side's seed is the transmit side's, scrambled.
        this.tx = new FaultInjector(clock, counters, seed);
        this.rx = new FaultInjector(clock, counters, Long.rotateLeft(seed, 32) ^ 0x9E37_79B9_7F4A_7C15L);
        this.slotLength = delegate.mtu() + EthernetHeader.VLAN_LENGTH;
        this.txReorder = new ReorderBuffer<>(REORDER_SLOTS, slotLength);
        this.rxReorder = new ReorderBuffer<>(REORDER_SLOTS, slotLength);
        this.txDelay = new DelayLine(DELAY_SLOTS, slotLength);
        this.rxDelay = new DelayLine(DELAY_SLOTS, slotLength);
        this.pristine = new UnsafeBuffer(new byte[slotLength]);
        this.copy = new UnsafeBuffer(new byte[slotLength]);
        this.rewritten = new UnsafeBuffer(new byte[slotLength]);
    }

    /**
     * Show every frame this link decides, both ways, to an observer (with the rule that acted on it), and every
     * frame it held back as it goes on. While an observer is set each frame is decided, even with no rules.
     *
     * @param frameObserver the observer, or null for none.
     * @return this.
     */
    public FaultyLink observe(final FaultObserver frameObserver)
    {
        observer = frameObserver;
        return this;
    }

    /**
     * @return the faults applied to frames sent.
     */
    public FaultInjector transmitFaults()
    {
        return tx;
    }

    /**
     * @return the faults applied to frames received.
     */
    public FaultInjector receiveFaults()
    {
        return rx;
    }

    /** {@inheritDoc} */
    public void commit(final int index, final int length)
    {
        if (!tx.isActive() && null == observer)
        {
            delegate.commit(index, length);
            return;
        }
        final MutableDirectBuffer buffer = delegate.sendBuffer();
        frame.wrap(buffer, index, length);
        tx.decide(frame, buffer, index, length, destinationIpv4());
        if (tx.mutates())
        {
            // The rewrite is a frame of its own (it may be longer): the claim is given up and the copy sent.
            final int mutatedLength = tx.mutate(buffer, index, length, rewritten);
            delegate.abort(index);
            observeDecided(true, tx, rewritten, 0, mutatedLength);
            sendDecided(rewritten, mutatedLength);
            return;
        }
        observeDecided(true, tx, buffer, index, length);
        if (tx.dropped())
        {
            delegate.abort(index);
            return;
        }
        if (holdBack(tx, txReorder, txDelay, buffer, index, length))
        {
            tx.countHeldBack();
            delegate.abort(index);
            return;
        }
        final int copies = tx.copies();
        if (copies > 1)
        {
            pristine.putBytes(0, buffer, index, length);
        }
        delegate.commit(index, length);
        for (int i = 1; i < copies; i++)
        {
            sendCopy(pristine, 0, length);
        }
        if (txReorder.size() > 0)
        {
            txReorder.onFrameSent(txRelease);
        }
    }

    /** Send a rewritten frame as its verdict says: dropped by the random profile, held back, or its copies sent. */
    private void sendDecided(final UnsafeBuffer buffer, final int length)
    {
        if (tx.dropped())
        {
            return;
        }
        if (holdBack(tx, txReorder, txDelay, buffer, 0, length))
        {
            tx.countHeldBack();
            return;
        }
        for (int i = 0; i < tx.copies(); i++)
        {
            sendCopy(buffer, 0, length);
        }
        if (txReorder.size() > 0)
        {
            txReorder.onFrameSent(txRelease);
        }
    }

    private void observeDecided(final boolean transmit, final FaultInjector faults, final DirectBuffer buffer,
        final int offset, final int length)
    {
        if (null != observer)
        {
            observer.onDecided(transmit, buffer, offset, length, faults.firedRule());
        }
    }

    /** {@inheritDoc} */
    public int flush()
    {
        if (txDelay.size() > 0 || txReorder.size() > 0)
        {
            final long nowNs = clock.nanoTime();
            txReorder.releaseExpired(txRelease, nowNs);
            txDelay.deliverDue(nowNs, txDue, Integer.MAX_VALUE, null);
        }
        return delegate.flush();
    }

    /** {@inheritDoc} */
    public int poll(final FrameHandler frameHandler, final int maxFrames)
    {
        if (!rx.isActive() && null == observer && 0 == rxDelay.size() && 0 == rxReorder.size())
        {
            return delegate.poll(frameHandler, maxFrames);
        }
        handler = frameHandler;
        delivered = 0;
        if (rxDelay.size() > 0 || rxReorder.size() > 0)
        {
            final long nowNs = clock.nanoTime();
            rxReorder.releaseExpired(rxRelease, nowNs);
            rxDelay.deliverDue(nowNs, rxDue, maxFrames, null);
        }
        if (delivered < maxFrames)
        {
            delegate.poll(rxDecide, maxFrames - delivered);
        }
        return delivered;
    }

    /**
     * @return what was injected each way, by kind, with the rules and seed: a snapshot (it allocates; call it when
     *     the traffic is over, or from the link's thread).
     */
    public FaultReport injected()
    {
        return new FaultReport(description, tx.seed(), tx.counts(), rx.counts());
    }

    /**
     * @return e.g. {@code faults 'drop=0.02;seed=7' (seed 7) injected: tx drop=12 ...; rx drop=9 ...}: what was
     *     injected each way (a line for the end of a command), {@link #injected()}'s text.
     */
    public String report()
    {
        return injected().toString();
    }

    private void onReceived(final MutableDirectBuffer received, final int receivedOffset, final int receivedLength)
    {
        frame.wrap(received, receivedOffset, receivedLength);
        rx.decide(frame, received, receivedOffset, receivedLength, destinationIpv4());
        MutableDirectBuffer buffer = received;
        int offset = receivedOffset;
        int length = receivedLength;
        if (rx.mutates())
        {
            length = rx.mutate(received, receivedOffset, receivedLength, rewritten);
            buffer = rewritten;
            offset = 0;
        }
        observeDecided(false, rx, buffer, offset, length);
        if (rx.dropped() || (rx.corrupted() && !delegate.verifiesIcrc()))
        {
            return;
        }
        if (holdBack(rx, rxReorder, rxDelay, buffer, offset, length))
        {
            rx.countHeldBack();
            return;
        }
        final int copies = rx.copies();
        if (copies > 1)
        {
            pristine.putBytes(0, buffer, offset, length);
        }
        deliver(buffer, offset, length);
        for (int i = 1; i < copies; i++)
        {
            copy.putBytes(0, pristine, 0, length);
            deliver(copy, 0, length);
        }
        if (rxReorder.size() > 0)
        {
            rxReorder.onFrameSent(rxRelease);
        }
    }

    private void deliver(final MutableDirectBuffer buffer, final int offset, final int length)
    {
        delivered++;
        handler.onFrame(buffer, offset, length);
    }

    private void deliverHeld(final MutableDirectBuffer buffer, final int offset, final int length)
    {
        if (null != observer)
        {
            observer.onReleased(false, buffer, offset, length);
        }
        deliver(buffer, offset, length);
    }

    private void sendReleased(final DirectBuffer buffer, final int offset, final int length)
    {
        if (null != observer)
        {
            observer.onReleased(true, buffer, offset, length);
        }
        sendCopy(buffer, offset, length);
    }

    /**
     * Hold a frame back when the verdict says so: behind later frames, or until a due time. The copies the verdict
     * asks for are held with it (reorder) or one each (delay).
     *
     * @return true when held (the caller gives up the frame); false when it goes on now (no hold, or no room).
     */
    private boolean holdBack(final FaultInjector faults, final ReorderBuffer<Void> reorder, final DelayLine delay,
        final DirectBuffer buffer, final int offset, final int length)
    {
        final int later = faults.reorderFrames();
        final long delayNs = faults.verdictDelayNs();
        if (0 == later && 0 == delayNs)
        {
            return false;
        }
        final long nowNs = clock.nanoTime();
        final long dueNs = nowNs + delayNs;
        if (later > 0 && reorder.hold(null, buffer, offset, length, later, faults.copies(),
            nowNs + faults.reorderMaxHoldNs(), delayNs > 0, dueNs))
        {
            faults.count(LinkCounter.INJECTED_DELAYS, 1);
            return true;
        }
        if (delayNs > 0)
        {
            for (int i = 0; i < faults.copies(); i++)
            {
                if (!delay.hold(buffer, offset, length, dueNs))
                {
                    return i > 0;
                }
            }
            faults.count(LinkCounter.INJECTED_DELAYS, 1);
            return true;
        }
        return false;
    }

    private void onTxRelease(final Void destination, final DirectBuffer buffer, final int offset, final int length,
        final boolean delayed, final long dueNs)
    {
        if (!delayed || !txDelay.hold(buffer, offset, length, dueNs))
        {
            sendReleased(buffer, offset, length);
        }
    }

    private void onRxRelease(final Void destination, final DirectBuffer buffer, final int offset, final int length,
        final boolean delayed, final long dueNs)
    {
        if (!delayed || !rxDelay.hold(buffer, offset, length, dueNs))
        {
            copy.putBytes(0, buffer, offset, length);
            deliverHeld(copy, 0, length);
        }
    }

    /**
     * Send a frame held here: claim room in the wrapped link (flushing once if it is full), copy, commit. A frame
     * that finds no room is lost, as the wrapped link counts in SEND_BACK_PRESSURE.
     */
    private void sendCopy(final DirectBuffer buffer, final int offset, final int length)
    {
        int index = delegate.tryClaim(length);
        if (index < 0)
        {
            delegate.flush();
            index = delegate.tryClaim(length);
            if (index < 0)
            {
                return;
            }
        }
        delegate.sendBuffer().putBytes(index, buffer, offset, length);
        delegate.commit(index, length);
    }

    private int destinationIpv4()
    {
        return 4 == frame.ipVersion() ? frame.destinationIpv4() : 0;
    }

    /**
     * @return the wrapped link's description and the faults.
     */
    public String toString()
    {
        return delegate + " faults '" + description + "'";
    }
}
