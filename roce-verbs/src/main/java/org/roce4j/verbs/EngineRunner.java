package org.roce4j.verbs;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NanoClock;
import org.roce4j.ib.AsyncEvent;
import org.roce4j.transport.provider.DeviceOps;

/**
 * Who runs an {@link RdmaDevice}'s engine, after its {@link ThreadingMode}: in INVOKER mode the device's
 * {@link ProgressGroup} (the opening thread's by default), in DEDICATED mode an Agrona {@link AgentRunner} thread of
 * its own, whose errors it counts; and a wait that drives the group, or idles while the agent thread works.
 */
final class EngineRunner
{
    /** How long {@link RdmaDevice#open} waits for a dedicated agent thread to start. */
    private static final long START_TIMEOUT_MS = 10_000;

    private final DeviceOps engine;
    private final String name;
    private final ProgressGroup group;
    private final AgentRunner runner;
    private final AtomicLong agentErrors = new AtomicLong();
    private final BackoffIdleStrategy eventBackoff = new BackoffIdleStrategy(10, 20, 1_000, 1_000_000);
    private volatile Throwable lastAgentError;

    /**
     * Join the progress group (INVOKER), or start the agent thread and wait until it runs (DEDICATED).
     *
     * @param engine  the device's engine.
     * @param name    the device's name, for the thread and messages.
     * @param options the threading mode, progress group or idle strategy.
     */
    EngineRunner(final DeviceOps engine, final String name, final DeviceOptions options)
    {
        this.engine = engine;
        this.name = name;
        if (ThreadingMode.INVOKER == options.threadingMode())
        {
            this.group = null != options.progressGroup() ? options.progressGroup() : ProgressGroup.ofCurrentThread();
            this.runner = null;
            group.add(engine);
        }
        else
        {
            final IdleStrategy idle = null != options.idleStrategy() ? options.idleStrategy() :
                new BusySpinIdleStrategy();
            final CountDownLatch started = new CountDownLatch(1);
            this.group = null;
            this.runner = new AgentRunner(idle, this::onAgentError, null, new EngineAgent(started));
            AgentRunner.startOnThread(runner);
            awaitStart(started);
        }
    }

    static void checkOptions(final DeviceOptions options)
    {
        if (ThreadingMode.INVOKER == options.threadingMode() && null != options.idleStrategy())
        {
            throw new IllegalArgumentException("an idle strategy applies to DEDICATED mode only; in INVOKER mode " +
                "give the ProgressGroup one");
        }
        if (ThreadingMode.DEDICATED == options.threadingMode() && null != options.progressGroup())
        {
            throw new IllegalArgumentException("a progress group applies to INVOKER mode only; a DEDICATED device " +
                "has its own agent thread");
        }
    }

    ProgressGroup group()
    {
        return group;
    }

    Thread agentThread()
    {
        return null != runner ? runner.thread() : null;
    }

    long agentErrors()
    {
        return agentErrors.get();
    }

    Throwable lastAgentError()
    {
        return lastAgentError;
    }

    /**
     * @return work done by one duty cycle of the progress group (INVOKER), or 0 (DEDICATED).
     */
    int progress()
    {
        return null != group ? group.progress() : 0;
    }

    /**
     * Wait for the engine's next asynchronous event, driving the progress group while waiting (INVOKER).
     *
     * @param timeoutNs longest wait, in the clock's nanoseconds; Long.MAX_VALUE waits forever.
     * @param clock     the engine's clock.
     * @return the event, or null on timeout.
     */
    AsyncEvent awaitEvent(final long timeoutNs, final NanoClock clock)
    {
        final boolean forever = Long.MAX_VALUE == timeoutNs;
        final long deadline = forever ? Long.MAX_VALUE : clock.nanoTime() + timeoutNs;
        eventBackoff.reset();
        while (true)
        {
            AsyncEvent event = engine.pollEvent();
            if (null != event)
            {
                return event;
            }
            int work = 0;
            if (null != group)
            {
                work = group.progress();
                event = engine.pollEvent();
                if (null != event)
                {
                    return event;
                }
            }
            if (!forever && clock.nanoTime() - deadline >= 0)
            {
                return null;
            }
            if (null != group)
            {
                if (0 == work)
                {
                    group.idle(deadline);
                }
                else
                {
                    group.resetIdle();
                }
            }
            else
            {
                eventBackoff.idle();
            }
        }
    }

    /**
     * Stop the agent thread, which closes the engine (DEDICATED), or leave the group and close the engine (INVOKER).
     */
    void close()
    {
        if (null != runner)
        {
            runner.close();
        }
        else
        {
            group.remove(engine);
            engine.onClose();
        }
    }

    private void awaitStart(final CountDownLatch started)
    {
        try
        {
            if (!started.await(START_TIMEOUT_MS, TimeUnit.MILLISECONDS))
            {
                runner.close();
                throw new IllegalStateException("the engine agent thread of " + name + " did not start within " +
                    START_TIMEOUT_MS + " ms");
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            runner.close();
            throw new IllegalStateException("interrupted while starting the engine agent thread of " + name, ex);
        }
    }

    private void onAgentError(final Throwable error)
    {
        agentErrors.incrementAndGet();
        lastAgentError = error;
    }

    /**
     * The agent run by the dedicated thread: the engine, plus a start signal so {@link RdmaDevice#open} returns only once
     * control calls will be handed to that thread.
     */
    private final class EngineAgent implements Agent
    {
        private final CountDownLatch started;

        EngineAgent(final CountDownLatch started)
        {
            this.started = started;
        }

        /**
         * Record the agent thread as the engine's, then let {@link RdmaDevice#open} return.
         */
        public void onStart()
        {
            engine.onStart();
            started.countDown();
        }

        /**
         * @return work done by one engine duty cycle.
         */
        public int doWork()
        {
            return engine.doWork();
        }

        /**
         * Close the engine and its link.
         */
        public void onClose()
        {
            engine.onClose();
        }

        /**
         * @return the agent thread's name.
         */
        public String roleName()
        {
            return "roce-engine-" + name;
        }
    }
}
