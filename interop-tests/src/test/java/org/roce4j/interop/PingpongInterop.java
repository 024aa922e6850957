package org.roce4j.interop;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.roce4j.testcontainers.Host;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.RoceFrameParser;
import org.roce4j.wire.pcap.PcapReader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Runs {@code roce pingpong} (in process, through the real command line) against rxe's own ibv_*_pingpong in the
 * guest, in either role, and checks both sides' output: exit codes, iteration and byte counts, no failed -c check,
 * and that every RoCE frame recorded on the tunnel has a good ICRC.
 */
final class PingpongInterop
{
    /** ibv_*_pingpong's out-of-band TCP port. */
    static final int PINGPONG_PORT = 18515;
    /**
     * How long roce pingpong waits for a completion before it gives up: far above a retransmission round (rxe's
     * local ACK timeout 14 is 67 ms, retried 7 times), far below the case's budget, so a wedged guest costs this
     * much and not the whole budget.
     */
    static final int SILENCE_TIMEOUT_MS = 15_000;
    /** roce pingpong runs as a client at most this often when QEMU's port forward closes its connection at once. */
    static final int CONNECT_ATTEMPTS = 5;
    /** Time the C tool may still take after roce pingpong ended (its last iteration, its "done" exchange). */
    static final Duration GRACE = Duration.ofSeconds(15);
    private static final Pattern BYTES = Pattern.compile("(\\d+) bytes in ([0-9.]+) seconds = ([0-9.]+) Mbit/sec");
    private static final Pattern ITERS = Pattern.compile("(\\d+) iters in ([0-9.]+) seconds = ([0-9.]+) usec/iter");

    private PingpongInterop()
    {
    }

    /** What one run looked like. */
    record Outcome(
        String roceOutput, String rxeOutput, double usecPerIter, long frames, long elapsedMs, String roceErrors)
    {
    }

    /**
     * @param transport rc, uc, ud or srq.
     * @return the C example for it.
     */
    static String cTool(final String transport)
    {
        return "ibv_" + transport + "_pingpong";
    }

    /**
     * How long a pingpong case takes on a busy two-core machine: boot-free set-up, then per iteration the emulated
     * guest's fixed cost (a few ms under TCG) plus its copy and ICRC cost per KiB (measured: 1,000 iterations of 1 B
     * in 5 to 22 s, of 64 KiB in 7 to 31 s, at load averages of 2 to 10).
     *
     * @param size  message size.
     * @param iters iterations.
     * @return the expected time ({@link RxePeer#expectCase}).
     */
    static Duration expected(final int size, final int iters)
    {
        return Duration.ofMillis(10_000 + iters * (4L + size / 4096L));
    }

    /**
     * One case: what both tools run with, and roce4j's faults.
     *
     * @param name      for logs and the pcap (target/pcaps/NAME.pcap).
     * @param transport rc, uc, ud, or srq (ibv_srq_pingpong: {@code roce pingpong --srq qps} and {@code -q qps}).
     * @param qps       the QPs of an srq run, 0 otherwise.
     * @param size      message size (-s).
     * @param mtu       path MTU (-m; a ud run takes none).
     * @param iters     iterations (-n).
     * @param faults    roce4j's {@code --faults} rules without the seed, or null for none.
     * @param seed      the faults' seed (and the tunnel's).
     */
    record Case(String name, String transport, int qps, int size, int mtu, int iters, String faults, long seed)
    {
        Case
        {
            if ("srq".equals(transport) != (qps > 0))
            {
                throw new IllegalArgumentException("an srq case needs QPs and no other case takes them: " +
                    transport + " with " + qps + " QPs");
            }
        }

        /**
         * @param name      for logs and the pcap.
         * @param transport rc, uc or ud.
         * @param size      message size.
         * @param mtu       path MTU.
         * @param iters     iterations.
         * @return the case, without faults (seed 0).
         */
        static Case of(final String name, final String transport, final int size, final int mtu, final int iters)
        {
            return new Case(name, transport, 0, size, mtu, iters, null, 0);
        }

        /**
         * @param name  for logs and the pcap.
         * @param qps   the QPs sharing the SRQ ({@code roce pingpong --srq qps}, {@code ibv_srq_pingpong -q qps}).
         * @param size  message size.
         * @param mtu   path MTU.
         * @param iters iterations.
         * @return the srq case, without faults (seed 0).
         */
        static Case srq(final String name, final int qps, final int size, final int mtu, final int iters)
        {
            return new Case(name, "srq", qps, size, mtu, iters, null, 0);
        }

        /**
         * @param rules     roce4j's {@code --faults} rules without the seed.
         * @param faultSeed their seed.
         * @return this case with roce4j's link faulty.
         */
        Case faulty(final String rules, final long faultSeed)
        {
            return new Case(name, transport, qps, size, mtu, iters, rules, faultSeed);
        }
    }

