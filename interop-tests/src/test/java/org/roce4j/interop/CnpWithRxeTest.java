package org.roce4j.interop;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.roce4j.transport.link.fault.FaultReport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * roce4j's CNPs do not disturb rxe (issue 18 point 7). rxe has no DCQCN: it is no notification point and drops
 * CNPs (opcode 0x81 is no RC opcode: rxe_recv.c check_type_state). roce4j runs with {@code --cc dcqcn} and
 * {@code --faults 'ecn=0.05,dir=rx'}, which marks CE on 5 % of rxe's frames as they reach roce4j, as a congested
 * switch would (checksums fixed, ICRC still good). roce4j, the notification point, answers with CNPs (at most one
 * per QP per min_time_between_cnps, 4 µs), rxe drops them, and pingpong and perftest still complete in both roles.
 * roce4j's notification point reacts to marked requests: with roce4j as ib_write_bw's client rxe sends only
 * ACKs, and their marks draw no CNP.
 * Each case prints roce4j's CNP counters and the rxe counters that moved.
 */
@RxePeerTest(hostAccess = true)
class CnpWithRxeTest
{
    private static final long SEED = 0xC0FFEE;
    /** CE on 5 % of the frames roce4j receives. */
    private static final String ECN_FAULTS = "ecn=0.05,dir=rx;seed=" + SEED;
    private static final int ITERATIONS = 1000;
    private static final Pattern COUNTER = Pattern.compile("(?m)^([a-z]+\\.[a-z0-9_]+) (\\d+)$");

    private RxePeer peer;

    @AfterEach
    void noOptions()
    {
        peer.useRoceOptions(List.of());
    }

    @ParameterizedTest(name = "rc pingpong 4096 B with CE marks on rxe's frames, roce4j as {0}")
    @CsvSource({"client", "server"})
    void pingpongWithCnps(final String role) throws IOException
    {
        peer.useRoceOptions(List.of("--cc", "dcqcn", "--counters", "--faults", ECN_FAULTS));
        final String name = "CnpWithRxeTest-pingpong-" + role;
        final Map<String, Long> rxeBefore = peer.hwCounters();
        final PingpongInterop.Case c = PingpongInterop.Case.of(name, "rc", 4096, 1024, ITERATIONS);
        final PingpongInterop.Outcome outcome = "client".equals(role) ?
            PingpongInterop.roceAsClient(peer, c) : PingpongInterop.roceAsServer(peer, c);
        report(name, outcome.roceErrors(), rxeBefore, true);
    }

    @ParameterizedTest(name = "write_bw 4096 B with CE marks on rxe's frames, roce4j as {0}")
    @CsvSource({"client", "server"})
    void perftestWithCnps(final String role) throws IOException
    {
        // roce perf prints its counters itself (PerftestInterop passes --counters).
        peer.useRoceOptions(List.of("--cc", "dcqcn", "--faults", ECN_FAULTS));
        final String name = "CnpWithRxeTest-write_bw-" + role;
        final Map<String, Long> rxeBefore = peer.hwCounters();
        final PerftestInterop.Case c = new PerftestInterop.Case(name, "write_bw", "-s 4096 -n " + ITERATIONS,
            new long[] {4096}, ITERATIONS, true);
        final PerftestInterop.Outcome outcome = "client".equals(role) ?
            PerftestInterop.roceAsClient(peer, c) : PerftestInterop.roceAsServer(peer, c);
        // With roce4j as client rxe sends only ACKs: a notification point reacts to marked requests, so none of its
        // marks may count or draw a CNP (CongestionPoints.onRequest).
        report(name, outcome.roceErrors(), rxeBefore, "server".equals(role));
    }

    /**
     * roce4j marked some of rxe's frames and, when they were requests, counted them and sent a CNP for some, at most
     * one per mark; print what moved.
     */
    private void report(
        final String name, final String roceErrors, final Map<String, Long> rxeBefore, final boolean requestsMarked)
        throws IOException
    {
        final FaultReport injected = InjectedFaults.parse(roceErrors);
        final Map<String, Long> counters = new TreeMap<>();
        final Matcher counter = COUNTER.matcher(roceErrors);
        while (counter.find())
        {
            counters.put(counter.group(1), Long.parseLong(counter.group(2)));
        }
        final long marked = injected.rx().ecnMarks();
        final long cnps = counters.getOrDefault("transport.np_cnp_sent", 0L);
        final long seen = counters.getOrDefault("transport.np_ecn_marked_roce_packets", 0L);
        assertEquals(0, injected.tx().ecnMarks(), "dir=rx marks only incoming frames: " + injected);
        assertTrue(marked > 0, "no frame of rxe's was marked: " + injected);
        if (requestsMarked)
        {
            // Marked ACKs, and a marked frame that reaches no live QP (after a QP's end), are not counted.
            assertTrue(seen > 0 && seen <= marked, "CE-marked requests roce4j counted (np_ecn_marked_roce_packets " +
                seen + ") of " + marked + " marked frames: " + counters);
            assertTrue(cnps > 0 && cnps <= seen, "CNPs sent (np_cnp_sent " + cnps + ") for " + seen +
                " marked requests: " + counters);
        }
        else
        {
            assertEquals(0, seen + cnps, "marked ACKs counted or answered with CNPs: " + counters);
        }
        final Map<String, Long> rxeMoved = new TreeMap<>();
        peer.hwCounters().forEach((key, value) ->
        {
            final long delta = value - rxeBefore.getOrDefault(key, 0L);
            if (0 != delta)
            {
                rxeMoved.put(key, delta);
            }
        });
        System.out.println("[cnp-interop] " + name + ": injected ecn=" + marked + ", roce4j np_ecn_marked=" + seen +
            " np_cnp_sent=" + cnps + "; rxe counters moved: " + rxeMoved);
    }
}
