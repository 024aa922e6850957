package org.roce4j.interop;

import java.io.IOException;

import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code roce pingpong} against rxe's ibv_rc/uc/ud_pingpong at path MTU 1024 (guest NIC MTU 1500), roce4j as client
 * and as server, 1,000 iterations with -c, every size the issue lists, and RC under 2 % loss each way on the Java
 * side of the tunnel.
 */
@RxePeerTest(hostAccess = true)
class PingpongWithRxeTest
{
    private static final int ITERATIONS = 1000;
    private RxePeer peer;

    @ParameterizedTest(name = "{0} {1} B, roce4j as {2}")
    @CsvSource({
        "rc, 1, client", "rc, 1024, client", "rc, 4096, client", "rc, 65536, client",
        "rc, 1, server", "rc, 1024, server", "rc, 4096, server", "rc, 65536, server",
        "uc, 1, client", "uc, 1024, client", "uc, 4096, client", "uc, 65536, client",
        "uc, 1, server", "uc, 1024, server", "uc, 4096, server", "uc, 65536, server",
        "ud, 1, client", "ud, 1024, client",
        "ud, 1, server", "ud, 1024, server"})
    void pingpongWithRxe(final String transport, final int size, final String role, final TestInfo test)
        throws IOException
    {
        assertEquals(1024, peer.ready().activeMtu());
        final String name = "PingpongWithRxeTest-" + transport + "-" + size + "-" + role;
        final PingpongInterop.Outcome outcome = "client".equals(role) ?
            PingpongInterop.roceAsClient(peer, name, transport, size, 1024, ITERATIONS, 0.0, 0) :
            PingpongInterop.roceAsServer(peer, name, transport, size, 1024, ITERATIONS, 0.0, 0);
        System.out.println(name + ": " + outcome.usecPerIter() + " usec/iter, " + outcome.frames() + " frames, " +
            outcome.elapsedMs() + " ms");
    }

    @ParameterizedTest(name = "rc 4096 B under 2% loss, roce4j as {0}")
    @CsvSource({"client", "server"})
    void rcRecoversFromLossWithRxe(final String role) throws IOException
    {
        final String name = "PingpongWithRxeTest-rc-loss-" + role;
        final PingpongInterop.Outcome outcome = "client".equals(role) ?
            PingpongInterop.roceAsClient(peer, name, "rc", 4096, 1024, ITERATIONS, 0.02, 0x5EED) :
            PingpongInterop.roceAsServer(peer, name, "rc", 4096, 1024, ITERATIONS, 0.02, 0x5EED);
        assertTrue(outcome.frames() > 4 * ITERATIONS, "frames recorded: " + outcome.frames());
        System.out.println(name + ": " + outcome.usecPerIter() + " usec/iter, " + outcome.frames() + " frames, " +
            outcome.elapsedMs() + " ms");
    }
}
