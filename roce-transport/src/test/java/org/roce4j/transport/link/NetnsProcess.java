package org.roce4j.transport.link;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A child JVM running a main class inside a network namespace ({@code ip netns exec NS java ... Main args}), with
 * this JVM's class path and the flags tests run with, for code that must live wholly in another namespace (a peer
 * for cross-namespace tests). Its standard output is read line by line ({@link #awaitLine}); standard error goes to
 * this process's standard error; closing it (or this JVM exiting: the child sees end of input) stops it.
 */
public final class NetnsProcess implements AutoCloseable
{
    /** End-of-output marker in the line queue. */
    private static final String EOF = "\u0000EOF";

    private final Process process;
    private final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final List<String> seen = new ArrayList<>();
    private final String description;

    private NetnsProcess(final Process process, final String description)
    {
        this.process = process;
        this.description = description;
        final Thread pump = new Thread(this::pumpOutput, "netns-out-" + process.pid());
        pump.setDaemon(true);
        pump.start();
    }

    /**
     * Start a main class in a namespace.
     *
     * @param namespace where to run.
     * @param mainClass with a {@code main(String[])}.
     * @param args      its arguments.
     * @return the running child.
     */
    public static NetnsProcess start(final NetworkNamespace namespace, final Class<?> mainClass, final String... args)
    {
        final List<String> command = new ArrayList<>(List.of("ip", "netns", "exec", namespace.name()));
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("--add-exports");
        command.add("java.base/jdk.internal.misc=ALL-UNNAMED");
        command.add("-Xss2m");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass.getName());
        command.addAll(List.of(args));
        try
        {
            final Process process = new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
            return new NetnsProcess(process, mainClass.getSimpleName() + " in " + namespace.name());
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot start " + String.join(" ", command), ex);
        }
    }

    private void pumpOutput()
    {
        try (BufferedReader reader = new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)))
        {
            String line;
            while (null != (line = reader.readLine()))
            {
                lines.add(line);
            }
        }
        catch (final IOException ex)
        {
            lines.add("output failed: " + ex);
        }
        lines.add(EOF);
    }

    /**
     * Wait for a line of output.
     *
     * @param wanted    the line looked for.
     * @param timeoutMs how long to wait before failing (a guard against hangs).
     * @return the line.
     * @throws IllegalStateException when the child ends or the time runs out first.
     */
    public String awaitLine(final Predicate<String> wanted, final long timeoutMs)
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        try
        {
            while (true)
            {
                final long left = deadline - System.nanoTime();
                final String line = lines.poll(Math.max(0, left), TimeUnit.NANOSECONDS);
                if (null == line)
                {
                    throw new IllegalStateException(description + ": no such line within " + timeoutMs + " ms; " +
                        "output so far: " + seen);
                }
                if (EOF.equals(line))
                {
                    lines.add(EOF);
                    throw new IllegalStateException(description + " ended; output: " + seen);
                }
                seen.add(line);
                if (wanted.test(line))
                {
                    return line;
                }
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for " + description, ex);
        }
    }

    /**
     * Write a line to the child's standard input.
     *
     * @param line text.
     */
    public void send(final String line)
    {
        try
        {
            final OutputStream in = process.getOutputStream();
            in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            in.flush();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot write to " + description, ex);
        }
    }

    /**
     * Wait for the child to exit.
     *
     * @param timeoutMs how long.
     * @return its exit code.
     * @throws IllegalStateException when it does not exit in time.
     */
    public int waitFor(final long timeoutMs)
    {
        try
        {
            if (!process.waitFor(timeoutMs, TimeUnit.MILLISECONDS))
            {
                throw new IllegalStateException(description + " did not exit within " + timeoutMs + " ms");
            }
            return process.exitValue();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for " + description, ex);
        }
    }

    /**
     * Stop the child: close its input, then terminate it if it is still running.
     */
    public void close()
    {
        try
        {
            process.getOutputStream().close();
        }
        catch (final IOException ex)
        {
            // Already gone.
        }
        process.destroy();
        try
        {
            if (!process.waitFor(5, TimeUnit.SECONDS))
            {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
