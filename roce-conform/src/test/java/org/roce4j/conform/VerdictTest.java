package org.roce4j.conform;

import java.util.List;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.roce4j.conform.catalogue.Catalogue;
import org.roce4j.conform.dut.SelfDut;
import org.roce4j.conform.dut.Testbed;
import org.roce4j.conform.report.TerminalTable;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RoceFrameParser;
import org.roce4j.wire.header.AethHeader.NakCode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The runner detects what it is there to detect: a DUT that breaks a rule FAILs, a wrong expectation FAILs, a
 * documented deviation is a DEVIATION only under its profile, a skip carries its reason, and a fault rule that never
 * fired is an error of the scenario, not a pass.
 */
class VerdictTest
{
    private static Testbed selfTestbed()
    {
        return SelfDut.testbed(link -> link);
    }

    /** roce4j broken on purpose: its PSN sequence NAKs name the expected PSN + 1. */
    private static Testbed brokenTestbed()
    {
        return SelfDut.testbed(link ->
        {
            final ConformLink broken = new ConformLink(link, () -> 0L, new Capture());
            // Seen from this decorator the DUT's own frames go "out", i.e. in its TO_DUT direction.
            broken.addRule(FrameRule.mutate(Direction.TO_DUT, FrameFilter.nak(NakCode.PSN_SEQUENCE_ERROR), 1,
                "NAK PSN + 1", VerdictTest::psnPlusOne));
            return broken;
        });
    }

    private static byte[] psnPlusOne(final byte[] frame)
    {
        final RoceFrameParser parser = new RoceFrameParser();
        parser.parse(new UnsafeBuffer(frame), 0, frame.length);
        parser.bth().psn(parser.bth().psn() + 1);
        return Frames.reseal(frame);
    }

    @Test
    void dutThatNamesTheWrongPsnInItsNakFails()
    {
        final Scenario scenario = Catalogue.named("responder.psn-sequence-error");
        assertEquals(Verdict.PASS, new ScenarioRunner(VerdictTest::selfTestbed, PeerProfile.NONE).run(scenario)
            .verdict());

        final ScenarioResult result = new ScenarioRunner(VerdictTest::brokenTestbed, PeerProfile.NONE).run(scenario);

        assertEquals(Verdict.FAIL, result.verdict(), result.reason());
        assertEquals("NAK PSN is 0x101, the rule wants 0x100", result.reason());
        assertTrue(result.failedAt().startsWith("expect NAK PSN_SEQUENCE_ERROR"), result.failedAt());
    }

    @Test
    void aPartTheDutCannotShowIsNotCheckedCountedAndNeverHidesAViolation()
    {
        final Scenario partly = Scenario.builder("responder.partly-observable").side(Side.RESPONDER)
            .rule("none", "a good WRITE is ACKed")
            .steps(Steps.connect(),
                Steps.send("a good WRITE ONLY", ctx -> Frames.writeOnly(ctx, ConformContext.PEER_PSN,
                    new byte[] {1, 2, 3})),
                Steps.expect(FrameFilter.ack(), 1_000_000L),
                Steps.whereObservable("payload", Steps.verify("payload", ctx ->
                {
                    throw new ConformSkip("the DUT's memory: not shown here");
                })))
            .build();
        final Scenario broken = Scenario.builder("responder.broken-where-observable").side(Side.RESPONDER)
            .rule("none", "a violation inside an observable part still fails")
            .steps(Steps.connect(), Steps.whereObservable("payload", Steps.verify("payload", ctx -> Checks.that(
                false, "the payload differs"))))
            .build();
        final ScenarioRunner runner = new ScenarioRunner(VerdictTest::selfTestbed, PeerProfile.NONE);

        final ScenarioResult result = runner.run(partly);
        final ScenarioResult failed = runner.run(broken);

        assertEquals(Verdict.PASS, result.verdict(), result.reason());
        assertEquals(List.of("payload, needs the DUT's memory: not shown here"), result.notChecked());
        assertEquals("not checked: payload, needs the DUT's memory: not shown here", result.shownReason());
        assertTrue(result.notes().contains("not checked: payload, needs the DUT's memory: not shown here"),
            result.notes().toString());
        assertEquals("2 scenarios: 1 PASS, 1 FAIL, 0 DEVIATION, 0 SKIP; 1 parts not checked",
            TerminalTable.countLine(List.of(result, failed)));
        assertEquals(Verdict.FAIL, failed.verdict());
        assertEquals("the payload differs", failed.reason());
    }

