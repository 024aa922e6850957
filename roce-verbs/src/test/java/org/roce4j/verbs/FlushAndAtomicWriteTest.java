package org.roce4j.verbs;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.Flush;
import org.roce4j.ib.QpState;
import org.roce4j.ib.QpType;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WcOpcode;
import org.roce4j.ib.WcStatus;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.ib.WrOpcode;
import org.roce4j.transport.TransportCounter;
import org.roce4j.wire.Opcode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.roce4j.verbs.VerbsFixture.ALL_ACCESS;
import static org.roce4j.verbs.VerbsFixture.drain;
import static org.roce4j.verbs.VerbsFixture.register;

/**
 * FLUSH and ATOMIC_WRITE through the Verbs API (ibv_wr_flush, ibv_wr_atomic_write; rxe since Linux 6.2) between two
 * roce4j devices: success with the completion opcodes IBV_WC_FLUSH and IBV_WC_ATOMIC_WRITE, every remote error as
 * the requester sees it (the completion status of the NAK rxe sends, the responder's NAK counter and QP state), and
 * the post-time refusals of bad work requests and of FLUSH_PERSISTENT registration.
 */
class FlushAndAtomicWriteTest
{
    private static final int QP_FLUSH_ACCESS = AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ |
        AccessFlags.REMOTE_ATOMIC | AccessFlags.FLUSH_GLOBAL;
    private final VerbsFixture fx = new VerbsFixture();

    @AfterEach
    void close()
    {
        fx.assertNoInternalErrors();
        fx.close();
    }

    private VerbsFixture.Pair connect(final int responderAccess)
    {
        return fx.connect(QpType.RC, params -> params.access = responderAccess, init -> {});
    }

    private static WorkCompletion postAndComplete(final VerbsFixture.Pair c, final SendWorkRequest wr)
    {
        c.a.qp.postSend(wr.wrId(9).sendFlags(SendFlags.SIGNALED));
        final WorkCompletion wc = drain(c.a.sendCq, 1).get(0);
        assertEquals(9, wc.wrId());
        return wc;
    }

    private static boolean isZeroLengthAnswer(final byte[] frame)
    {
        return Opcode.RC_RDMA_READ_RESPONSE_ONLY == new PairLink.Sent("B", frame, false).opcode();
    }

    // ---- success ------------------------------------------------------------------------------------------------

    @Test
    void atomicWriteStoresTheValueAndCompletesAsAtomicWrite()
    {
        final VerbsFixture.Pair c = connect(QP_FLUSH_ACCESS);
        final MemoryRegion remote = register(fx.pdB, 64, ALL_ACCESS);
        remote.buffer().putLong(16, -1L, ByteOrder.nativeOrder());

        final WorkCompletion wc = postAndComplete(c, new SendWorkRequest().opcode(WrOpcode.ATOMIC_WRITE)
            .atomicWrite(remote.address(16), remote.rkey(), 0x1122_3344_5566_7788L));

        assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
        assertEquals(WcOpcode.ATOMIC_WRITE, wc.opcode());
        assertEquals(0x1122_3344_5566_7788L, remote.buffer().getLong(16, ByteOrder.nativeOrder()));
        assertEquals(0L, remote.buffer().getLong(8, ByteOrder.nativeOrder()), "only the 8 bytes are written");
        assertEquals(0L, remote.buffer().getLong(24, ByteOrder.nativeOrder()), "only the 8 bytes are written");
        assertEquals(QpState.RTS, c.b.qp.state());
    }

