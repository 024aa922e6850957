package org.roce4j.conform.report;

import java.util.ArrayList;
import java.util.List;

import org.roce4j.conform.CapturedFrame;
import org.roce4j.conform.Direction;
import org.roce4j.conform.Finding;
import org.roce4j.conform.FrameRule;
import org.roce4j.conform.ScenarioResult;
import org.roce4j.conform.Verdict;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.ladder.Ladder;

/**
 * A scenario's exchange as a {@link Ladder}: the conform peer on the left, the DUT on the right, one arrow per
 * captured frame with the fault the conform link applied to it (dropped, duplicated, delayed, mutated) or a bad
 * ICRC drawn as its fate, and the scenario's {@link Finding}s (rules that held, violations, remarks), each marked
 * beside the frame it is about ({@link Finding#frame()}) when it names one; a FAIL whose reason no finding states is
 * added as a violation.
 */
public final class ConformLadder
{
    /** The left column's name. */
    public static final String PEER = "roce conform peer";

    private ConformLadder()
    {
    }

    /**
     * @param result a scenario's result.
     * @param dut    the DUT's name (the right column).
     * @return its ladder.
     */
    public static Ladder of(final ScenarioResult result, final String dut)
    {
        final List<CapturedFrame> frames = result.capture().frames();
        final List<Ladder.Arrow> arrows = new ArrayList<>(frames.size());
        for (final CapturedFrame frame : frames)
        {
            arrows.add(new Ladder.Arrow(frame.index(), frame.timeNs(), Direction.TO_DUT == frame.direction(),
                frame.wireLabel(), fate(frame), null == frame.fault() ?
                FrameStatus.BAD_ICRC == frame.status() ? "bad ICRC" : "" : frame.fault()));
        }
        final List<Ladder.Finding> findings = new ArrayList<>();
        boolean reasonStated = result.reason().isEmpty();
        for (final Finding finding : result.findings())
        {
            reasonStated |= finding.violation() && finding.text().equals(result.reason());
            findings.add(new Ladder.Finding(finding.kind(), finding.text(), finding.frame()));
        }
        if (!reasonStated && Verdict.FAIL == result.verdict())
        {
            findings.add(new Ladder.Finding(Ladder.Kind.VIOLATION, result.reason() + " (step: " + result.failedAt() +
                ")", -1));
        }
        return new Ladder(result.scenario().name() + ": " + result.verdict(), PEER, dut, arrows, findings,
            List.of());
    }

    private static Ladder.Fate fate(final CapturedFrame frame)
    {
        final FrameRule.Action fault = frame.faultAction();
        if (null == fault)
        {
            return FrameStatus.BAD_ICRC == frame.status() ? Ladder.Fate.CORRUPTED : Ladder.Fate.DELIVERED;
        }
        switch (fault)
        {
            case DROP:
                return Ladder.Fate.DROPPED;
            case DUPLICATE:
                return Ladder.Fate.DUPLICATE;
            case DELAY:
                return Ladder.Fate.DELAYED;
            default:
                return Ladder.Fate.CORRUPTED;
        }
    }
}
