package org.roce4j.wire.ladder;

import java.util.List;
import java.util.Objects;

/**
 * A ladder diagram of one exchange between two endpoints: time flows down, one column per side, each frame an
 * arrow from the side that sent it to the other ({@link LadderSvg} draws it). Built from a conform scenario's capture
 * (roce-conform's report) or from any RoCEv2 pcap ({@link PcapLadder}, {@code roce decode --ladder}).
 *
 * @param title    a line above the diagram (a scenario's name and verdict, a file's name).
 * @param left     the left column's name (the conform peer, or the first frame's sender).
 * @param right    the right column's name (the DUT, or the first frame's receiver).
 * @param arrows   the frames, in capture order.
 * @param findings what was concluded about the exchange; each may point at one arrow.
 * @param notes    remarks printed under the diagram (frames left out, ...).
 */
public record Ladder(String title, String left, String right, List<Arrow> arrows, List<Finding> findings,
    List<String> notes)
{
    /**
     * Copies the lists.
     *
     * @param title    title.
     * @param left     left column.
     * @param right    right column.
     * @param arrows   frames.
     * @param findings findings.
     * @param notes    remarks.
     */
    public Ladder
    {
        Objects.requireNonNull(title, "title");
        Objects.requireNonNull(left, "left");
        Objects.requireNonNull(right, "right");
        arrows = List.copyOf(arrows);
        findings = List.copyOf(findings);
        notes = List.copyOf(notes);
    }

    /**
     * What happened to a frame on its way, as drawn.
     */
    public enum Fate
    {
        /** Arrived as sent: a full arrow. */
        DELIVERED,
        /** Lost (a fault dropped it): the arrow stops half-way with an X. */
        DROPPED,
        /** A second copy of the frame before it (injected duplicate, or the same frame again in a capture). */
        DUPLICATE,
        /** Changed on the way, or its ICRC does not match: the arrow is marked corrupted. */
        CORRUPTED,
        /** Held back and delivered later. */
        DELAYED
    }

    /**
     * What a finding says about the exchange.
     */
    public enum Kind
    {
        /** A rule checked and held. */
        OK,
        /** A rule broken. */
        VIOLATION,
        /** A measurement or remark. */
        NOTE,
        /** A part of the rule that could not be checked against this DUT (what it needs is named). */
        NOT_CHECKED
    }

    /**
     * One frame.
     *
     * @param frame       its number in the capture (as {@code roce decode} and the report number it).
     * @param timeNs      when it was seen, nanoseconds on any clock (drawn relative to the first arrow).
     * @param leftToRight true when the left side sent it.
     * @param label       opcode, PSN, AETH ({@link FrameLabel}).
     * @param fate        what happened to it.
     * @param fateNote    words for the fate ("dropped", "mutated: ICRC flipped", "bad ICRC"), or empty.
     */
    public record Arrow(long frame, long timeNs, boolean leftToRight, String label, Fate fate, String fateNote)
    {
        /**
         * Checks the references.
         *
         * @param frame       number.
         * @param timeNs      time.
         * @param leftToRight direction.
         * @param label       label.
         * @param fate        fate.
         * @param fateNote    fate's words.
         */
        public Arrow
        {
            Objects.requireNonNull(label, "label");
            Objects.requireNonNull(fate, "fate");
            Objects.requireNonNull(fateNote, "fateNote");
        }
    }

    /**
     * One conclusion about the exchange.
     *
     * @param kind  ok, violation or note.
     * @param text  what was checked and seen.
     * @param frame the frame it is about (an {@link Arrow#frame()}), or -1.
     */
    public record Finding(Kind kind, String text, long frame)
    {
        /**
         * Checks the references.
         *
         * @param kind  kind.
         * @param text  text.
         * @param frame frame or -1.
         */
        public Finding
        {
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(text, "text");
        }
    }
}
