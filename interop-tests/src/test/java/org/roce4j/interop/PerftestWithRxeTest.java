package org.roce4j.interop;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@code roce perf} against Debian's perftest 4.5+0.17 in the rxe guest (path MTU 1024): each of the seven tools
 * with roce4j as client against the guest's server and as server for the guest's client, RC, at 2 B, 4 KiB and
 * 64 KiB (atomics: their one size, 8 B, both operations), 1000 iterations, and an ib_write_bw -a sweep (2 B to
 * 8 MiB, 5 iterations, perftest's minimum) in both roles. Both sides must exit 0 and report every size with the
 * right iteration count and figures above zero; the 2-byte runs are recorded and every ICRC checked.
 */
@RxePeerTest(hostAccess = true)
class PerftestWithRxeTest
{
    private static final int ITERATIONS = 1000;
    private static final Map<String, String> TIMINGS = new ConcurrentSkipListMap<>();
    private RxePeer peer;

    @ParameterizedTest(name = "{0} {1} B, roce4j as {2}")
    @CsvSource({
        "send_bw, 2, client", "send_bw, 4096, client", "send_bw, 65536, client",
        "send_bw, 2, server", "send_bw, 4096, server", "send_bw, 65536, server",
        "write_bw, 2, client", "write_bw, 4096, client", "write_bw, 65536, client",
        "write_bw, 2, server", "write_bw, 4096, server", "write_bw, 65536, server",
        "read_bw, 2, client", "read_bw, 4096, client", "read_bw, 65536, client",
        "read_bw, 2, server", "read_bw, 4096, server", "read_bw, 65536, server",
        "send_lat, 2, client", "send_lat, 4096, client", "send_lat, 65536, client",
        "send_lat, 2, server", "send_lat, 4096, server", "send_lat, 65536, server",
        "write_lat, 2, client", "write_lat, 4096, client", "write_lat, 65536, client",
        "write_lat, 2, server", "write_lat, 4096, server", "write_lat, 65536, server",
        "read_lat, 2, client", "read_lat, 4096, client", "read_lat, 65536, client",
        "read_lat, 2, server", "read_lat, 4096, server", "read_lat, 65536, server"})
    void perftestWithRxe(final String tool, final int size, final String role) throws IOException
    {
        assertEquals(1024, peer.ready().activeMtu());
        final String name = "PerftestWithRxeTest-" + tool + "-" + size + "-" + role;
        run(role, new PerftestInterop.Case(name, tool, "-s " + size + " -n " + ITERATIONS, new long[] {size},
            ITERATIONS, 2 == size));
    }

    @ParameterizedTest(name = "atomic_bw {0}, roce4j as {1}")
    @CsvSource({"FETCH_AND_ADD, client", "FETCH_AND_ADD, server", "CMP_AND_SWAP, client", "CMP_AND_SWAP, server"})
    void atomicsWithRxe(final String operation, final String role) throws IOException
    {
        final String name = "PerftestWithRxeTest-atomic_bw-" + operation + "-" + role;
        run(role, new PerftestInterop.Case(name, "atomic_bw", "-A " + operation + " -n " + ITERATIONS,
            new long[] {8}, ITERATIONS, "client".equals(role)));
    }

    @ParameterizedTest(name = "write_bw -a, roce4j as {0}")
    @CsvSource({"client", "server"})
    void sizeSweepWithRxe(final String role) throws IOException
    {
        final long[] sizes = new long[23];
        for (int i = 0; i < sizes.length; i++)
        {
            sizes[i] = 2L << i;
        }
        run(role, new PerftestInterop.Case("PerftestWithRxeTest-write_bw-sweep-" + role, "write_bw", "-a -n 5",
            sizes, 5, false));
    }

    @AfterAll
    static void printTimings()
    {
        System.out.println("[perftest-timings] " + TIMINGS.size() + " runs against ib_* in the rxe guest:");
        TIMINGS.forEach((name, line) -> System.out.println("[perftest-timings] " + name + ": " + line));
    }

    private void run(final String role, final PerftestInterop.Case c) throws IOException
    {
        final PerftestInterop.Outcome outcome = "client".equals(role) ?
            PerftestInterop.roceAsClient(peer, c) : PerftestInterop.roceAsServer(peer, c);
        final String line = outcome.elapsedMs() + " ms" + (outcome.frames() >= 0 ? ", " + outcome.frames() +
            " RoCE frames, all ICRCs good" : "") + (outcome.attempts() > 1 ? " (" + outcome.attempts() +
            " attempts: perftest's clock calibration failed in the guest)" : "") +
            (outcome.recovery().isEmpty() ? "" : ", roce4j recovered: " + outcome.recovery());
        TIMINGS.put(c.name(), line);
        System.out.println(c.name() + ": " + line);
    }
}
