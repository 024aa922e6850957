package org.roce4j.transport.engine;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import org.agrona.DeadlineTimerWheel;
import org.agrona.collections.Long2ObjectHashMap;

/**
 * The retransmit and RNR timers of every QP (rxe's per-QP retrans_timer and rnr_nak_timer), and the DCQCN pacer's
 * wait ({@link QpCongestion#pacerWakeNs}), on an Agrona
 * {@link DeadlineTimerWheel}, so a duty cycle does work in proportion to the timers that expire, not to the QPs that
 * have one armed.
 *
 * <p>Each QP has at most one entry, at a deadline no later than any of its armed deadlines
 * ({@link CompleterState#retransmitDeadlineNs}, {@link RequesterState#rnrDeadlineNs}). Pushing a deadline forward, as
 * every ACK does to the retransmit timer (rxe reset_retry_timer), only writes the QP's field: the entry stays, and
 * when it comes due the QP's real deadlines are checked, the due ones fire and the entry is placed again at the
 * earliest one left. Arming an earlier deadline (an RNR wait shorter than the retransmit timeout) moves the entry.
 *
 * <p>The wheel is coarse ({@link #TICK_NS}) and fires a whole tick at once, but a timer must fire in the first duty
 * cycle at or after its deadline, exactly (invoker-mode tests advance the clock to a deadline and expect the
 * retransmission). So entries due before the end of the current tick leave the wheel for a short "due" list, whose
 * deadlines are compared exactly; a duty cycle polls the wheel only when a tick has ended, and walks the due list only
 * when its earliest deadline has passed. Idle cycles cost two comparisons.
 *
 * <p>Engine thread only. Allocation only when a table grows (the wheel's spokes, the owner map, the due list), never
 * per packet.
 */
final class QpTimers
{
    /** {@link QpContext#timerPlace}: no entry. */
    static final int NONE = 0;
    /** {@link QpContext#timerPlace}: an entry in the wheel, {@link QpContext#timerId}. */
    static final int IN_WHEEL = 1;
    /** {@link QpContext#timerPlace}: in the due list (deadline before the end of the current tick). */
    static final int DUE = 2;
    /** log2 of {@link #TICK_NS}. */
    static final int TICK_SHIFT = 16;
    /**
     * Tick of the wheel: 2^16 ns = 65.5 µs, 8 times the shortest local ACK timeout (4.096 µs x 2^1) and 1/1024 of
     * the one perftest and ibv_rc_pingpong ask for (timeout 14, 67 ms). A power of two, as the wheel requires.
     */
    static final long TICK_NS = 1L << TICK_SHIFT;
    /** Spokes: 1024 ticks, one turn = 67 ms; later deadlines wait in their spoke for later turns. */
    static final int TICKS_PER_WHEEL = 1024;
    /** Initial capacity of the due list. */
    private static final int INITIAL_DUE_CAPACITY = 64;

    private final RoceEngine engine;
    private final DeadlineTimerWheel wheel;
    private final Long2ObjectHashMap<QpContext> owners = new Long2ObjectHashMap<>();
    private final DeadlineTimerWheel.TimerHandler onWheelExpiry = this::onWheelExpiry;
    private QpContext[] due = new QpContext[INITIAL_DUE_CAPACITY];
    private int dueCount;
    private long dueEarliestNs = Long.MAX_VALUE;
    private long tickEndNs;
    private long qpVisits;
    private long spokesPolled;

    /**
     * @param engine  runs the completer's retransmit timeout and schedules QPs whose RNR wait ended.
     * @param startNs the engine clock's time now: the wheel's first tick starts there.
     */
    QpTimers(final RoceEngine engine, final long startNs)
    {
        this.engine = engine;
        this.wheel = new DeadlineTimerWheel(TimeUnit.NANOSECONDS, startNs, TICK_NS, TICKS_PER_WHEEL);
        this.tickEndNs = wheel.currentTickTime();
    }

    /**
     * Make sure the QP's timers are looked at by this deadline (it was just armed in the QP's state).
     *
     * @param qp         the QP.
     * @param deadlineNs the deadline armed.
     */
    void arm(final QpContext qp, final long deadlineNs)
    {
        final int place = qp.timerPlace;
        if (NONE != place && qp.timerEntryNs <= deadlineNs)
        {
            // The entry comes due first; then the QP's real deadlines are checked and the entry placed again.
            return;
        }
        if (DUE == place)
        {
            qp.timerEntryNs = deadlineNs;
            dueEarliestNs = Math.min(dueEarliestNs, deadlineNs);
            return;
        }
        if (IN_WHEEL == place)
        {
            wheel.cancelTimer(qp.timerId);
            owners.remove(qp.timerId);
            qp.timerPlace = NONE;
        }
        qp.timerEntryNs = deadlineNs;
        if (deadlineNs < tickEndNs)
        {
            addDue(qp);
        }
        else
        {
            final long timerId = wheel.scheduleTimer(deadlineNs);
            owners.put(timerId, qp);
            qp.timerId = timerId;
            qp.timerPlace = IN_WHEEL;
        }
    }

