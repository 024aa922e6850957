package org.roce4j.interop;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import org.roce4j.testcontainers.RxePeerOptions;
import org.roce4j.testcontainers.RxeReady;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roce4j.wire.addr.Mac;
import org.roce4j.wire.header.Ipv4Header;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The fixture itself against a real guest: the ready line, the command loop, background programs, copying files
 * out, counters and the TCP side channel.
 */
@RxePeerTest
class RxePeerFixtureTest
{
    private static RxePeer staticPeer;
    private RxePeer peer;

    @Test
    void onePeerIsInjectedIntoStaticFieldsInstanceFieldsAndParameters(final RxePeer parameter)
    {
        assertNotNull(parameter);
        assertSame(parameter, staticPeer);
        assertSame(parameter, peer);
    }

    @Test
    void readyLineIsParsedWhole()
    {
        final RxeReady ready = peer.ready();
        assertEquals(Ipv4Header.parseAddress("10.77.0.2"), ready.ip());
        assertEquals(Mac.parse("52:54:00:4d:00:02"), ready.mac(), "run-vm.sh's MAC from the IP");
        assertEquals(1500, ready.mtu());
        assertEquals(1024, ready.activeMtu());
        assertArrayEquals(PingpongDest.ipv4MappedGid(ready.ip()), ready.ipv4Gid());
        assertTrue(ready.gids().containsKey(0), "the link-local GID at index 0");
        assertTrue(ready.kernel().startsWith("6.1."), ready.kernel());
        assertEquals("10.0.2.15", ready.userIp());
        assertTrue(ready.bootMs() > 0);
        assertTrue(peer.launchToReadyMs() >= ready.bootMs(), "the host sees at least the guest's uptime");
    }

    @Test
    void commandsReturnExitCodeAndExactOutput() throws IOException
    {
        assertEquals(new RxePeer.Result(0, "hello\n"), peer.run("echo hello"));
        assertEquals(new RxePeer.Result(3, "no newline"), peer.run("printf 'no newline'; exit 3"));
        assertEquals(new RxePeer.Result(0, "a\n\nb\n"), peer.run("printf 'a\\n\\nb\\n'"));
        assertEquals(new RxePeer.Result(1, ""), peer.run("false"));
        assertEquals("rxe0\n", peer.runOk("ls /sys/class/infiniband"));
    }

    @Test
    void aCommandThatHangsIsInterruptedAndThePeerStaysUsable() throws IOException
    {
        final AssertionError timeout = assertThrows(AssertionError.class,
            () -> peer.run("echo started; cat /dev/zero >/dev/null", Duration.ofSeconds(2)));

        assertTrue(timeout.getMessage().contains("did not finish within PT2S and was interrupted (rc 130)"),
            timeout.getMessage());
        assertTrue(timeout.getMessage().contains("started"), timeout.getMessage());
        assertEquals(new RxePeer.Result(0, "still here\n"), peer.run("echo still here"));
    }

    @Test
    void backgroundProgramsKeepTheirLogAndExitCode() throws IOException
    {
        peer.start("quoting", "echo \"it's $((6 * 7))\"; echo err >&2; exit 5");

        assertEquals(5, peer.waitFor("quoting", Duration.ofSeconds(30)));
        assertEquals("it's 42\nerr\n", peer.log("quoting"));
    }

    @Test
    void aBackgroundProgramThatDoesNotExitIsReportedWithWhereItSleeps() throws IOException
    {
        peer.start("sleeper", "echo napping; sleep 1000");

        final AssertionError stuck = assertThrows(AssertionError.class, () -> peer.waitFor("sleeper",
            Duration.ofSeconds(2), () -> true, Duration.ofSeconds(1)));

        final String report = stuck.getMessage();
        assertTrue(report.contains("did not exit within PT1S after the host side finished and was killed"), report);
        assertTrue(report.contains("napping"), report);
        assertTrue(report.contains("-- where \"sleeper\" hangs"), report);
        // the shell and its sleep, asleep in the kernel: state S, with a wchan and a kernel stack
        assertTrue(report.matches("(?s).*== pid \\d+ \\(sleep\\) state S wchan \\w+.*"), report);
        assertTrue(report.contains("-- rdma res show qp") && report.contains("-- dmesg (tail)"), report);
        assertEquals(new RxePeer.Result(0, "still here\n"), peer.run("echo still here"));
    }

    @Test
    void filesAreCopiedOutByteForByte(@TempDir final Path dir) throws IOException, NoSuchAlgorithmException
    {
        final String sha = peer.runOk("head -c 100000 /dev/urandom >/tmp/random.bin && sha256sum /tmp/random.bin")
            .split("\\s+")[0];
        final Path copy = dir.resolve("random.bin");

        peer.copyOut("/tmp/random.bin", copy);

        assertEquals(100_000, Files.size(copy));
        final byte[] digest = MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(copy));
        assertEquals(sha, HexFormat.of().formatHex(digest));
    }

    @Test
    void hwCountersAreReadWhole() throws IOException
    {
        final Map<String, Long> counters = peer.hwCounters();

        for (final String name : new String[] {"rcvd_pkts", "sent_pkts", "duplicate_request", "out_of_seq_request",
            "rcvd_seq_err", "rdma_sends", "rdma_recvs"})
        {
            assertTrue(counters.containsKey(name), name + " in " + counters);
        }
    }

    @Test
    void tcpSessionsAreRetriedUntilTheGuestListens() throws IOException
    {
        // The listener comes up a second late: QEMU accepts the first connections and closes them.
        peer.start("late-listener", "sleep 1; echo hello-from-guest | nc -l -p " + RxePeerOptions.PINGPONG_PORT);
        final AtomicInteger attempts = new AtomicInteger();

        final String greeting = peer.tcpConnect(RxePeerOptions.PINGPONG_PORT, Duration.ofSeconds(60), socket ->
        {
            attempts.incrementAndGet();
            return new String(PingpongDest.readFully(socket.getInputStream(), 17), StandardCharsets.US_ASCII);
        });

        assertEquals("hello-from-guest\n", greeting);
        assertTrue(attempts.get() > 1, "the first attempt found nobody listening");
        assertEquals(0, peer.waitFor("late-listener", Duration.ofSeconds(30)));
    }

    @Test
    void tcpConnectWaitsForTheListener() throws IOException
    {
        peer.start("listener", "echo second | nc -l -p " + RxePeerOptions.PINGPONG_PORT);

        try (Socket socket = peer.tcpConnect(RxePeerOptions.PINGPONG_PORT, Duration.ofSeconds(60)))
        {
            final InputStream in = socket.getInputStream();
            assertEquals("second\n", new String(PingpongDest.readFully(in, 7), StandardCharsets.US_ASCII));
        }
        assertEquals(0, peer.waitFor("listener", Duration.ofSeconds(30)));
    }
}
