package org.roce4j.bench.engine;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.roce4j.bench.baseline.AeronPeer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The {@code bench/run.sh aeron} set's plumbing over the memory fabric and Aeron IPC (no sockets), with the shortest
 * windows and Aeron's agents backing off: one row with both round trips and both streams, and the lines that print
 * them with their ratios. Speed is not asserted.
 */
class AeronBenchTest
{
    @Test
    void memoryFabricBesideAeronIpcGivesARowOfFourFiguresAndTheirRatios()
    {
        final AeronBench.Settings settings = new AeronBench.Settings(List.of(AeronPeer.Medium.IPC),
            AeronPeer.Threading.SHARED, false, 0, 1);

        final List<AeronBench.Row> rows = AeronBench.run(settings);

        assertEquals(1, rows.size());
        final AeronBench.Row row = rows.get(0);
        assertEquals(LinkKind.MEMORY, row.roceLink());
        assertTrue(row.roceRtt().samples() >= 1, "roce4j round trips recorded");
        assertTrue(row.aeronRtt().histogram().getTotalCount() >= 1, "Aeron round trips recorded");
        assertEquals(0, row.aeronRtt().mismatches());
        assertEquals(0, row.roceStream().retransmitted(), "nothing lost on the memory fabric");
        assertEquals(row.aeronStream().sent(), row.aeronStream().received());
        assertEquals(0, row.aeronStream().sequenceErrors());

        final String text = AeronBench.describe(settings, rows);
        assertTrue(text.contains("memory / Aeron ipc   64 B round trip: roce4j SEND/RECV p50"), text);
        assertTrue(text.contains("memory / Aeron ipc   4096 B stream: roce4j WRITE 1 QP x 16"), text);
        assertTrue(text.contains("roce4j/Aeron p50"), text);
        assertTrue(text.contains("driver threading shared (1 driver thread(s), data path backing off)"), text);
    }

    @Test
    void mediaAndThreadingParseTheirLabelsAndNameTheValidOnes()
    {
        assertEquals(List.of(AeronPeer.Medium.UDP, AeronPeer.Medium.IPC), AeronPeer.Medium.listOf("udp,ipc"));
        assertEquals(AeronPeer.Threading.SHARED_NETWORK, AeronPeer.Threading.of("shared-network"));
        assertEquals(LinkKind.UDP, AeronBench.counterpart(AeronPeer.Medium.UDP));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> AeronPeer.Medium.listOf("rdma")).getMessage()
            .contains("(ipc, udp)"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> AeronPeer.Threading.of("inline"))
            .getMessage().contains("(dedicated, shared-network, shared, invoker)"));
    }
}
