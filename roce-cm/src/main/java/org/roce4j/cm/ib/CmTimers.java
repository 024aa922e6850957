package org.roce4j.cm.ib;

import java.util.ArrayList;

import org.agrona.concurrent.NanoClock;

/**
 * The {@link IbCm}'s timers (cm.c's MAD send timeouts and cm_work timewait): arms the retransmit timer of REQ,
 * REP, DREQ and SIDR_REQ, holds ended connections in TimeWait, and on expiry retransmits, gives up, or leaves
 * TimeWait. Each connection has one deadline ({@code CmConnection.deadlineNs}, Long.MAX_VALUE when none); time
 * comes from the injected clock. Same thread as the CM.
 */
final class CmTimers
{
    private final NanoClock clock;
    private final CmCounters counters;
    private final CmTable table;
    private final CmSender sender;
    private final ArrayList<CmConnection> due = new ArrayList<>();

    /**
     * @param clock    the time source.
     * @param counters where to count.
     * @param table    the connections.
     * @param sender   retransmits.
     */
    CmTimers(final NanoClock clock, final CmCounters counters, final CmTable table, final CmSender sender)
    {
        this.clock = clock;
        this.counters = counters;
        this.table = table;
        this.sender = sender;
    }

    /**
     * @return the clock's time, nanoseconds.
     */
    long nowNs()
    {
        return clock.nanoTime();
    }

    /**
     * Arm the retransmit timer of the message just built.
     *
     * @param c         the connection.
     * @param retries   retransmissions before giving up.
     * @param timeoutNs between retransmissions.
     */
    void armRetransmit(final CmConnection c, final int retries, final long timeoutNs)
    {
        c.retriesLeft = retries;
        c.deadlineNs = clock.nanoTime() + timeoutNs;
    }

    /**
     * Hold a connection in TimeWait for {@link CmConfig#timewaitNs} (cm.c cm_enter_timewait).
     *
     * @param c the connection.
     */
    void enterTimewait(final CmConnection c)
    {
        if (CmState.TIMEWAIT != c.state)
        {
            counters.increment(CmCounter.TIMEWAIT_ENTERED);
        }
        c.state = CmState.TIMEWAIT;
        c.deadlineNs = clock.nanoTime() + CmConfig.timewaitNs(c.ackTimeout);
    }

    /**
     * Fire due timers: retransmit, give up, or leave TimeWait.
     *
     * @return number of timers fired.
     */
    int processTimers()
    {
        final long now = clock.nanoTime();
        final ArrayList<CmConnection> connections = table.connections();
        final ArrayList<CmConnection> fired = due;
        fired.clear();
        for (int i = 0, n = connections.size(); i < n; i++)
        {
            final CmConnection c = connections.get(i);
            if (Long.MAX_VALUE != c.deadlineNs && now - c.deadlineNs >= 0)
            {
                fired.add(c);
            }
        }
        for (int i = 0, n = fired.size(); i < n; i++)
        {
            onTimer(fired.get(i), now);
        }
        final int count = fired.size();
        fired.clear();
        return count;
    }

    /**
     * @return the earliest armed timer (the clock's nanoseconds), or Long.MAX_VALUE.
     */
    long earliestDeadlineNs()
    {
        final ArrayList<CmConnection> connections = table.connections();
        long earliest = Long.MAX_VALUE;
        for (int i = 0, n = connections.size(); i < n; i++)
        {
            earliest = Math.min(earliest, connections.get(i).deadlineNs);
        }
        return earliest;
    }

    private void onTimer(final CmConnection c, final long now)
    {
        switch (c.state)
        {
            case REQ_SENT:
            case MRA_REQ_RCVD:
            case REP_SENT:
            case MRA_REP_RCVD:
            case DREQ_SENT:
            case SIDR_REQ_SENT:
                if (c.retriesLeft > 0)
                {
                    c.retriesLeft--;
                    c.deadlineNs = now + c.timeoutNs;
                    counters.increment(CmCounter.RETRANSMISSIONS);
                    sender.sendCopy(c.peer, c.lastSent);
                    return;
                }
                counters.increment(CmCounter.TIMEOUTS);
                final CmState state = c.state;
                if (CmState.DREQ_SENT == state)
                {
                    enterTimewait(c);
                }
                else
                {
                    table.forget(c);
                }
                final CmHandler h = c.handler;
                if (null != h)
                {
                    h.onTimeout(c, state);
                }
                break;
            case TIMEWAIT:
                counters.increment(CmCounter.TIMEWAIT_EXITED);
                table.forget(c);
                final CmHandler owner = c.handler;
                if (null != owner)
                {
                    owner.onTimewaitExit(c);
                }
                break;
            default:
                c.deadlineNs = Long.MAX_VALUE;
                break;
        }
    }
}
