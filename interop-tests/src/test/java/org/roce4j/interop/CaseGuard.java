package org.roce4j.interop;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import org.roce4j.testcontainers.GuestDoctor;

/**
 * One interop case under guard (issue 12: the rxe peer never wedges a run):
 * <ol>
 *   <li>Before the case, {@link RxePeer#health()}: a sick guest (eth0 deaf, a console silent, QPs left over) is
 *   diagnosed ({@link RxePeer#diagnose}) and rebooted, and the case runs on the fresh one.</li>
 *   <li>During the case, a watchdog: at {@value RxePeer#BUDGET_FACTOR} times the case's expected time it interrupts
 *   the guest command the test waits for ({@link RxePeer#interruptCommand()}), again every 10 s until the case ends,
 *   so one wedge costs the case's budget and no more.</li>
 *   <li>When the case fails, the guest is checked again. Healthy: the failure is the case's own and is thrown as it
 *   is. Sick: the evidence is saved next to the case's capture ({@code <pcap>.wedge-boot<N>/}), the guest is
 *   rebooted and the case runs once more. A retry that passes is a <em>flake</em>: reported on stdout as
 *   {@code [rxe-flake]} with the path to its evidence, and listed in {@code flakes.txt}, which {@code .ci/run}
 *   prints. A retry that fails fails the case, with both failures.</li>
 * </ol>
 */
final class CaseGuard
{
    /** Interval of the watchdog's ^C once a case is over its budget. */
    private static final long WATCHDOG_REPEAT_NS = TimeUnit.SECONDS.toNanos(10);
    /** The watchdogs' timer: one daemon thread for every class. */
    private static final ScheduledExecutorService WATCHDOG = Executors.newSingleThreadScheduledExecutor(task ->
    {
        final Thread thread = new Thread(task, "rxe-watchdog");
        thread.setDaemon(true);
        return thread;
    });

    /** A case body. */
    @FunctionalInterface
    interface Body
    {
        /**
         * @throws Throwable whatever the case throws.
         */
        void run() throws Throwable;
    }

    private CaseGuard()
    {
    }

    /**
     * @param peer     the class's peer.
     * @param caseName class and display name, for messages.
     * @param expected the class's default expected case time.
     * @param first    the case.
     * @param retry    the case again (a new invocation of the same method with the same arguments).
     * @param logDir   where {@code flakes.txt} and evidence without a capture go.
     * @throws Throwable the case's failure.
     */
    static void run(final RxePeer peer, final String caseName, final Duration expected, final Body first,
        final Body retry, final Path logDir) throws Throwable
    {
        final GuestDoctor.Health before = peer.health();
        if (!before.healthy())
        {
            final Path evidence = peer.diagnose(evidenceDir(peer, caseName, "before", logDir), "sick before " +
                caseName + ": " + before.problem());
            peer.reboot("sick before " + caseName + ": " + before.problem() + " (evidence: " + evidence + ")");
            System.out.println("[rxe-heal] " + caseName + ": the guest was sick before the case (" +
                before.problem() + "); rebooted; evidence in " + evidence);
            record(logDir, caseName, "sick before the case: " + before.problem(), evidence,
                "rebooted before the case");
        }
        final Throwable failure = runWatched(peer, expected, caseName, first);
        if (null == failure)
        {
            return;
        }
        final GuestDoctor.Health after = peer.health();
        if (after.healthy())
        {
            throw failure;   // the case's own failure, on a guest that is fine
        }
        final String why = caseName + " failed on a wedged guest (" + after.problem() + "): " + firstLine(failure);
        final Path evidence = peer.diagnose(evidenceDir(peer, caseName, "wedge", logDir), why);
        peer.reboot(why);
        System.out.println("[rxe-flake] " + why + "; evidence in " + evidence + "; retrying once on a fresh guest");
        final Throwable second = runWatched(peer, expected, caseName, retry);
        if (null == second)
        {
            System.out.println("[rxe-flake] " + caseName + " passed on the retry (boot " + peer.boots() +
                "): a FLAKE of the guest, evidence in " + evidence);
            record(logDir, caseName, firstLine(failure) + " / " + after.problem(), evidence, "passed on retry");
            return;
        }
        second.addSuppressed(failure);
        record(logDir, caseName, firstLine(failure) + " / " + after.problem(), evidence,
            "failed again: " + firstLine(second));
        final GuestDoctor.Health afterRetry = peer.health();
        if (!afterRetry.healthy())
        {
            final Path again = peer.diagnose(evidenceDir(peer, caseName, "wedge", logDir), "retry of " + caseName +
                " failed: " + afterRetry.problem());
            peer.reboot("retry of " + caseName + " left the guest sick: " + afterRetry.problem() + " (evidence: " +
                again + ")");
        }
        throw new AssertionError(caseName + " failed on a wedged guest and again on a fresh one; evidence of the " +
            "wedge in " + evidence, second);
    }

