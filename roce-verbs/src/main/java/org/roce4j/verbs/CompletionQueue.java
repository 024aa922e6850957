package org.roce4j.verbs;

import java.util.concurrent.locks.LockSupport;

import org.agrona.concurrent.NanoClock;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.transport.provider.CqOps;

/**
 * A completion queue (struct ibv_cq): send and receive completions of the QPs attached to it, polled into
 * caller-allocated {@link WorkCompletion} objects without allocating.
 *
 * <p>Polling and waiting ({@link #poll}, {@link #pollBusy}, {@link #pollBlocking}, {@link #pollHybrid},
 * {@link #awaitEvent}) must come from one thread at a time. In {@link ThreadingMode#INVOKER} mode each of them
 * first runs a duty cycle of the device's progress group, so polling is what moves the engine; a "blocking" wait
 * keeps driving the group and applies the group's idle strategy (or idle handler) between idle rounds instead of
 * parking, because no other thread would wake it. In {@link ThreadingMode#DEDICATED} mode polling only reads the
 * ring; {@link #pollBlocking} parks the thread until the engine publishes a completion.
 *
 * <p>Event-style waiting (ibv_req_notify_cq + ibv_get_cq_event): {@link #requestNotify(boolean)} arms the CQ for
 * the next completion added after the call; {@link #awaitEvent(long)} waits for it and disarms. As with libibverbs,
 * completions already in the queue when arming do not fire it: poll until empty, arm, poll again, then wait. A CQ
 * created with a {@link CompletionChannel} delivers its events to the channel instead, where one thread waits for
 * the events of many CQs; each of those events must be acknowledged ({@link #ackEvents(int)}) before the CQ is
 * destroyed.
 *
 * <p>Polling fills caller-provided {@link WorkCompletion} objects, as ibv_poll_cq fills caller-provided structs;
 * an element that is still null when a completion is due for it is allocated once, so
 * {@code cq.poll(new WorkCompletion[16])} works and a reused array allocates nothing after its first polls.
 */
public final class CompletionQueue
{
    private final RdmaDevice device;
    private final CqOps ring;
    private final ProgressGroup group;
    private final NanoClock clock;
    private final CompletionChannel channel;
    private int uses;
    private volatile boolean destroyed;
    private long consumed;
    private long armedAt = -1;
    private long eventsReported;
    private long eventsAcked;

    CompletionQueue(final RdmaDevice device, final CqOps ring, final CompletionChannel channel)
    {
        this.device = device;
        this.ring = ring;
        this.group = device.progressGroup();
        this.clock = device.clock();
        this.channel = channel;
        if (null != channel)
        {
            channel.bind(this);
        }
    }

    /**
     * @return the completion channel its events go to, or null.
     */
    public CompletionChannel channel()
    {
        return channel;
    }

    /**
     * @return the device.
     */
    public RdmaDevice device()
    {
        return device;
    }

    /**
     * @return the CQ's handle (the element of its CQ_ERR events).
     */
    public int handle()
    {
        return ring.handle();
    }

    /**
     * @return entries it holds (cqe).
     */
    public int cqe()
    {
        return ring.depth();
    }

    /**
     * @return completions waiting to be polled (does not run the engine).
     */
    public int size()
    {
        return ring.size();
    }

    /**
     * @return true once a completion did not fit (the QP that produced it went to ERR and CQ_ERR was raised).
     */
    public boolean hasOverflowed()
    {
        return ring.hasOverflowed();
    }

    /**
     * Poll (ibv_poll_cq) into the whole array.
     *
     * @param out completions to fill from index 0; null elements are allocated when a completion is due for them.
     * @return number filled; less than {@code out.length} means the CQ is now empty.
     */
    public int poll(final WorkCompletion[] out)
    {
        return poll(ProgressGroup.requireNonNull(out, "out"), 0, out.length);
    }

    /**
     * Poll (ibv_poll_cq). In INVOKER mode, first runs one duty cycle of the progress group.
     *
     * @param out    completions to fill.
     * @param offset first index of {@code out} to fill.
     * @param max    most completions to take.
     * @return number filled.
     */
    public int poll(final WorkCompletion[] out, final int offset, final int max)
    {
        checkArgs(out, offset, max);
        if (null != group)
        {
            group.progress();
        }
        return take(out, offset, max);
    }

    /**
     * Spin until at least one completion arrives or the timeout passes, never yielding the CPU.
     *
     * @param out       completions to fill from index 0.
     * @param timeoutNs longest wait (engine clock); 0 polls once; Long.MAX_VALUE waits forever.
     * @return number filled, 0 on timeout.
     */
    public int pollBusy(final WorkCompletion[] out, final long timeoutNs)
    {
        return await(out, 0, timeoutNs);
    }

    /**
     * Wait for at least one completion without burning a core where possible: DEDICATED mode parks until the
     * engine publishes one; INVOKER mode drives the progress group and applies its idle strategy between idle
     * rounds.
     *
     * @param out       completions to fill from index 0.
     * @param timeoutNs longest wait (engine clock); Long.MAX_VALUE waits forever.
     * @return number filled, 0 on timeout.
     */
    public int pollBlocking(final WorkCompletion[] out, final long timeoutNs)
    {
        return await(out, -1, timeoutNs);
    }