    /**
     * roce4j's client connects through QEMU's port forward to the guest's tool, which listens.
     *
     * @param peer the guest.
     * @param c    the case.
     * @return the outcome, checked.
     * @throws IOException when the pcap cannot be read.
     */
    static Outcome roceAsClient(final RxePeer peer, final Case c) throws IOException
    {
        final long start = System.nanoTime();
        peer.expectCase(expected(c.size(), c.iters()));
        final String tool = cTool(c.transport());
        peer.kill("pp");
        peer.start("pp", tool + " " + cOptions(peer, c));
        peer.awaitGuestListening(PINGPONG_PORT, Duration.ofSeconds(60));
        final List<String> args = roceArgs(peer, c);
        args.add("-p");
        args.add(Integer.toString(peer.forwardedPort(PINGPONG_PORT)));
        args.add("127.0.0.1");
        RoceRun roce = RoceRun.run(args);
        for (int attempt = 1; attempt < CONNECT_ATTEMPTS && closedByForward(roce); attempt++)
        {
            // QEMU's hostfwd accepted and then closed the connection before the guest's server had it (see
            // RxePeer.tcpConnect); roce pingpong, as ibv_rc_pingpong, does not retry, so the harness does.
            System.out.println("[pingpong-reconnect] " + c.name() + ": " + roce.err().trim() + " (attempt " +
                attempt + ")");
            roce = RoceRun.run(args);
        }
        final int rxeExit;
        try
        {
            rxeExit = peer.waitFor("pp", peer.caseTimeLeft(), () -> true, GRACE);
        }
        catch (final AssertionError ex)
        {
            throw new AssertionError(ex.getMessage() + "\n--- roce pingpong (exit " + roce.exitCode() + "):\n" +
                roce.out() + roce.err(), ex);
        }
        final String rxeOutput = peer.log("pp");
        return check(c, roce, rxeExit, rxeOutput, start);
    }

