package org.roce4j.interop;

import java.io.IOException;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Path MTU 4096 against rxe: the guest NIC at MTU 9000 gives rxe an active MTU of 4096, and
 * {@code ibv_rc_pingpong -m 4096} uses it. 4096 bytes go in one SEND_ONLY of a 4154-byte frame; 8192 bytes in
 * SEND_FIRST and SEND_LAST.
 */
@RxePeerTest(mtu = 9000)
class JumboFramesWithRxeTest
{
    private RxePeer peer;

    @Test
    void onePacketOf4096Bytes(final TestInfo test) throws IOException
    {
        final List<CapturedFrames.Frame> frames = scenario(test, 4096).rxeAsServer();

        assertEquals(4, frames.size());
        // Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + 4096 + ICRC 4.
        assertEquals(4154, frames.get(0).length());
        assertEquals(4154, frames.get(2).length());
    }

    @Test
    void twoPacketsOf4096Bytes(final TestInfo test) throws IOException
    {
        final List<CapturedFrames.Frame> frames = scenario(test, 8192).rxeAsServer();

        assertEquals(6, frames.size(), "FIRST, LAST, ACK each way");
        assertTrue(frames.stream().allMatch(frame -> frame.length() <= 14 + 9000));
    }

    private RcPingpongScenario scenario(final TestInfo test, final int size)
    {
        assumeTrue(peer.supportsTunnel(), "raw frames need the QEMU peer's dgram tunnel");
        assertEquals(9000, peer.ready().mtu());
        assertEquals(4096, peer.ready().activeMtu(), "guest MTU 9000 gives active MTU 4096");
        final String name = CaseName.of(test);
        return new RcPingpongScenario(peer, name, size, 4096, 0x00ABCD);
    }
}
