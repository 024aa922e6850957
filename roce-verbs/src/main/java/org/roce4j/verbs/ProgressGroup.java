package org.roce4j.verbs;

import java.util.Arrays;
import java.util.function.BooleanSupplier;

import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.CachedNanoClock;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NanoClock;
import org.roce4j.transport.provider.DeviceOps;

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
 * <p>{@link ProgressTask}s added with {@link #addTask(ProgressTask)} run after the engines in every round; their
 * deadlines count as timers.
 *
 * <p>Default group: an INVOKER device opened without a group of its own joins the group of the thread that opens it
 * ({@link #ofCurrentThread()}). So the devices one thread opens, and then drives, run together whichever of them it
 * polls: two devices opened with {@code RdmaDevice.open(link)} and driven by one thread answer each other. (Before,
 * each got a private group, a wait on one never ran the other's engine, and the wait ended in retransmission
 * timeouts with nothing saying why.) A program with a thread per device opens each device on its thread, or gives
 * each one its own group ({@code DeviceOptions.invoker().progressGroup(new ProgressGroup())}).
 *
 * <p>Not thread safe: a group belongs to one thread, the first that runs it. Another thread that runs it while that
 * one is alive gets an {@link IllegalStateException} naming both threads, instead of racing on the engines.
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

    private static final DeviceOps[] NO_ENGINES = new DeviceOps[0];
    private static final ProgressTask[] NO_TASKS = new ProgressTask[0];
    private static final ThreadLocal<ProgressGroup> THREAD_DEFAULT = ThreadLocal.withInitial(ProgressGroup::new);

    private final IdleStrategy idleStrategy;
    private final IdleHandler idleHandler;
    private DeviceOps[] engines = NO_ENGINES;
    private ProgressTask[] tasks = NO_TASKS;
    /** The thread that runs this group: the first to call {@link #progress()}. */
    private volatile Thread owner;

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
     * The calling thread's default group, which INVOKER devices opened on this thread without a group join.
     *
     * @return the group (a real-time group with the default back-off), made on first use.
     */
    public static ProgressGroup ofCurrentThread()
    {
        return THREAD_DEFAULT.get();
    }

    /**
     * Run one duty cycle of every engine in the group, then one round of every task.
     *
     * @return total work done (0 when every engine and task was idle).
     * @throws IllegalStateException when another live thread runs this group.
     */
    public int progress()
    {
        if (Thread.currentThread() != owner)
        {
            claim();
        }
        int work = 0;
        for (final DeviceOps engine : engines)
        {
            work += engine.doWork();
        }
        for (final ProgressTask task : tasks)
        {
            work += task.doWork();
        }
        return work;
    }

    /**
     * Drive the group until a condition holds or the deadline passes, idling between rounds that did no work (real
     * time: the idle strategy; simulated time: the idle handler moves the clock).
     *
     * @param condition  checked after every round (and once before the first).
     * @param deadlineNs engine-clock deadline; Long.MAX_VALUE for none.
     * @param clock      the engines' clock.
     * @return true when the condition holds, false when the deadline passed first.
     */
    public boolean waitUntil(
        final BooleanSupplier condition, final long deadlineNs, final NanoClock clock)
    {
        requireNonNull(condition, "condition");
        requireNonNull(clock, "clock");
        while (true)
        {
            if (condition.getAsBoolean())
            {
                resetIdle();
                return true;
            }
            final int work = progress();
            if (condition.getAsBoolean())
            {
                resetIdle();
                return true;
            }
            if (Long.MAX_VALUE != deadlineNs && clock.nanoTime() - deadlineNs >= 0)
            {
                return false;
            }
            if (0 == work)
            {
                idle(deadlineNs);
            }
            else
            {
                resetIdle();
            }
        }
    }

    /**
     * Add a task that runs after the engines in every round.
     *
     * @param task the task.
     * @throws IllegalStateException when it is already in the group.
     */
    public void addTask(final ProgressTask task)
    {
        requireNonNull(task, "task");
        for (final ProgressTask existing : tasks)
        {
            if (existing == task)
            {
                throw new IllegalStateException("the task is already in this progress group");
            }
        }
        final ProgressTask[] grown = Arrays.copyOf(tasks, tasks.length + 1);
        grown[tasks.length] = task;
        tasks = grown;
    }

    /**
     * Remove a task; nothing happens when it is not in the group.
     *
     * @param task the task.
     */
    public void removeTask(final ProgressTask task)
    {
        int index = -1;
        for (int i = 0; i < tasks.length; i++)
        {
            if (tasks[i] == task)
            {
                index = i;
            }
        }
        if (index >= 0)
        {
            final ProgressTask[] shrunk = new ProgressTask[tasks.length - 1];
            System.arraycopy(tasks, 0, shrunk, 0, index);
            System.arraycopy(tasks, index + 1, shrunk, index, tasks.length - index - 1);
            tasks = shrunk;
        }
    }

    /**
     * @return number of tasks in the group.
     */
    public int taskCount()
    {
        return tasks.length;
    }

    /**
     * @return number of devices in the group.
     */
    public int size()
    {
        return engines.length;
    }

    /**
     * @return the earliest timer armed in any engine or task of the group, or Long.MAX_VALUE.
     */
    public long earliestDeadlineNs()
    {
        long earliest = Long.MAX_VALUE;
        for (final DeviceOps engine : engines)
        {
            earliest = Math.min(earliest, engine.earliestDeadlineNs());
        }
        for (final ProgressTask task : tasks)
        {
            earliest = Math.min(earliest, task.earliestDeadlineNs());
        }
        return earliest;
    }

    /**
     * @return the thread that runs this group, or null before its first round.
     */
    public Thread owner()
    {
        return owner;
    }

    private synchronized void claim()
    {
        final Thread current = Thread.currentThread();
        final Thread previous = owner;
        if (null != previous && previous != current && previous.isAlive())
        {
            throw new IllegalStateException("progress group " + this + " is run by thread '" + previous.getName() +
                "' and thread '" + current.getName() + "' tried to run it too: a progress group (and every INVOKER " +
                "device in it) belongs to one thread. Devices opened without a group join the group of the thread " +
                "that opens them: open each device on the thread that drives it, give each its own group with " +
                "DeviceOptions.invoker().progressGroup(new ProgressGroup()), or use DeviceOptions.dedicated()");
        }
        owner = current;
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

    void add(final DeviceOps engine)
    {
        final DeviceOps[] grown = Arrays.copyOf(engines, engines.length + 1);
        grown[engines.length] = engine;
        engines = grown;
    }

    void remove(final DeviceOps engine)
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
            final DeviceOps[] shrunk = new DeviceOps[engines.length - 1];
            System.arraycopy(engines, 0, shrunk, 0, index);
            System.arraycopy(engines, index + 1, shrunk, index, engines.length - index - 1);
            engines = shrunk;
        }
    }

    /**
     * @return e.g. {@code ProgressGroup@1b6d3586{engines=2, tasks=1}}.
     */
    public String toString()
    {
        return "ProgressGroup@" + Integer.toHexString(System.identityHashCode(this)) + "{engines=" + engines.length +
            ", tasks=" + tasks.length + "}";
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
