package org.roce4j.testcontainers;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Everything done in an rxe peer goes through a command line: {@link #run} (wait for the exit code and output), and,
 * built on it, {@link #start(String, String)} (a background program, its log kept for {@link #log(String)} and its
 * exit code for {@link #waitFor(String, Duration)}), {@link #copyOut} (base64 through the console),
 * {@link #hwCounters()} and {@link #awaitGuestListening}. One home for these, whatever runs the guest: an
 * {@link RxeGuest} (a QEMU guest on this machine or in an {@link RxeContainer}), or a test fixture wrapping one.
 */
public abstract class RxeCommands
{
    /** Default time a command may take. */
    public static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(60);
    /** Where hw counters live in the peer. */
    public static final String HW_COUNTERS_DIR = "/sys/class/infiniband/rxe0/ports/1/hw_counters";
    /** Longest single wait in the guest of {@link #waitFor(String, Duration, BooleanSupplier, Duration)}. */
    static final long WAIT_SLICE_SECONDS = 2;

    private final Map<String, Integer> backgroundPids = new HashMap<>();

    /**
     * A finished command.
     *
     * @param exitCode its exit code (130 when it was interrupted with ^C).
     * @param output   what it printed on stdout and stderr, with LF line ends.
     */
    public record Result(int exitCode, String output)
    {
        /**
         * @param command for the message.
         * @return the output.
         * @throws AssertionError with the command, exit code and output when the exit code is not 0.
         */
        public String expectSuccess(final String command)
        {
            if (0 != exitCode)
            {
                throw new AssertionError("'" + command + "' exited with " + exitCode + ":\n" + output);
            }
            return output;
        }
    }

    /**
     * Run a command in the peer and wait for it.
     *
     * @param command one shell command line (busybox sh in the VM).
     * @param timeout how long it may run; then it gets ^C and an {@link AssertionError} reports the timeout.
     * @return exit code and output.
     * @throws IOException when the peer is gone.
     */
    public abstract Result run(String command, Duration timeout) throws IOException;

    /**
     * Run with {@link #COMMAND_TIMEOUT}.
     *
     * @param command one command line.
     * @return exit code and output.
     * @throws IOException when the peer is gone.
     */
    public Result run(final String command) throws IOException
    {
        return run(command, COMMAND_TIMEOUT);
    }

    /**
     * Run and require exit code 0.
     *
     * @param command one command line.
     * @return the output.
     * @throws IOException when the peer is gone.
     */
    public String runOk(final String command) throws IOException
    {
        return run(command).expectSuccess(command);
    }

    /**
     * Start a program in the background. Its stdout and stderr go to {@code /tmp/roce4j-<name>.log}, its exit code
     * to {@code /tmp/roce4j-<name>.rc}. The command is written to a script first, so it may contain any quoting.
     *
     * @param name    short name, [a-z0-9_-]+, unique among running programs.
     * @param command shell command.
     * @throws IOException when the peer is gone.
     */
    public void start(final String name, final String command) throws IOException
    {
        checkName(name);
        final String script = "/tmp/roce4j-" + name + ".sh";
        final String encoded = Base64.getEncoder().encodeToString((command + "\n").getBytes(StandardCharsets.UTF_8));
        runOk("rm -f " + script + " /tmp/roce4j-" + name + ".rc /tmp/roce4j-" + name + ".log");
        for (int i = 0; i < encoded.length(); i += 3000)
        {
            runOk("echo '" + encoded.substring(i, Math.min(encoded.length(), i + 3000)) + "' >>" + script + ".b64");
        }
        runOk("base64 -d " + script + ".b64 >" + script + " && rm " + script + ".b64");
        final String rc = "/tmp/roce4j-" + name + ".rc";
        // setsid: its own session and process group, away from the console's ^C, and killable as a group.
        final String pid = runOk("nohup setsid sh -c 'sh " + script + "; echo $? >" + rc + ".tmp; mv " + rc + ".tmp " +
            rc + "' >/tmp/roce4j-" + name + ".log 2>&1 </dev/null & echo $!").trim();
        backgroundPids.put(name, Integer.parseInt(pid));
    }

    /**
     * Wait for a program from {@link #start(String, String)} to exit.
     *
     * @param name    as given to start.
     * @param timeout how long.
     * @return its exit code.
     * @throws IOException    when the peer is gone.
     * @throws AssertionError when it did not exit in time (its log is in the message).
     */
    public int waitFor(final String name, final Duration timeout) throws IOException
    {
        checkName(name);
        final String rc = "/tmp/roce4j-" + name + ".rc";
        final long seconds = Math.max(1, timeout.toSeconds());
        final Result result = run("timeout " + seconds + " sh -c 'while [ ! -e " + rc + " ]; do usleep 20000; done'" +
            " && cat " + rc, timeout.plusSeconds(30));
        if (0 != result.exitCode())
        {
            throw new AssertionError("'" + name + "' did not exit within " + timeout + "; its log:\n" + log(name) +
                hangReport(name));
        }
        return Integer.parseInt(result.output().trim());
    }

    /**
     * Wait for a program from {@link #start(String, String)} to exit, but give up early when the host side of the
     * exchange has ended without it (a roce4j command that failed leaves its peer tool waiting for ever): the guest
     * is asked in slices of {@value #WAIT_SLICE_SECONDS} s, and between slices {@code hostSideDone} is consulted.
     *
     * @param name         as given to start.
     * @param timeout      how long at most.
     * @param hostSideDone true once the host side has finished (successfully or not).
     * @param grace        how long the program may still take after the host side finished.
     * @return its exit code.
     * @throws IOException    when the peer is gone.
     * @throws AssertionError when it did not exit in time (its log is in the message); it is killed then.
     */
    public int waitFor(final String name, final Duration timeout, final BooleanSupplier hostSideDone,
        final Duration grace) throws IOException
    {
        checkName(name);
        final String rc = "/tmp/roce4j-" + name + ".rc";
        final long deadlineNs = System.nanoTime() + timeout.toNanos();
        long graceDeadlineNs = Long.MAX_VALUE;
        while (true)
        {
            final long nowNs = System.nanoTime();
            if (hostSideDone.getAsBoolean() && Long.MAX_VALUE == graceDeadlineNs)
            {
                graceDeadlineNs = nowNs + grace.toNanos();
            }
            final long leftNs = Math.min(deadlineNs, graceDeadlineNs) - nowNs;
            final long sliceSeconds = Math.max(1, Math.min(WAIT_SLICE_SECONDS, TimeUnit.NANOSECONDS.toSeconds(leftNs)));
            final Result result = run("timeout " + sliceSeconds + " sh -c 'while [ ! -e " + rc +
                " ]; do usleep 20000; done' && cat " + rc, Duration.ofSeconds(sliceSeconds + 30));
            if (0 == result.exitCode())
            {
                return Integer.parseInt(result.output().trim());
            }
            if (System.nanoTime() - Math.min(deadlineNs, graceDeadlineNs) >= 0)
            {
                final String log = log(name) + hangReport(name);
                kill(name);
                throw new AssertionError("'" + name + "' did not exit within " + (Long.MAX_VALUE == graceDeadlineNs ?
                    timeout : grace + " after the host side finished") + " and was killed; its log:\n" + log);
            }
        }
    }

    /**
     * Where a program that does not exit is stuck, read before it is killed: each process of its process group
     * (start runs it under setsid) with its state, wchan and kernel stack ({@code /proc/PID/stack}: the verbs call it
     * sleeps in, e.g. a QP destroy waiting for rxe's tasks), then rxe's QPs, its packet and retry counters twice a
     * second apart (is it still retransmitting?) and the kernel log's tail.
     *
     * @param name as given to {@link #start(String, String)}.
     * @return the report, starting with a newline, or a line saying why there is none; never throws.
     */
    public String hangReport(final String name)
    {
        final Integer pid = backgroundPids.get(name);
        if (null == pid)
        {
            return "\n(no hang report: '" + name + "' was not started or was killed)";
        }
        try
        {
            // /proc/PID/stat: pid (comm) state ppid pgrp ...; the group's leader is the setsid'd shell.
            final Result result = run("echo '-- where \"" + name + "\" hangs (process group " + pid + ")'; " +
                "for d in /proc/[0-9]*; do s=$(cat $d/stat 2>/dev/null) || continue; set -- $s; " +
                "[ \"$5\" = " + pid + " ] || continue; " +
                "echo \"== pid ${d#/proc/} $2 state $3 wchan $(cat $d/wchan)\"; cat $d/stack 2>/dev/null; done; " +
                "echo '-- rdma res show qp'; rdma res show qp 2>&1; " +
                // twice, a second apart: whether rxe is still retransmitting (sent_pkts, completer_retry_err grow)
                "h=/sys/class/infiniband/rxe0/ports/1/hw_counters; for t in 0 1; do [ $t = 1 ] && sleep 1; " +
                "echo \"-- rxe0 counters (t=${t} s): $(cd $h 2>/dev/null && for c in sent_pkts rcvd_pkts " +
                "completer_retry_err retry_exceeded_err duplicate_request; do printf '%s=%s ' $c $(cat $c); done)\"; " +
                "done; " +
                "echo '-- dmesg (tail)'; dmesg 2>&1 | tail -n 20", Duration.ofSeconds(30));
            return "\n" + result.output();
        }
        catch (final IOException | RuntimeException ex)
        {
            return "\n(no hang report: " + ex + ")";
        }
    }

    /**
     * @param name as given to {@link #start(String, String)}.
     * @return what the program printed so far.
     * @throws IOException when the peer is gone.
     */
    public String log(final String name) throws IOException
    {
        checkName(name);
        return runOk("cat /tmp/roce4j-" + name + ".log");
    }

    /**
     * Kill a background program if it still runs.
     *
     * @param name as given to {@link #start(String, String)}.
     * @throws IOException when the peer is gone.
     */
    public void kill(final String name) throws IOException
    {
        final Integer pid = backgroundPids.remove(name);
        if (null != pid)
        {
            run("kill -TERM -" + pid + " 2>/dev/null; true");
        }
    }

    /**
     * Copy a file out of the peer (base64 over the console, about 450 KB/s in the VM) and check its size.
     *
     * @param guestPath file in the peer.
     * @param hostPath  where to write it; parent directories are created.
     * @throws IOException when the peer is gone or the file cannot be read.
     */
    public void copyOut(final String guestPath, final Path hostPath) throws IOException
    {
        final String quoted = "'" + guestPath.replace("'", "'\\''") + "'";
        final long size = Long.parseLong(runOk("wc -c <" + quoted).trim());
        final String encoded = run("base64 " + quoted, Duration.ofSeconds(60 + size / 100_000))
            .expectSuccess("base64 " + guestPath);
        final byte[] bytes = Base64.getMimeDecoder().decode(encoded);
        if (bytes.length != size)
        {
            throw new IOException("copied " + bytes.length + " bytes of " + guestPath + " but it has " + size);
        }
        final Path parent = hostPath.toAbsolutePath().getParent();
        Files.createDirectories(parent);
        Files.write(hostPath, bytes);
    }

    /**
     * Read every hw counter of rxe0 port 1 ({@value #HW_COUNTERS_DIR}).
     *
     * @return counter name to value, sorted by name.
     * @throws IOException when the peer is gone.
     */
    public Map<String, Long> hwCounters() throws IOException
    {
        final String output = runOk("cd " + HW_COUNTERS_DIR + " && grep -H . *");
        final Map<String, Long> counters = new TreeMap<>();
        for (final String line : output.split("\n"))
        {
            final int colon = line.lastIndexOf(':');
            if (colon > 0)
            {
                counters.put(line.substring(0, colon).trim(), Long.parseLong(line.substring(colon + 1).trim()));
            }
        }
        if (counters.isEmpty())
        {
            throw new IOException("no hw counters in " + HW_COUNTERS_DIR + ": " + output);
        }
        return Collections.unmodifiableMap(counters);
    }

    /**
     * Wait in the peer until some socket listens on a TCP port (IPv4 or IPv6), by polling /proc/net/tcp{,6} there.
     *
     * @param guestPort port.
     * @param timeout   how long.
     * @throws IOException    when the peer is gone.
     * @throws AssertionError when nothing listens in time.
     */
    public void awaitGuestListening(final int guestPort, final Duration timeout) throws IOException
    {
        // /proc/net/tcp lines: "sl local_address rem_address st ..."; state 0A is LISTEN, ports are hex.
        final String pattern = String.format(":%04X [0-9A-F]+:0000 0A ", guestPort);
        final long seconds = Math.max(1, timeout.toSeconds());
        final String command = "timeout " + seconds + " sh -c 'until grep -qE \"" + pattern + "\" /proc/net/tcp " +
            "/proc/net/tcp6 2>/dev/null; do usleep 20000; done'";
        final Result result = run(command, timeout.plusSeconds(30));
        if (0 != result.exitCode())
        {
            throw new AssertionError("nothing listens on guest TCP port " + guestPort + " after " + timeout);
        }
    }

    /**
     * Kill every background program still known ({@link #start(String, String)}). Never throws.
     */
    protected void killBackground()
    {
        for (final String name : backgroundPids.keySet().toArray(new String[0]))
        {
            try
            {
                kill(name);
            }
            catch (final IOException | AssertionError ignore)
            {
                // the health check that follows says whether the guest is fit
            }
        }
    }

    /**
     * Forget the background programs (their guest is gone).
     */
    protected void forgetBackground()
    {
        backgroundPids.clear();
    }

    private static void checkName(final String name)
    {
        if (!name.matches("[a-z0-9_-]+"))
        {
            throw new IllegalArgumentException("background program name must be [a-z0-9_-]+, got '" + name + "'");
        }
    }
}
