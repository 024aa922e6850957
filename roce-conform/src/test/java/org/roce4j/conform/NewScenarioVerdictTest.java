package org.roce4j.conform;

import java.util.function.UnaryOperator;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.roce4j.conform.catalogue.Catalogue;
import org.roce4j.conform.dut.SelfDut;
import org.roce4j.conform.dut.Testbed;
import org.roce4j.transport.link.Link;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RoceFrameParser;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The scenarios of the second slice judge: roce4j broken on purpose between its engine and the fabric (a decorator
 * that drops or rewrites what the DUT sends) FAILs them, and the rxe profile turns the documented ones into
 * DEVIATIONs. Seen from the decorator the DUT's own frames go "out", i.e. in its TO_DUT direction.
 */
class NewScenarioVerdictTest
{
    private static Testbed broken(final FrameRule rule)
    {
        final UnaryOperator<Link> wrap = link ->
        {
            final ConformLink broken = new ConformLink(link, () -> 0L, new Capture());
            broken.addRule(rule);
            return broken;
        };
        return SelfDut.testbed(wrap);
    }

    private static ScenarioResult run(final String name, final FrameRule rule, final PeerProfile profile)
    {
        return new ScenarioRunner(() -> broken(rule), profile).run(Catalogue.named(name));
    }

    private static ScenarioResult self(final String name)
    {
        return new ScenarioRunner(() -> SelfDut.testbed(UnaryOperator.identity()), PeerProfile.NONE)
            .run(Catalogue.named(name));
    }

    @Test
    void dutThatSendsNoCnpFailsAndIsARxeDeviation()
    {
        assertEquals(Verdict.PASS, self("congestion.ce-marked-gets-cnp").verdict());
        final FrameRule noCnp = FrameRule.drop(Direction.TO_DUT, FrameFilter.opcode(Opcode.CNP_NOTIFICATION), 100);

        final ScenarioResult none = run("congestion.ce-marked-gets-cnp", noCnp, PeerProfile.NONE);
        final ScenarioResult rxe = run("congestion.ce-marked-gets-cnp",
            FrameRule.drop(Direction.TO_DUT, FrameFilter.opcode(Opcode.CNP_NOTIFICATION), 100), PeerProfile.RXE);

        assertEquals(Verdict.FAIL, none.verdict(), none.reason());
        assertTrue(none.reason().startsWith("expected CNP_NOTIFICATION within 1000.0 us"), none.reason());
        assertEquals(Verdict.DEVIATION, rxe.verdict(), rxe.reason());
        assertTrue(rxe.reason().startsWith("rxe profile: rxe is no notification point"), rxe.reason());
    }

    @Test
    void cnpWithoutBecnFailsTheFormatCheck()
    {
        final ScenarioResult result = run("congestion.ce-marked-gets-cnp", FrameRule.mutate(Direction.TO_DUT,
            FrameFilter.opcode(Opcode.CNP_NOTIFICATION), 1, "BECN cleared", NewScenarioVerdictTest::clearBecn),
            PeerProfile.NONE);

        assertEquals(Verdict.FAIL, result.verdict(), result.reason());
        assertTrue(result.reason().endsWith(": BECN is clear"), result.reason());
        assertEquals("check CNP format", result.failedAt());
    }

    @Test
    void cnpPerMarkedPacketFailsThePacingCheck()
    {
        // The DUT's first CNP sent twice at the same instant: two CNPs 0 us apart.
        final ScenarioResult result = run("congestion.ce-marked-gets-cnp", FrameRule.duplicate(Direction.TO_DUT,
            FrameFilter.opcode(Opcode.CNP_NOTIFICATION), 1), PeerProfile.NONE);

        assertEquals(Verdict.FAIL, result.verdict(), result.reason());
        assertEquals("CNPs #1 and #2 to QP 0x77 came 0.0 us apart, less than 4.0 us", result.reason());
    }

    private static byte[] clearBecn(final byte[] frame)
    {
        final RoceFrameParser parser = new RoceFrameParser();
        parser.parse(new UnsafeBuffer(frame), 0, frame.length);
        parser.bth().becn(false);
        return Frames.reseal(frame);
    }

