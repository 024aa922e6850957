package org.roce4j.verbs;

import java.util.ArrayList;
import java.util.List;

import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Tasks in a progress group: they run after the engines in every round, their deadlines move simulated time, and
 * {@link ProgressGroup#waitUntil} drives the group until a condition holds or its deadline passes.
 */
class ProgressTaskTest
{
    /** A task with one timer: it fires once the clock reaches the deadline. */
    private static final class TimerTask implements ProgressTask
    {
        private final CachedNanoClock clock;
        private final List<Long> firedAt = new ArrayList<>();
        private long deadlineNs;
        private int rounds;

        TimerTask(final CachedNanoClock clock, final long deadlineNs)
        {
            this.clock = clock;
            this.deadlineNs = deadlineNs;
        }

        public int doWork()
        {
            rounds++;
            if (Long.MAX_VALUE != deadlineNs && clock.nanoTime() - deadlineNs >= 0)
            {
                firedAt.add(clock.nanoTime());
                deadlineNs = Long.MAX_VALUE;
                return 1;
            }
            return 0;
        }

        public long earliestDeadlineNs()
        {
            return deadlineNs;
        }
    }

    @Test
    void simulatedTimeJumpsToATasksDeadline()
    {
        final CachedNanoClock clock = new CachedNanoClock();
        clock.update(1_000);
        final ProgressGroup group = ProgressGroup.simulated(clock);
        final TimerTask task = new TimerTask(clock, 5_000_000_000L);
        group.addTask(task);
        assertEquals(1, group.taskCount());
        assertEquals(5_000_000_000L, group.earliestDeadlineNs());

        assertTrue(group.waitUntil(() -> !task.firedAt.isEmpty(), Long.MAX_VALUE, clock));
        assertEquals(List.of(5_000_000_000L), task.firedAt, "the clock jumped straight to the task's timer");
        assertEquals(Long.MAX_VALUE, group.earliestDeadlineNs());
    }

    @Test
    void waitUntilGivesUpAtItsDeadline()
    {
        final CachedNanoClock clock = new CachedNanoClock();
        clock.update(1_000);
        final ProgressGroup group = ProgressGroup.simulated(clock);
        final TimerTask task = new TimerTask(clock, Long.MAX_VALUE);
        group.addTask(task);

        assertFalse(group.waitUntil(() -> false, 2_000_000L, clock));
        assertEquals(2_000_000L, clock.nanoTime());
        assertTrue(task.rounds > 0, "the task ran while waiting");
    }

    @Test
    void aTaskRunsInEveryRoundUntilRemoved()
    {
        final CachedNanoClock clock = new CachedNanoClock();
        final ProgressGroup group = ProgressGroup.simulated(clock);
        final TimerTask task = new TimerTask(clock, Long.MAX_VALUE);
        group.addTask(task);
        assertThrows(IllegalStateException.class, () -> group.addTask(task));
        group.progress();
        group.progress();
        assertEquals(2, task.rounds);
        group.removeTask(task);
        group.progress();
        assertEquals(2, task.rounds);
        assertEquals(0, group.taskCount());
    }
}