    /**
     * roce4j serves on a free host port; the guest's tool connects to it, retrying while the server is not up.
     *
     * @param peer the guest.
     * @param c    the case.
     * @return the outcome, checked.
     * @throws IOException when the pcap cannot be read.
     */
    static Outcome roceAsServer(final RxePeer peer, final Case c) throws IOException
    {
        final long start = System.nanoTime();
        peer.expectCase(expected(c.size(), c.iters()));
        final int hostPort = Host.freeTcpPort();
        final List<String> args = roceArgs(peer, c);
        args.add("-p");
        args.add(Integer.toString(hostPort));
        final CompletableFuture<RoceRun> roce = CompletableFuture.supplyAsync(() -> RoceRun.run(args));
        final String address = peer.hostAddressForGuest(hostPort);
        final String host = address.substring(0, address.lastIndexOf(':'));
        peer.kill("pp");
        // The Java server may not listen yet: the C client retries its connect a few times in a loop here.
        peer.start("pp", "i=0; while [ $i -lt 100 ]; do " + cTool(c.transport()) + " " + cOptions(peer, c) +
            " -p " + hostPort + " " + host + " && exit 0; " +
            "rc=$?; grep -q 'Couldn.t connect' /tmp/roce4j-pp.log || exit $rc; i=$((i+1)); usleep 100000; done; " +
            "exit 1");
        final int rxeExit = peer.waitFor("pp", peer.caseTimeLeft(), roce::isDone, GRACE);
        final RoceRun result;
        try
        {
            result = roce.get(peer.caseTimeLeft().toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (final Exception ex)
        {
            throw new AssertionError("roce pingpong server did not finish; rxe said:\n" + peer.log("pp"), ex);
        }
        return check(c, result, rxeExit, peer.log("pp"), start);
    }

    private static String cOptions(final RxePeer peer, final Case c)
    {
        final StringBuilder sb = new StringBuilder()
            .append("-g ").append(peer.gids().guestGidIndex())
            .append(" -s ").append(c.size())
            .append(" -n ").append(c.iters())
            .append(" -c");
        if (c.qps() > 0)
        {
            sb.append(" -q ").append(c.qps());
        }
        if (!"ud".equals(c.transport()))
        {
            sb.append(" -m ").append(c.mtu());
        }
        return sb.toString();
    }

    private static List<String> roceArgs(final RxePeer peer, final Case c)
    {
        final List<String> args = new ArrayList<>(List.of("pingpong",
            "--link", peer.tunnelSpec(c.name(), 0.0, c.seed()) + peer.gids().linkOptions(),
            c.qps() > 0 ? "--srq" : "--transport", c.qps() > 0 ? Integer.toString(c.qps()) : c.transport(),
            "-g", Integer.toString(peer.gids().roceGidIndex()),
            "-s", Integer.toString(c.size()),
            "-n", Integer.toString(c.iters()),
            "-c",
            "--timeout", Integer.toString(SILENCE_TIMEOUT_MS)));
        if (!"ud".equals(c.transport()))
        {
            args.add("-m");
            args.add(Integer.toString(c.mtu()));
        }
        if (null != c.faults())
        {
            args.add("--faults");
            args.add(c.faults() + ";seed=" + c.seed());
        }
        args.addAll(peer.roceOptions());
        return args;
    }

    /**
     * @param roce a finished client run.
     * @return true when it failed because the TCP side channel closed before the guest's tool sent its address:
     *     QEMU's user networking accepts the host's connect at once and closes it if the guest does not take it.
     */
    static boolean closedByForward(final RoceRun roce)
    {
        return 0 != roce.exitCode() && roce.err().contains("Couldn't read/write remote address from 127.0.0.1");
    }

    private static Outcome check(
        final Case c, final RoceRun roce, final int rxeExit, final String rxeOutput, final long startNs)
        throws IOException
    {
        final String name = c.name();
        final String transport = c.transport();
        final int qps = c.qps();
        final int size = c.size();
        final int iters = c.iters();
        final String context = name + ":\n--- roce pingpong:\n" + roce.out() + roce.err() + "--- " + cTool(transport) +
            ":\n" + rxeOutput;
        assertEquals(0, roce.exitCode(), "roce pingpong failed\n" + context);
        assertEquals(0, rxeExit, cTool(transport) + " failed\n" + context);
        final double usec = checkCounts(roce.out(), size, iters, "roce pingpong", context);
        checkCounts(rxeOutput, size, iters, cTool(transport), context);
        assertFalse(roce.out().contains("invalid data"), "-c check failed on the roce4j side\n" + context);
        assertFalse(rxeOutput.contains("invalid data"), "-c check failed on rxe's side\n" + context);
        assertTrue(roce.out().contains("  local address:  LID 0x0000, QPN 0x"), context);
        assertTrue(rxeOutput.contains("  remote address: LID 0x0000, QPN 0x"), context);
        if (qps > 0)
        {
            // ibv_srq_pingpong prints one local and one remote line per QP, and so must roce pingpong --srq.
            for (final String output : List.of(roce.out(), rxeOutput))
            {
                assertEquals(qps, output.lines().filter(line -> line.startsWith("  local address:  ")).count(),
                    context);
                assertEquals(qps, output.lines().filter(line -> line.startsWith("  remote address: ")).count(),
                    context);
            }
        }
        // The tunnel records frames at the wire: the ones roce4j corrupted on the way out are there with a bad ICRC,
        // the ones corrupted on the way in are recorded before the fault.
        final long corruptedOut = InjectedFaults.corruptedOut(roce.err());
        final long frames = verifyPcap(name, corruptedOut, context);
        return new Outcome(roce.out(), rxeOutput, usec, frames, (System.nanoTime() - startNs) / 1_000_000, roce.err());
    }

    private static double checkCounts(final String output, final int size, final int iters, final String who,
        final String context)
    {
        final Matcher bytes = BYTES.matcher(output);
        assertTrue(bytes.find(), who + " printed no byte count\n" + context);
        assertEquals((long)size * iters * 2, Long.parseLong(bytes.group(1)), who + " byte count\n" + context);
        final Matcher itersLine = ITERS.matcher(output);
        assertTrue(itersLine.find(), who + " printed no iteration count\n" + context);
        assertEquals(iters, Integer.parseInt(itersLine.group(1)), who + " iterations\n" + context);
        return Double.parseDouble(itersLine.group(3));
    }

    /**
     * Every RoCE frame the tunnel recorded (both directions) must carry a good ICRC, but for the ones roce4j's faulty
     * link corrupted on their way out.
     */
    private static long verifyPcap(final String name, final long corruptedOut, final String context)
        throws IOException
    {
        final RoceFrameParser parser = new RoceFrameParser();
        long roce = 0;
        long bad = 0;
        try (PcapReader reader = PcapReader.open(PeerTools.targetDir().resolve("pcaps").resolve(name + ".pcap")))
        {
            while (reader.next())
            {
                final FrameStatus status = parser.parse(reader.buffer(), 0, reader.capturedLength());
                if (status.isNotRoce() || FrameStatus.TRUNCATED_ETHERNET == status)
                {
                    continue;
                }
                roce++;
                if (FrameStatus.OK != status)
                {
                    assertEquals(FrameStatus.BAD_ICRC, status, "frame " + reader.index() + " of " + name +
                        ".pcap\n" + context);
                    bad++;
                }
            }
        }
        assertTrue(roce > 0, "no RoCE frames recorded\n" + context);
        assertEquals(corruptedOut, bad, "frames with a bad ICRC in " + name + ".pcap (roce4j corrupted " +
            corruptedOut + " on the way out)\n" + context);
        return roce;
    }
}
