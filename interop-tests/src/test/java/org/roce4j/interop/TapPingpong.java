package org.roce4j.interop;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.roce4j.cli.RoceCommand;
import org.roce4j.transport.link.fault.FaultReport;
import org.roce4j.wire.addr.Gid;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Runs {@code roce pingpong} against ibv_rc_pingpong in a tap-mode guest: roce4j's side is the real command in a
 * JVM started inside the peer's namespace ({@code ip netns exec NS java ... RoceCommand pingpong --link SPEC}), so
 * its udp link binds there and its pcap link finds the tap there, and the TCP side channel goes straight between
 * the namespace's kernel address and the guest's. While it runs, a {@link TapCapture} watches the tap. Checks both
 * programs' exit codes and output (iterations, bytes, addresses, no failed -c check) and rxe's SEND counters.
 */
final class TapPingpong
{
    /** How long one run may take (a guard against hangs, not a speed check). */
    /** roce pingpong gives up when the peer is silent this long. */
    private static final int SILENCE_TIMEOUT_MS = PingpongInterop.SILENCE_TIMEOUT_MS;
    private static final Pattern BYTES = Pattern.compile("(\\d+) bytes in ([0-9.]+) seconds = ([0-9.]+) Mbit/sec");
    private static final Pattern ITERS = Pattern.compile("(\\d+) iters in ([0-9.]+) seconds = ([0-9.]+) usec/iter");

    private TapPingpong()
    {
    }

    /**
     * What one run showed.
     *
     * @param roceOutput  roce pingpong's standard output.
     * @param rxeOutput   ibv_rc_pingpong's output.
     * @param usecPerIter as roce pingpong printed it.
     * @param capture     what crossed the tap.
     * @param rxeCounters changes of rxe's hw counters over the run (only those that moved).
     * @param netns       changes of the namespace's IP/ICMP/UDP counters over the run (only those that moved).
     * @param elapsedMs   wall time of the whole run.
     * @param roceErrors  roce pingpong's standard error (the faults it injected, when its link was faulty).
     */
    record Outcome(
        String roceOutput,
        String rxeOutput,
        double usecPerIter,
        TapCapture.Summary capture,
        Map<String, Long> rxeCounters,
        Map<String, Long> netns,
        long elapsedMs,
        String roceErrors)
    {
        /**
         * @param counter a counter name.
         * @return its change over the run, 0 when it did not move.
         */
        long rxe(final String counter)
        {
            return rxeCounters.getOrDefault(counter, 0L);
        }

        /**
         * @param counter e.g. {@code Icmp.OutDestUnreachs}.
         * @return its change over the run, 0 when it did not move.
         */
        long netns(final String counter)
        {
            return netns.getOrDefault(counter, 0L);
        }
    }

    /**
     * rxe serves (ibv_rc_pingpong without a host), roce4j connects to the guest's address.
     *
     * @param peer     a tap-mode peer.
     * @param name     for logs and the pcap.
     * @param linkSpec roce4j's {@code --link}.
     * @param roceIp   the address roce4j's link has (what rxe must see as the remote GID).
     * @param size     message size.
     * @param mtu      path MTU (-m) on both sides.
     * @param iters    iterations.
     * @param faults   roce4j's {@code --faults} rules with their seed, or null for none.
     * @return the outcome, checked.
     * @throws IOException when the peer or a file cannot be used.
     */
    static Outcome roceAsClient(
        final RxePeer peer, final String name, final String linkSpec, final String roceIp, final int size,
        final int mtu, final int iters, final String faults) throws IOException
    {
        final TapNetwork network = peer.tapNetwork();
        // a JVM starts in the namespace for each run: 10 s more than the tunnel's pingpong
        peer.expectCase(PingpongInterop.expected(size, iters).plusSeconds(10));
        final Map<String, Long> rxeBefore = peer.hwCounters();
        final Map<String, Long> netnsBefore = network.snmp();
        final long startNs = System.nanoTime();
        final TapCapture capture = TapCapture.start(network, peer.ready().mac(), name);
        peer.noteCapture(capture.file());
        final Process roce;
        final int rxeExit;
        try
        {
            peer.kill("pp");
            peer.start("pp", "ibv_rc_pingpong " + cOptions(peer, size, mtu, iters));
            peer.awaitGuestListening(PingpongInterop.PINGPONG_PORT, Duration.ofSeconds(60));
            final List<String> args = roceArgs(peer, linkSpec, size, mtu, iters, faults);
            args.add(peer.options().guestAddress());
            roce = startRoce(network, name, args);
            awaitExit(peer, roce, name);
            rxeExit = peer.waitFor("pp", peer.caseTimeLeft(), () -> true, PingpongInterop.GRACE);
        }
        finally
        {
            capture.stop();
        }
        return check(peer, name, roceIp, size, iters, roce, rxeExit, capture.stop(), rxeBefore, netnsBefore, startNs);
    }

