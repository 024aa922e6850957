package org.roce4j.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Warm-up and measurement durations, and the procedure every test follows: start the two threads, let them run
 * through the warm-up (JIT compilation, ARP, socket buffers filling), count completed operations over the
 * measurement window, then stop them and wait for both.
 *
 * @param warmupSeconds  seconds before counting starts.
 * @param measureSeconds seconds counted.
 */
public record Window(double warmupSeconds, double measureSeconds)
{
    /**
     * Run one measurement.
     *
     * @param driver    the thread that posts or sends (stops first and sets {@link Running#senderDone}).
     * @param peer      the thread that answers or counts.
     * @param running   flags shared with both threads.
     * @param completed operations completed so far, published by a thread.
     * @return the rate and the load at the end.
     */
    public Measurement measure(
        final Thread driver, final Thread peer, final Running running, final AtomicLong completed)
    {
        return measure(driver, peer, running, completed, () ->
        {
        });
    }

    /**
     * Run one measurement whose threads may block in calls that only {@code wake} interrupts.
     *
     * @param driver    the thread that posts or sends (stops first and sets {@link Running#senderDone}).
     * @param peer      the thread that answers or counts.
     * @param running   flags shared with both threads.
     * @param completed operations completed so far, published by a thread.
     * @param wake      called repeatedly once the threads were told to stop, until both have (pcap_breakloop).
     * @return the rate and the load at the end.
     */
    public Measurement measure(
        final Thread driver, final Thread peer, final Running running, final AtomicLong completed, final Runnable wake)
    {
        final Thread.UncaughtExceptionHandler onFailure = (thread, ex) ->
        {
            running.fail(thread.getName() + ": " + ex);
            ex.printStackTrace();
        };
        driver.setUncaughtExceptionHandler(onFailure);
        peer.setUncaughtExceptionHandler(onFailure);
        driver.setDaemon(true);
        peer.setDaemon(true);
        driver.start();
        peer.start();
        sleep(warmupSeconds);
        running.measuring = true;
        final long startCount = completed.get();
        final long startNs = System.nanoTime();
        sleep(measureSeconds);
        final long endCount = completed.get();
        final long endNs = System.nanoTime();
        running.measuring = false;
        final double load = load1();
        running.on = false;
        joinWaking(driver, wake);
        running.senderDone = true;
        joinWaking(peer, wake);
        if (null != running.failure())
        {
            throw new IllegalStateException(running.failure());
        }
        return new Measurement((endCount - startCount) * 1e9 / (endNs - startNs), load, null);
    }

    private static void joinWaking(final Thread thread, final Runnable wake)
    {
        boolean interrupted = false;
        while (thread.isAlive())
        {
            wake.run();
            try
            {
                thread.join(50);
            }
            catch (final InterruptedException ex)
            {
                interrupted = true;
            }
        }
        if (interrupted)
        {
            Thread.currentThread().interrupt();
        }
    }

    private static void sleep(final double seconds)
    {
        try
        {
            Thread.sleep((long)(seconds * 1000));
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", ex);
        }
    }

    /**
     * @return the one-minute load average (/proc/loadavg), NaN when unreadable.
     */
    public static double load1()
    {
        try
        {
            final String text = Files.readString(Path.of("/proc/loadavg"), StandardCharsets.US_ASCII);
            return Double.parseDouble(text.substring(0, text.indexOf(' ')));
        }
        catch (final IOException | RuntimeException ex)
        {
            return Double.NaN;
        }
    }
}
