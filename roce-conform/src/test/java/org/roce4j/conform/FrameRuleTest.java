package org.roce4j.conform;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

import org.junit.jupiter.api.Test;
import org.roce4j.wire.Opcode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The fault words have one home, {@link FrameRule.Action}: each rule's note starts with its action's word and reads
 * back as that action, and a captured frame knows from it whether it was dropped.
 */
class FrameRuleTest
{
    private static final FrameFilter ANY_SEND = FrameFilter.opcode(Opcode.RC_SEND_ONLY);

    /** One rule of each action, with the note it must write. */
    private static Map<FrameRule.Action, FrameRule> oneOfEach()
    {
        final Map<FrameRule.Action, FrameRule> rules = new EnumMap<>(FrameRule.Action.class);
        rules.put(FrameRule.Action.DROP, FrameRule.drop(Direction.TO_DUT, ANY_SEND, 1));
        rules.put(FrameRule.Action.MUTATE, FrameRule.mutate(Direction.TO_DUT, ANY_SEND, 1, "delayed ICRC flipped",
            UnaryOperator.identity()));
        rules.put(FrameRule.Action.DELAY, FrameRule.delay(Direction.TO_DUT, ANY_SEND, 1, 5_000));
        rules.put(FrameRule.Action.DUPLICATE, FrameRule.duplicate(Direction.TO_DUT, ANY_SEND, 1));
        return rules;
    }

    @Test
    void everyActionsNoteStartsWithItsWordAndReadsBackAsIt()
    {
        final Map<FrameRule.Action, FrameRule> rules = oneOfEach();
        assertEquals(List.of(FrameRule.Action.values()), List.copyOf(rules.keySet()), "one rule per action");
        final Map<FrameRule.Action, String> notes = new EnumMap<>(FrameRule.Action.class);
        for (final Map.Entry<FrameRule.Action, FrameRule> rule : rules.entrySet())
        {
            notes.put(rule.getKey(), rule.getValue().note());
            assertEquals(rule.getKey(), FrameRule.Action.of(rule.getValue().note()), rule.getValue().note());
        }
        assertEquals(Map.of(FrameRule.Action.DROP, "dropped", FrameRule.Action.MUTATE,
            "mutated: delayed ICRC flipped", FrameRule.Action.DELAY, "delayed 5000 ns", FrameRule.Action.DUPLICATE,
            "duplicated"), notes, "the words the capture, the reports and the ladder print");
    }

    @Test
    void wordsNoRuleWritesAreNoAction()
    {
        assertNull(FrameRule.Action.of(null));
        assertNull(FrameRule.Action.of(""));
        assertNull(FrameRule.Action.of("bad ICRC"));
        assertNull(FrameRule.Action.of("droppedx"));
        assertNull(FrameRule.Action.of("drop"));
    }

    @Test
    void aCapturedFrameKnowsItsFaultFromTheNote()
    {
        final Capture capture = new Capture();
        for (final FrameRule rule : oneOfEach().values())
        {
            capture.add(0, Direction.TO_DUT, new byte[64], rule.note());
        }
        capture.add(0, Direction.TO_DUT, new byte[64], null);

        final List<CapturedFrame> frames = capture.frames();
        assertTrue(frames.get(0).dropped());
        for (int i = 1; i < frames.size(); i++)
        {
            assertFalse(frames.get(i).dropped(), frames.get(i).label());
        }
        assertEquals(List.of(FrameRule.Action.DELAY, FrameRule.Action.DUPLICATE),
            capture.delivered(Direction.TO_DUT).subList(1, 3).stream().map(CapturedFrame::faultAction).toList());
        assertEquals(4, capture.delivered(Direction.TO_DUT).size(), "all but the dropped one");
        assertNull(frames.get(4).faultAction());
    }
}
