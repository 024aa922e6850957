package org.roce4j.conform.report;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.roce4j.conform.CapturedFrame;
import org.roce4j.conform.Direction;
import org.roce4j.conform.ScenarioResult;
import org.roce4j.conform.Verdict;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.ladder.Ladder;

/**
 * A scenario's exchange as a {@link Ladder}: the conform peer on the left, the DUT on the right, one arrow per
 * captured frame with the fault the conform link applied to it (dropped, duplicated, delayed, mutated) or a bad
 * ICRC drawn as its fate, and the checkers' notes as findings ({@code ok: } holds, {@code VIOLATION: } broken, other
 * remarks are notes). A note naming a frame ({@code #N}, as the checkers write it) is marked beside that frame; a
 * FAIL whose reason no note states is added as a violation.
 */
public final class ConformLadder
{
    /** The left column's name. */
    public static final String PEER = "roce conform peer";

    private static final Pattern FRAME_REFERENCE = Pattern.compile("#(\\d{1,9})");
    private static final String OK_PREFIX = "ok: ";
    private static final String VIOLATION_PREFIX = "VIOLATION: ";

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
        for (final String note : result.notes())
        {
            if (note.startsWith(VIOLATION_PREFIX))
            {
                final String text = note.substring(VIOLATION_PREFIX.length());
                reasonStated |= text.equals(result.reason());
                findings.add(new Ladder.Finding(Ladder.Kind.VIOLATION, text, frameIn(text, frames.size())));
            }
            else if (note.startsWith(OK_PREFIX))
            {
                final String text = note.substring(OK_PREFIX.length());
                findings.add(new Ladder.Finding(Ladder.Kind.OK, text, frameIn(text, frames.size())));
            }
            else
            {
                findings.add(new Ladder.Finding(Ladder.Kind.NOTE, note, frameIn(note, frames.size())));
            }
        }
        if (!reasonStated && Verdict.FAIL == result.verdict())
        {
            findings.add(new Ladder.Finding(Ladder.Kind.VIOLATION, result.reason() + " (step: " + result.failedAt() +
                ")", frameIn(result.reason(), frames.size())));
        }
        return new Ladder(result.scenario().name() + ": " + result.verdict(), PEER, dut, arrows, findings,
            List.of());
    }

    private static Ladder.Fate fate(final CapturedFrame frame)
    {
        final String fault = frame.fault();
        if (null == fault)
        {
            return FrameStatus.BAD_ICRC == frame.status() ? Ladder.Fate.CORRUPTED : Ladder.Fate.DELIVERED;
        }
        if ("dropped".equals(fault))
        {
            return Ladder.Fate.DROPPED;
        }
        if ("duplicated".equals(fault))
        {
            return Ladder.Fate.DUPLICATE;
        }
        return fault.startsWith("delayed") ? Ladder.Fate.DELAYED : Ladder.Fate.CORRUPTED;
    }

    /**
     * @return the first frame number the text names ({@code #N}) that exists in the capture, or -1.
     */
    static long frameIn(final String text, final int frames)
    {
        final Matcher matcher = FRAME_REFERENCE.matcher(text);
        while (matcher.find())
        {
            final int frame = Integer.parseInt(matcher.group(1));
            if (frame < frames)
            {
                return frame;
            }
        }
        return -1;
    }
}
