package org.roce4j.interop;

import java.io.IOException;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code roce perf} against perftest 25.01 (it announces version 6.24 in its exchange, so no parameter negotiation)
 * in a Debian 13 guest (Linux 6.12 rxe): all seven tools and both atomics, roce4j as client and as server, with the
 * checks of {@link PerftestWithRxeTest}.
 */
@RxePeerTest(hostAccess = true, suite = "trixie")
class TrixiePerftestWithRxeTest
{
    private static final int ITERATIONS = 1000;
    private RxePeer peer;

    @ParameterizedTest(name = "{0} {1} B, roce4j as {2}, perftest 25.01")
    @CsvSource({
        "send_bw, 4096, client", "send_bw, 4096, server",
        "write_bw, 4096, client", "write_bw, 4096, server",
        "read_bw, 4096, client", "read_bw, 4096, server",
        "send_lat, 4096, client", "send_lat, 4096, server",
        "write_lat, 4096, client", "write_lat, 4096, server",
        "read_lat, 4096, client", "read_lat, 4096, server"})
    void perftestWithTrixieRxe(final String tool, final int size, final String role) throws IOException
    {
        assertTrue(peer.ready().kernel().startsWith("6.12."), "a trixie guest: " + peer.ready().kernel());
        run(role, new PerftestInterop.Case("TrixiePerftestWithRxeTest-" + tool + "-" + size + "-" + role, tool,
            "-s " + size + " -n " + ITERATIONS, new long[] {size}, ITERATIONS, false));
    }

    @ParameterizedTest(name = "atomic_bw {0}, roce4j as {1}, perftest 25.01")
    @CsvSource({"FETCH_AND_ADD, client", "FETCH_AND_ADD, server", "CMP_AND_SWAP, client", "CMP_AND_SWAP, server"})
    void atomicsWithTrixieRxe(final String operation, final String role) throws IOException
    {
        run(role, new PerftestInterop.Case("TrixiePerftestWithRxeTest-atomic_bw-" + operation + "-" + role,
            "atomic_bw", "-A " + operation + " -n " + ITERATIONS, new long[] {8}, ITERATIONS, "client".equals(role)));
    }

    private void run(final String role, final PerftestInterop.Case c) throws IOException
    {
        final PerftestInterop.Outcome outcome = "client".equals(role) ?
            PerftestInterop.roceAsClient(peer, c) : PerftestInterop.roceAsServer(peer, c);
        System.out.println(c.name() + ": " + outcome.elapsedMs() + " ms" + (outcome.attempts() > 1 ? " (" +
            outcome.attempts() + " attempts: perftest's clock calibration failed in the guest)" : ""));
    }
}
