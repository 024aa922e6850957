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
 * MIDDLE, LAST at MTU 1024), 1024 with 64 QPs, 65536 with 16; QPs: ibv_srq_pingpong's default 16, and 1 and 64.
 *
 * <p>16 QPs of 65536 bytes were left out for a while: the guest's ibv_srq_pingpong sometimes never exited after
 * roce4j's side had ended. RxeCommands' hang report showed the tool polling its CQ, its QPs in RTS, and rxe
 * retransmitting for ever (it takes retry_cnt 7 as "forever") to a device that had closed. Two causes, both in roce
 * pingpong: it closed 500 ms after its last iteration even while rxe was still retransmitting messages whose ACKs
 * were lost (it now stays up until rxe has been quiet for --quiet, at most --linger: QuietLinger); and under load
 * (26 Nov 2026, load average 13, both guests, both roles: 4 of 4) its own sends ended in RETRY_EXC_ERR after 8 local
 * ACK timeouts of 67 ms while the TCG guest stalled for about a second (its dmesg: "clocksource: Long readout
 * interval" of 1.07 s), which rxe rides out (the 1 x 4096 and 64 x 1024 cases failed the same way, once each, in
 * three runs on the trixie guest). roce pingpong now takes retry_cnt 7 as forever, as rxe does. With both, the case
 * passed in three runs in a row (twice against bookworm, once against trixie in TrixieSrqPingpongWithRxeTest, the
 * trixie server case beside a clean build of roce-cli and its modules).
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
        "64, 1024, client", "64, 1024, server",
        "16, 65536, client", "16, 65536, server"})
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
