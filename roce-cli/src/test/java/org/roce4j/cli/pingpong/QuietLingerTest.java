package org.roce4j.cli.pingpong;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link QuietLinger} on a scripted clock: the peer's frames arrive at given times, each pause advances the clock, no
 * thread sleeps.
 */
class QuietLingerTest
{
    private static final long MS = 1_000_000L;

    /** A clock that pauses advance, and a peer whose frames arrive at scripted times. */
    private static final class Script
    {
        private final TreeMap<Long, Long> framesAtNs = new TreeMap<>();
        private final List<Long> pausesNs = new ArrayList<>();
        private long nowNs = 5_000 * MS;
        private final long startNs = nowNs;

        Script frameAtMs(final long ms)
        {
            framesAtNs.merge(startNs + ms * MS, 1L, Long::sum);
            return this;
        }

        long frames()
        {
            return framesAtNs.headMap(nowNs, true).values().stream().mapToLong(Long::longValue).sum();
        }

        void pause(final long ns)
        {
            assertTrue(ns > 0 && ns <= QuietLinger.POLL_NS, "pause of " + ns + " ns");
            pausesNs.add(ns);
            nowNs += ns;
        }

        QuietLinger.Outcome await(final long quietMs, final long lingerMs)
        {
            return new QuietLinger(() -> nowNs, this::frames, this::pause).await(quietMs * MS, lingerMs * MS);
        }
    }

    @Test
    void aSilentPeerEndsTheWaitAfterTheQuietTime()
    {
        final Script script = new Script();
        final QuietLinger.Outcome outcome = script.await(500, 10_000);
        assertEquals(new QuietLinger.Outcome(500 * MS, 0, true), outcome);
        assertEquals(50, script.pausesNs.size(), "looks every 10 ms");
    }

    @Test
    void retransmissionsKeepTheDeviceUpUntilThePeerFallsSilent()
    {
        // rxe retransmitting every 67 ms for a while (its ACK lost), then silent once re-ACKed.
        final Script script = new Script();
        for (long ms = 67; ms <= 67 * 12; ms += 67)
        {
            script.frameAtMs(ms);
        }
        final QuietLinger.Outcome outcome = script.await(500, 10_000);
        assertTrue(outcome.quiet(), outcome.toString());
        assertEquals(12, outcome.frames());
        // The last frame at 804 ms, seen at the next look (810 ms), then 500 ms of silence.
        assertEquals(1_310 * MS, outcome.waitedNs());
    }

    @Test
    void aLatePeerLongerThanTheOldFixedLingerIsStillAnswered()
    {
        // Under load the first retransmission came after more than the fixed 500 ms of old: with the quiet rule
        // a frame at 450 ms restarts the wait, so the one at 900 ms is still answered.
        final Script script = new Script().frameAtMs(450).frameAtMs(900);
        final QuietLinger.Outcome outcome = script.await(500, 10_000);
        assertEquals(2, outcome.frames());
        assertEquals(1_400 * MS, outcome.waitedNs());
        assertTrue(outcome.quiet());
    }

    @Test
    void aPeerThatNeverStopsIsCutAtTheLingerTime()
    {
        final Script script = new Script();
        for (long ms = 0; ms <= 20_000; ms += 100)
        {
            script.frameAtMs(ms);
        }
        final QuietLinger.Outcome outcome = script.await(500, 3_000);
        assertFalse(outcome.quiet(), outcome.toString());
        assertEquals(3_000 * MS, outcome.waitedNs());
        assertEquals(30, outcome.frames(), "frames at 100 ms to 3000 ms (the one at 0 was there before the wait)");
    }

    @Test
    void lingerZeroClosesAtOnce()
    {
        final Script script = new Script().frameAtMs(10);
        assertEquals(new QuietLinger.Outcome(0, 0, false), script.await(500, 0));
        assertTrue(script.pausesNs.isEmpty());
    }

    @Test
    void negativeTimesAreRefused()
    {
        final Script script = new Script();
        assertThrows(IllegalArgumentException.class, () -> script.await(-1, 500));
        assertThrows(IllegalArgumentException.class, () -> script.await(500, -1));
    }
}
