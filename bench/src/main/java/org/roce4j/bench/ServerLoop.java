package org.roce4j.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * Drives the server endpoint of a benchmark: a busy loop of {@link Step#step()} (which runs the server's engine,
 * directly or by polling one of its CQs, and does whatever the server side does) on a thread of its own, or, when
 * both endpoints share one thread, one step each time the client calls {@link #poke()}.
 */
public final class ServerLoop implements AutoCloseable
{
    /**
     * One turn of the server's loop.
     */
    @FunctionalInterface
    public interface Step
    {
        /**
         * Run the engine once and react to what it did.
         */
        void step();
    }

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final Step step;
    private final Thread thread;
    private volatile boolean running = true;
    private volatile Throwable failure;

    /**
     * Start the loop on a thread of its own.
     *
     * @param name thread name.
     * @param step what each turn does.
     */
    public ServerLoop(final String name, final Step step)
    {
        this(name, step, false);
    }

    /**
     * @param name   thread name.
     * @param step   what each turn does.
     * @param inline true to run no thread: the client thread calls {@link #poke()}.
     */
    public ServerLoop(final String name, final Step step, final boolean inline)
    {
        this.step = step;
        if (inline)
        {
            thread = null;
            return;
        }
        thread = new Thread(() ->
        {
            try
            {
                while (running)
                {
                    step.step();
                }
            }
            catch (final Throwable ex)
            {
                failure = ex;
            }
        }, name);
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * Run one step when there is no thread of its own; nothing otherwise. Call from the client's wait loops.
     */
    public void poke()
    {
        if (null == thread)
        {
            step.step();
        }
    }

    /**
     * @return CPU time the loop's own thread has used so far, in nanoseconds; 0 when it has none.
     */
    public long cpuTimeNs()
    {
        return null == thread ? 0 : Math.max(0, THREADS.getThreadCpuTime(thread.getId()));
    }

    /**
     * @return CPU time the calling thread has used so far, in nanoseconds.
     */
    public static long currentThreadCpuTimeNs()
    {
        return THREADS.getCurrentThreadCpuTime();
    }

    /**
     * @return true while the loop runs without having failed.
     */
    public boolean isHealthy()
    {
        return null == failure && (null == thread || thread.isAlive());
    }

    /**
     * Stop the loop, wait for its thread and rethrow what it failed with, if anything.
     */
    public void close()
    {
        running = false;
        if (null == thread)
        {
            return;
        }
        try
        {
            thread.join();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while stopping " + thread.getName(), ex);
        }
        final Throwable ex = failure;
        if (null != ex)
        {
            throw new IllegalStateException(thread.getName() + " failed: " + ex, ex);
        }
    }
}
