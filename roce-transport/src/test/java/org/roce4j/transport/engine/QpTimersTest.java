package org.roce4j.transport.engine;

import org.agrona.concurrent.CachedNanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.Mtu;
import org.roce4j.ib.QpAttrMask;
import org.roce4j.ib.QpAttributes;
import org.roce4j.ib.QpCapabilities;
import org.roce4j.ib.QpState;
import org.roce4j.ib.QpType;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WrOpcode;
import org.roce4j.transport.TransportCounter;
import org.roce4j.transport.provider.EngineConfig;
import org.roce4j.wire.addr.Gid;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The retransmit timers on the wheel ({@link QpTimers}): with thousands of QPs armed, a duty cycle looks at the QPs
 * whose timers expire, not at every armed QP. Counted ({@link QpTimers#qpVisits()}, {@link QpTimers#spokesPolled()}),
 * never timed. The exact firing time of each timer is what {@code RequesterCompleterTest} and the other engine tests
 * check.
 */
final class QpTimersTest
{
    /** QPs with an armed retransmit timer. */
    private static final int QPS = 4096;
    /** Local ACK timeout attribute: 4.096 µs x 2^18 = 1.07 s, longer than arming every QP one tick apart takes. */
    private static final int TIMEOUT = 18;
    private static final long TIMEOUT_NS = 4096L << TIMEOUT;
    private static final long START_NS = 1_000_000_000L;
    private static final int PEER_QPN = 0x77;

    private final CachedNanoClock clock = new CachedNanoClock();
    private RoceEngine engine;

    @Test
    void aDutyCycleLooksAtTheQpsWhoseTimersExpireNotAtEveryArmedQp()
    {
        clock.update(START_NS);
        final TestLink link = TestLink.pair(EnginePair.ADDRESS_A, EnginePair.ADDRESS_B, 1500)[0];
        // Nobody answers: every SEND keeps its retransmit timer armed.
        link.dropWhen(frame -> true);
        engine = new RoceEngine(link, new EngineConfig().clock(clock));
        EngineHealthCheck.track(engine);
        final MemoryRegionEntry mr = engine.registerMemory(0x1000, AccessFlags.LOCAL_WRITE, 1,
            new UnsafeBuffer(new byte[64]));
        final QpContext[] qps = new QpContext[QPS];
        for (int i = 0; i < QPS; i++)
        {
            qps[i] = connectedRcQp();
        }

        // QP i sends at START + i ticks, so its deadline is START + TIMEOUT + i ticks: one deadline per tick.
        for (int i = 0; i < QPS; i++)
        {
            clock.update(START_NS + i * QpTimers.TICK_NS);
            final int index = i;
            EnginePair.post(engine, qps[i], w -> w.wrId(index).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED)
                .sgl().add(mr.iova(), 64, mr.lkey()));
            runUntilQuiet();
        }
        int armed = 0;
        for (final QpContext qp : qps)
        {
            armed += 0 != qp.comp.retransmitDeadlineNs ? 1 : 0;
        }
        assertEquals(QPS, armed);
        assertEquals(START_NS + TIMEOUT_NS, engine.earliestDeadlineNs());

        // Duty cycles before the first deadline look at no QP, however many have a timer armed.
        final long visitsArmed = engine.timers.qpVisits();
        clock.update(START_NS + TIMEOUT_NS - 1);
        for (int cycle = 0; cycle < 100; cycle++)
        {
            engine.doWork();
        }
        assertEquals(visitsArmed, engine.timers.qpVisits(), "no timer due: no QP looked at");
        assertEquals(0, counter(TransportCounter.RETRANSMIT_TIMEOUTS));

        // Three deadlines pass: one cycle looks at those three QPs and no other.
        final long spokesBefore = engine.timers.spokesPolled();
        clock.update(START_NS + TIMEOUT_NS + 2 * QpTimers.TICK_NS);
        engine.doWork();
        assertEquals(visitsArmed + 3, engine.timers.qpVisits(), "three timers expired: three QPs looked at");
        assertEquals(3, counter(TransportCounter.RETRANSMIT_TIMEOUTS));
        final long spokes = engine.timers.spokesPolled() - spokesBefore;
        assertTrue(spokes <= 4, "spokes polled for three ticks: " + spokes);
        runUntilQuiet();
        assertEquals(3, counter(TransportCounter.PACKETS_RETRANSMITTED), "each timed-out QP resent its SEND");

        // The same time again: nothing more is due.
        final long visitsAfter = engine.timers.qpVisits();
        engine.doWork();
        assertEquals(visitsAfter, engine.timers.qpVisits());

        // A jump of many turns of the wheel: the spokes polled are bounded by one turn, the QPs looked at are the
        // ones whose timers expired (every QP's, this time, including the three re-armed ones).
        final long spokesBeforeJump = engine.timers.spokesPolled();
        clock.update(START_NS + 3 * TIMEOUT_NS);
        engine.doWork();
        assertTrue(engine.timers.spokesPolled() - spokesBeforeJump <= QpTimers.TICKS_PER_WHEEL + 1);
        assertEquals(visitsAfter + QPS, engine.timers.qpVisits());
        assertEquals(3 + QPS, counter(TransportCounter.RETRANSMIT_TIMEOUTS));
    }

    private QpContext connectedRcQp()
    {
        final QpCapabilities caps = new QpCapabilities();
        caps.maxSendWr = 4;
        caps.maxRecvWr = 1;
        caps.maxSendSge = 1;
        caps.maxRecvSge = 1;
        final CompletionRing cq = new CompletionRing(1, 4);
        final QpContext qp = engine.createQp(QpType.RC, 1, caps, cq, cq, null, false);
        final QpAttributes attr = new QpAttributes();
        attr.qpState = QpState.INIT;
        engine.modifyQp(qp, attr, QpAttrMask.STATE);
        attr.qpState = QpState.RTR;
        attr.pathMtu = Mtu.MTU_1024;
        attr.destQpNum = PEER_QPN;
        attr.ahAttr.dgid(Gid.IPV4_MAPPED_HIGH, EnginePair.ADDRESS_B.ipv4MappedLow()).sgidIndex(1);
        engine.modifyQp(qp, attr, QpAttrMask.STATE | QpAttrMask.AV | QpAttrMask.PATH_MTU | QpAttrMask.DEST_QPN |
            QpAttrMask.RQ_PSN);
        attr.qpState = QpState.RTS;
        attr.timeout = TIMEOUT;
        attr.retryCnt = 7;
        engine.modifyQp(qp, attr, QpAttrMask.STATE | QpAttrMask.SQ_PSN | QpAttrMask.TIMEOUT | QpAttrMask.RETRY_CNT);
        return qp;
    }

    private void runUntilQuiet()
    {
        for (int cycles = 0; 0 != engine.doWork(); cycles++)
        {
            assertTrue(cycles < 1000, "engine never went quiet");
        }
    }

    private long counter(final TransportCounter counter)
    {
        return engine.counters().get(counter);
    }
}
