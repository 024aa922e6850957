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
 * <p>Not here yet: 16 QPs of 65536 bytes. In its first run, roce4j as client, roce pingpong ended with its 1,000
 * iterations checked and the guest's ibv_srq_pingpong never exited (killed 15 s later; its log was empty, as a C
 * tool's stdout to a file is flushed only at exit). What the capture shows: roce4j's ACK MSNs add up to 1,000, every
 * one of the guest's 1,000 messages was acknowledged, and the last frame is roce4j's ACK of the 1,000th (the tunnel
 * records a frame only once its socket took it), 2.2 ms after that message's SEND_LAST; before it, the guest had sent
 * SEND_FIRST and 41 SEND_MIDDLEs of one more message, which ibv_srq_pingpong posts while its send count is still
 * below -n (srq_pingpong.c counts send completions, not posts). So the guest had everything its loop needs. The
 * passing server run ends the same way: roce4j's ACK of the guest's last message, with the guest's next message
 * begun (SEND_FIRST and 9 SEND_MIDDLEs). Whether the guest hung tearing down a QP in the middle of a message (rxe
 * 6.1's requester and skb accounting, as in docs/interop-stall.md) or its loop never ended is not visible from
 * here; the guest's kernel stack of the tool would say. The roce4j side of the hypothesis that the last ACK is lost
 * at close (it can be, when it meets a full link) is fixed and tested in process: CloseDrainTest,
 * SrqPingpongLastAckTest.
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
        final String name = "SrqPingpongWithRxeTest-" + qps + "-" + size + "-" + role;
        final PingpongInterop.Case c = PingpongInterop.Case.srq(name, qps, size, 1024, ITERATIONS);
        final PingpongInterop.Outcome outcome = "client".equals(role) ?
            PingpongInterop.roceAsClient(peer, c) : PingpongInterop.roceAsServer(peer, c);
        System.out.println(name + ": " + outcome.usecPerIter() + " usec/iter, " + outcome.frames() + " frames, " +
            outcome.elapsedMs() + " ms");
    }
}