    /**
     * Fire every timer due at {@code nowNs} (engine thread, once per duty cycle).
     *
     * @param nowNs the duty cycle's time.
     * @return timers fired (retransmit timeouts and ended RNR waits).
     */
    int fire(final long nowNs)
    {
        if (nowNs >= tickEndNs)
        {
            advance(nowNs);
        }
        if (nowNs < dueEarliestNs)
        {
            return 0;
        }
        int fired = 0;
        long earliest = Long.MAX_VALUE;
        dueEarliestNs = Long.MAX_VALUE;
        int i = 0;
        while (i < dueCount)
        {
            final QpContext qp = due[i];
            if (nowNs < qp.timerEntryNs)
            {
                earliest = Math.min(earliest, qp.timerEntryNs);
                i++;
                continue;
            }
            // Swap the last entry in: it is looked at next. Entries a timer re-arms are appended, and looked at too.
            due[i] = due[--dueCount];
            due[dueCount] = null;
            qp.timerPlace = NONE;
            qpVisits++;
            fired += expire(qp, nowNs);
        }
        dueEarliestNs = Math.min(dueEarliestNs, earliest);
        return fired;
    }

    /**
     * The body of rxe's retransmit_timer and rnr_nak_timer for one QP whose entry came due: fire what is due, then
     * place the entry at the earliest deadline left.
     */
    private int expire(final QpContext qp, final long nowNs)
    {
        int fired = 0;
        final long retransmit = qp.comp.retransmitDeadlineNs;
        if (0 != retransmit && nowNs - retransmit >= 0)
        {
            qp.comp.retransmitDeadlineNs = 0;
            engine.completer.onRetransmitTimeout(qp);
            fired++;
        }
        if (qp.req.waitingRnrTimer && nowNs - qp.req.rnrDeadlineNs >= 0)
        {
            qp.req.waitingRnrTimer = false;
            qp.req.needRetry = true;
            engine.schedule(qp);
            fired++;
        }
        final QpCongestion cc = qp.congestion;
        if (null != cc && cc.pacerArmed && nowNs - cc.pacerWakeNs >= 0)
        {
            // The pacer's wait ended (CongestionPoints.maySend): the requester looks again.
            cc.pacerArmed = false;
            engine.schedule(qp);
            fired++;
        }
        if (!qp.destroyed)
        {
            final long next = nextDeadlineNs(qp);
            if (Long.MAX_VALUE != next)
            {
                arm(qp, next);
            }
        }
        return fired;
    }

    private static long nextDeadlineNs(final QpContext qp)
    {
        long next = Long.MAX_VALUE;
        if (0 != qp.comp.retransmitDeadlineNs)
        {
            next = qp.comp.retransmitDeadlineNs;
        }
        if (qp.req.waitingRnrTimer && qp.req.rnrDeadlineNs < next)
        {
            next = qp.req.rnrDeadlineNs;
        }
        final QpCongestion cc = qp.congestion;
        if (null != cc && cc.pacerArmed && cc.pacerWakeNs < next)
        {
            next = cc.pacerWakeNs;
        }
        return next;
    }

    /**
     * The current tick has ended: move every wheel entry due before the end of the tick {@code nowNs} is in to the
     * due list, visiting each spoke in between at most once, and make that tick the current one.
     */
    private void advance(final long nowNs)
    {
        if (wheel.timerCount() > 0)
        {
            final long startNs = wheel.startTime();
            final long targetEndNs = startNs + ((((nowNs - startNs) >> TICK_SHIFT) + 1) << TICK_SHIFT);
            // poll(targetEndNs - 1) takes a spoke's entries due before the target tick ends and, while the spoke is
            // an earlier tick's, moves the wheel on by one tick; after a whole turn every spoke has been seen.
            for (int spokes = 0; spokes <= TICKS_PER_WHEEL && wheel.timerCount() > 0; spokes++)
            {
                final boolean last = wheel.currentTickTime() >= targetEndNs;
                wheel.poll(targetEndNs - 1, onWheelExpiry, Integer.MAX_VALUE);
                spokesPolled++;
                if (last)
                {
                    break;
                }
            }
        }
        wheel.currentTickTime(nowNs);
        tickEndNs = wheel.currentTickTime();
    }

    private boolean onWheelExpiry(final TimeUnit timeUnit, final long nowNs, final long timerId)
    {
        final QpContext qp = owners.remove(timerId);
        if (null != qp)
        {
            qp.timerPlace = NONE;
            addDue(qp);
        }
        return true;
    }

    private void addDue(final QpContext qp)
    {
        if (dueCount == due.length)
        {
            due = Arrays.copyOf(due, dueCount * 2);
        }
        due[dueCount++] = qp;
        qp.timerPlace = DUE;
        dueEarliestNs = Math.min(dueEarliestNs, qp.timerEntryNs);
    }

    /**
     * @return true when no QP has a timer entry.
     */
    boolean isEmpty()
    {
        return 0 == dueCount && 0 == wheel.timerCount();
    }

    /**
     * @return the earliest armed deadline of any QP with a timer entry, or Long.MAX_VALUE (not on the hot path: it
     * looks at every such QP; invoker-mode tests use it to jump the clock).
     */
    long earliestDeadlineNs()
    {
        long earliest = Long.MAX_VALUE;
        for (int i = 0; i < dueCount; i++)
        {
            earliest = Math.min(earliest, nextDeadlineNs(due[i]));
        }
        for (final QpContext qp : owners.values())
        {
            earliest = Math.min(earliest, nextDeadlineNs(qp));
        }
        return earliest;
    }

    /**
     * @return QPs whose timer entry came due and whose timers were checked, since the engine started: the timer
     * work of the duty cycles, which grows with the timers that expire, not with the QPs that have one armed.
     */
    long qpVisits()
    {
        return qpVisits;
    }

    /**
     * @return wheel spokes polled since the engine started (at most one per tick that passed, plus one per poll).
     */
    long spokesPolled()
    {
        return spokesPolled;
    }
}
