package org.roce4j.verbs;

import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.AsyncEvent;
import org.roce4j.ib.AsyncEventType;
import org.roce4j.ib.QpState;
import org.roce4j.ib.QpType;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WcStatus;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.ib.WrOpcode;
import org.roce4j.transport.TransportCounter;
import org.roce4j.wire.Opcode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.roce4j.verbs.VerbsFixture.ALL_ACCESS;
import static org.roce4j.verbs.VerbsFixture.drain;
import static org.roce4j.verbs.VerbsFixture.register;

/**
 * Error completions, QP error states, flushes and asynchronous events, as libibverbs users see them.
 */
class ErrorPathsTest
{
    private final VerbsFixture fx = new VerbsFixture();

    @AfterEach
    void close()
    {
        fx.assertNoInternalErrors();
        fx.close();
    }

    private static boolean hasEvent(final List<AsyncEvent> events, final AsyncEventType type, final int element)
    {
        return events.contains(new AsyncEvent(type, element));
    }

    /** How a case spoils the RDMA WRITE target. */
    enum BadTarget
    {
        UNKNOWN_RKEY, OUT_OF_BOUNDS, NO_REMOTE_WRITE
    }

    static Stream<Arguments> badTargets()
    {
        return Stream.of(Arguments.of(BadTarget.UNKNOWN_RKEY), Arguments.of(BadTarget.OUT_OF_BOUNDS),
            Arguments.of(BadTarget.NO_REMOTE_WRITE));
    }

    @ParameterizedTest
    @MethodSource("badTargets")
    void remoteAccessErrorFailsTheRequesterAndFlushesTheRest(final BadTarget badTarget)
    {
        final VerbsFixture.Pair c = fx.connect(QpType.RC);
        final MemoryRegion src = register(fx.pdA, 256, ALL_ACCESS);
        final MemoryRegion dst = register(fx.pdB, 256, BadTarget.NO_REMOTE_WRITE == badTarget ?
            AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ : ALL_ACCESS);
        final int rkey = BadTarget.UNKNOWN_RKEY == badTarget ? dst.rkey() ^ 0x5A5A : dst.rkey();
        final long address = BadTarget.OUT_OF_BOUNDS == badTarget ? dst.address(200) : dst.iova();
        c.a.qp.postRecv(new RecvWorkRequest().wrId(50).addSge(src, 0, 64));
        c.a.qp.postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
            .addSge(src, 0, 100).rdma(address, rkey)
            .next(new SendWorkRequest().wrId(2).opcode(WrOpcode.SEND).addSge(src, 0, 8)));

        final List<WorkCompletion> sends = drain(c.a.sendCq, 2);
        assertEquals(1, sends.get(0).wrId());
        assertEquals(WcStatus.REM_ACCESS_ERR, sends.get(0).status());
        assertEquals(2, sends.get(1).wrId());
        assertEquals(WcStatus.WR_FLUSH_ERR, sends.get(1).status(), "unsignaled, but errors always complete");
        final WorkCompletion flushedRecv = drain(c.a.recvCq, 1).get(0);
        assertEquals(50, flushedRecv.wrId());
        assertEquals(WcStatus.WR_FLUSH_ERR, flushedRecv.status());
        assertEquals(QpState.ERR, c.a.qp.state());
        assertEquals(QpState.ERR, c.b.qp.state());
        assertTrue(hasEvent(VerbsFixture.events(fx.b), AsyncEventType.QP_ACCESS_ERR, c.b.qp.qpNum()));
        assertEquals(1, fx.b.counters().get(TransportCounter.NAK_REMOTE_ACCESS_SENT));