    @Test
    void readLeftUnansweredFails()
    {
        assertEquals(Verdict.PASS, self("responder.reads-beyond-resources").verdict());

        // The fifth READ response (max_dest_rd_atomic 4 + 1) never leaves the DUT.
        final ScenarioResult result = run("responder.reads-beyond-resources", FrameRule.drop(
            Direction.TO_DUT, FrameFilter.opcode(Opcode.RC_RDMA_READ_RESPONSE_ONLY).and(FrameFilter.psn(0x105)), 1),
            PeerProfile.NONE);

        assertEquals(Verdict.FAIL, result.verdict(), result.reason());
        assertTrue(result.reason().startsWith("expected any frame with an AETH within"), result.reason());
    }

    @Test
    void lostAckForAckReqFails()
    {
        assertEquals(Verdict.PASS, self("responder.ackreq-answered").verdict());

        final ScenarioResult result = run("responder.ackreq-answered", FrameRule.drop(Direction.TO_DUT,
            FrameFilter.ack().and(FrameFilter.psn(0x104)), 1), PeerProfile.NONE);

        assertEquals(Verdict.FAIL, result.verdict(), result.reason());
        assertEquals("expected ACK and psn=0x104 within 1000.0 us; the DUT sent nothing", result.reason());
    }

    @Test
    void requesterThatLeavesTheLastPacketWithoutAckReqFails()
    {
        assertEquals(Verdict.PASS, self("requester.ackreq-cadence").verdict());

        final ScenarioResult result = run("requester.ackreq-cadence", FrameRule.mutate(Direction.TO_DUT,
            FrameFilter.opcode(Opcode.RC_RDMA_WRITE_LAST), 1, "AckReq cleared", NewScenarioVerdictTest::clearAckReq),
            PeerProfile.NONE);

        assertEquals(Verdict.FAIL, result.verdict(), result.reason());
        assertTrue(result.reason().endsWith("ends a message without AckReq"), result.reason());
    }

    private static byte[] clearAckReq(final byte[] frame)
    {
        final RoceFrameParser parser = new RoceFrameParser();
        parser.parse(new UnsafeBuffer(frame), 0, frame.length);
        parser.bth().ackReq(false);
        return Frames.reseal(frame);
    }

    @Test
    void retryExhaustedIsARxeDeviationWhenItFails()
    {
        final ScenarioResult pass = self("requester.retry-exhausted");
        assertEquals(Verdict.PASS, pass.verdict(), pass.reason());
        // 1 + retry_cnt (7) transmissions of the WRITE, nothing after.
        assertEquals(8, pass.capture().frames().stream().filter(f -> Opcode.RC_RDMA_WRITE_ONLY == f.opcode()).count());

        // A DUT that sends the WRITE more often than 1 + retry_cnt times (as rxe, retrying forever, does): faked by
        // sending its first transmission twice.
        final FrameRule twice = FrameRule.duplicate(Direction.TO_DUT, FrameFilter.opcode(Opcode.RC_RDMA_WRITE_ONLY), 1);
        final ScenarioResult none = run("requester.retry-exhausted", twice, PeerProfile.NONE);
        final ScenarioResult rxe = run("requester.retry-exhausted", FrameRule.duplicate(Direction.TO_DUT,
            FrameFilter.opcode(Opcode.RC_RDMA_WRITE_ONLY), 1), PeerProfile.RXE);

        assertEquals(Verdict.FAIL, none.verdict(), none.reason());
        assertEquals(Verdict.DEVIATION, rxe.verdict(), rxe.reason());
        assertTrue(rxe.reason().startsWith("rxe profile: rxe takes retry_cnt 7"), rxe.reason());
    }

    @Test
    void readAnsweredWithAnAtomicAcknowledgeErrorsRoce4j()
    {
        final ScenarioResult result = self("requester.read-response-wrong-opcode");

        assertEquals(Verdict.PASS, result.verdict(), result.reason());
        assertTrue(result.notes().contains("the READ completed with BAD_RESP_ERR (roce4j: BAD_RESP_ERR)"),
            result.notes().toString());
    }
}
