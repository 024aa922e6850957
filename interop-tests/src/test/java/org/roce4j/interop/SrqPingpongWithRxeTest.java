package org.roce4j.interop;

import java.io.IOException;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@code roce pingpong --srq N} against rxe's ibv_srq_pingpong {@code -q N} at path MTU 1024 (guest NIC MTU 1500),
 * roce4j as client and as server, 1,000 iterations with -c: N RC QPs on each side sharing one SRQ, the exchange of
 * 256 messages each way, one local and one remote line per QP on both sides, the byte and iteration counts, every
 * recorded frame's ICRC (PingpongInterop's checks). Sizes: 1 byte (inline, SEND_ONLY) and 4096 (SEND_FIRST,
 * MIDDLE, LAST at MTU 1024), 1024 with 64 QPs; QPs: ibv_srq_pingpong's default 16, and 1 and 64.
 *
 * <p>Not here: 16 QPs of 65536 bytes. The guest's ibv_srq_pingpong sometimes never exits after roce4j's side has
 * ended with its 1,000 iterations checked. RxeCommands' hang report shows why (26 Nov 2026): the tool is running in
 * user space (state R: polling its CQ), its 16 QPs in RTS, and rxe's sent_pkts and completer_retry_err grow by
 * thousands and by 50 to 150 a second with nothing received: rxe is retransmitting, to a device that has closed,
 * messages whose ACKs were lost (the emulated NIC drops frames in this case; the capture shows go-back-N recoveries
 * throughout), and rxe takes retry_cnt 7 as "forever". The C tools have no closing handshake. roce pingpong now
 * keeps its QPs up after the last iteration until rxe has sent nothing for --quiet (1 s), at most --linger (10 s),
 * re-ACKing such retransmissions (QuietLinger). Put back and run under load (26 Nov 2026, load average 13, both
 * guests, both roles), the case failed 4 of 4 another way: roce4j's own sends ended in RETRY_EXC_ERR (roce pingpong
 * exit 1, "transport retry counter exceeded") after retry_cnt 7 local ACK timeouts of 67 ms without an answer, while
 * the TCG guest stalled for about a second (its dmesg: "clocksource: Long readout interval" of 1.07 s); rxe, taking 7
 * as forever, rides such a stall out, and then retransmits to the closed device (the 1 x 4096 and 64 x 1024 cases
 * failed the same way with roce4j as client, once each, in three runs on the trixie guest). roce pingpong now takes
 * retry_cnt 7 as forever too (EngineConfig.retryCountSevenForever); the 64 KiB case comes back once it has passed
 * three times in a row under load with that.
 */
@RxePeerTest(hostAccess = true)
class SrqPingpongWithRxeTest
{
    private static final int ITERATIONS = 1000;
    private RxePeer peer;

    @ParameterizedTest(name = "--srq {0}, {1} B, roce4j as {2}")
    @CsvSource({
        "16, 1, client", "16, 4096, client",
        "16, 1, server", "16, 4096, server",
        "1, 4096, client", "1, 4096, server",
        "64, 1024, client", "64, 1024, server"})
    void srqPingpongWithRxe(final int qps, final int size, final String role) throws IOException
    {
        assertEquals(1024, peer.ready().activeMtu());
        final String name = getClass().getSimpleName() + "-" + qps + "-" + size + "-" + role;
        final PingpongInterop.Case c = PingpongInterop.Case.srq(name, qps, size, 1024, ITERATIONS);
        final PingpongInterop.Outcome outcome = "client".equals(role) ?
            PingpongInterop.roceAsClient(peer, c) : PingpongInterop.roceAsServer(peer, c);
        System.out.println(name + ": " + outcome.usecPerIter() + " usec/iter, " + outcome.frames() + " frames, " +
            outcome.elapsedMs() + " ms");
    }
}
