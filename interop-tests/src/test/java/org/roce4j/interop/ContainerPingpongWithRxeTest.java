package org.roce4j.interop;

import java.io.IOException;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The container path, exercised on every CI run: {@code roce pingpong} against ibv_rc_pingpong in the rxe guest run
 * by the roce4j/rxe-qemu container through Testcontainers ({@link ContainerRxePeer}, which is
 * {@link org.roce4j.testcontainers.RxeContainer}), RC in both roles, with the same checks as
 * {@link PingpongWithRxeTest}.
 */
@RxePeerTest(backend = PeerTools.Backend.CONTAINER, hostAccess = true)
class ContainerPingpongWithRxeTest
{
    private static final int ITERATIONS = 1000;
    private RxePeer peer;

    @ParameterizedTest(name = "rc {0} B, roce4j as {1}, rxe in a container")
    @CsvSource({"4096, client", "4096, server"})
    void pingpongWithRxeInAContainer(final int size, final String role) throws IOException
    {
        assertEquals(1024, peer.ready().activeMtu());
        final String name = "ContainerPingpongWithRxeTest-rc-" + size + "-" + role;
        final PingpongInterop.Case c = PingpongInterop.Case.of(name, "rc", size, 1024, ITERATIONS);
        final PingpongInterop.Outcome outcome = "client".equals(role) ?
            PingpongInterop.roceAsClient(peer, c) : PingpongInterop.roceAsServer(peer, c);
        System.out.println(name + ": " + outcome.usecPerIter() + " usec/iter, " + outcome.frames() + " frames, " +
            outcome.elapsedMs() + " ms");
    }
}