    /**
     * roce4j serves on the pingpong port inside the namespace, rxe connects to the namespace's kernel address.
     *
     * @param peer     a tap-mode peer.
     * @param name     for logs and the pcap.
     * @param linkSpec roce4j's {@code --link}.
     * @param roceIp   the address roce4j's link has (what rxe must see as the remote GID).
     * @param size     message size.
     * @param mtu      path MTU (-m) on both sides.
     * @param iters    iterations.
     * @param faults   roce4j's {@code --faults} rules with their seed, or null for none.
     * @return the outcome, checked.
     * @throws IOException when the peer or a file cannot be used.
     */
    static Outcome roceAsServer(
        final RxePeer peer, final String name, final String linkSpec, final String roceIp, final int size,
        final int mtu, final int iters, final String faults) throws IOException
    {
        final TapNetwork network = peer.tapNetwork();
        peer.expectCase(PingpongInterop.expected(size, iters).plusSeconds(10));
        final Map<String, Long> rxeBefore = peer.hwCounters();
        final Map<String, Long> netnsBefore = network.snmp();
        final long startNs = System.nanoTime();
        final TapCapture capture = TapCapture.start(network, peer.ready().mac(), name);
        peer.noteCapture(capture.file());
        Process roce = null;
        final int rxeExit;
        try
        {
            roce = startRoce(network, name, roceArgs(peer, linkSpec, size, mtu, iters, faults));
            peer.kill("pp");
            // The Java server may not listen yet (a JVM is starting): the C client retries its connect for 60 s.
            peer.start("pp", "i=0; while [ $i -lt 600 ]; do ibv_rc_pingpong " + cOptions(peer, size, mtu, iters) +
                " " + network.hostAddress() + " && exit 0; rc=$?; grep -q 'Couldn.t connect' /tmp/roce4j-pp.log " +
                "|| exit $rc; i=$((i+1)); usleep 100000; done; exit 1");
            final Process server = roce;
            rxeExit = peer.waitFor("pp", peer.caseTimeLeft(), () -> !server.isAlive(), PingpongInterop.GRACE);
            awaitExit(peer, roce, name);
        }
        finally
        {
            if (null != roce)
            {
                roce.destroyForcibly();
            }
            capture.stop();
        }
        return check(peer, name, roceIp, size, iters, roce, rxeExit, capture.stop(), rxeBefore, netnsBefore, startNs);
    }

    private static String cOptions(final RxePeer peer, final int size, final int mtu, final int iters)
    {
        return "-g " + peer.gids().guestGidIndex() + " -s " + size + " -n " + iters + " -c -m " + mtu;
    }

    private static List<String> roceArgs(
        final RxePeer peer, final String linkSpec, final int size, final int mtu, final int iters, final String faults)
    {
        final List<String> args = new ArrayList<>(List.of("pingpong", "--link", linkSpec,
            "-g", Integer.toString(peer.gids().roceGidIndex()),
            "-s", Integer.toString(size), "-n", Integer.toString(iters), "-m", Integer.toString(mtu), "-c",
            "--timeout", Integer.toString(SILENCE_TIMEOUT_MS)));
        if (null != faults)
        {
            args.addAll(List.of("--faults", faults));
        }
        return args;
    }

