package org.roce4j.interop;

import java.io.IOException;

import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.roce4j.transport.link.fault.FaultReport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code roce pingpong} against rxe's ibv_rc/uc/ud_pingpong at path MTU 1024 (guest NIC MTU 1500), roce4j as client
 * and as server, 1,000 iterations with -c, every size the issue lists, and RC under issue 14's fault profile on
 * roce4j's side of the tunnel ({@link InjectedFaults#PINGPONG_PROFILE}: SENDs lost and corrupted, frames duplicated
 * and reordered, each way), where every injected kind must have happened and the run still completes.
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
        final PingpongInterop.Case c = PingpongInterop.Case.of(name, transport, size, 1024, ITERATIONS);
        final PingpongInterop.Outcome outcome = "client".equals(role) ?
            PingpongInterop.roceAsClient(peer, c) : PingpongInterop.roceAsServer(peer, c);
        System.out.println(name + ": " + outcome.usecPerIter() + " usec/iter, " + outcome.frames() + " frames, " +
            outcome.elapsedMs() + " ms");
    }

    @ParameterizedTest(name = "rc 4096 B under the fault profile, roce4j as {0}")
    @CsvSource({"client", "server"})
    void rcRecoversFromFaultsWithRxe(final String role) throws IOException
    {
        final String name = "PingpongWithRxeTest-rc-faults-" + role;
        final long seed = 0x5EED;
        System.out.println(name + ": --faults '" + InjectedFaults.PINGPONG_PROFILE + ";seed=" + seed + "'");
        final PingpongInterop.Case c = PingpongInterop.Case.of(name, "rc", 4096, 1024, ITERATIONS)
            .faulty(InjectedFaults.PINGPONG_PROFILE, seed);
        final PingpongInterop.Outcome outcome = "client".equals(role) ?
            PingpongInterop.roceAsClient(peer, c) : PingpongInterop.roceAsServer(peer, c);
        assertTrue(outcome.frames() > 4 * ITERATIONS, "frames recorded: " + outcome.frames());
        // about 2 %, 1 %, 1 % and 0.5 % of some 4,000 frames
        final FaultReport injected = InjectedFaults.parse(outcome.roceErrors());
        InjectedFaults.assertEachKindOfTheProfileInjected(injected);
        System.out.println(name + ": injected " + injected + "; " + outcome.usecPerIter() + " usec/iter, " +
            outcome.frames() + " frames, " + outcome.elapsedMs() + " ms");
    }
}
