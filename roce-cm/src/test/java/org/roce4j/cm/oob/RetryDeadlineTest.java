package org.roce4j.cm.oob;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RetryDeadlineTest
{
    private static final long PAUSE_NS = 50_000_000L;

    private final CachedNanoClock clock = new CachedNanoClock();
    private final List<Long> pauses = new ArrayList<>();

    /** A sleeper that records the pause and moves the clock by it, as a real pause would. */
    private void pause(final long pauseNs)
    {
        pauses.add(pauseNs);
        clock.advance(pauseNs);
    }

    @Test
    void retriesWithThePauseUntilTheDeadlineThenExpires()
    {
        clock.update(1_000L);
        final RetryDeadline retry = new RetryDeadline(clock, this::pause, Duration.ofMillis(120), PAUSE_NS);
        int attempts = 1;
        while (!retry.expired())
        {
            retry.pause();
            attempts++;
        }
        // 120 ms with 50 ms pauses: attempts at 0, 50 and 100 ms are inside, the one at 150 ms finds it expired.
        assertEquals(4, attempts);
        assertEquals(List.of(PAUSE_NS, PAUSE_NS, PAUSE_NS), pauses);
        assertEquals(1_000L + 3 * PAUSE_NS, clock.nanoTime());
    }

    @Test
    void zeroRetryTimeMakesTheFirstFailureFinal()
    {
        final RetryDeadline retry = new RetryDeadline(clock, this::pause, Duration.ZERO, PAUSE_NS);
        assertTrue(retry.expired());
        assertTrue(pauses.isEmpty());
    }

    @Test
    void theDeadlineCountsFromCreationAndSurvivesClockWrap()
    {
        clock.update(Long.MAX_VALUE - 10L);
        final RetryDeadline retry = new RetryDeadline(clock, this::pause, Duration.ofNanos(100), PAUSE_NS);
        clock.advance(99);
        assertFalse(retry.expired());
        clock.advance(1);
        assertTrue(retry.expired());
    }

    @Test
    void rejectsNegativeTimesAndNulls()
    {
        final IllegalArgumentException negative = assertThrows(IllegalArgumentException.class,
            () -> new RetryDeadline(clock, this::pause, Duration.ofMillis(-1), PAUSE_NS));
        assertTrue(negative.getMessage().contains("must not be negative"), negative.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new RetryDeadline(clock, this::pause, Duration.ZERO, -1));
        assertThrows(NullPointerException.class, () -> new RetryDeadline(null, this::pause, Duration.ZERO, 0));
    }
}
