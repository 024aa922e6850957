package org.roce4j.transport.engine;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.Mtu;
import org.roce4j.ib.QpState;
import org.roce4j.ib.QpType;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WcStatus;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.ib.WrOpcode;
import org.roce4j.transport.TransportCounter;
import org.roce4j.transport.link.fault.FaultRule;
import org.roce4j.transport.link.memory.MemoryFabric;
import org.roce4j.transport.link.memory.MemoryLink;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A peer that dies in the middle of a transfer (issue 13 #7): over the in-memory fabric, with the engines' clock
 * injected, the peer's machine stops (its engine never runs again and every frame to it is lost) while WRITEs are
 * outstanding. The RC QP must fail with RETRY_EXC_ERR exactly local ACK timeout x (retry_cnt + 1) after its last
 * packet went out (IBA 9.7.6.1.3: 4.096 us x 2^timeout per timeout), flushing every later WQE; perftest's and
 * ibv_rc_pingpong's retry_cnt 7 included, which rxe takes as "forever".
 */
@ExtendWith(EngineHealthCheck.class)
class DeadPeerTest
{
    private static final int ALL = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ |
        AccessFlags.REMOTE_ATOMIC;
    /** WRITEs outstanding when the peer dies (perftest's default tx depth is 128). */
    private static final int OUTSTANDING = 16;

    @ParameterizedTest(name = "retry_cnt {0}, timeout {1}")
    @CsvSource({"0, 10", "3, 12", "7, 14", "7, 8"})
    void rcQpFailsWithRetryExcErrAfterTimeoutTimesRetryCountPlusOne(final int retryCnt, final int timeout)
    {
        final MemoryFabric fabric = new MemoryFabric();
        final MemoryLink linkA = fabric.attach(EnginePair.ADDRESS_A, 1500);
        final MemoryLink linkB = fabric.attach(EnginePair.ADDRESS_B, 1500);
        final EnginePair pair = new EnginePair(linkA, linkB, config -> {});
        final EnginePair.Connection c = pair.connect(QpType.RC, Mtu.MTU_1024, attr ->
        {
            attr.retryCnt = retryCnt;
            attr.timeout = timeout;
        });
        final MemoryRegionEntry src = EnginePair.register(pair.a, 64 * 1024, ALL);
        final MemoryRegionEntry dst = EnginePair.register(pair.b, 64 * 1024, ALL);
        final List<WorkCompletion> done = new ArrayList<>();

        // The peer is alive: a first WRITE completes.
        postWrite(pair, c, src, dst, 0);
        pair.runUntil(() ->
        {
            done.addAll(ScriptedPeer.drain(c.sendCqA));
            return !done.isEmpty();
        }, 10_000);
        assertEquals(WcStatus.SUCCESS, done.get(0).status());
        done.clear();

        // The peer's machine dies: nothing reaches it, its engine never runs again.
        linkA.faults().addRule(FaultRule.drop());
        final long diedAtNs = pair.clock.nanoTime();
        for (int i = 1; i <= OUTSTANDING; i++)
        {
            postWrite(pair, c, src, dst, i);
        }
        pair.a.doWork();
        long failedAtNs = -1;
        for (int step = 0; step < 100 && done.isEmpty(); step++)
        {
            pair.clock.update(pair.a.earliestDeadlineNs());
            while (0 != pair.a.doWork())
            {
                done.addAll(ScriptedPeer.drain(c.sendCqA));
            }
            done.addAll(ScriptedPeer.drain(c.sendCqA));
            if (!done.isEmpty())
            {
                failedAtNs = pair.clock.nanoTime();
            }
        }

        final long timeoutNs = 4096L << timeout;
        assertEquals((retryCnt + 1) * timeoutNs, failedAtNs - diedAtNs, "time from the last answer to the failure");
        assertEquals(OUTSTANDING, done.size(), done.toString());
        assertEquals(1, done.get(0).wrId());
        assertEquals(WcStatus.RETRY_EXC_ERR, done.get(0).status());
        for (int i = 1; i < OUTSTANDING; i++)
        {
            assertEquals(i + 1, done.get(i).wrId());
            assertEquals(WcStatus.WR_FLUSH_ERR, done.get(i).status());
        }
        assertEquals(QpState.ERR, c.qpA.state());
        assertEquals(Long.MAX_VALUE, pair.a.earliestDeadlineNs(), "no timer left");
        assertEquals(retryCnt + 1, pair.a.counters().get(TransportCounter.RETRANSMIT_TIMEOUTS));
        assertEquals(retryCnt, pair.a.counters().get(TransportCounter.RETRIES));
        assertEquals(1, pair.a.counters().get(TransportCounter.RETRY_EXCEEDED));
        assertEquals((long)retryCnt * OUTSTANDING, pair.a.counters().get(TransportCounter.PACKETS_RETRANSMITTED));
    }

    private static void postWrite(final EnginePair pair, final EnginePair.Connection c, final MemoryRegionEntry src,
        final MemoryRegionEntry dst, final int id)
    {
        EnginePair.post(pair.a, c.qpA, w -> w.wrId(id).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
            .remote(dst.iova() + id * 1024L, dst.rkey()).sgl().add(src.iova() + id * 1024L, 1024, src.lkey()));
    }
}
