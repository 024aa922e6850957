package org.roce4j.testcontainers;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * The guest's serial console as a byte stream: a reader thread appends everything the guest prints (and copies it to
 * a log file); callers wait on conditions over the bytes not yet consumed, with deadlines.
 *
 * <p>The command protocol (docker/README.md, "Command loop"): one command per line; the guest then prints the
 * command's output and {@code \n__ROCE4J_RC__ <rc>\n}, which its tty turns into {@code \r\n...\r\n}. The output is
 * exactly the bytes before {@code \r\n__ROCE4J_RC__}.
 */
final class SerialConsole implements AutoCloseable
{
    /** The marker that ends every command's output (with the CR LF in front that the tty adds). */
    static final byte[] MARKER = "\r\n__ROCE4J_RC__ ".getBytes(StandardCharsets.US_ASCII);
    /** ^C: the guest's tty turns it into SIGINT for the running command. */
    static final int CTRL_C = 0x03;
    /** Longest command line the guest accepts (canonical tty mode: 4095 bytes plus the newline). */
    static final int MAX_COMMAND_BYTES = 4000;

    private final InputStream in;
    private final OutputStream out;
    private final OutputStream log;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final Thread reader;
    private byte[] data = new byte[1 << 16];
    private int length;
    private boolean eof;
    private IOException readError;