        // Posting on the QP in ERR is accepted and flushed.
        c.a.qp.postSend(new SendWorkRequest().wrId(3).addSge(src, 0, 8));
        assertEquals(WcStatus.WR_FLUSH_ERR, drain(c.a.sendCq, 1).get(0).status());
    }

    @Test
    void badLkeyIsALocalProtectionError()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.RC);
        final MemoryRegion src = register(fx.pdA, 256, ALL_ACCESS);
        c.a.qp.postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.SEND).addSge(src.iova(), 16, src.lkey() + 1));
        final WorkCompletion wc = drain(c.a.sendCq, 1).get(0);
        assertEquals(WcStatus.LOC_PROT_ERR, wc.status());
        assertEquals(1, wc.wrId());
        assertEquals(QpState.ERR, c.a.qp.state());
        assertTrue(hasEvent(VerbsFixture.events(fx.a), AsyncEventType.QP_FATAL, c.a.qp.qpNum()));

        // The same for an SGE outside its region, and for a READ into memory without LOCAL_WRITE.
        final VerbsFixture.Pair d = fx.connect(QpType.RC);
        final MemoryRegion readOnly = register(fx.pdA, 256, AccessFlags.REMOTE_READ);
        final MemoryRegion remote = register(fx.pdB, 256, ALL_ACCESS);
        d.a.qp.postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.RDMA_READ).addSge(readOnly, 0, 16)
            .rdma(remote.iova(), remote.rkey()));
        assertEquals(WcStatus.LOC_PROT_ERR, drain(d.a.sendCq, 1).get(0).status());
    }

    @Test
    void receiveBufferTooSmall()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.RC);
        final MemoryRegion src = register(fx.pdA, 256, ALL_ACCESS);
        final MemoryRegion dst = register(fx.pdB, 256, ALL_ACCESS);
        c.b.qp.postRecv(new RecvWorkRequest().wrId(7).addSge(dst, 0, 32));
        c.a.qp.postSend(new SendWorkRequest().wrId(8).opcode(WrOpcode.SEND).addSge(src, 0, 100));

        final WorkCompletion recv = drain(c.b.recvCq, 1).get(0);
        assertEquals(7, recv.wrId());
        assertEquals(WcStatus.LOC_LEN_ERR, recv.status());
        final WorkCompletion send = drain(c.a.sendCq, 1).get(0);
        assertEquals(8, send.wrId());
        assertEquals(WcStatus.REM_INV_REQ_ERR, send.status());
        assertEquals(QpState.ERR, c.b.qp.state());
        assertEquals(QpState.ERR, c.a.qp.state());
        assertTrue(hasEvent(VerbsFixture.events(fx.b), AsyncEventType.QP_REQ_ERR, c.b.qp.qpNum()));
    }

    @Test
    void noReceivePostedWithRnrRetryZero()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.RC, p -> p.rnrRetry = 0, init -> { });
        final MemoryRegion src = register(fx.pdA, 256, ALL_ACCESS);
        c.a.qp.postSend(new SendWorkRequest().wrId(9).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
            .addSge(src, 0, 10));
        final WorkCompletion wc = drain(c.a.sendCq, 1).get(0);
        assertEquals(WcStatus.RNR_RETRY_EXC_ERR, wc.status());
        assertEquals(1, fx.b.counters().get(TransportCounter.NAK_RNR_SENT));
        assertEquals(1, fx.a.counters().get(TransportCounter.RNR_RETRY_EXCEEDED));
        assertEquals(QpState.ERR, c.a.qp.state());
    }

    @Test
    void rnrRetriesUntilAReceiveIsPosted()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.RC, p -> p.rnrRetry = 7, init -> { });
        final MemoryRegion src = register(fx.pdA, 256, ALL_ACCESS);
        final MemoryRegion dst = register(fx.pdB, 256, ALL_ACCESS);
        c.a.qp.postSend(new SendWorkRequest().wrId(9).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
            .addSge(src, 0, 10));
        // Let a few RNR NAKs go by in simulated time, then post the receive.
        assertEquals(0, c.a.sendCq.pollBlocking(VerbsFixture.completions(1), 5_000_000L));
        assertTrue(fx.b.counters().get(TransportCounter.NAK_RNR_SENT) >= 2, fx.b.describeCounters());
        c.b.qp.postRecv(new RecvWorkRequest().wrId(1).addSge(dst, 0, 64));
        assertEquals(WcStatus.SUCCESS, drain(c.a.sendCq, 1).get(0).status());
        assertEquals(10, drain(c.b.recvCq, 1).get(0).byteLen());
    }

    @Test
    void lostPacketsExhaustRetryCountAfterExactlyRetryCntPlusOneTransmissions()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.RC, p -> p.retryCnt = 2, init -> { });
        final MemoryRegion src = register(fx.pdA, 256, ALL_ACCESS);
        fx.linkA.record(true);
        fx.linkA.dropWhen(frame -> true);
        c.a.qp.postSend(new SendWorkRequest().wrId(12).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
            .addSge(src, 0, 10));
        final long start = fx.clock.nanoTime();
        final WorkCompletion wc = drain(c.a.sendCq, 1).get(0);
        assertEquals(WcStatus.RETRY_EXC_ERR, wc.status());
        assertEquals(12, wc.wrId());

        final List<PairLink.Sent> trace = fx.linkA.trace();
        assertEquals(3, trace.size(), "the first transmission and retry_cnt = 2 retries: " + trace);
        for (final PairLink.Sent sent : trace)
        {
            assertEquals(Opcode.RC_SEND_ONLY, sent.opcode());
            assertEquals(0x100, sent.psn(), "every transmission carries the same PSN");
            assertTrue(sent.dropped());
        }
        assertEquals(3, fx.a.counters().get(TransportCounter.RETRANSMIT_TIMEOUTS));
        assertEquals(2, fx.a.counters().get(TransportCounter.RETRIES));
        assertEquals(1, fx.a.counters().get(TransportCounter.RETRY_EXCEEDED));
        // timeout 14: 4.096 µs × 2^14 ≈ 67.1 ms per try, three tries.
        assertTrue(fx.clock.nanoTime() - start >= 3 * (4096L << 14), "three retransmit timeouts elapsed");
        assertEquals(QpState.ERR, c.a.qp.state());
    }

    @Test
    void cqOverflowMovesTheQpToErrorAndRaisesCqErr()
    {
        final CompletionQueue tiny = fx.a.createCq(2);
        final VerbsFixture.Pair c = fx.connect(QpType.RC, p -> { }, init -> init.sendCq(tiny), init -> { });
        final MemoryRegion src = register(fx.pdA, 64, ALL_ACCESS);
        final MemoryRegion dst = register(fx.pdB, 64, ALL_ACCESS);
        for (int i = 0; i < 3; i++)
        {
            c.a.qp.postSend(new SendWorkRequest().wrId(i).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .addSge(src, 0, 8).rdma(dst.iova(), dst.rkey()));
        }
        fx.settle();
        assertTrue(tiny.hasOverflowed());
        final List<AsyncEvent> events = VerbsFixture.events(fx.a);
        assertTrue(hasEvent(events, AsyncEventType.CQ_ERR, tiny.handle()), events.toString());
        assertEquals(QpState.ERR, c.a.qp.state());
    }

    @Test
    void qpResetAfterAnErrorCanBeConnectedAgain()
    {
        final VerbsFixture.Params params = new VerbsFixture.Params();
        final VerbsFixture.Pair c = fx.connect(QpType.RC, p -> { }, init -> { });
        final MemoryRegion src = register(fx.pdA, 256, ALL_ACCESS);
        final MemoryRegion dst = register(fx.pdB, 256, ALL_ACCESS);
        c.a.qp.postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.RDMA_WRITE).addSge(src, 0, 8)
            .rdma(dst.iova(), 0));
        assertEquals(WcStatus.REM_ACCESS_ERR, drain(c.a.sendCq, 1).get(0).status());
        fx.settle();
        assertEquals(QpState.ERR, c.a.qp.state());
        assertEquals(QpState.ERR, c.b.qp.state());

        final org.roce4j.ib.QpAttributes reset = new org.roce4j.ib.QpAttributes();
        reset.qpState = QpState.RESET;
        c.a.qp.modify(reset, org.roce4j.ib.QpAttrMask.STATE);
        c.b.qp.modify(reset, org.roce4j.ib.QpAttrMask.STATE);
        VerbsFixture.bringUp(c.a.qp, c.b.qp.qpNum(), fx.b.queryGid(1), 0x500, 0x600, params);
        VerbsFixture.bringUp(c.b.qp, c.a.qp.qpNum(), fx.a.queryGid(1), 0x600, 0x500, params);
        c.b.qp.postRecv(new RecvWorkRequest().wrId(2).addSge(dst, 0, 64));
        c.a.qp.postSend(new SendWorkRequest().wrId(3).sendFlags(SendFlags.SIGNALED).addSge(src, 0, 64));
        assertEquals(WcStatus.SUCCESS, drain(c.b.recvCq, 1).get(0).status());
        assertEquals(WcStatus.SUCCESS, drain(c.a.sendCq, 1).get(0).status());
    }

    @Test
    void destroyedPeerQpDropsPacketsAndTheRequesterGivesUp()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.RC, p -> p.retryCnt = 1, init -> { });
        final MemoryRegion src = register(fx.pdA, 256, ALL_ACCESS);
        c.b.qp.destroy();
        c.a.qp.postSend(new SendWorkRequest().wrId(4).sendFlags(SendFlags.SIGNALED).addSge(src, 0, 16));
        assertEquals(WcStatus.RETRY_EXC_ERR, drain(c.a.sendCq, 1).get(0).status());
        assertEquals(2, fx.b.counters().get(TransportCounter.DROP_NO_QP), fx.b.describeCounters());
    }
}
