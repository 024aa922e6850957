package org.roce4j.transport.provider;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;

/**
 * Commands for a thread that owns some state (the engine's agent, the rdma_cm thread), queued by any thread and run
 * by the owner on its duty cycle. {@link #call} runs a command on the owner and waits for its result, or, when the
 * caller is the owner or no owner thread runs (invoker mode), at once on the caller's thread.
 *
 * <p>The queue is bounded (Agrona's many-to-one array queue, no allocation per offer); a caller finding it full
 * spins until the owner makes room.
 */
public final class CommandQueue
{
    /** Commands the owner may hold before callers wait for room: far more than control traffic ever queues. */
    private static final int CAPACITY = 1024;

    private final ManyToOneConcurrentArrayQueue<Runnable> commands = new ManyToOneConcurrentArrayQueue<>(CAPACITY);
    private final String ownerName;
    private final long timeoutMs;

    /**
     * @param ownerName what the owner thread is called in error messages, e.g. "the engine thread".
     * @param timeoutMs how long {@link #call} waits for the owner to run a command.
     */
    public CommandQueue(final String ownerName, final long timeoutMs)
    {
        this.ownerName = ownerName;
        this.timeoutMs = timeoutMs;
    }

    /**
     * Run a command on the owner thread and return its result.
     *
     * @param runHere true when the caller is the owner, or no owner thread runs (invoker mode): the command then
     *                runs at once on the caller's thread.
     * @param command what to run.
     * @param <T>     its result type.
     * @return the command's result.
     * @throws IllegalStateException wrapping a checked exception of the command, or when the owner does not run the
     *                               command within the timeout, or when the caller is interrupted while waiting.
     */
    public <T> T call(final boolean runHere, final Callable<T> command)
    {
        if (runHere)
        {
            try
            {
                return command.call();
            }
            catch (final RuntimeException ex)
            {
                throw ex;
            }
            catch (final Exception ex)
            {
                throw new IllegalStateException(ex);
            }
        }
        final CompletableFuture<T> future = new CompletableFuture<>();
        offer(() ->
        {
            try
            {
                future.complete(command.call());
            }
            catch (final Throwable ex)
            {
                future.completeExceptionally(ex);
            }
        });
        try
        {
            return future.get(timeoutMs, TimeUnit.MILLISECONDS);
        }
        catch (final ExecutionException ex)
        {
            final Throwable cause = ex.getCause();
            if (cause instanceof RuntimeException)
            {
                throw (RuntimeException)cause;
            }
            throw new IllegalStateException(cause);
        }
        catch (final TimeoutException ex)
        {
            throw new IllegalStateException(ownerName + " did not run a command within " + timeoutMs +
                " ms (is it running?)", ex);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + ownerName, ex);
        }
    }

    /**
     * Queue a command without waiting for it (any thread); spins while the queue is full.
     *
     * @param command what the owner runs.
     */
    public void offer(final Runnable command)
    {
        while (!commands.offer(command))
        {
            Thread.onSpinWait();
        }
    }

    /**
     * Run every queued command (owner thread only).
     *
     * @return how many ran.
     */
    public int drain()
    {
        int n = 0;
        Runnable command;
        while (null != (command = commands.poll()))
        {
            command.run();
            n++;
        }
        return n;
    }

    /**
     * @return true when no command waits.
     */
    public boolean isEmpty()
    {
        return commands.isEmpty();
    }
}