    private static Throwable runWatched(final RxePeer peer, final Duration expected, final String caseName,
        final Body body)
    {
        peer.startCase(expected);
        final Watchdog watchdog = new Watchdog(peer, caseName);
        final ScheduledFuture<?> ticks = WATCHDOG.scheduleAtFixedRate(watchdog, 100, 100, TimeUnit.MILLISECONDS);
        try
        {
            body.run();
            return null;
        }
        catch (final Throwable ex)
        {
            return ex;
        }
        finally
        {
            ticks.cancel(false);
        }
    }

    /** Checked ten times a second while a case runs: past the case's deadline, ^C to the guest every 10 s. */
    private static final class Watchdog implements Runnable
    {
        private final RxePeer peer;
        private final String caseName;
        private long lastFiredNs;
        private boolean fired;

        Watchdog(final RxePeer peer, final String caseName)
        {
            this.peer = peer;
            this.caseName = caseName;
        }

        public void run()
        {
            final long nowNs = System.nanoTime();
            if (nowNs - peer.caseDeadlineNs() < 0 || (fired && nowNs - lastFiredNs < WATCHDOG_REPEAT_NS))
            {
                return;
            }
            if (!fired)
            {
                System.out.println("[rxe-watchdog] " + caseName + " is over its budget; interrupting the guest " +
                    "command it waits for, every 10 s until it ends");
            }
            fired = true;
            lastFiredNs = nowNs;
            peer.interruptCommand();
        }
    }

    /**
     * Evidence goes next to the case's capture when it made one, else under {@code <logDir>/wedges}.
     */
    private static Path evidenceDir(final RxePeer peer, final String caseName, final String kind, final Path logDir)
    {
        final Path pcap = peer.lastPcap();
        final String suffix = "." + kind + "-boot" + peer.boots();
        if (null != pcap)
        {
            final String file = pcap.getFileName().toString();
            return pcap.resolveSibling(file.substring(0, file.length() - ".pcap".length()) + suffix);
        }
        return logDir.resolve("wedges").resolve(caseName.replaceAll("[^A-Za-z0-9_.-]+", "_") + suffix);
    }

    private static void record(final Path logDir, final String caseName, final String what, final Path evidence,
        final String outcome)
    {
        final Path flakes = logDir.resolve("flakes.txt");
        try
        {
            Files.createDirectories(logDir);
            Files.writeString(flakes, Instant.now() + " | " + caseName + " | " + what.replace('\n', ' ') + " | " +
                outcome + " | evidence: " + evidence + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
        }
        catch (final IOException ex)
        {
            System.out.println("[rxe-peer] cannot append to " + flakes + ": " + ex);
        }
    }

    private static String firstLine(final Throwable failure)
    {
        final String message = String.valueOf(failure.getMessage());
        final int end = message.indexOf('\n');
        return failure.getClass().getSimpleName() + ": " + (end < 0 ? message : message.substring(0, end));
    }
}
