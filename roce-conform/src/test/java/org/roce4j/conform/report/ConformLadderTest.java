package org.roce4j.conform.report;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.UnaryOperator;

import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.Test;
import org.roce4j.conform.Capture;
import org.roce4j.conform.CapturedFrame;
import org.roce4j.conform.Direction;
import org.roce4j.conform.Finding;
import org.roce4j.conform.FrameFilter;
import org.roce4j.conform.FrameRule;
import org.roce4j.conform.PeerProfile;
import org.roce4j.conform.Scenario;
import org.roce4j.conform.ScenarioResult;
import org.roce4j.conform.ScenarioRunner;
import org.roce4j.conform.Side;
import org.roce4j.conform.Steps;
import org.roce4j.conform.Verdict;
import org.roce4j.conform.catalogue.Catalogue;
import org.roce4j.conform.dut.SelfDut;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.ladder.Ladder;
import org.roce4j.wire.ladder.LadderSvg;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Each fault note the conform link writes is drawn as its fate, and a passing scenario's ladder marks each finding beside the frame the checker judged (from {@link Finding#frame()},
 * not from the finding's text, which names no frame when the rule held): read back from the SVG, each numbered disc
 * sits in the {@code data-frame} group of its finding's frame, and a finding about no frame has no disc in any row.
 */
class ConformLadderTest
{
    private static ScenarioResult pass(final String name)
    {
        final ScenarioResult result = new ScenarioRunner(() -> SelfDut.testbed(UnaryOperator.identity()),
            PeerProfile.NONE).run(Catalogue.named(name));
        assertEquals(Verdict.PASS, result.verdict(), result.reason());
        return result;
    }

    /**
     * @return finding number (0-based) to the {@code data-frame} of the frame row whose disc carries it.
     */
    private static Map<Integer, Long> discsInRows(final Ladder ladder) throws Exception
    {
        final DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(true);
        final Document svg = factory.newDocumentBuilder().parse(new ByteArrayInputStream(
            LadderSvg.document(ladder).getBytes(StandardCharsets.UTF_8)));
        final NodeList groups = svg.getElementsByTagNameNS(LadderSvg.NAMESPACE, "g");
        final Map<Integer, Long> discs = new HashMap<>();
        for (int i = 0; i < groups.getLength(); i++)
        {
            final Element group = (Element)groups.item(i);
            final Node parent = group.getParentNode();
            if (group.getAttribute("class").startsWith("finding ") && parent instanceof Element &&
                ((Element)parent).getAttribute("class").startsWith("frame "))
            {
                final int finding = Integer.parseInt(group.getTextContent().trim()) - 1;
                final Long frame = Long.valueOf(((Element)parent).getAttribute("data-frame"));
                assertNull(discs.put(finding, frame), "finding " + finding + " marked in one row only");
                assertEquals("finding " + ladder.findings().get(finding).kind().name().toLowerCase(Locale.ROOT),
                    group.getAttribute("class"));
            }
        }
        return discs;
    }

    /** Every finding with a frame has its disc in that frame's row; those without one have none. */
    private static Map<Integer, Long> assertPlaced(final ScenarioResult result) throws Exception
    {
        final Ladder ladder = ConformLadder.of(result, "dut");
        final Map<Integer, Long> discs = discsInRows(ladder);
        for (int k = 0; k < ladder.findings().size(); k++)
        {
            final Ladder.Finding finding = ladder.findings().get(k);
            if (finding.frame() < 0)
            {
                assertFalse(discs.containsKey(k), "finding about no frame left out of the rows: " + finding);
            }
            else
            {
                assertEquals(finding.frame(), discs.get(k), "disc of " + finding);
            }
        }
        return discs;
    }

    private static int findingWith(final ScenarioResult result, final String fragment)
    {
        final List<Finding> findings = result.findings();
        for (int k = 0; k < findings.size(); k++)
        {
            if (findings.get(k).text().contains(fragment))
            {
                return k;
            }
        }
        throw new AssertionError("no finding says " + fragment + ": " + findings);
    }