    @Test
    void flushOfARangeAndOfTheWholeRegionCompleteAsFlush()
    {
        final VerbsFixture.Pair c = connect(QP_FLUSH_ACCESS);
        final MemoryRegion src = register(fx.pdA, 256, ALL_ACCESS);
        final MemoryRegion remote = register(fx.pdB, 4096, ALL_ACCESS | AccessFlags.FLUSH_GLOBAL);
        // The usual pattern: WRITE, then FLUSH the range it wrote; then FLUSH the whole region.
        c.a.qp.postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.RDMA_WRITE).addSge(src, 0, 256)
            .rdma(remote.address(512), remote.rkey())
            .next(new SendWorkRequest().wrId(2).opcode(WrOpcode.FLUSH).sendFlags(SendFlags.SIGNALED)
                .flush(remote.address(512), remote.rkey(), 256, Flush.GLOBAL, Flush.RANGE)
                .next(new SendWorkRequest().wrId(3).opcode(WrOpcode.FLUSH).sendFlags(SendFlags.SIGNALED)
                    .flush(0, remote.rkey(), 0, Flush.GLOBAL, Flush.MR))));

        final List<WorkCompletion> done = drain(c.a.sendCq, 2);
        for (final WorkCompletion wc : done)
        {
            assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
            assertEquals(WcOpcode.FLUSH, wc.opcode());
        }
        assertEquals(2, done.get(0).wrId());
        assertEquals(3, done.get(1).wrId());
        assertEquals(2, fx.b.counters().get(TransportCounter.FLUSHES_EXECUTED));
    }

    @Test
    void rxesFlushIcrcIsSpokenOnlyWhenBothSidesUseIt()
    {
        // rxe (Linux 6.12) seals FLUSH with the headers counted twice and drops a standard one: EngineConfig
        // rxeFlushIcrc lets roce4j talk FLUSH with it. A strict peer drops such a FLUSH as a bad ICRC.
        try (VerbsFixture rxeLike = new VerbsFixture(config -> config.rxeFlushIcrc(true),
            config -> config.rxeFlushIcrc(true)))
        {
            final VerbsFixture.Pair c = rxeLike.connect(QpType.RC, params -> params.access = QP_FLUSH_ACCESS,
                init -> {});
            final MemoryRegion remote = register(rxeLike.pdB, 64, ALL_ACCESS | AccessFlags.FLUSH_GLOBAL);
            final WorkCompletion wc = postAndComplete(c, flush(remote.address(0), remote.rkey(), 64, Flush.GLOBAL,
                Flush.RANGE));
            assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
            assertEquals(1, rxeLike.b.counters().get(TransportCounter.RXE_FLUSH_ICRC));
            assertEquals(0, rxeLike.b.counters().get(TransportCounter.DROP_BAD_ICRC));
            rxeLike.assertNoInternalErrors();
        }
        try (VerbsFixture mixed = new VerbsFixture(config -> config.rxeFlushIcrc(true), config -> {}))
        {
            final VerbsFixture.Pair c = mixed.connect(QpType.RC, params ->
            {
                params.access = QP_FLUSH_ACCESS;
                params.retryCnt = 1;
            }, init -> {});
            final MemoryRegion remote = register(mixed.pdB, 64, ALL_ACCESS | AccessFlags.FLUSH_GLOBAL);
            final WorkCompletion wc = postAndComplete(c, flush(remote.address(0), remote.rkey(), 64, Flush.GLOBAL,
                Flush.RANGE));
            assertEquals(WcStatus.RETRY_EXC_ERR, wc.status(), "the strict side drops every try: " + wc);
            assertEquals(2, mixed.b.counters().get(TransportCounter.DROP_BAD_ICRC), "the FLUSH and its one retry");
            assertEquals(0, mixed.b.counters().get(TransportCounter.RXE_FLUSH_ICRC));
            mixed.assertNoInternalErrors();
        }
    }

    @Test
    void lostAnswersAreRetriedAndTheDuplicatesAnsweredWithoutExecutingAgain()
    {
        final VerbsFixture.Pair c = connect(QP_FLUSH_ACCESS);
        final MemoryRegion remote = register(fx.pdB, 64, ALL_ACCESS | AccessFlags.FLUSH_GLOBAL);
        final AtomicInteger dropped = new AtomicInteger();
        fx.linkB.dropWhen(frame -> isZeroLengthAnswer(frame) && dropped.getAndIncrement() < 2);
        c.a.qp.postSend(atomicWrite(remote.address(8), remote.rkey()).wrId(1).sendFlags(SendFlags.SIGNALED)
            .next(flush(remote.address(0), remote.rkey(), 64, Flush.GLOBAL, Flush.RANGE).wrId(2)
                .sendFlags(SendFlags.SIGNALED)));

        final List<WorkCompletion> done = drain(c.a.sendCq, 2);

        assertEquals(WcStatus.SUCCESS, done.get(0).status(), done.toString());
        assertEquals(WcOpcode.ATOMIC_WRITE, done.get(0).opcode());
        assertEquals(WcStatus.SUCCESS, done.get(1).status(), done.toString());
        assertEquals(WcOpcode.FLUSH, done.get(1).opcode());
        assertEquals(5L, remote.buffer().getLong(8, ByteOrder.nativeOrder()));
        assertEquals(1, fx.a.counters().get(TransportCounter.RETRIES));
        assertEquals(2, fx.b.counters().get(TransportCounter.DUPLICATE_REQUESTS));
        assertEquals(1, fx.b.counters().get(TransportCounter.ATOMIC_WRITE_REPLAYS));
        assertEquals(1, fx.b.counters().get(TransportCounter.FLUSH_REPLAYS));
        assertEquals(1, fx.b.counters().get(TransportCounter.FLUSHES_EXECUTED), "flushed once, answered twice");
    }

    @Test
    void aLaterAnswerCompletesAnAtomicWriteWhoseAnswerWasLost()
    {
        // rxe check_psn: an ATOMIC WRITE or FLUSH is not a READ or atomic (WR_ATOMIC_OR_READ_MASK), so a response
        // past it acknowledges it, as it does a SEND or WRITE; no retry.
        final VerbsFixture.Pair c = connect(QP_FLUSH_ACCESS);
        final MemoryRegion remote = register(fx.pdB, 64, ALL_ACCESS | AccessFlags.FLUSH_GLOBAL);
        final AtomicInteger dropped = new AtomicInteger();
        fx.linkB.dropWhen(frame -> isZeroLengthAnswer(frame) && 0 == dropped.getAndIncrement());
        c.a.qp.postSend(atomicWrite(remote.address(8), remote.rkey()).wrId(1).sendFlags(SendFlags.SIGNALED)
            .next(flush(remote.address(0), remote.rkey(), 64, Flush.GLOBAL, Flush.RANGE).wrId(2)
                .sendFlags(SendFlags.SIGNALED)));

        final List<WorkCompletion> done = drain(c.a.sendCq, 2);

        assertEquals(WcStatus.SUCCESS, done.get(0).status(), done.toString());
        assertEquals(WcStatus.SUCCESS, done.get(1).status(), done.toString());
        assertTrue(dropped.get() >= 1, "the first answer was dropped");
        assertEquals(0, fx.a.counters().get(TransportCounter.RETRIES));
        assertEquals(0, fx.b.counters().get(TransportCounter.DUPLICATE_REQUESTS));
    }

    // ---- remote errors ------------------------------------------------------------------------------------------

    /** One remote error: the responder's QP access, its region's access, and the work request. */
    record RemoteCase(String name, int qpAccess, int mrAccess, WcStatus status, TransportCounter nak,
        WrFactory wr)
    {
        public String toString()
        {
            return name;
        }
    }

    /** Builds the failing work request against the responder's region. */
    interface WrFactory
    {
        SendWorkRequest build(MemoryRegion remote);
    }

    static Stream<Arguments> remoteErrors()
    {
        final TransportCounter inv = TransportCounter.NAK_INVALID_REQUEST_SENT;
        final TransportCounter acc = TransportCounter.NAK_REMOTE_ACCESS_SENT;
        final int mrFlush = ALL_ACCESS | AccessFlags.FLUSH_GLOBAL;
        return Stream.of(
            remote("ATOMIC_WRITE misaligned", QP_FLUSH_ACCESS, ALL_ACCESS, WcStatus.REM_INV_REQ_ERR, inv,
                mr -> atomicWrite(mr.address(4), mr.rkey())),
            remote("ATOMIC_WRITE, region without REMOTE_WRITE", QP_FLUSH_ACCESS,
                AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ, WcStatus.REM_ACCESS_ERR, acc,
                mr -> atomicWrite(mr.address(8), mr.rkey())),
            remote("ATOMIC_WRITE, QP without REMOTE_WRITE", AccessFlags.REMOTE_READ, ALL_ACCESS,
                WcStatus.REM_INV_REQ_ERR, inv, mr -> atomicWrite(mr.address(8), mr.rkey())),
            remote("ATOMIC_WRITE past the region", QP_FLUSH_ACCESS, ALL_ACCESS, WcStatus.REM_ACCESS_ERR, acc,
                mr -> atomicWrite(mr.address(64), mr.rkey())),
            remote("ATOMIC_WRITE, unknown rkey", QP_FLUSH_ACCESS, ALL_ACCESS, WcStatus.REM_ACCESS_ERR, acc,
                mr -> atomicWrite(mr.address(8), mr.rkey() ^ 0x5A5A)),
            remote("FLUSH, region without FLUSH_GLOBAL", QP_FLUSH_ACCESS, ALL_ACCESS, WcStatus.REM_ACCESS_ERR, acc,
                mr -> flush(mr.address(0), mr.rkey(), 32, Flush.GLOBAL, Flush.RANGE)),
            remote("FLUSH, QP without FLUSH_GLOBAL", ALL_ACCESS & ~AccessFlags.LOCAL_WRITE, mrFlush,
                WcStatus.REM_INV_REQ_ERR, inv, mr -> flush(mr.address(0), mr.rkey(), 32, Flush.GLOBAL, Flush.RANGE)),
            remote("FLUSH past the region", QP_FLUSH_ACCESS, mrFlush, WcStatus.REM_ACCESS_ERR, acc,
                mr -> flush(mr.address(32), mr.rkey(), 64, Flush.GLOBAL, Flush.RANGE)),
            remote("FLUSH PERSISTENT of ordinary memory", QP_FLUSH_ACCESS | AccessFlags.FLUSH_PERSISTENT, mrFlush,
                WcStatus.REM_ACCESS_ERR, acc, mr -> flush(mr.address(0), mr.rkey(), 32, Flush.PERSISTENT,
                    Flush.RANGE)),
            remote("FLUSH PERSISTENT, QP without FLUSH_PERSISTENT", QP_FLUSH_ACCESS, mrFlush,
                WcStatus.REM_INV_REQ_ERR, inv, mr -> flush(mr.address(0), mr.rkey(), 32, Flush.PERSISTENT,
                    Flush.MR)),
            remote("FLUSH, unknown rkey", QP_FLUSH_ACCESS, mrFlush, WcStatus.REM_ACCESS_ERR, acc,
                mr -> flush(0, mr.rkey() ^ 0x5A5A, 0, Flush.GLOBAL, Flush.MR)));
    }

    private static Arguments remote(final String name, final int qpAccess, final int mrAccess,
        final WcStatus status, final TransportCounter nak, final WrFactory wr)
    {
        return Arguments.of(new RemoteCase(name, qpAccess, mrAccess, status, nak, wr));
    }

    private static SendWorkRequest atomicWrite(final long address, final int rkey)
    {
        return new SendWorkRequest().opcode(WrOpcode.ATOMIC_WRITE).atomicWrite(address, rkey, 5);
    }

    private static SendWorkRequest flush(final long address, final int rkey, final long length, final int type,
        final int level)
    {
        return new SendWorkRequest().opcode(WrOpcode.FLUSH).flush(address, rkey, length, type, level);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("remoteErrors")
    void remoteErrorCompletesWithTheStatusOfRxesNak(final RemoteCase rc)
    {
        final VerbsFixture.Pair c = connect(rc.qpAccess());
        final MemoryRegion remote = register(fx.pdB, 64, rc.mrAccess());

        final WorkCompletion wc = postAndComplete(c, rc.wr().build(remote));

        assertEquals(rc.status(), wc.status(), wc.toString());
        assertEquals(1, fx.b.counters().get(rc.nak()), fx.b.describeCounters());
        assertEquals(QpState.ERR, c.a.qp.state());
        assertEquals(QpState.ERR, c.b.qp.state(), "class C: the responder's QP goes to ERR too");
        assertEquals(0L, remote.buffer().getLong(0, ByteOrder.nativeOrder()), "nothing was stored");
        assertEquals(0L, remote.buffer().getLong(8, ByteOrder.nativeOrder()), "nothing was stored");
        assertEquals(0, fx.b.counters().get(TransportCounter.FLUSHES_EXECUTED));
    }

    // ---- refused at post or registration -------------------------------------------------------------------------

    @Test
    void flushPersistentCannotBeRegisteredOnOrdinaryMemory()
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () ->
            fx.pdB.registerMemory(ByteBuffer.allocateDirect(64), ALL_ACCESS | AccessFlags.FLUSH_PERSISTENT));
        assertTrue(ex.getMessage().contains("FLUSH_PERSISTENT needs persistent memory"), ex.getMessage());
        // FLUSH_GLOBAL is fine.
        fx.pdB.registerMemory(ByteBuffer.allocateDirect(64), ALL_ACCESS | AccessFlags.FLUSH_GLOBAL).deregister();
    }

    static Stream<Arguments> badWorkRequests()
    {
        return Stream.of(
            Arguments.of("FLUSH with an SGE", QpType.RC, 4,
                flush(0, 1, 8, Flush.GLOBAL, Flush.RANGE).addSge(0, 8, 0), "FLUSH takes no SGEs"),
            Arguments.of("ATOMIC_WRITE with an SGE", QpType.RC, 4,
                atomicWrite(0, 1).addSge(0, 8, 0), "ATOMIC_WRITE takes no SGEs"),
            Arguments.of("FLUSH without placement type", QpType.RC, 4,
                flush(0, 1, 8, 0, Flush.RANGE), "FLUSH placement type 0x0"),
            Arguments.of("FLUSH with an unknown placement type", QpType.RC, 4,
                flush(0, 1, 8, 4, Flush.RANGE), "FLUSH placement type 0x4"),
            Arguments.of("FLUSH with an unknown level", QpType.RC, 4,
                flush(0, 1, 8, Flush.GLOBAL, 2), "FLUSH selectivity level 2"),
            Arguments.of("FLUSH with a negative length", QpType.RC, 4,
                flush(0, 1, -1, Flush.GLOBAL, Flush.RANGE), "FLUSH length -1"),
            Arguments.of("ATOMIC_WRITE INLINE", QpType.RC, 4,
                atomicWrite(0, 1).sendFlags(SendFlags.INLINE), "INLINE is not allowed with ATOMIC_WRITE"),
            Arguments.of("ATOMIC_WRITE with max_rd_atomic 0", QpType.RC, 0,
                atomicWrite(0, 1), "ATOMIC_WRITE needs max_rd_atomic >= 1"),
            Arguments.of("FLUSH on UC", QpType.UC, 4,
                flush(0, 1, 8, Flush.GLOBAL, Flush.RANGE), "not allowed on a UC QP"),
            Arguments.of("ATOMIC_WRITE on UC", QpType.UC, 4,
                atomicWrite(0, 1), "not allowed on a UC QP"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badWorkRequests")
    void badWorkRequestIsRefusedNamingTheProblem(final String name, final QpType type, final int maxRdAtomic,
        final SendWorkRequest wr, final String message)
    {
        final VerbsFixture.Pair c = fx.connect(type, params -> params.maxRdAtomic = maxRdAtomic, init -> {});

        final BadWorkRequestException ex = assertThrows(BadWorkRequestException.class, () -> c.a.qp.postSend(wr));

        assertTrue(ex.getMessage().contains(message), ex.getMessage());
        assertEquals(0, fx.a.counters().get(TransportCounter.PACKETS_SENT), "nothing was posted");
    }

    @Test
    void flushAndAtomicWriteAreRefusedOnUd()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.UD);
        for (final SendWorkRequest wr : List.of(flush(0, 1, 8, Flush.GLOBAL, Flush.RANGE), atomicWrite(0, 1)))
        {
            final BadWorkRequestException ex = assertThrows(BadWorkRequestException.class,
                () -> c.a.qp.postSend(wr));
            assertTrue(ex.getMessage().contains("is not allowed on a UD QP"), ex.getMessage());
        }
    }
}
