package org.roce4j.verbs;

import java.util.Arrays;

import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.NanoClock;

/**
 * A completion event channel (struct ibv_comp_channel): one thread waits on it for the CQs bound to it, however many.
 * The libibverbs sequence, and its roce4j shape:
 *
 * <pre>{@code
 * CompletionChannel channel = device.createCompChannel();        // ibv_create_comp_channel
 * CompletionQueue cq = device.createCq(256, channel);            // ibv_create_cq(..., channel, 0)
 * cq.requestNotify(false);                                       // ibv_req_notify_cq
 * while (running)
 * {
 *     CompletionQueue fired = channel.getCqEvent(timeoutNs);     // ibv_get_cq_event: which CQ fired
 *     if (null == fired) { continue; }                           // (a timeout; libibverbs blocks or is non-blocking)
 *     fired.ackEvents(1);                                        // ibv_ack_cq_events (may be batched)
 *     fired.requestNotify(false);                                // re-arm first, then poll: nothing is missed
 *     while (fired.poll(wc) > 0) { ... }                         // ibv_poll_cq until empty
 * }
 * }</pre>
 *
 * <p>An armed CQ fires once, for the first completion added after it was armed (completions already queued when it
 * was armed do not fire it), and is disarmed by firing. Every event {@link #getCqEvent} returns is counted on its CQ
 * and must be acknowledged ({@link CompletionQueue#ackEvents(int)}) before the CQ is destroyed: libibverbs'
 * ibv_destroy_cq waits until every event is acknowledged; roce4j throws instead, naming the count, because a wait
 * nothing will end is a silent hang. {@link #close()} (ibv_destroy_comp_channel) fails while CQs still use the
 * channel, as libibverbs returns EBUSY.
 *
 * <p>Threading: one thread waits on a channel at a time, and the same thread arms, acknowledges and polls its CQs
 * (the CQ rule: one thread at a time). In {@link ThreadingMode#INVOKER} mode waiting drives the device's progress
 * group, as every CQ wait does; in {@link ThreadingMode#DEDICATED} mode it checks the CQs and backs off (spin, yield,
 * then park up to 100 microseconds) while the agent thread runs the engine.
 */
public final class CompletionChannel implements AutoCloseable
{
    private static final CompletionQueue[] NO_CQS = new CompletionQueue[0];

    private final RdmaDevice device;
    private final ProgressGroup group;
    private final NanoClock clock;
    // Agrona's back-off, capped at 100 µs parks: an event wakes the waiter within that in DEDICATED mode.
    private final BackoffIdleStrategy backoff = new BackoffIdleStrategy(10, 20, 1_000, 100_000);
    private volatile CompletionQueue[] cqs = NO_CQS;
    private int next;
    private volatile boolean closed;

    CompletionChannel(final RdmaDevice device)
    {
        this.device = device;
        this.group = device.progressGroup();
        this.clock = device.clock();
    }

    /**
     * @return the device.
     */
    public RdmaDevice device()
    {
        return device;
    }

    /**
     * Wait for the next event of an armed CQ bound to this channel (ibv_get_cq_event). The event disarms the CQ and
     * counts as one unacknowledged event on it. Does not take completions: poll them afterwards.
     *
     * @param timeoutNs longest wait (engine clock); 0 checks once; Long.MAX_VALUE waits forever.
     * @return the CQ whose event fired, or null when the time ran out.
     * @throws IllegalStateException when the channel or its device is closed.
     */
    public CompletionQueue getCqEvent(final long timeoutNs)
    {
        checkOpen();
        RdmaDevice.requireTimeout(timeoutNs);
        final boolean forever = Long.MAX_VALUE == timeoutNs;
        final long deadlineNs = forever ? Long.MAX_VALUE : clock.nanoTime() + timeoutNs;
        backoff.reset();
        while (true)
        {
            int work = 0;
            if (null != group)
            {
                work = group.progress();
            }
            final CompletionQueue fired = takeEvent();
            if (null != fired)
            {
                if (null != group)
                {
                    group.resetIdle();
                }
                return fired;
            }
            if (!forever && clock.nanoTime() - deadlineNs >= 0)
            {
                return null;
            }
            if (null == group)
            {
                backoff.idle();
            }
            else if (0 == work)
            {
                group.idle(deadlineNs);
            }
            else
            {
                group.resetIdle();
            }
        }
    }

    /**
     * @return the CQs bound to this channel and not destroyed.
     */
    public int cqCount()
    {
        return cqs.length;
    }

    /**
     * Destroy the channel (ibv_destroy_comp_channel). Idempotent once it succeeded.
     *
     * @throws IllegalStateException while CQs still use it (libibverbs: EBUSY); destroy them first.
     */
    public void close()
    {
        synchronized (this)
        {
            final int users = cqs.length;
            if (0 != users)
            {
                throw new IllegalStateException("the completion channel is still used by " + users + " CQ" +
                    (1 == users ? "" : "s") + " " + Arrays.toString(cqs) + "; destroy them first (libibverbs " +
                    "returns EBUSY)");
            }
            closed = true;
        }
    }

    /**
     * @return true once closed.
     */
    public boolean isClosed()
    {
        return closed;
    }

    /**
     * @return e.g. {@code CompletionChannel(2 CQs)}.
     */
    public String toString()
    {
        return "CompletionChannel(" + cqs.length + " CQs" + (closed ? ", closed" : "") + ")";
    }

    void bind(final CompletionQueue cq)
    {
        synchronized (this)
        {
            checkOpen();
            final CompletionQueue[] grown = Arrays.copyOf(cqs, cqs.length + 1);
            grown[cqs.length] = cq;
            cqs = grown;
        }
    }

    void unbind(final CompletionQueue cq)
    {
        synchronized (this)
        {
            final CompletionQueue[] current = cqs;
            final CompletionQueue[] shrunk = new CompletionQueue[current.length - 1];
            int j = 0;
            for (final CompletionQueue each : current)
            {
                if (each != cq)
                {
                    shrunk[j++] = each;
                }
            }
            cqs = shrunk;
        }
    }

    void checkOpen()
    {
        if (closed)
        {
            throw new IllegalStateException("the completion channel is closed");
        }
        device.checkOpen();
    }

    /**
     * One pass over the bound CQs, starting after the one that fired last so a busy CQ cannot starve the others.
     */
    private CompletionQueue takeEvent()
    {
        final CompletionQueue[] current = cqs;
        final int n = current.length;
        for (int i = 0; i < n; i++)
        {
            final int index = (next + i) % n;
            final CompletionQueue cq = current[index];
            if (cq.fireEvent())
            {
                next = index + 1;
                return cq;
            }
        }
        return null;
    }
}