    /**
     * Start {@code roce ARGS} in a JVM inside the namespace, with the flags tests run with (Agrona needs the export;
     * bounds checks stay on), its standard output and error in {@code target/rxe-vm/<name>.roce.{out,err}}.
     */
    private static Process startRoce(final TapNetwork network, final String name, final List<String> args)
        throws IOException
    {
        final String surefireClassPath = System.getProperty("surefire.test.class.path");
        final List<String> java = new ArrayList<>(List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED",
            "-Dagrona.disable.bounds.checks=false",
            "-Xss2m",
            "-cp", null != surefireClassPath ? surefireClassPath : System.getProperty("java.class.path"),
            RoceCommand.class.getName()));
        java.addAll(args);
        final Path dir = PeerTools.targetDir().resolve("rxe-vm");
        Files.createDirectories(dir);
        final List<String> command = network.command(java);
        Files.writeString(dir.resolve(name + ".roce.cmd"), String.join(" ", command) + "\n");
        return new ProcessBuilder(command)
            .redirectOutput(dir.resolve(name + ".roce.out").toFile())
            .redirectError(dir.resolve(name + ".roce.err").toFile())
            .start();
    }

    private static void awaitExit(final RxePeer peer, final Process roce, final String name) throws IOException
    {
        try
        {
            final Duration left = peer.caseTimeLeft();
            if (!roce.waitFor(left.toMillis(), TimeUnit.MILLISECONDS))
            {
                roce.destroyForcibly();
                throw new AssertionError("roce pingpong " + name + " did not finish within the case's budget (" +
                    left + " left)" +
                    "; output:\n" + output(name, ".roce.out") + output(name, ".roce.err"));
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            roce.destroyForcibly();
            throw new IOException("interrupted waiting for roce pingpong " + name, ex);
        }
    }

    private static String output(final String name, final String suffix) throws IOException
    {
        return Files.readString(PeerTools.targetDir().resolve("rxe-vm").resolve(name + suffix), StandardCharsets.UTF_8);
    }

    private static Outcome check(
        final RxePeer peer, final String name, final String roceIp, final int size, final int iters,
        final Process roce, final int rxeExit, final TapCapture.Summary capture, final Map<String, Long> rxeBefore,
        final Map<String, Long> netnsBefore, final long startNs) throws IOException
    {
        final String roceOut = output(name, ".roce.out");
        final String rxeOut = peer.log("pp");
        final Map<String, Long> rxeCounters = changes(rxeBefore, peer.hwCounters());
        final Map<String, Long> netns = changes(netnsBefore, peer.tapNetwork().snmp());
        final String context = name + ":\n--- roce pingpong:\n" + roceOut + output(name, ".roce.err") +
            "--- ibv_rc_pingpong:\n" + rxeOut + "\n--- " + capture + "\n--- rxe counters: " + rxeCounters +
            "\n--- namespace counters: " + netns;
        assertEquals(0, roce.exitValue(), "roce pingpong failed\n" + context);
        assertEquals(0, rxeExit, "ibv_rc_pingpong failed\n" + context);
        final double usec = checkCounts(roceOut, size, iters, "roce pingpong", context);
        checkCounts(rxeOut, size, iters, "ibv_rc_pingpong", context);
        assertFalse(roceOut.contains("invalid data"), "-c check failed on the roce4j side\n" + context);
        assertFalse(rxeOut.contains("invalid data"), "-c check failed on rxe's side\n" + context);
        // Each side prints its own GID and the peer's: the addresses really used on the tap.
        final String roceGid = Gid.parse(roceIp).toString();
        final String guestGid = peer.gids().guestGid().toString();
        assertEquals(roceGid, gid(roceOut, "local"), "roce4j's address\n" + context);
        assertEquals(guestGid, gid(roceOut, "remote"), "rxe's address as roce4j saw it\n" + context);
        assertEquals(guestGid, gid(rxeOut, "local"), "rxe's address\n" + context);
        assertEquals(roceGid, gid(rxeOut, "remote"), "roce4j's address as rxe saw it\n" + context);
        final String roceErr = output(name, ".roce.err");
        final boolean faulty = !FaultReport.find(roceErr).isEmpty();
        // ibv_rc_pingpong posts one SEND and receives one per iteration, in either role; rxe counts a
        // retransmitted SEND again.
        final long sends = rxeCounters.getOrDefault("rdma_sends", 0L);
        assertTrue(faulty ? sends >= iters : sends == iters, "rxe's rdma_sends: " + sends + "\n" + context);
        assertEquals(iters, rxeCounters.getOrDefault("rdma_recvs", 0L), "rxe's rdma_recvs\n" + context);
        // The capture on the tap sees the frames roce4j corrupted on their way out with a bad ICRC.
        final long corruptedOut = InjectedFaults.corruptedOut(roceErr);
        assertEquals(corruptedOut, capture.badFrames(), "bad frames on the tap (roce4j corrupted " + corruptedOut +
            " on the way out)\n" + context);
        assertTrue(capture.framesToGuest() > 0 && capture.framesFromGuest() > 0, "no RoCE frames on the tap\n" +
            context);
        if (0 == capture.captureDrops())
        {
            // Retransmissions make these larger, never smaller.
            assertTrue(capture.sendBytesToGuest() >= (long)size * iters, "SEND bytes to the guest\n" + context);
            assertTrue(capture.sendBytesFromGuest() >= (long)size * iters, "SEND bytes from the guest\n" + context);
        }
        return new Outcome(roceOut, rxeOut, usec, capture, rxeCounters, netns,
            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs), roceErr);
    }

    /**
     * @param output a pingpong's output.
     * @param which  local or remote.
     * @return the GID of its {@code "  local address:  LID 0x0000, QPN 0x.., PSN 0x.., GID G"} line, or null.
     */
    private static String gid(final String output, final String which)
    {
        final Matcher matcher = Pattern.compile("(?m)^\\s*" + which + " address: .*, GID (\\S+)\\s*$").matcher(output);
        return matcher.find() ? matcher.group(1) : null;
    }

    private static double checkCounts(
        final String output, final int size, final int iters, final String who, final String context)
    {
        final Matcher bytes = BYTES.matcher(output);
        assertTrue(bytes.find(), who + " printed no byte count\n" + context);
        // Both programs count each iteration's message once each way.
        assertEquals((long)size * iters * 2, Long.parseLong(bytes.group(1)), who + " byte count\n" + context);
        final Matcher itersLine = ITERS.matcher(output);
        assertTrue(itersLine.find(), who + " printed no iteration count\n" + context);
        assertEquals(iters, Integer.parseInt(itersLine.group(1)), who + " iterations\n" + context);
        return Double.parseDouble(itersLine.group(3));
    }

    private static Map<String, Long> changes(final Map<String, Long> before, final Map<String, Long> after)
    {
        final Map<String, Long> moved = new TreeMap<>();
        for (final Map.Entry<String, Long> entry : after.entrySet())
        {
            final long delta = entry.getValue() - before.getOrDefault(entry.getKey(), 0L);
            if (0 != delta)
            {
                moved.put(entry.getKey(), delta);
            }
        }
        return moved;
    }
}
