package org.roce4j.conform.dut;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.roce4j.conform.CapturedFrame;
import org.roce4j.conform.PeerProfile;
import org.roce4j.conform.Scenario;
import org.roce4j.conform.ScenarioResult;
import org.roce4j.conform.ScenarioRunner;
import org.roce4j.conform.Side;
import org.roce4j.conform.Verdict;
import org.roce4j.conform.catalogue.Catalogue;
import org.roce4j.transport.link.Link;
import org.roce4j.transport.link.LinkSpecs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The remote DUT's whole path without a guest: roce4j's own device stands in for the DUT's tool loops
 * ({@link PerftestServerLoop}: ib_write_bw, ib_atomic_bw and ib_send_bw servers on the JVM's in-memory fabric, real
 * threads, real TCP exchanges), and the conform peer reaches it through a port of the same fabric, as it reaches rxe
 * through the tunnel. The scenarios a server loop can serve PASS (roce4j keeps the rules), the parts of them a tool
 * cannot show (the payload, the completions) recorded as not checked; those that need what a tool cannot show SKIP
 * with the reason naming it.
 */
class RemoteDutTest
{
    private static final String DUT_IP = "10.0.78.1";
    private static final String PEER_IP = "10.0.78.2";
    /**
     * The stand-in DUT answers in microseconds when it gets the CPU; on a loaded two-core machine its engine thread
     * waited more than 20 ms for it at times (its counters showed the answers sent after the wait): wait up to 1 s.
     */
    private static final long WAIT_FLOOR_NS = 1_000_000_000L;

    @Test
    void serverLoopScenariosPassAndTheRestSkipNamingWhatIsMissing() throws Exception
    {
        final Map<String, Verdict> expected = new LinkedHashMap<>();
        expected.put("responder.invalid-rkey", Verdict.PASS);
        expected.put("responder.va-outside-mr", Verdict.PASS);
        expected.put("responder.first-not-path-mtu", Verdict.PASS);
        expected.put("responder.last-longer-than-mtu", Verdict.PASS);
        expected.put("responder.duplicate-atomic", Verdict.PASS);
        expected.put("responder.unaligned-atomic", Verdict.PASS);
        expected.put("responder.psn-sequence-error", Verdict.PASS);
        expected.put("responder.duplicate-write", Verdict.PASS);
        expected.put("responder.duplicate-read", Verdict.PASS);
        expected.put("responder.duplicate-read-shorter", Verdict.PASS);
        expected.put("responder.ackreq-answered", Verdict.PASS);
        expected.put("responder.duplicate-send", Verdict.PASS);
        expected.put("responder.send-longer-than-receive", Verdict.PASS);
        expected.put("responder.send-without-receive-rnr", Verdict.PASS);
        expected.put("responder.mr-without-remote-write", Verdict.PASS);
        expected.put("responder.ud-wrong-qkey-dropped", Verdict.PASS);
        expected.put("responder.wrong-destination-ip-dropped", Verdict.SKIP);
        expected.put("responder.zero-length-write-bad-rkey", Verdict.PASS);
        expected.put("congestion.cnp-harmless", Verdict.PASS);
        expected.put("requester.read-response-placed", Verdict.SKIP);
        final Map<String, String> skipWords = Map.of(
            "responder.wrong-destination-ip-dropped", "the DUT's MAC is not known",
            "requester.read-response-placed", "the DUT as requester: a READ of 2 path MTUs posted on the DUT");
        final List<Scenario> scenarios = new ArrayList<>();
        expected.keySet().forEach(name -> scenarios.add(Catalogue.named(name)));

        try (PerftestServerLoop write = new PerftestServerLoop(DUT_IP, RemoteTool.WRITE_BW);
            Link link = LinkSpecs.open("memory:" + PEER_IP);
            RequesterListeners listeners = new RequesterListeners())
        {
            // Both tools on one device would be two ports of one address: ib_atomic_bw's loop gets its own address.
            try (PerftestServerLoop atomic = new PerftestServerLoop("10.0.78.3", RemoteTool.ATOMIC_BW);
                PerftestServerLoop send = new PerftestServerLoop("10.0.78.4", RemoteTool.SEND_BW);
                PerftestServerLoop read = new PerftestServerLoop("10.0.78.5", RemoteTool.READ_BW);
                PerftestServerLoop ud = new PerftestServerLoop("10.0.78.6", RemoteTool.SEND_UD))
            {
                final RemoteDutConfig config = new RemoteDutConfig("127.0.0.1", RemoteDutConfig.DEFAULT_PORT,
                    tool -> switch (tool)
                    {
                        case ATOMIC_BW -> atomic.port();
                        case SEND_BW -> send.port();
                        case READ_BW -> read.port();
                        case SEND_UD -> ud.port();
                        default -> write.port();
                    }, "roce4j", 1, Duration.ofSeconds(10), WAIT_FLOOR_NS);
                final List<ScenarioResult> results = new ScenarioRunner(RemoteTestbed.factory(config, link, listeners),
                    PeerProfile.NONE).runAll(scenarios, result -> { });

                final List<String> wrong = new ArrayList<>();
                for (final ScenarioResult result : results)
                {
                    final String name = result.scenario().name();
                    if (expected.get(name) != result.verdict() || (Verdict.SKIP == result.verdict() &&
                        !result.reason().contains(skipWords.get(name))))
                    {
                        wrong.add(name + ": " + result.verdict() + " at [" + result.failedAt() + "] " +
                            result.reason() + "\n    capture: " + labels(result));
                    }
                }
                assertTrue(wrong.isEmpty(), String.join("\n", wrong) + "\nserver errors: " + write.errors() +
                    atomic.errors() + send.errors() + "\nwrite loop's DUT: " + write.counters() + "\natomic loop's " +
                    "DUT: " + atomic.counters() + "\nsend loop's DUT: " + send.counters());
                assertEquals(List.of(), write.errors(), "the write loop's exchanges");
                assertEquals(List.of(), atomic.errors(), "the atomic loop's exchanges");
                assertEquals(List.of(), send.errors(), "the send loop's exchanges");
                // Every scenario that connected finished the exchange, so the loop served the next one; the send
                // loop's runs were each ended by the SEND longer than its receives (RemoteDut.finish).
                assertEquals(2, atomic.awaitServed(2), "ib_atomic_bw loop connections");
                assertEquals(10, write.awaitServed(10), "ib_write_bw loop connections");
                assertEquals(2, read.awaitServed(2), "ib_read_bw loop connections");
                assertEquals(List.of(), read.errors(), "the read loop's exchanges");
                // The UD loop's run ended at its 5th receive: the wrong Q_Key's SEND took none.
                assertEquals(1, ud.awaitServed(1), "ib_send_bw -c UD loop connections");
                assertEquals(List.of(), ud.errors(), "the UD loop's exchanges");
                final ScenarioResult qkey = results.get(List.copyOf(expected.keySet())
                    .indexOf("responder.ud-wrong-qkey-dropped"));
                assertTrue(qkey.findings().toString().contains("had not ended it: the wrong one took no receive"),
                    "the UD run's end as the observation: " + qkey.findings());
                assertEquals(4, send.awaitServed(4), "ib_send_bw loop connections");
                final ScenarioResult sequence = results.get(List.copyOf(expected.keySet())
                    .indexOf("responder.psn-sequence-error"));
                assertEquals(List.of("payload, needs reading the DUT's memory: ib_write_bw does not show it, and " +
                    "its region has no remote read right to read it back with"), sequence.notChecked());
                final ScenarioResult duplicateSend = results.get(List.copyOf(expected.keySet())
                    .indexOf("responder.duplicate-send"));
                assertEquals(List.of("the receive's completion, needs the DUT's completions: its tool does not " +
                    "report them", "one receive consumed, needs the DUT's completions: its tool does not report them"),
                    duplicateSend.notChecked());
                final ScenarioResult zeroLength = results.get(List.copyOf(expected.keySet())
                    .indexOf("responder.zero-length-write-bad-rkey"));
                assertTrue(zeroLength.findings().toString().contains("was ACKed, so its QP is alive"),
                    "the QP state's substitute: " + zeroLength.findings());
            }
        }
    }

