package org.roce4j.interop;

import java.io.IOException;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code roce perf -R} against perftest 25.01 with -R in a Debian 13 guest (Linux 6.12 rxe and rdma_cm): the tools
 * and port spaces of {@link PerftestRdmaCmWithRxeTest}, roce4j as client and as server, with its checks: ib_write_lat
 * at 2 B and 4 KiB and ib_send_bw at 2 B over RC (rdma_cm's TCP port space), and ib_send_bw and ib_send_lat with
 * -c UD (SIDR in the UDP port space). The bookworm class's 64 KiB ib_send_bw (about 120 s with roce4j sending, the
 * emulated guest dropping frames) is left out to keep the class within about 4 minutes.
 */
@RxePeerTest(suite = "trixie")
class TrixiePerftestRdmaCmWithRxeTest
{
    private RxePeer peer;

    @ParameterizedTest(name = "{0} -R {1} B, roce4j as {2}, perftest 25.01")
    @CsvSource({
        "write_lat, 2, client", "write_lat, 2, server", "write_lat, 4096, client", "write_lat, 4096, server",
        "send_bw, 2, client", "send_bw, 2, server"})
    void perftestOverRdmaCm(final String tool, final int size, final String role) throws IOException
    {
        assertTrue(peer.ready().kernel().startsWith("6.12."), "a trixie guest: " + peer.ready().kernel());
        PerftestRdmaCmWithRxeTest.run(peer, getClass().getSimpleName() + "-" + tool + "-" + size + "-" + role, tool,
            "-R", size, role, PerftestRdmaCmWithRxeTest.ITERATIONS);
    }

    @ParameterizedTest(name = "{0} -c UD -R {1} B, roce4j as {2}, perftest 25.01")
    @CsvSource({"send_bw, 2, client", "send_bw, 2, server", "send_lat, 2, client", "send_lat, 2, server"})
    void perftestOverRdmaCmUd(final String tool, final int size, final String role) throws IOException
    {
        PerftestRdmaCmWithRxeTest.run(peer, getClass().getSimpleName() + "-ud-" + tool + "-" + size + "-" + role,
            tool, "-R -c UD", size, role, "send_bw".equals(tool) ? PerftestRdmaCmWithRxeTest.UD_BW_ITERATIONS :
            PerftestRdmaCmWithRxeTest.ITERATIONS);
    }
}
