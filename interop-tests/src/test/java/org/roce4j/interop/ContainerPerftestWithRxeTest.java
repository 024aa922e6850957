package org.roce4j.interop;

import java.io.IOException;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The container path with a perftest tool: {@code roce perf write_bw} against ib_write_bw in the rxe guest run by the
 * roce4j/rxe-qemu container through Testcontainers, both roles, with the checks of {@link PerftestWithRxeTest}
 * (exit codes, one report line with the size and iterations, sane figures, every ICRC of the recorded run).
 */
@RxePeerTest(backend = PeerTools.Backend.CONTAINER, hostAccess = true)
class ContainerPerftestWithRxeTest
{
    private static final int ITERATIONS = 1000;
    private RxePeer peer;

    @ParameterizedTest(name = "write_bw {0} B, roce4j as {1}, rxe in a container")
    @CsvSource({"4096, client", "4096, server"})
    void writeBwWithRxeInAContainer(final int size, final String role) throws IOException
    {
        final PerftestInterop.Case c = new PerftestInterop.Case("ContainerPerftestWithRxeTest-write_bw-" + size +
            "-" + role, "write_bw", "-s " + size + " -n " + ITERATIONS, new long[] {size}, ITERATIONS, true);
        final PerftestInterop.Outcome outcome = "client".equals(role) ?
            PerftestInterop.roceAsClient(peer, c) : PerftestInterop.roceAsServer(peer, c);
        System.out.println(c.name() + ": " + outcome.elapsedMs() + " ms, " + outcome.frames() +
            " RoCE frames, all ICRCs good");
    }
}
