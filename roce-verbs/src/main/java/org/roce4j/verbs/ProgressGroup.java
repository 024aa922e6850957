package org.roce4j.verbs;

import java.util.Arrays;

import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.CachedNanoClock;
import org.agrona.concurrent.IdleStrategy;
import org.roce4j.transport.engine.RoceEngine;

/**
 * The engines that one application thread drives together in {@link ThreadingMode#INVOKER} mode: polling or
 * waiting on any device of the group runs a duty cycle of every engine in it. Two endpoints in one JVM (the demo,
 * tests) must share a group, or a wait on one side would never let the other side answer.
 *
 * <p>When a wait finds every engine idle (a whole round did no work), the group either applies its
 * {@link IdleStrategy} (real time: back off, then try again) or, for simulated time, calls its
 * {@link IdleHandler}, which typically moves an injected clock straight to the next event: the earliest engine
 * timer or the end of the wait. {@link #simulated(CachedNanoClock)} builds such a group, which makes every wait
 * deterministic and instant.
 *
 * <p>Not thread safe: a group belongs to one thread.
 */
public final class ProgressGroup
{
    /**
     * What a wait does when every engine of the group is idle.
     */
    @FunctionalInterface
    public interface IdleHandler
    {
        /**
         * @param earliestTimerNs earliest armed engine timer, or Long.MAX_VALUE when none is armed.
         * @param waitDeadlineNs  the deadline of the wait in progress (engine clock), or Long.MAX_VALUE.
         */
        void onIdle(long earliestTimerNs, long waitDeadlineNs);
    }

    private static final RoceEngine[] NO_ENGINES = new RoceEngine[0];

    private final IdleStrategy idleStrategy;
    private final IdleHandler idleHandler;
    private RoceEngine[] engines = NO_ENGINES;

    /**
     * A real-time group that backs off (spin, yield, then park up to 1 ms) while nothing happens.
     */
    public ProgressGroup()
    {
        // Agrona's usual back-off: 10 spins, 20 yields, then parks from 1 µs growing to 1 ms.
        this(new BackoffIdleStrategy(10, 20, 1_000, 1_000_000));
    }

    /**
     * @param idleStrategy applied by waits when every engine is idle.
     */
    public ProgressGroup(final IdleStrategy idleStrategy)
    {
        this.idleStrategy = requireNonNull(idleStrategy, "idleStrategy");
        this.idleHandler = null;
    }

    /**
     * @param idleHandler called by waits when every engine is idle, instead of an idle strategy.
     */
    public ProgressGroup(final IdleHandler idleHandler)
    {
        this.idleStrategy = null;
        this.idleHandler = requireNonNull(idleHandler, "idleHandler");
    }

    /**
     * A group for simulated time: when every engine is idle, the clock jumps to the earliest engine timer or the
     * end of the wait, whichever comes first. The devices of the group must use this clock in their
     * {@code EngineConfig}.
     *
     * @param clock the clock the devices' engines use.
     * @return the group.
     * @throws IllegalStateException from a wait with no deadline when no timer is armed either (it would hang).
     */
    public static ProgressGroup simulated(final CachedNanoClock clock)
    {
        requireNonNull(clock, "clock");
        return new ProgressGroup((earliestTimerNs, waitDeadlineNs) ->
        {
            final long next = Math.min(earliestTimerNs, waitDeadlineNs);
            if (Long.MAX_VALUE == next)
            {
                throw new IllegalStateException("every engine of the progress group is idle, no timer is armed and " +
                    "the wait has no deadline: it would never end");
            }
            clock.update(Math.max(clock.nanoTime() + 1, next));
        });
    }

    /**
     * Run one duty cycle of every engine in the group.
     *
     * @return total work done (0 when every engine was idle).
     */
    public int progress()
    {
        int work = 0;
        for (final RoceEngine engine : engines)
        {
            work += engine.doWork();
        }
        return work;
    }

    /**
     * @return number of devices in the group.
     */
    public int size()
    {
        return engines.length;
    }

    /**
     * @return the earliest timer armed in any engine of the group, or Long.MAX_VALUE.
     */
    public long earliestDeadlineNs()
    {
        long earliest = Long.MAX_VALUE;
        for (final RoceEngine engine : engines)
        {
            earliest = Math.min(earliest, engine.earliestDeadlineNs());
        }
        return earliest;
    }

    /**
     * Called by a wait after a round with no work.
     *
     * @param waitDeadlineNs the wait's deadline.
     */
    void idle(final long waitDeadlineNs)
    {
        if (null != idleHandler)
        {
            idleHandler.onIdle(earliestDeadlineNs(), waitDeadlineNs);
        }
        else
        {
            idleStrategy.idle();
        }
    }

    /**
     * Called by a spinning wait after a round with no work: simulated time still moves (the idle handler runs);
     * real time spins.
     *
     * @param waitDeadlineNs the wait's deadline.
     */
    void idleBusy(final long waitDeadlineNs)
    {
        if (null != idleHandler)
        {
            idleHandler.onIdle(earliestDeadlineNs(), waitDeadlineNs);
        }
        else
        {
            Thread.onSpinWait();
        }
    }

    /**
     * Called by a wait after a round with work.
     */
    void resetIdle()
    {
        if (null != idleStrategy)
        {
            idleStrategy.reset();
        }
    }

    void add(final RoceEngine engine)
    {
        final RoceEngine[] grown = Arrays.copyOf(engines, engines.length + 1);
        grown[engines.length] = engine;
        engines = grown;
    }

    void remove(final RoceEngine engine)
    {
        int index = -1;
        for (int i = 0; i < engines.length; i++)
        {
            if (engines[i] == engine)
            {
                index = i;
            }
        }
        if (index >= 0)
        {
            final RoceEngine[] shrunk = new RoceEngine[engines.length - 1];
            System.arraycopy(engines, 0, shrunk, 0, index);
            System.arraycopy(engines, index + 1, shrunk, index, engines.length - index - 1);
            engines = shrunk;
        }
    }

    static <T> T requireNonNull(final T value, final String name)
    {
        if (null == value)
        {
            throw new NullPointerException(name + " must not be null");
        }
        return value;
    }
}
