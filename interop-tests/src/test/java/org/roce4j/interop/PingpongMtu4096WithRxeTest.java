package org.roce4j.interop;

import java.io.IOException;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@code roce pingpong} against rxe's ibv_rc/uc/ud_pingpong at path MTU 4096: the guest NIC has MTU 9000, so rxe's
 * active MTU is 4096 (rxe derives it from the netdev MTU minus the RoCEv2 headers), and both sides pass {@code -m
 * 4096}. roce4j as client and as server, 1,000 iterations with -c; UD up to one MTU (4096 B, the largest message
 * ibv_ud_pingpong accepts at this MTU).
 */
@RxePeerTest(mtu = 9000, hostAccess = true)
class PingpongMtu4096WithRxeTest
{
    private static final int ITERATIONS = 1000;
    private static final int PATH_MTU = 4096;
    private RxePeer peer;

    @ParameterizedTest(name = "{0} {1} B at MTU 4096, roce4j as {2}")
    @CsvSource({
        "rc, 1, client", "rc, 1024, client", "rc, 4096, client", "rc, 65536, client",
        "rc, 1, server", "rc, 1024, server", "rc, 4096, server", "rc, 65536, server",
        "uc, 1, client", "uc, 1024, client", "uc, 4096, client", "uc, 65536, client",
        "uc, 1, server", "uc, 1024, server", "uc, 4096, server", "uc, 65536, server",
        "ud, 1, client", "ud, 1024, client", "ud, 4096, client",
        "ud, 1, server", "ud, 1024, server", "ud, 4096, server"})
    void pingpongWithRxeAtMtu4096(final String transport, final int size, final String role) throws IOException
    {
        assertEquals(PATH_MTU, peer.ready().activeMtu());
        final String name = "PingpongMtu4096WithRxeTest-" + transport + "-" + size + "-" + role;
        final PingpongInterop.Case c = PingpongInterop.Case.of(name, transport, size, PATH_MTU, ITERATIONS);
        final PingpongInterop.Outcome outcome = "client".equals(role) ?
            PingpongInterop.roceAsClient(peer, c) : PingpongInterop.roceAsServer(peer, c);
        System.out.println(name + ": " + outcome.usecPerIter() + " usec/iter, " + outcome.frames() + " frames, " +
            outcome.elapsedMs() + " ms");
    }
}