    @Test
    void wrongExpectationFails()
    {
        final Scenario wrong = Scenario.builder("responder.fabricated-wrong-expectation").side(Side.RESPONDER)
            .rule("none", "a good WRITE is NAKed (false on purpose)")
            .steps(Steps.connect(),
                Steps.send("a good WRITE ONLY", ctx -> Frames.writeOnly(ctx, ConformContext.PEER_PSN,
                    new byte[8])),
                Steps.expect(FrameFilter.nak(NakCode.INVALID_REQUEST), 1_000_000L))
            .build();

        final ScenarioResult result = new ScenarioRunner(VerdictTest::selfTestbed, PeerProfile.NONE).run(wrong);

        assertEquals(Verdict.FAIL, result.verdict());
        assertTrue(result.reason().contains("expected NAK INVALID_REQUEST within 1000.0 us; the DUT sent " +
            "[RC_ACKNOWLEDGE psn=0x100"), result.reason());
    }

    @Test
    void documentedDeviationIsADeviationOnlyUnderItsProfile()
    {
        final Scenario failing = Scenario.builder("requester.ghost-ack-ignored").side(Side.REQUESTER)
            .rule("9.7.5.1.2", "stand-in that fails as rxe does")
            .steps(Steps.verify("fails", ctx -> Checks.that(false, "the ghost ACK completed wr_id 1")))
            .build();

        final ScenarioResult rxe = new ScenarioRunner(VerdictTest::selfTestbed, PeerProfile.RXE).run(failing);
        final ScenarioResult none = new ScenarioRunner(VerdictTest::selfTestbed, PeerProfile.NONE).run(failing);

        assertEquals(Verdict.DEVIATION, rxe.verdict());
        assertTrue(rxe.reason().startsWith("rxe profile: rxe's completer takes an ACK"), rxe.reason());
        assertTrue(rxe.reason().endsWith("(observed: the ghost ACK completed wr_id 1)"), rxe.reason());
        assertEquals(Verdict.FAIL, none.verdict());
    }

    @Test
    void skipCarriesItsReason()
    {
        final Scenario skipping = Scenario.builder("responder.needs-something").side(Side.RESPONDER)
            .rule("none", "stand-in")
            .steps(Steps.verify("needs a capability", ctx ->
            {
                throw new ConformSkip("the DUT lacks it");
            }))
            .build();

        final ScenarioResult result = new ScenarioRunner(VerdictTest::selfTestbed, PeerProfile.NONE).run(skipping);

        assertEquals(Verdict.SKIP, result.verdict());
        assertEquals("the DUT lacks it", result.reason());
    }

    @Test
    void faultRuleThatNeverFiredIsAScenarioErrorNotAPass()
    {
        final Scenario unspent = Scenario.builder("responder.unspent-rule").side(Side.RESPONDER)
            .rule("none", "stand-in")
            .steps(Steps.connect(), Steps.dropNext(Direction.TO_DUT, FrameFilter.opcode(Opcode.RC_SEND_ONLY), 1))
            .build();

        final ScenarioResult result = new ScenarioRunner(VerdictTest::selfTestbed, PeerProfile.NONE).run(unspent);

        assertEquals(Verdict.FAIL, result.verdict());
        assertTrue(result.reason().startsWith("scenario error: fault rules never matched a frame"), result.reason());
    }

    @Test
    void scenarioRunTwiceGetsFreshFaultRules()
    {
        final ScenarioRunner runner = new ScenarioRunner(VerdictTest::selfTestbed, PeerProfile.NONE);
        final Scenario lostAck = Catalogue.named("requester.lost-ack-retransmit");

        final ScenarioResult first = runner.run(lostAck);
        final ScenarioResult second = runner.run(lostAck);

        assertEquals(Verdict.PASS, first.verdict(), first.reason());
        assertEquals(Verdict.PASS, second.verdict(), second.reason());
        assertEquals("dropped", second.capture().frames().get(1).fault());
    }

    @Test
    void catalogueNamesAreUniqueAndEachNamesItsRule()
    {
        final List<Scenario> all = Catalogue.all();
        assertEquals(all.size(), all.stream().map(Scenario::name).distinct().count());
        for (final Scenario scenario : all)
        {
            assertTrue(scenario.name().startsWith(scenario.side().suiteName() + "."), scenario.name());
            assertTrue(!scenario.summary().isBlank(), scenario.name());
        }
    }
}
