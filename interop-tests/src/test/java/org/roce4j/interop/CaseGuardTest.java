package org.roce4j.interop;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.roce4j.testcontainers.GuestDoctor;
import org.roce4j.testcontainers.RxePeerOptions;
import org.roce4j.testcontainers.RxeReady;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roce4j.transport.link.tunnel.TunnelLink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link CaseGuard} against a scripted peer (no QEMU): which failures are retried, what is rebooted, what a flake
 * leaves behind, and the watchdog.
 */
class CaseGuardTest
{
    private static final Duration EXPECTED = Duration.ofSeconds(20);

    @TempDir
    Path logDir;

    @Test
    void aPassingCaseOnAHealthyGuestRunsOnceAndLeavesNoRecord() throws Throwable
    {
        final FakePeer peer = new FakePeer();
        final int[] runs = {0};
        CaseGuard.run(peer, "case", EXPECTED, () -> runs[0]++, () -> runs[0]++, logDir);
        assertEquals(1, runs[0]);
        assertEquals(List.of("health"), peer.calls);
        assertTrue(Files.notExists(logDir.resolve("flakes.txt")));
    }

    @Test
    void aFailureOnAHealthyGuestIsTheCasesOwnAndIsNotRetried()
    {
        final FakePeer peer = new FakePeer();
        final AssertionError failure = new AssertionError("wrong byte count");
        final int[] retries = {0};
        final AssertionError thrown = assertThrows(AssertionError.class,
            () -> CaseGuard.run(peer, "case", EXPECTED, () ->
            {
                throw failure;
            }, () -> retries[0]++, logDir));
        assertSame(failure, thrown);
        assertEquals(0, retries[0]);
        assertEquals(List.of("health", "health"), peer.calls, "checked before and after, never rebooted");
    }

    @Test
    void aFailureOnAWedgedGuestIsDiagnosedRebootedAndRetriedAndAPassIsRecordedAsAFlake() throws Throwable
    {
        final FakePeer peer = new FakePeer();
        peer.health.add(GuestDoctor.Health.OK);
        peer.health.add(GuestDoctor.Health.sick("eth0 answered none of 3 ARP requests"));
        peer.pcap = logDir.resolve("pcaps").resolve("Pingpong-rc-65536-server.pcap");
        final int[] retries = {0};
        CaseGuard.run(peer, "PingpongWithRxeTest \"rc 65536 B, roce4j as server\"", EXPECTED, () ->
        {
            throw new AssertionError("roce pingpong failed");
        }, () -> retries[0]++, logDir);
        assertEquals(1, retries[0]);
        assertEquals(List.of("health", "health", "diagnose", "reboot"), peer.calls);
        assertEquals(logDir.resolve("pcaps").resolve("Pingpong-rc-65536-server.wedge-boot1"), peer.diagnosedIn,
            "the evidence sits next to the case's capture");
        final String flakes = Files.readString(logDir.resolve("flakes.txt"), StandardCharsets.UTF_8);
        assertTrue(flakes.contains("PingpongWithRxeTest \"rc 65536 B, roce4j as server\""), flakes);
        assertTrue(flakes.contains("eth0 answered none of 3 ARP requests"), flakes);
        assertTrue(flakes.contains("passed on retry"), flakes);
        assertTrue(flakes.contains("evidence: " + peer.diagnosedIn), flakes);
    }

    @Test
    void aRetryThatFailsFailsTheCaseWithBothFailuresAndLeavesAFreshGuest()
    {
        final FakePeer peer = new FakePeer();
        peer.health.add(GuestDoctor.Health.OK);
        peer.health.add(GuestDoctor.Health.sick("the command console (ttyS0) did not answer within PT10S"));
        peer.health.add(GuestDoctor.Health.sick("eth0 answered none of 3 ARP requests"));
        final AssertionError first = new AssertionError("first");
        final AssertionError second = new AssertionError("second");
        final AssertionError thrown = assertThrows(AssertionError.class,
            () -> CaseGuard.run(peer, "case", EXPECTED, () ->
            {
                throw first;
            }, () ->
            {
                throw second;
            }, logDir));
        assertSame(second, thrown.getCause());
        assertSame(first, second.getSuppressed()[0]);
        assertTrue(thrown.getMessage().contains("wedge"), thrown.getMessage());
        assertEquals(List.of("health", "health", "diagnose", "reboot", "health", "diagnose", "reboot"), peer.calls,
            "the guest the retry left sick is replaced too");
    }