    /**
     * Spin for up to {@code spinNs}, then wait as {@link #pollBlocking} does for the rest of the timeout.
     *
     * @param out       completions to fill from index 0.
     * @param spinNs    how long to spin first.
     * @param timeoutNs longest wait in total (engine clock); Long.MAX_VALUE waits forever.
     * @return number filled, 0 on timeout.
     */
    public int pollHybrid(final WorkCompletion[] out, final long spinNs, final long timeoutNs)
    {
        if (spinNs < 0)
        {
            throw new IllegalArgumentException("spinNs must be >= 0, got " + spinNs);
        }
        return await(out, spinNs, timeoutNs);
    }

    /**
     * @param out       completions to fill.
     * @param spinNs    0: spin for the whole wait; -1: block for the whole wait; else spin that long then block.
     * @param timeoutNs total wait.
     */
    private int await(final WorkCompletion[] out, final long spinNs, final long timeoutNs)
    {
        checkArgs(ProgressGroup.requireNonNull(out, "out"), 0, out.length);
        if (0 == out.length)
        {
            throw new IllegalArgumentException("out must hold at least one WorkCompletion to wait for one");
        }
        RdmaDevice.requireTimeout(timeoutNs);
        final boolean forever = Long.MAX_VALUE == timeoutNs;
        final long startNs = clock.nanoTime();
        final long deadlineNs = forever ? Long.MAX_VALUE : startNs + timeoutNs;
        final boolean spinOnly = 0 == spinNs;
        final long spinDeadlineNs = spinNs > 0 ? startNs + spinNs : startNs;
        final int max = out.length;
        while (true)
        {
            int work = 0;
            if (null != group)
            {
                work = group.progress();
            }
            final int n = take(out, 0, max);
            if (n > 0)
            {
                if (null != group)
                {
                    group.resetIdle();
                }
                return n;
            }
            final long nowNs = clock.nanoTime();
            if (!forever && nowNs - deadlineNs >= 0)
            {
                return 0;
            }
            final boolean spinning = spinOnly || nowNs - spinDeadlineNs < 0;
            if (null != group)
            {
                if (0 != work)
                {
                    group.resetIdle();
                }
                else if (spinning)
                {
                    group.idleBusy(deadlineNs);
                }
                else
                {
                    group.idle(deadlineNs);
                }
            }
            else if (spinning)
            {
                Thread.onSpinWait();
            }
            else
            {
                // The engine unparks a registered waiter after publishing a completion.
                ring.awaitCompletion(forever ? Long.MAX_VALUE : deadlineNs - nowNs);
            }
        }
    }

    /**
     * Arm the CQ (ibv_req_notify_cq): the next completion added after this call fires one event for
     * {@link #awaitEvent(long)}.
     *
     * @param solicitedOnly must be false: solicited-only notification needs the engine to record, per completion,
     *                      whether the message carried the Solicited Event bit, which it does not yet.
     * @throws UnsupportedOperationException for solicitedOnly = true.
     */
    public void requestNotify(final boolean solicitedOnly)
    {
        checkUsable();
        if (solicitedOnly)
        {
            throw new UnsupportedOperationException("solicited-only CQ notification is not supported: the engine " +
                "does not record the Solicited Event bit per completion; use requestNotify(false)");
        }
        armedAt = consumed + ring.size();
    }

    /**
     * @return true while armed and no event has fired yet.
     */
    public boolean isArmed()
    {
        return armedAt >= 0;
    }

    /**
     * Wait for the event armed by {@link #requestNotify(boolean)} (ibv_get_cq_event); disarms when it fires. Does not
     * take the completions: poll them afterwards.
     *
     * @param timeoutNs longest wait (engine clock); Long.MAX_VALUE waits forever.
     * @return true when the event fired, false on timeout (still armed).
     * @throws IllegalStateException when the CQ is not armed.
     */
    public boolean awaitEvent(final long timeoutNs)
    {
        checkUsable();
        RdmaDevice.requireTimeout(timeoutNs);
        if (null != channel)
        {
            throw new IllegalStateException("CQ " + handle() + " delivers its events to its completion channel: " +
                "wait with channel().getCqEvent(timeoutNs)");
        }
        if (armedAt < 0)
        {
            throw new IllegalStateException("CQ " + handle() + " is not armed: call requestNotify(false) first");
        }
        final boolean forever = Long.MAX_VALUE == timeoutNs;
        final long deadlineNs = forever ? Long.MAX_VALUE : clock.nanoTime() + timeoutNs;
        while (true)
        {
            int work = 0;
            if (null != group)
            {
                work = group.progress();
            }
            if (consumed + ring.size() > armedAt)
            {
                armedAt = -1;
                return true;
            }
            final long nowNs = clock.nanoTime();
            if (!forever && nowNs - deadlineNs >= 0)
            {
                return false;
            }
            if (null != group)
            {
                if (0 == work)
                {
                    group.idle(deadlineNs);
                }
                else
                {
                    group.resetIdle();
                }
            }
            else if (0 == ring.size())
            {
                ring.awaitCompletion(forever ? Long.MAX_VALUE : deadlineNs - nowNs);
            }
            else
            {
                // Older completions are still queued, so the ring will not park us: back off briefly instead.
                LockSupport.parkNanos(Math.min(1_000L, Math.max(1L, deadlineNs - nowNs)));
            }
        }
    }

