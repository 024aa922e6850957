package org.roce4j.interop;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.roce4j.conform.PeerProfile;
import org.roce4j.conform.ScenarioResult;
import org.roce4j.conform.ScenarioRunner;
import org.roce4j.conform.Verdict;
import org.roce4j.conform.catalogue.Catalogue;
import org.roce4j.conform.dut.RemoteDutConfig;
import org.roce4j.conform.dut.RemoteTestbed;
import org.roce4j.conform.dut.RemoteTool;
import org.roce4j.conform.dut.RequesterListeners;
import org.roce4j.conform.report.ReportWriter;
import org.roce4j.conform.report.TerminalTable;
import org.roce4j.transport.link.tunnel.TunnelLink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code roce conform} against rxe in the guest, driven only by stock tools (issue 17 points 2 and 6): the guest runs
 * the perftest server loops the run asks for ({@code while :; do ib_write_bw -d rxe0 -x 1 -p 18515; done},
 * ib_atomic_bw's on 18516, ib_send_bw's, with -s 64, on 18517, ib_read_bw's on 18518 and ib_send_bw -c UD -s 64 -n 5's
 * on 18519), roce4j connects through their exchange for each
 * scenario (through QEMU's port forwarding) and sends the scenario's own frames over the tunnel. For the DUT as
 * requester the guest runs perftest clients in loops ({@code while :; do ib_write_bw -d rxe0 -x 1 -p 18525 -s 64 -n 5
 * -t 1 10.0.2.2; done}, ib_read_bw's on 18526, ib_send_bw's on 18527, ib_write_bw -s 4096's on 18528 and
 * ib_write_bw -s 102400's on 18529, all -n 5 -t 1, and ib_read_bw -s 64 -n 5 -t 2's on 18530) towards the run's
 * listeners on the host's
 * loopback (QEMU's 10.0.2.2), and roce4j answers their requests as the scenario's misbehaving
 * responder. The whole catalogue
 * runs under the rxe profile; the report lands in {@code interop-tests/target/conform-rxe/} (report.md, index.html, a
 * pcap per scenario), and every scenario's verdict must be the one in the checked-in expected report
 * ({@code src/test/resources/conform/rxe-expected.txt}, which says why each is what it is): a changed verdict fails.
 */
@RxePeerTest(hostfwd = {RemoteDutConfig.DEFAULT_PORT, RemoteDutConfig.DEFAULT_PORT + 1,
    RemoteDutConfig.DEFAULT_PORT + 2, RemoteDutConfig.DEFAULT_PORT + 3, RemoteDutConfig.DEFAULT_PORT + 4},
    hostAccess = true, expectedCaseSeconds = 150)
class ConformWithRxeTest
{
    private static final String EXPECTED = "/conform/rxe-expected.txt";
    private static final Path REPORT_DIR = Path.of("target", "conform-rxe");
    /**
     * An emulated guest answers in hundreds of microseconds when it gets the CPU; on a loaded two-core host it may not
     * for much longer: wait at least 1 s for an answer (silences are watched as long; about 8 of them in a run).
     */
    private static final long WAIT_FLOOR_NS = 1_000_000_000L;
    private static final Duration CONNECT_FOR = Duration.ofSeconds(60);

    private RxePeer peer;

    @Test
    void catalogueAgainstRxeGivesTheExpectedVerdicts() throws IOException
    {
        assumeTrue(peer.supportsTunnel(), "crafted frames need the QEMU peer's dgram tunnel");
        final int gidIndex = peer.ready().ipv4GidIndex();
        final RemoteDutConfig servers = new RemoteDutConfig("127.0.0.1", RemoteDutConfig.DEFAULT_PORT,
            tool -> peer.forwardedPort(RemoteDutConfig.DEFAULT_PORT + tool.portOffset()), "rxe0", gidIndex,
            CONNECT_FOR, WAIT_FLOOR_NS);
        final String hostForGuest = peer.hostAddressForGuest(RemoteDutConfig.DEFAULT_LISTEN_PORT);
        final RemoteDutConfig config = servers.withListener(RemoteDutConfig.DEFAULT_LISTEN_PORT,
            hostForGuest.substring(0, hostForGuest.lastIndexOf(':')));
        final List<RemoteTool> tools = List.copyOf(RemoteTool.forScenarios(Catalogue.all()));
        final long start = System.nanoTime();
        final List<ScenarioResult> results;
        // The client loops' listeners first: the clients then wait in their backlogs, not retrying meanwhile.
        try (RequesterListeners listeners = new RequesterListeners().listenFor(config, tools))
        {
            for (final RemoteTool tool : tools)
            {
                peer.kill(loopName(tool));
                peer.start(loopName(tool), config.loop(tool));
                System.out.println("[conform-rxe] guest runs: " + config.loop(tool));
            }
            for (final RemoteTool tool : tools)
            {
                if (!tool.client())
                {
                    peer.awaitGuestListening(RemoteDutConfig.DEFAULT_PORT + tool.portOffset(), CONNECT_FOR);
                }
            }
            try (TunnelLink link = peer.openLink("ConformWithRxeTest"))
            {
                results = new ScenarioRunner(RemoteTestbed.factory(config, link, listeners), PeerProfile.RXE)
                    .runAll(Catalogue.all(), result -> System.out.println("[conform-rxe] " +
                        result.scenario().name() + " " + result.verdict() + " " + result.reason()));
            }
        }
        finally
        {
            for (final RemoteTool tool : tools)
            {
                peer.kill(loopName(tool));
            }
        }
        final long elapsedMs = (System.nanoTime() - start) / 1_000_000;
        new ReportWriter("rxe in the QEMU guest (rxe0, perftest loops)", PeerProfile.RXE.cliName())
            .write(REPORT_DIR, results);
        System.out.println("[conform-rxe] " + TerminalTable.countLine(results) + " in " + elapsedMs + " ms; " +
            "report: " + REPORT_DIR.resolve("report.md").toAbsolutePath());

        final Map<String, Verdict> expected = expected();
        final List<String> changed = new ArrayList<>();
        for (final ScenarioResult result : results)
        {
            final Verdict want = expected.get(result.scenario().name());
            if (want != result.verdict())
            {
                changed.add(result.scenario().name() + ": expected " + want + ", got " + result.verdict() + " at [" +
                    result.failedAt() + "] " + result.reason());
            }
        }
        assertTrue(changed.isEmpty(), "verdicts against rxe changed (see " + REPORT_DIR.resolve("report.md") +
            "):\n" + String.join("\n", changed));
        assertEquals(Catalogue.all().size(), expected.size(), "the expected report names every scenario once");
    }

    private static String loopName(final RemoteTool tool)
    {
        // One name per loop: ib_send_bw runs two server loops (RC and UD).
        return "conform-" + tool.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /**
     * @return the checked-in verdicts: one line per scenario, {@code NAME VERDICT} then why; {@code #} starts a
     *     comment line.
     */
    private static Map<String, Verdict> expected() throws IOException
    {
        final Map<String, Verdict> out = new LinkedHashMap<>();
        try (InputStream in = ConformWithRxeTest.class.getResourceAsStream(EXPECTED))
        {
            assertTrue(null != in, EXPECTED + " is missing");
            for (final String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n"))
            {
                final String trimmed = line.trim();
                if (trimmed.isEmpty() || trimmed.startsWith("#"))
                {
                    continue;
                }
                final String[] fields = trimmed.split("\\s+", 3);
                assertTrue(null == out.put(fields[0], Verdict.valueOf(fields[1])), fields[0] + " listed twice");
            }
        }
        return out;
    }
}