    private static List<String> labels(final ScenarioResult result)
    {
        final List<String> out = new ArrayList<>();
        for (final CapturedFrame frame : result.capture().frames())
        {
            out.add(frame.direction() + " " + frame.label());
        }
        return out;
    }

    @Test
    void eachScenarioNamesTheLoopItNeeds()
    {
        final RemoteDutConfig config = RemoteDutConfig.of("192.168.1.20", 18515, "mlx5_0", 3);

        assertEquals("while :; do ib_write_bw -d mlx5_0 -x 3 -p 18515; done",
            config.needs(Catalogue.named("responder.invalid-rkey")));
        assertEquals("while :; do ib_atomic_bw -d mlx5_0 -x 3 -p 18516; done",
            config.needs(Catalogue.named("responder.duplicate-atomic")));
        assertEquals("while :; do ib_send_bw -d mlx5_0 -x 3 -p 18517 -s 64; done",
            config.needs(Catalogue.named("responder.send-longer-than-receive")));
        assertEquals("while :; do ib_send_bw -d mlx5_0 -x 3 -p 18519 -c UD -s 64 -n 5; done",
            config.needs(Catalogue.named("responder.ud-wrong-qkey-dropped")));
        assertEquals("while :; do ib_write_bw -d mlx5_0 -x 3 -p 18525 -s 64 -n 5 -t 1 ROCE4J_IP; done",
            config.needs(Catalogue.named("requester.lost-ack-retransmit")));
        assertEquals("while :; do ib_read_bw -d mlx5_0 -x 3 -p 18526 -s 64 -n 5 -t 1 192.168.1.10; done",
            config.withListener(18525, "192.168.1.10").needs(Catalogue.named("requester.read-response-too-long")));
        assertEquals("while :; do ib_read_bw -d mlx5_0 -x 3 -p 18530 -s 64 -n 5 -t 2 ROCE4J_IP; done",
            config.needs(Catalogue.named("requester.implied-nak-read")));
        assertEquals("no loop: a READ of 2 path MTUs posted on the DUT and its memory read back: the client loops " +
            "post messages of 64 bytes and show no memory",
            config.needs(Catalogue.named("requester.read-response-placed")));
        int requesters = 0;
        for (final Scenario scenario : Catalogue.all())
        {
            final RemoteTool tool = RemoteTool.forScenario(scenario);
            if (Side.REQUESTER == scenario.side())
            {
                requesters += null == tool ? 0 : 1;
                assertTrue(null == tool || tool.client(), scenario.name());
            }
            else
            {
                assertTrue(null != tool && !tool.client(), scenario.name());
            }
        }
        assertEquals(11, requesters, "requester scenarios a client loop serves");
        assertEquals(List.of(RemoteTool.WRITE_BW, RemoteTool.ATOMIC_BW, RemoteTool.SEND_BW, RemoteTool.READ_BW,
            RemoteTool.SEND_UD, RemoteTool.WRITE_CLIENT,
            RemoteTool.READ_CLIENT, RemoteTool.SEND_CLIENT, RemoteTool.WRITE_4_MTU_CLIENT,
            RemoteTool.WRITE_100_MTU_CLIENT, RemoteTool.READ_2_CLIENT),
            List.copyOf(RemoteTool.forScenarios(Catalogue.all())));
    }
}