    /**
     * Acknowledge events {@link CompletionChannel#getCqEvent} returned for this CQ (ibv_ack_cq_events). Acknowledging
     * in batches is fine, as in libibverbs (one call for many events is cheaper there: it takes a mutex).
     *
     * @param count events to acknowledge, 0 to {@link #unackedEvents()}.
     * @throws IllegalArgumentException for a negative count or more than are unacknowledged.
     */
    public void ackEvents(final int count)
    {
        if (count < 0 || count > eventsReported - eventsAcked)
        {
            throw new IllegalArgumentException("cannot acknowledge " + count + " events on CQ " + handle() + ": " +
                (eventsReported - eventsAcked) + " unacknowledged (" + eventsReported + " reported)");
        }
        eventsAcked += count;
    }

    /**
     * @return events the channel reported for this CQ so far.
     */
    public long eventsReported()
    {
        return eventsReported;
    }

    /**
     * @return events reported and not yet acknowledged.
     */
    public long unackedEvents()
    {
        return eventsReported - eventsAcked;
    }

    /**
     * Destroy the CQ (ibv_destroy_cq).
     *
     * @throws IllegalStateException while a QP still uses it (IBA C11-17), while events are unacknowledged
     *                               (libibverbs' ibv_destroy_cq would wait for them forever in a single thread), or
     *                               when already destroyed.
     */
    public void destroy()
    {
        synchronized (this)
        {
            if (destroyed)
            {
                throw new IllegalStateException("CQ " + handle() + " is already destroyed");
            }
            if (0 != uses)
            {
                throw new IllegalStateException("CQ " + handle() + " is still used by " + uses + " queue pair" +
                    (1 == uses ? "" : "s") + "; destroy them first (IBA C11-17)");
            }
            final long unacked = eventsReported - eventsAcked;
            if (0 != unacked)
            {
                throw new IllegalStateException("CQ " + handle() + " has " + unacked + " unacknowledged completion " +
                    "event" + (1 == unacked ? "" : "s") + ": call ackEvents(" + unacked + ") first (libibverbs' " +
                    "ibv_destroy_cq waits until every event is acknowledged)");
            }
            destroyed = true;
        }
        if (null != channel)
        {
            channel.unbind(this);
        }
    }

    /**
     * @return true once destroyed.
     */
    public boolean isDestroyed()
    {
        return destroyed;
    }

    /**
     * @return e.g. {@code CQ 4 (cqe=256, 3 waiting)}.
     */
    public String toString()
    {
        return "CQ " + handle() + " (cqe=" + cqe() + ", " + size() + " waiting" + (destroyed ? ", destroyed" : "") +
            ")";
    }

    CqOps ops()
    {
        return ring;
    }

    void addUse()
    {
        synchronized (this)
        {
            uses++;
        }
    }

    void releaseUse()
    {
        synchronized (this)
        {
            uses--;
        }
    }

    /**
     * For {@link CompletionChannel}: fire the armed event when a completion arrived since arming; disarms and counts.
     */
    boolean fireEvent()
    {
        if (armedAt >= 0 && !destroyed && consumed + ring.size() > armedAt)
        {
            armedAt = -1;
            eventsReported++;
            return true;
        }
        return false;
    }

    private int take(final WorkCompletion[] out, final int offset, final int max)
    {
        // Take no more than are waiting now, so every slot filled was checked for null first (the engine may add
        // completions meanwhile in DEDICATED mode; they wait for the next poll).
        final int n = Math.min(max, ring.size());
        if (0 == n)
        {
            return 0;
        }
        for (int i = offset; i < offset + n; i++)
        {
            if (null == out[i])
            {
                out[i] = new WorkCompletion();
            }
        }
        final int taken = ring.poll(out, offset, n);
        consumed += taken;
        return taken;
    }

    private void checkArgs(final WorkCompletion[] out, final int offset, final int max)
    {
        if (destroyed)
        {
            throw new IllegalStateException("CQ " + ring.handle() + " was destroyed");
        }
        device.checkOpen();
        if (null == out)
        {
            throw new NullPointerException("out must not be null");
        }
        if (offset < 0 || max < 0 || offset + max > out.length)
        {
            throw new IllegalArgumentException("offset " + offset + " + max " + max + " exceeds the array length " +
                out.length);
        }
    }

    private void checkUsable()
    {
        if (destroyed)
        {
            throw new IllegalStateException("CQ " + ring.handle() + " was destroyed");
        }
        device.checkOpen();
    }
}
