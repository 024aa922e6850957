package org.roce4j.cm.oob;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;

/**
 * "Retry until a deadline, with a pause between attempts": the one home of the out-of-band connection loops
 * (ibv_*_pingpong's and perftest's TCP exchange, perftest's rdma_cm connection, a peer behind QEMU's port forwarding
 * that accepts and closes before its server listens). The caller keeps its own loop, exceptions and messages:
 *
 * <pre>{@code
 * final RetryDeadline retry = RetryDeadline.after(retryFor, PAUSE_NS);
 * while (true)
 * {
 *     try { return attempt(); }
 *     catch (final ConnectException ex)
 *     {
 *         if (retry.expired()) { throw new IOException("Couldn't connect to ...", ex); }
 *         retry.pause();
 *     }
 * }
 * }</pre>
 *
 * The deadline starts when the object is made; the clock and the pause are injected, so a test drives it without
 * sleeping.
 */
public final class RetryDeadline
{
    /** How a pause is taken. */
    @FunctionalInterface
    public interface Sleeper
    {
        /**
         * @param pauseNs how long to pause, in nanoseconds.
         */
        void pause(long pauseNs);
    }

    /** Parks the calling thread ({@link LockSupport#parkNanos(long)}): yields the CPU for about the pause. */
    public static final Sleeper PARK = LockSupport::parkNanos;

    private final NanoClock clock;
    private final Sleeper sleeper;
    private final long deadlineNs;
    private final long pauseNs;

    /**
     * @param clock    the clock the deadline is read on.
     * @param sleeper  takes the pauses.
     * @param retryFor how long from now attempts may be retried (zero: the first failure is final).
     * @param pauseNs  the pause between attempts, in nanoseconds.
     */
    public RetryDeadline(final NanoClock clock, final Sleeper sleeper, final Duration retryFor, final long pauseNs)
    {
        if (null == clock || null == sleeper || null == retryFor)
        {
            throw new NullPointerException("clock, sleeper and retryFor must not be null");
        }
        if (retryFor.isNegative() || pauseNs < 0)
        {
            throw new IllegalArgumentException("retryFor and pauseNs must not be negative, got " + retryFor + " and " +
                pauseNs);
        }
        this.clock = clock;
        this.sleeper = sleeper;
        this.deadlineNs = clock.nanoTime() + retryFor.toNanos();
        this.pauseNs = pauseNs;
    }

    /**
     * A deadline on the system's monotonic clock, pausing by parking the thread.
     *
     * @param retryFor how long from now attempts may be retried.
     * @param pauseNs  the pause between attempts, in nanoseconds.
     * @return the deadline.
     */
    public static RetryDeadline after(final Duration retryFor, final long pauseNs)
    {
        return new RetryDeadline(SystemNanoClock.INSTANCE, PARK, retryFor, pauseNs);
    }

    /**
     * @return true once the deadline has passed: the failure just seen is final.
     */
    public boolean expired()
    {
        return clock.nanoTime() - deadlineNs >= 0;
    }

    /**
     * Pause before the next attempt.
     */
    public void pause()
    {
        sleeper.pause(pauseNs);
    }
}