    @Test
    void aGuestSickBeforeTheCaseIsRebootedFirst() throws Throwable
    {
        final FakePeer peer = new FakePeer();
        peer.health.add(GuestDoctor.Health.sick("rxe still holds QPs"));
        final int[] runs = {0};
        CaseGuard.run(peer, "case", EXPECTED, () -> runs[0]++, () -> runs[0]++, logDir);
        assertEquals(1, runs[0]);
        assertEquals(List.of("health", "diagnose", "reboot"), peer.calls);
        assertTrue(Files.readString(logDir.resolve("flakes.txt")).contains("rebooted before the case"));
    }

    @Test
    void theWatchdogInterruptsTheGuestCommandOnceTheCaseIsOverItsBudget() throws Throwable
    {
        final FakePeer peer = new FakePeer();
        final long[] deadlineNs = {-1};
        final long[] interruptedNs = {-1};
        CaseGuard.run(peer, "case", EXPECTED, () ->
        {
            peer.expectCase(Duration.ofMillis(100));   // budget: 300 ms from the case's start
            deadlineNs[0] = peer.caseDeadlineNs();
            // a guest command that never ends, until the watchdog's ^C
            assertTrue(peer.interrupted.await(10, TimeUnit.SECONDS), "the watchdog never interrupted");
            interruptedNs[0] = System.nanoTime();
        }, () ->
        {
        }, logDir);
        // The budget runs from the case's start, which the guard takes before the case body runs: compare with the
        // deadline itself, not with a clock started inside the body (that measured 293 ms once on a loaded machine).
        assertTrue(interruptedNs[0] >= deadlineNs[0],
            "not before the budget: interrupted " + (deadlineNs[0] - interruptedNs[0]) + " ns before the deadline");
    }

    /** A peer whose health is scripted and whose calls are recorded. */
    private static final class FakePeer extends RxePeer
    {
        final Deque<GuestDoctor.Health> health = new ArrayDeque<>();
        final List<String> calls = new ArrayList<>();
        final CountDownLatch interrupted = new CountDownLatch(1);
        Path pcap;
        Path diagnosedIn;
        int boots = 1;

        public RxePeerOptions options()
        {
            return RxePeerOptions.defaults("fake");
        }

        public RxeReady ready()
        {
            throw new UnsupportedOperationException();
        }

        public long launchToReadyMs()
        {
            return 0;
        }

        public Result run(final String command, final Duration timeout)
        {
            return new Result(0, "");
        }

        public boolean supportsTunnel()
        {
            return false;
        }

        public TunnelLink openLink(final String pcapName)
        {
            throw new UnsupportedOperationException();
        }

        public String tunnelSpec(final String pcapName, final double loss, final long seed)
        {
            throw new UnsupportedOperationException();
        }

        protected int hostPortFor(final int guestPort)
        {
            return guestPort;
        }

        public String hostAddressForGuest(final int hostPort)
        {
            return "10.0.2.2:" + hostPort;
        }

        public void close()
        {
        }

        public GuestDoctor.Health health()
        {
            calls.add("health");
            return health.isEmpty() ? GuestDoctor.Health.OK : health.poll();
        }

        public Path diagnose(final Path dir, final String why)
        {
            calls.add("diagnose");
            diagnosedIn = dir;
            return dir;
        }

        protected void replaceGuest()
        {
            calls.add("reboot");
            boots++;
        }

        public void interruptCommand()
        {
            interrupted.countDown();
        }

        public int boots()
        {
            return boots;
        }

        public Path lastPcap()
        {
            return pcap;
        }
    }
}
