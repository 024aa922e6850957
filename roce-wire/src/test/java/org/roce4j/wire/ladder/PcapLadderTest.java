package org.roce4j.wire.ladder;

import java.util.List;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.roce4j.wire.Vectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Ladders of the real rxe captures: the first RoCEv2 frame's endpoints are the columns, other frames are counted
 * out, bad ICRCs are corrupted and re-sent requests are marked.
 */
class PcapLadderTest
{
    static Ladder ladderOf(final String vector)
    {
        final PcapLadder builder = new PcapLadder();
        final List<byte[]> frames = Vectors.frames(vector);
        for (int i = 0; i < frames.size(); i++)
        {
            builder.add(i + 1, i * 1_000L, new UnsafeBuffer(frames.get(i)), 0, frames.get(i).length);
        }
        return builder.ladder(vector);
    }

    @Test
    void rcPingpongIsFourArrowsBackAndForth() throws Exception
    {
        final Ladder ladder = ladderOf(Vectors.RXE_VS_PEER);

        assertEquals("10.77.0.2", ladder.left());
        assertEquals("10.77.0.1", ladder.right());
        assertEquals(4, ladder.arrows().size(), ladder.arrows().toString());
        final boolean[] directions = {true, false, false, true};
        final String[] opcodes = {"RC_SEND_ONLY", "RC_ACKNOWLEDGE", "RC_SEND_ONLY", "RC_ACKNOWLEDGE"};
        for (int i = 0; i < 4; i++)
        {
            final Ladder.Arrow arrow = ladder.arrows().get(i);
            assertEquals(directions[i], arrow.leftToRight(), arrow.toString());
            assertTrue(arrow.label().startsWith(opcodes[i] + " psn=0x"), arrow.label());
            assertEquals(Ladder.Fate.DELIVERED, arrow.fate(), arrow.toString());
        }
        assertTrue(ladder.arrows().get(1).label().contains("ACK (credits: unlimited) msn="),
            ladder.arrows().get(1).label());
        assertTrue(ladder.notes().get(0).endsWith("not RoCEv2 left out"), ladder.notes().toString());
        assertEquals(4, LadderSvgTest.withClass(LadderSvgTest.parse(LadderSvg.document(ladder)), "g", "frame")
            .size());
    }

    @Test
    void badIcrcsAreCorruptedAndRetransmissionsResent()
    {
        final Ladder ladder = ladderOf(Vectors.NEGATIVE_IPID);

        assertFalse(ladder.arrows().isEmpty());
        int corrupted = 0;
        int resent = 0;
        for (final Ladder.Arrow arrow : ladder.arrows())
        {
            if (Ladder.Fate.CORRUPTED == arrow.fate())
            {
                corrupted++;
                assertEquals("bad ICRC", arrow.fateNote());
                assertTrue(arrow.leftToRight() == "10.77.0.1".equals(ladder.left()), "only the peer's ICRCs are wrong");
            }
            else if (Ladder.Fate.DUPLICATE == arrow.fate())
            {
                resent++;
                assertEquals("resent", arrow.fateNote());
            }
        }
        assertTrue(corrupted > 0, "corrupted: " + corrupted);
        assertTrue(resent > 0, "rxe retransmits what the peer never acknowledged: " + resent);
    }

    @Test
    void framesBetweenOtherAddressesAreCountedOut()
    {
        final Ladder ladder = ladderOf(Vectors.RXE_PAIR);

        assertFalse(ladder.arrows().isEmpty());
        for (final String note : ladder.notes())
        {
            assertTrue(note.contains("left out"), note);
        }
    }
}
