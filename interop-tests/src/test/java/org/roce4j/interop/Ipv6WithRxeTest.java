package org.roce4j.interop;

import java.io.IOException;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.roce4j.transport.link.fault.FaultReport;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.RoceFrameParser;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.pcap.PcapReader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * roce4j and rxe over IPv6 GIDs on the tunnel (issue 14 point 6): {@code roce pingpong} against ibv_rc_pingpong
 * over GID 0 (both sides' link-local {@code fe80::/64} GID, made from the MAC) and over a global GID (the guest's
 * eth0 gets {@code fd00:77::2/64}, roce4j's link {@code ip=fd00:77::1}), in both roles; perftest {@code write_bw}
 * and {@code send_lat} over the global GID in both roles; {@code roce rping} against {@code rping} over the
 * IPv6 addresses in both roles; and RC pingpong over the global GID under the IPv4 cases' fault profile. Every
 * case's capture must hold only IPv6 RoCE frames with good ICRCs (but those roce4j corrupted on purpose), and
 * roce4j's frames must carry the traffic class and flow label rxe's carry (rxe writes the AH's traffic class and
 * flow label 0: rxe_net.c prepare_ipv6_hdr, ip6_flow_hdr(ip6h, prio, 0)).
 *
 * <p>The global address is added in each case ({@code ip addr replace ... nodad}: no duplicate address detection,
 * so the GID is usable at once), because a guest rebooted by the self-healing fixture has lost it.
 */
@RxePeerTest(hostAccess = true)
class Ipv6WithRxeTest
{
    /** The guest's global address on eth0, and roce4j's on the tunnel link: a unique local prefix (RFC 4193). */
    static final String GUEST_IPV6 = "fd00:77::2";
    static final String LINK_IPV6 = "fd00:77::1";
    /** roce4j's GID indices on a tunnel link with ip=10.77.0.1,ip=fd00:77::1 (see GidChoice). */
    private static final int ROCE_LINK_LOCAL = 0;
    private static final int ROCE_GLOBAL = 2;
    private static final int ITERATIONS = 1000;
    private static final int PINGS = 100;

    private RxePeer peer;

    @AfterEach
    void backToIpv4()
    {
        peer.useGids(null);
    }

    @ParameterizedTest(name = "rc pingpong 4096 B over the {0} GID, roce4j as {1}")
    @CsvSource({"link-local, client", "link-local, server", "global, client", "global, server"})
    void pingpongOverIpv6(final String kind, final String role) throws IOException
    {
        final GidChoice gids = choose(kind);
        final String name = "Ipv6WithRxeTest-pingpong-" + kind + "-" + role;
        final PingpongInterop.Case c = PingpongInterop.Case.of(name, "rc", 4096, 1024, ITERATIONS);
        final PingpongInterop.Outcome outcome = "client".equals(role) ?
            PingpongInterop.roceAsClient(peer, c) : PingpongInterop.roceAsServer(peer, c);
        final String header = checkIpv6Capture(name, gids);
        System.out.println("[ipv6-interop] " + name + " (" + gids + "): " + outcome.usecPerIter() + " usec/iter, " +
            outcome.frames() + " frames, " + outcome.elapsedMs() + " ms; " + header);
    }

    /**
     * The fault profile of the IPv4 cases ({@link InjectedFaults#PINGPONG_PROFILE}) over the global GID: the
     * injector and the corruptor work on IPv6 frames as on IPv4 ones (PingpongInterop checks that the bad ICRCs in
     * the capture are exactly the frames roce4j corrupted on the way out).
     */
    @ParameterizedTest(name = "rc pingpong 4096 B over the global GID under the fault profile, roce4j as {0}")
    @CsvSource({"client", "server"})
    void faultProfileOverIpv6(final String role) throws IOException
    {
        final GidChoice gids = choose("global");
        final String name = "Ipv6WithRxeTest-faults-global-" + role;
        final long seed = 0x5EED6;
        System.out.println(name + ": --faults '" + InjectedFaults.PINGPONG_PROFILE + ";seed=" + seed + "'");
        final PingpongInterop.Case c = PingpongInterop.Case.of(name, "rc", 4096, 1024, ITERATIONS)
            .faulty(InjectedFaults.PINGPONG_PROFILE, seed);
        final PingpongInterop.Outcome outcome = "client".equals(role) ?
            PingpongInterop.roceAsClient(peer, c) : PingpongInterop.roceAsServer(peer, c);
        final FaultReport injected = InjectedFaults.parse(outcome.roceErrors());
        InjectedFaults.assertEachKindOfTheProfileInjected(injected);
        final String header = checkIpv6Capture(name, gids, true);
        System.out.println("[ipv6-interop] " + name + " (" + gids + "): injected " + injected + "; " +
            outcome.usecPerIter() + " usec/iter, " + outcome.frames() + " frames, " + outcome.elapsedMs() + " ms; " +
            header);
    }

    @ParameterizedTest(name = "{0} 4096 B over the global GID, roce4j as {1}")
    @CsvSource({"write_bw, client", "write_bw, server", "send_lat, client", "send_lat, server"})
    void perftestOverIpv6(final String tool, final String role) throws IOException
    {
        final GidChoice gids = choose("global");
        final String name = "Ipv6WithRxeTest-" + tool + "-" + role;
        final PerftestInterop.Case c = new PerftestInterop.Case(name, tool, "-s 4096 -n " + ITERATIONS,
            new long[] {4096}, ITERATIONS, true);
        final PerftestInterop.Outcome outcome = "client".equals(role) ?
            PerftestInterop.roceAsClient(peer, c) : PerftestInterop.roceAsServer(peer, c);
        final String header = checkIpv6Capture(name, gids);
        System.out.println("[ipv6-interop] " + name + " (" + gids + "): " + outcome.elapsedMs() + " ms, " +
            outcome.frames() + " frames; " + header);
    }

    @ParameterizedTest(name = "rping 64 B over IPv6 addresses, roce4j as {0}")
    @CsvSource({"client", "server"})
    void rpingOverIpv6(final String role) throws IOException
    {
        final GidChoice gids = choose("global");
        final long start = System.nanoTime();
        final String name = "Ipv6WithRxeTest-rping-" + role;
        final String port = "client".equals(role) ? "20164" : "21164";
        final String link = peer.tunnelSpec(name, 0, 0) + gids.linkOptions();
        final RoceRun roce;
        final int rxeExit;
        final String rxeLog;
        if ("client".equals(role))
        {
            peer.kill("rps");
            peer.start("rps", "rping -s -V -a " + GUEST_IPV6 + " -p " + port + " -S 64 2>/tmp/rps.err");
            final RxePeer.Result listening = peer.run("timeout 30 sh -c 'until rdma res show cm_id 2>/dev/null | " +
                "grep LISTEN | grep -q \":" + port + " \"; do usleep 20000; done'", Duration.ofSeconds(60));
            assertEquals(0, listening.exitCode(), "rping -s did not listen:\n" + peer.log("rps"));
            roce = RoceRun.run("rping", "-c", "-a", GUEST_IPV6, "-p", port, "-C", Integer.toString(PINGS), "-v", "-V",
                "-S", "64", "--link", link, "--timeout", "20000");
            rxeExit = peer.waitFor("rps", peer.caseTimeLeft(), () -> true, PingpongInterop.GRACE);
            rxeLog = peer.log("rps") + peer.runOk("cat /tmp/rps.err");
        }
        else
        {
            final CompletableFuture<RoceRun> server = CompletableFuture.supplyAsync(() -> RoceRun.run("rping", "-s",
                "-a", LINK_IPV6, "-p", port, "-v", "-V", "-S", "64", "--link", link, "--timeout", "20000"));
            peer.kill("rpc");
            // roce rping may not listen yet: rping then gets REJ 8 or no ND answer; try again, as a user would.
            peer.start("rpc", "i=0; while [ $i -lt 100 ]; do rping -c -V -a " + LINK_IPV6 + " -p " + port +
                " -C " + PINGS + " -S 64 >/tmp/rpc.out 2>/tmp/rpc.err; rc=$?; cat /tmp/rpc.out; " +
                "grep -qE 'error 8|ADDR_ERROR|UNREACHABLE' /tmp/rpc.err || exit $rc; i=$((i+1)); usleep 100000; " +
                "done; exit 1");
            rxeExit = peer.waitFor("rpc", peer.caseTimeLeft(), server::isDone, PingpongInterop.GRACE);
            rxeLog = peer.log("rpc") + peer.runOk("cat /tmp/rpc.err");
            try
            {
                roce = server.get(peer.caseTimeLeft().toMillis(), TimeUnit.MILLISECONDS);
            }
            catch (final Exception ex)
            {
                throw new AssertionError("roce rping -s did not finish; rping said:\n" + rxeLog, ex);
            }
        }
        final String context = name + ":\n--- roce rping (exit " + roce.exitCode() + "):\n" + roce.out() + roce.err() +
            "--- rping (exit " + rxeExit + "):\n" + rxeLog;
        assertEquals(0, roce.exitCode(), "roce rping failed\n" + context);
        assertEquals(0, rxeExit, "rping failed\n" + context);
        final String prefix = "client".equals(role) ? "ping data: " : "server ping data: ";
        assertEquals(PINGS, roce.out().lines().filter(l -> l.startsWith(prefix)).count(), "pings\n" + context);
        final String header = checkIpv6Capture(name, gids);
        System.out.println("[ipv6-interop] " + name + ": " + (System.nanoTime() - start) / 1_000_000 + " ms; " +
            header);
    }

    /**
     * Give the guest its global address (idempotent) and find both sides' GID indices for the case's kind.
     */
    private GidChoice choose(final String kind) throws IOException
    {
        peer.runOk("ip -6 addr replace " + GUEST_IPV6 + "/64 dev eth0 nodad");
        final Gid gid = "link-local".equals(kind) ? Gid.linkLocal(peer.ready().mac()) : Gid.parse(GUEST_IPV6);
        final GidChoice gids = new GidChoice("IPv6 " + kind, "link-local".equals(kind) ? ROCE_LINK_LOCAL :
            ROCE_GLOBAL, GidChoice.guestGidIndex(peer, gid), ",ip=" + LINK_IPV6, gid);
        peer.useGids(gids);
        return gids;
    }

    /**
     * Every RoCE frame of the case is IPv6 with a good ICRC, and roce4j's frames carry the traffic classes and flow
     * labels rxe's carry.
     *
     * @return what the frames carried, for the report.
     */
    private String checkIpv6Capture(final String name, final GidChoice gids) throws IOException
    {
        return checkIpv6Capture(name, gids, false);
    }

    /**
     * @param corrupted true when roce4j corrupted frames on purpose: frames with a bad ICRC are then expected (their
     *                  number is PingpongInterop's check) and judged by their IP header like the others.
     */
    private String checkIpv6Capture(final String name, final GidChoice gids, final boolean corrupted)
        throws IOException
    {
        final RoceFrameParser parser = new RoceFrameParser();
        final long guestMac = peer.ready().mac();
        final Set<String> fromRxe = new TreeSet<>();
        final Set<String> fromRoce = new TreeSet<>();
        long ipv4 = 0;
        try (PcapReader reader = PcapReader.open(PeerTools.targetDir().resolve("pcaps").resolve(name + ".pcap")))
        {
            while (reader.next())
            {
                final FrameStatus status = parser.parse(reader.buffer(), 0, reader.capturedLength());
                if (status.isNotRoce() || FrameStatus.TRUNCATED_ETHERNET == status)
                {
                    continue;
                }
                if (!corrupted || FrameStatus.BAD_ICRC != status)
                {
                    assertEquals(FrameStatus.OK, status, "frame " + reader.index() + " of " + name + ".pcap");
                }
                if (6 != parser.ipVersion())
                {
                    ipv4++;
                    continue;
                }
                final String header = "tc=" + parser.ipv6().trafficClass() + " flow=" + parser.ipv6().flowLabel();
                (guestMac == parser.ethernet().source() ? fromRxe : fromRoce).add(header);
            }
        }
        assertEquals(0, ipv4, "RoCE frames over IPv4 in a case over " + gids);
        assertTrue(!fromRxe.isEmpty() && !fromRoce.isEmpty(), "IPv6 RoCE frames from both sides: rxe " + fromRxe +
            ", roce4j " + fromRoce);
        assertEquals(fromRxe, fromRoce, "roce4j's IPv6 traffic class and flow label differ from rxe's");
        return "IPv6 header " + fromRoce + " on both sides";
    }

}
