package org.roce4j.conform;

import java.util.Objects;

import org.roce4j.wire.ladder.Ladder;

/**
 * One conclusion of a checker over the capture, or a remark a step made, with the frame it is about so that the
 * report's ladder marks it beside that frame.
 *
 * @param kind  {@link Ladder.Kind#OK} when the rule held, {@link Ladder.Kind#VIOLATION} when the DUT broke it,
 *              {@link Ladder.Kind#NOTE} for a measurement or remark, {@link Ladder.Kind#NOT_CHECKED} for a part of
 *              the rule this DUT could not show (e.g. the payload, which needs the DUT's memory).
 * @param text  what was checked and seen.
 * @param frame the capture index ({@link CapturedFrame#index()}) of the frame it is about (the packet judged, the ACK
 *              that covers it, the CNP; for a rule over a run of frames, the last one judged), or -1 for none.
 */
public record Finding(Ladder.Kind kind, String text, int frame)
{
    /** What {@link #line()} puts before a rule that held. */
    public static final String OK_PREFIX = "ok: ";
    /** What {@link #line()} puts before a broken rule. */
    public static final String VIOLATION_PREFIX = "VIOLATION: ";
    /** What {@link #line()} puts before a part of the rule that was not checked. */
    public static final String NOT_CHECKED_PREFIX = "not checked: ";

    /**
     * Checks the references and the frame index.
     *
     * @param kind  kind.
     * @param text  text.
     * @param frame capture index or -1.
     */
    public Finding
    {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(text, "text");
        if (frame < -1)
        {
            throw new IllegalArgumentException("a finding's frame is a capture index or -1, frame=" + frame);
        }
    }

    /**
     * @param text what was checked.
     * @return a finding that holds, about no frame in particular.
     */
    public static Finding ok(final String text)
    {
        return new Finding(Ladder.Kind.OK, text, -1);
    }

    /**
     * @param text  what was checked.
     * @param frame the capture index of the frame it is about.
     * @return a finding that holds.
     */
    public static Finding ok(final String text, final int frame)
    {
        return new Finding(Ladder.Kind.OK, text, frame);
    }

    /**
     * @param text what the DUT did wrong.
     * @return a violation, about no frame in particular.
     */
    public static Finding violation(final String text)
    {
        return new Finding(Ladder.Kind.VIOLATION, text, -1);
    }

    /**
     * @param text  what the DUT did wrong.
     * @param frame the capture index of the frame that shows it.
     * @return a violation.
     */
    public static Finding violation(final String text, final int frame)
    {
        return new Finding(Ladder.Kind.VIOLATION, text, frame);
    }

    /**
     * @param text a measurement or remark.
     * @return a note, about no frame in particular.
     */
    public static Finding note(final String text)
    {
        return new Finding(Ladder.Kind.NOTE, text, -1);
    }

    /**
     * @param text what was not checked and what it needs, e.g. {@code payload, needs the DUT's memory}.
     * @return a finding that a part of the rule was not checked: never a pass of that part, never a failure.
     */
    public static Finding notChecked(final String text)
    {
        return new Finding(Ladder.Kind.NOT_CHECKED, text, -1);
    }

    /**
     * @return true when this part of the rule was not checked.
     */
    public boolean notChecked()
    {
        return Ladder.Kind.NOT_CHECKED == kind;
    }

    /**
     * @return true when the DUT broke the rule.
     */
    public boolean violation()
    {
        return Ladder.Kind.VIOLATION == kind;
    }

    /**
     * @return the line the reports print: {@code ok: TEXT}, {@code VIOLATION: TEXT}, {@code not checked: TEXT}, or a
     *         note's text as is.
     */
    public String line()
    {
        switch (kind)
        {
            case OK:
                return OK_PREFIX + text;
            case VIOLATION:
                return VIOLATION_PREFIX + text;
            case NOT_CHECKED:
                return NOT_CHECKED_PREFIX + text;
            default:
                return text;
        }
    }
}