    @Test
    void everyFaultNoteIsDrawnAsItsFateWithItsWords()
    {
        final FrameFilter sends = FrameFilter.opcode(Opcode.RC_SEND_ONLY);
        final List<FrameRule> rules = List.of(FrameRule.drop(Direction.TO_DUT, sends, 1),
            FrameRule.mutate(Direction.TO_DUT, sends, 1, "ICRC flipped", UnaryOperator.identity()),
            FrameRule.delay(Direction.FROM_DUT, sends, 1, 5_000), FrameRule.duplicate(Direction.FROM_DUT, sends, 1));
        final Capture capture = new Capture();
        for (final FrameRule rule : rules)
        {
            capture.add(0, Direction.TO_DUT, new byte[64], rule.note());
        }
        capture.add(0, Direction.TO_DUT, new byte[64], null);
        final Scenario scenario = Scenario.builder("responder.faults").rule("9.9.9", "faults drawn")
            .side(Side.RESPONDER).summary("one frame per fault").steps(Steps.connect()).build();

        final Ladder ladder = ConformLadder.of(new ScenarioResult(scenario, Verdict.PASS, "", null, List.of(), capture,
            0), "dut");

        assertEquals(List.of(Ladder.Fate.DROPPED, Ladder.Fate.CORRUPTED, Ladder.Fate.DELAYED, Ladder.Fate.DUPLICATE,
            Ladder.Fate.DELIVERED), ladder.arrows().stream().map(Ladder.Arrow::fate).toList());
        for (int i = 0; i < rules.size(); i++)
        {
            assertEquals(rules.get(i).note(), ladder.arrows().get(i).fateNote());
        }
    }

    @Test
    void theRetransmissionTimingIsMarkedBesideTheRetransmission() throws Exception
    {
        final ScenarioResult lost = pass("requester.lost-ack-retransmit");
        int retransmission = -1;
        int writes = 0;
        for (final CapturedFrame frame : lost.capture().frames())
        {
            if (Direction.FROM_DUT == frame.direction() && Opcode.RC_RDMA_WRITE_ONLY == frame.opcode() &&
                2 == ++writes)
            {
                retransmission = frame.index();
            }
        }
        assertTrue(retransmission > 0, "the DUT sent its WRITE twice");

        final Map<Integer, Long> discs = assertPlaced(lost);

        final int timing = findingWith(lost, "retransmission of PSN 0x");
        assertEquals(Ladder.Kind.OK, lost.findings().get(timing).kind());
        assertEquals(Long.valueOf(retransmission), discs.get(timing));
    }

    @Test
    void aResponderPassMarksTheCoveringAckAndLeavesPayloadIntegrityUnplaced() throws Exception
    {
        final ScenarioResult answered = pass("responder.ackreq-answered");
        int lastAck = -1;
        int lastAeth = -1;
        for (final CapturedFrame frame : answered.capture().frames())
        {
            if (Direction.FROM_DUT == frame.direction())
            {
                lastAck = frame.isAck() ? frame.index() : lastAck;
                lastAeth = frame.msn() >= 0 ? frame.index() : lastAeth;
            }
        }
        assertTrue(lastAck > 0 && lastAeth > 0, "the DUT ACKed");

        final Map<Integer, Long> discs = assertPlaced(answered);

        assertEquals(Long.valueOf(lastAck), discs.get(findingWith(answered, "requests with AckReq, each answered")));
        assertEquals(Long.valueOf(lastAeth), discs.get(findingWith(answered, "MSN never decreased")));
        final int integrity = findingWith(answered, "bytes at offset 0 intact");
        assertEquals(-1, answered.findings().get(integrity).frame());
        assertFalse(discs.containsKey(integrity), "payload integrity is about memory, no frame");
    }
}