    /**
     * @param name    for the reader thread.
     * @param in      the guest's console output.
     * @param out     the guest's console input.
     * @param logFile where every byte read is copied.
     * @throws IOException when the log file cannot be created.
     */
    SerialConsole(final String name, final InputStream in, final OutputStream out, final Path logFile)
        throws IOException
    {
        this.in = in;
        this.out = out;
        Files.createDirectories(logFile.toAbsolutePath().getParent());
        this.log = Files.newOutputStream(logFile);
        this.reader = new Thread(this::readLoop, "rxe-console-" + name);
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * A result of waiting for the marker.
     *
     * @param exitCode the command's exit code.
     * @param output   its output, CR LF turned back into LF.
     */
    record Completion(int exitCode, String output)
    {
    }

    /**
     * Wait until a line starting with one of the prefixes has been printed completely.
     *
     * @param deadlineNs  {@link System#nanoTime()} deadline.
     * @param exitCode    the exit code of the process behind the console, or -1 while it runs (for messages).
     * @param prefixes    accepted line starts.
     * @return the line without its line end, or null when the deadline passed.
     * @throws IOException when the console ended (the guest or QEMU exited) first.
     */
    String awaitLine(final long deadlineNs, final LongSupplier exitCode, final String... prefixes)
        throws IOException
    {
        lock.lock();
        try
        {
            while (true)
            {
                final String text = new String(data, 0, length, StandardCharsets.ISO_8859_1);
                for (final String prefix : prefixes)
                {
                    final int start = text.indexOf(prefix);
                    final int end = start < 0 ? -1 : text.indexOf('\n', start);
                    if (end > 0)
                    {
                        final String line = text.substring(start, end).replace("\r", "");
                        consume(end + 1);
                        return line;
                    }
                }
                if (eof)
                {
                    throw new IOException("console ended before the line " + String.join("/", prefixes) +
                        " (process exit code " + exitCode.getAsLong() + ")", readError);
                }
                if (!awaitChange(deadlineNs))
                {
                    return null;
                }
            }
        }
        finally
        {
            lock.unlock();
        }
    }

    /**
     * Drop everything received so far (output between commands, e.g. kernel messages) and send a command line.
     *
     * @param command one line, no CR or LF.
     * @throws IOException when the console is closed.
     */
    void send(final String command) throws IOException
    {
        final byte[] bytes = (command + "\n").getBytes(StandardCharsets.UTF_8);
        if (command.indexOf('\n') >= 0 || command.indexOf('\r') >= 0)
        {
            throw new IllegalArgumentException("a guest command is one line: " + command);
        }
        if (bytes.length > MAX_COMMAND_BYTES)
        {
            throw new IllegalArgumentException("guest command of " + bytes.length + " bytes is longer than " +
                MAX_COMMAND_BYTES + " (the tty's line limit)");
        }
        lock.lock();
        try
        {
            consume(length);
        }
        finally
        {
            lock.unlock();
        }
        writeRaw(bytes);
    }

    /**
     * Send raw bytes (^C, {@code poweroff -f}).
     *
     * @param bytes to send.
     * @throws IOException when the console is closed.
     */
    void writeRaw(final byte[] bytes) throws IOException
    {
        synchronized (out)
        {
            out.write(bytes);
            out.flush();
        }
    }

    /**
     * Wait for the end-of-command marker.
     *
     * @param deadlineNs {@link System#nanoTime()} deadline.
     * @return the completion, or null when the deadline passed (nothing is consumed then).
     * @throws IOException when the console ended first.
     */
    Completion awaitCompletion(final long deadlineNs) throws IOException
    {
        lock.lock();
        try
        {
            int from = 0;
            while (true)
            {
                final int marker = indexOf(MARKER, from);
                if (marker >= 0)
                {
                    int i = marker + MARKER.length;
                    int rc = 0;
                    boolean digits = false;
                    while (i < length && data[i] >= '0' && data[i] <= '9')
                    {
                        rc = rc * 10 + data[i] - '0';
                        digits = true;
                        i++;
                    }
                    if (i + 1 < length && digits)
                    {
                        if ('\r' != data[i] || '\n' != data[i + 1])
                        {
                            throw new IOException("malformed end-of-command marker in console output: " +
                                new String(data, marker, Math.min(length - marker, 40), StandardCharsets.ISO_8859_1));
                        }
                        final String output = new String(data, 0, marker, StandardCharsets.UTF_8).replace("\r\n", "\n");
                        consume(i + 2);
                        return new Completion(rc, output);
                    }
                    // The marker is there but its number or line end is not yet: wait for more at the same place.
                    from = marker;
                }
                else
                {
                    from = Math.max(0, length - MARKER.length);
                }
                if (eof)
                {
                    throw new IOException("console ended while a command ran; output so far: " + tail(2000),
                        readError);
                }
                if (!awaitChange(deadlineNs))
                {
                    return null;
                }
            }
        }
        finally
        {
            lock.unlock();
        }
    }

    /**
     * @param maxChars how much.
     * @return the last bytes not yet consumed, for error messages.
     */
    String tail(final int maxChars)
    {
        lock.lock();
        try
        {
            final int start = Math.max(0, length - maxChars);
            return new String(data, start, length - start, StandardCharsets.UTF_8).replace("\r\n", "\n");
        }
        finally
        {
            lock.unlock();
        }
    }

    /**
     * Wait for the reader to see the end of the stream.
     *
     * @param timeoutMs how long.
     * @throws InterruptedException when interrupted.
     */
    void awaitEnd(final long timeoutMs) throws InterruptedException
    {
        reader.join(timeoutMs);
    }

    /**
     * Close the input side and the log.
     */
    public void close()
    {
        try
        {
            out.close();
        }
        catch (final IOException ignore)
        {
            // The process is gone; nothing left to tell it.
        }
        try
        {
            reader.join(TimeUnit.SECONDS.toMillis(5));
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        synchronized (log)
        {
            try
            {
                log.close();
            }
            catch (final IOException ignore)
            {
                // The log is diagnostics only.
            }
        }
    }

    private void readLoop()
    {
        final byte[] chunk = new byte[8192];
        try
        {
            int n;
            while ((n = in.read(chunk)) > 0)
            {
                synchronized (log)
                {
                    log.write(chunk, 0, n);
                    log.flush();
                }
                lock.lock();
                try
                {
                    if (length + n > data.length)
                    {
                        data = Arrays.copyOf(data, Math.max(data.length * 2, length + n));
                    }
                    System.arraycopy(chunk, 0, data, length, n);
                    length += n;
                    changed.signalAll();
                }
                finally
                {
                    lock.unlock();
                }
            }
        }
        catch (final IOException ex)
        {
            readError = ex;
        }
        finally
        {
            lock.lock();
            try
            {
                eof = true;
                changed.signalAll();
            }
            finally
            {
                lock.unlock();
            }
        }
    }

    private boolean awaitChange(final long deadlineNs)
    {
        final long remainingNs = deadlineNs - System.nanoTime();
        if (remainingNs <= 0)
        {
            return false;
        }
        try
        {
            changed.awaitNanos(remainingNs);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return false;
        }
        return true;
    }

    private void consume(final int count)
    {
        System.arraycopy(data, count, data, 0, length - count);
        length -= count;
    }

    private int indexOf(final byte[] pattern, final int from)
    {
        outer:
        for (int i = from; i <= length - pattern.length; i++)
        {
            for (int j = 0; j < pattern.length; j++)
            {
                if (data[i + j] != pattern[j])
                {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
