package org.roce4j.interop;

import java.io.IOException;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The first conversation with a real rxe using roce-wire alone (no engine): one {@code ibv_rc_pingpong -n 1}
 * iteration per test, with rxe as server and as client, single-packet (64 bytes) and multi-packet (4096 bytes at
 * path MTU 1024: SEND_FIRST, two SEND_MIDDLE, SEND_LAST each way, our PSNs wrapping through 0xFFFFFF), every frame
 * built and checked by hand; see {@link RcPingpongScenario}. Captures land in
 * interop-tests/target/pcaps/FirstFramesWithRxeTest-*.pcap.
 */
@RxePeerTest(hostAccess = true)
class FirstFramesWithRxeTest
{
    private RxePeer peer;

    @Test
    void rxeAsServer64Bytes(final TestInfo test) throws IOException
    {
        final List<CapturedFrames.Frame> frames = scenario(test, 64, 0x123456).rxeAsServer();

        assertEquals(4, frames.size(), "SEND_ONLY, ACK, SEND_ONLY, ACK");
    }

    @Test
    void rxeAsServer4096BytesInFourPacketsAcrossPsnWrap(final TestInfo test) throws IOException
    {
        final List<CapturedFrames.Frame> frames = scenario(test, 4096, 0xFFFFFE).rxeAsServer();

        assertEquals(10, frames.size(), "4 packets and an ACK each way");
    }

    @Test
    void rxeAsClient64Bytes(final TestInfo test) throws IOException
    {
        final List<CapturedFrames.Frame> frames = scenario(test, 64, 0x000001).rxeAsClient();

        assertEquals(4, frames.size(), "SEND_ONLY, ACK, SEND_ONLY, ACK");
    }

    @Test
    void rxeAsClient4096BytesInFourPackets(final TestInfo test) throws IOException
    {
        final List<CapturedFrames.Frame> frames = scenario(test, 4096, 0x7FFFFF).rxeAsClient();

        assertEquals(10, frames.size(), "4 packets and an ACK each way");
    }

    private RcPingpongScenario scenario(final TestInfo test, final int size, final int ourPsn)
    {
        assumeTrue(peer.supportsTunnel(), "raw frames need the QEMU peer's dgram tunnel");
        assertEquals(1024, peer.ready().activeMtu(), "guest MTU 1500 gives active MTU 1024");
        final String name = CaseName.of(test);
        return new RcPingpongScenario(peer, name, size, 1024, ourPsn);
    }
}
