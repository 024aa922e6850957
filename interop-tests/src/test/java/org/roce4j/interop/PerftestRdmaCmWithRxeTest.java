package org.roce4j.interop;

import java.io.IOException;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@code roce perf -R} against Debian's perftest 4.5+0.17 with -R in the rxe guest: the exchange runs over its own
 * rdma_cm connection on perftest's port and the test's QP is connected by rdma_cm (rxe's kernel CM on the other
 * side), for ib_write_lat and ib_send_bw, roce4j as client of the guest's server and as server for the guest's
 * client; and ib_send_bw and ib_send_lat with -c UD, whose QPs rdma_cm resolves by SIDR in its UDP port space. Both
 * sides must exit 0 and report the right iteration count with sane figures; the 2-byte runs are recorded and every
 * ICRC checked (QP1's MADs included).
 */
@RxePeerTest
class PerftestRdmaCmWithRxeTest
{
    static final int ITERATIONS = 1000;
    /**
     * ib_send_bw -c UD with roce4j sending: one burst no longer than the guest NIC's receive ring (e1000: 256
     * descriptors). A burst of 1,000 overran it once the emulated guest lagged (rxe counted 995 of 1,000 in rcvd_pkts),
     * and a UD loss is never recovered: perftest's server then waits for ever for the missing messages.
     */
    static final int UD_BW_ITERATIONS = 100;
    private RxePeer peer;

    @ParameterizedTest(name = "{0} -R {1} B, roce4j as {2}")
    @CsvSource({
        "write_lat, 2, client", "write_lat, 2, server", "write_lat, 4096, client", "write_lat, 4096, server",
        "send_bw, 2, client", "send_bw, 2, server", "send_bw, 65536, client", "send_bw, 65536, server"})
    void perftestOverRdmaCm(final String tool, final int size, final String role) throws IOException
    {
        run(peer, getClass().getSimpleName() + "-" + tool + "-" + size + "-" + role, tool, "-R", size, role,
            ITERATIONS);
    }

    /**
     * UD over rdma_cm's UDP port space: each side's UD QP resolved by SIDR_REQ / SIDR_REP against rxe's kernel CM,
     * and for ib_send_lat the client's SEND_WITH_IMM that gives the server its address. ib_send_bw runs
     * {@link #UD_BW_ITERATIONS} iterations, ib_send_lat 1,000.
     */
    @ParameterizedTest(name = "{0} -c UD -R {1} B, roce4j as {2}")
    @CsvSource({"send_bw, 2, client", "send_bw, 2, server", "send_lat, 2, client", "send_lat, 2, server"})
    void perftestOverRdmaCmUd(final String tool, final int size, final String role) throws IOException
    {
        run(peer, getClass().getSimpleName() + "-ud-" + tool + "-" + size + "-" + role, tool, "-R -c UD", size, role,
            "send_bw".equals(tool) ? UD_BW_ITERATIONS : ITERATIONS);
    }

    /**
     * One {@code roce perf} run with rdma_cm against the guest's perftest, with this class's checks (shared with
     * {@link TrixiePerftestRdmaCmWithRxeTest}).
     *
     * @param peer       the guest.
     * @param name       the case (and its capture's) name.
     * @param tool       e.g. {@code send_bw}.
     * @param cmOptions  {@code -R}, or {@code -R -c UD}.
     * @param size       message size.
     * @param role       {@code client} or {@code server}: roce4j's.
     * @param iterations -n.
     */
    static void run(final RxePeer peer, final String name, final String tool, final String cmOptions,
        final int size, final String role, final int iterations) throws IOException
    {
        assertEquals(1024, peer.ready().activeMtu());
        final PerftestInterop.Case c = new PerftestInterop.Case(name, tool, cmOptions + " -s " + size + " -n " +
            iterations, new long[] {size}, iterations, 2 == size);
        final PerftestInterop.Outcome outcome = "client".equals(role) ?
            PerftestInterop.roceAsClient(peer, c) : PerftestInterop.roceAsServer(peer, c);
        final String both = outcome.roceOutput() + "\n--- ib_" + tool + ":\n" + outcome.rxeOutput();
        assertContains(outcome.roceOutput(), " rdma_cm QPs\t : ON\n Data ex. method : rdma_cm", both);
        assertContains(outcome.rxeOutput(), " rdma_cm QPs\t : ON\n Data ex. method : rdma_cm", both);
        System.out.println(c.name() + ": " + outcome.elapsedMs() + " ms" + (outcome.frames() >= 0 ? ", " +
            outcome.frames() + " RoCE frames, all ICRCs good" : "") + (outcome.attempts() > 1 ? " (" +
            outcome.attempts() + " attempts)" : "") + (outcome.recovery().isEmpty() ? "" : ", roce4j recovered: " +
            outcome.recovery()));
    }

    private static void assertContains(final String text, final String part, final String context)
    {
        org.junit.jupiter.api.Assertions.assertTrue(text.contains(part), "missing '" + part + "' in:\n" + context);
    }
}
