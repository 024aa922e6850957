package org.roce4j.interop;

import java.io.IOException;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code roce pingpong} against the newest rxe: a guest built from Debian 13 (trixie: Linux 6.12, rdma-core 56.1)
 * instead of Debian 12, ibv_rc/uc/ud_pingpong in both roles, 1,000 iterations with -c at path MTU 1024, with the
 * checks of {@link PingpongWithRxeTest}.
 */
@RxePeerTest(hostAccess = true, suite = "trixie")
class TrixiePingpongWithRxeTest
{
    private static final int ITERATIONS = 1000;
    private RxePeer peer;

    @ParameterizedTest(name = "{0} {1} B, roce4j as {2}, rxe of Linux 6.12")
    @CsvSource({
        "rc, 4096, client", "rc, 4096, server",
        "uc, 4096, client", "uc, 4096, server",
        "ud, 1024, client", "ud, 1024, server"})
    void pingpongWithTrixieRxe(final String transport, final int size, final String role) throws IOException
    {
        assertTrue(peer.ready().kernel().startsWith("6.12."), "a trixie guest: " + peer.ready().kernel());
        final String name = "TrixiePingpongWithRxeTest-" + transport + "-" + size + "-" + role;
        final PingpongInterop.Case c = PingpongInterop.Case.of(name, transport, size, 1024, ITERATIONS);
        final PingpongInterop.Outcome outcome = "client".equals(role) ?
            PingpongInterop.roceAsClient(peer, c) : PingpongInterop.roceAsServer(peer, c);
        System.out.println(name + ": " + outcome.usecPerIter() + " usec/iter, " + outcome.frames() + " frames, " +
            outcome.elapsedMs() + " ms");
    }
}
