package org.roce4j.verbs;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.MwType;
import org.roce4j.ib.QpState;
import org.roce4j.ib.QpType;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WcOpcode;
import org.roce4j.ib.WcStatus;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.ib.WrOpcode;
import org.roce4j.transport.TransportCounter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.roce4j.verbs.MemoryWindowTest.REGION_BYTES;
import static org.roce4j.verbs.MemoryWindowTest.REMOTE_ALL;
import static org.roce4j.verbs.MemoryWindowTest.WINDOW_BYTES;
import static org.roce4j.verbs.MemoryWindowTest.bindable;
import static org.roce4j.verbs.VerbsFixture.ALL_ACCESS;
import static org.roce4j.verbs.VerbsFixture.drain;
import static org.roce4j.verbs.VerbsFixture.register;

/**
 * Every bind and invalidation error rxe has (rxe_mw.c rxe_check_bind_mw, rxe_check_invalidate_mw; rxe_req.c
 * rxe_do_local_ops), with rxe's completion status: a bind error is MW_BIND_ERR, an invalidation error
 * LOC_QP_OP_ERR, and either moves the QP to the error state; and the checks ibv_bind_mw and ibv_post_send make
 * before anything is queued (exceptions).
 */
class MemoryWindowErrorsTest
{
    private final VerbsFixture fx = new VerbsFixture();

    @AfterEach
    void close()
    {
        fx.assertNoInternalErrors();
        fx.close();
    }

    /** Post a BIND_MW on B's QP, unsignaled (errors complete anyway), and assert it fails as rxe fails it. */
    private static void assertBindFails(final VerbsFixture.Pair c, final MemoryWindow mw, final MemoryRegion mr,
        final long addr, final long length, final int access)
    {
        c.b.qp.postSend(new SendWorkRequest(0).wrId(66).opcode(WrOpcode.BIND_MW)
            .bindMw(mw, MemoryWindow.incRkey(mw.rkey()), mr, addr, length, access));
        final WorkCompletion wc = drain(c.b.sendCq, 1).get(0);
        assertEquals(WcStatus.MW_BIND_ERR, wc.status(), wc.toString());
        assertEquals(66, wc.wrId());
        assertEquals(WcOpcode.BIND_MW, wc.opcode());
        assertEquals(QpState.ERR, c.b.qp.state());
        assertFalse(mw.isBound());
        // ibv_bind_mw's rkey follows the post; the caller undoes it after the error.
        mw.restoreRkey();
        assertEquals(mw.deviceRkey(), mw.rkey());
    }

    private static void assertLocalInvFails(final VerbsFixture.Pair c, final int rkey)
    {
        c.b.qp.postSend(new SendWorkRequest(0).wrId(67).opcode(WrOpcode.LOCAL_INV).invalidateRkey(rkey));
        final WorkCompletion wc = drain(c.b.sendCq, 1).get(0);
        assertEquals(WcStatus.LOC_QP_OP_ERR, wc.status(), wc.toString());
        assertEquals(WcOpcode.LOCAL_INV, wc.opcode());
        assertEquals(QpState.ERR, c.b.qp.state());
    }

    @Test
    void regionWithoutMwBindAccess()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.RC);
        final MemoryRegion mr = register(fx.pdB, REGION_BYTES, ALL_ACCESS);
        // C10-73.
        assertBindFails(c, fx.pdB.allocMw(MwType.TYPE_1), mr, mr.address(0), WINDOW_BYTES, REMOTE_ALL);
        assertEquals(1, fx.b.counters().get(TransportCounter.ERROR_COMPLETIONS));
    }

    @Test
    void windowOutsideTheRegion()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.RC);
        final MemoryRegion mr = bindable(fx.pdB);
        // C10-75: one byte past the end.
        assertBindFails(c, fx.pdB.allocMw(MwType.TYPE_1), mr, mr.address(REGION_BYTES - WINDOW_BYTES + 1),
            WINDOW_BYTES, REMOTE_ALL);
    }

    @Test
    void windowStartingBeforeTheRegion()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.RC);
        final MemoryRegion mr = bindable(fx.pdB);
        assertBindFails(c, fx.pdB.allocMw(MwType.TYPE_2), mr, mr.address(0) - 1, WINDOW_BYTES, REMOTE_ALL);
    }

    @Test
    void zeroBasedThroughAWorkRequest()
    {
        // o10-36.2.2 for type 1; rxe binds zero-based type 2B windows, roce4j's windows are VA-based and refuse it
        // the same way.
        for (final MwType type : MwType.values())
        {
            final VerbsFixture.Pair c = fx.connect(QpType.RC);
            final MemoryRegion mr = bindable(fx.pdB);
            assertBindFails(c, fx.pdB.allocMw(type), mr, 0, WINDOW_BYTES,
                AccessFlags.REMOTE_READ | AccessFlags.ZERO_BASED);
        }
    }

    @Test
    void accessFlagsAWindowCannotHave()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.RC);
        final MemoryRegion mr = bindable(fx.pdB);
        // rxe: access & ~RXE_ACCESS_SUPPORTED_MW; MW_BIND is a region's flag, not a window's.
        assertBindFails(c, fx.pdB.allocMw(MwType.TYPE_1), mr, mr.address(0), WINDOW_BYTES,
            AccessFlags.REMOTE_READ | AccessFlags.MW_BIND);
    }

    @Test
    void writableWindowOnARegionWithoutLocalWrite()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.RC);
        final MemoryRegion mr = register(fx.pdB, REGION_BYTES, AccessFlags.REMOTE_READ | AccessFlags.MW_BIND);
        // C10-74: remote write or atomic access needs local write on the region; READ alone is fine.
        assertBindFails(c, fx.pdB.allocMw(MwType.TYPE_2), mr, mr.address(0), WINDOW_BYTES,
            AccessFlags.REMOTE_WRITE);
        final VerbsFixture.Pair d = fx.connect(QpType.RC);
        final MemoryWindow mw = fx.pdB.allocMw(MwType.TYPE_2);
        assertEquals(WcStatus.SUCCESS, MemoryWindowTest.bind2(d, mw, 1, mr, mr.address(0), WINDOW_BYTES,
            AccessFlags.REMOTE_READ).status());
        assertTrue(mw.isBound());
    }

    @Test
    void type2BStillBound()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.RC);
        final MemoryRegion mr = bindable(fx.pdB);
        final MemoryWindow mw = fx.pdB.allocMw(MwType.TYPE_2);
        assertEquals(WcStatus.SUCCESS, MemoryWindowTest.bind2(c, mw, 1, mr, mr.address(0), WINDOW_BYTES,
            REMOTE_ALL).status());
        // o10-37.2.30: a bound type 2B window must be invalidated before it is bound again.
        c.b.qp.postSend(new SendWorkRequest(0).wrId(66).opcode(WrOpcode.BIND_MW)
            .bindMw(mw, MemoryWindow.incRkey(mw.rkey()), mr, mr.address(0), WINDOW_BYTES, REMOTE_ALL));
        assertEquals(WcStatus.MW_BIND_ERR, drain(c.b.sendCq, 1).get(0).status());
        // The first bind stands.
        assertTrue(mw.isBound());
    }

    @Test
    void type2BWithoutARegion()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.RC);
        // o10-37.2.40: a type 2B window is not unbound by a bind of length 0.
        assertBindFails(c, fx.pdB.allocMw(MwType.TYPE_2), null, 0, 0, REMOTE_ALL);
    }

    @Test
    void type2BInAnotherDomainThanTheQp()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.RC);
        final ProtectionDomain other = fx.b.allocPd();
        final MemoryRegion mr = bindable(other);
        // C10-72: window and region in one domain, the QP in another.
        assertBindFails(c, other.allocMw(MwType.TYPE_2), mr, mr.address(0), WINDOW_BYTES, REMOTE_ALL);
    }

    @Test
    void regionInAnotherDomainThanTheWindow()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.RC);
        final ProtectionDomain other = fx.b.allocPd();
        final MemoryRegion mr = bindable(other);
        // ibv_bind_mw checks it (EPERM); a BIND_MW posted directly completes with MW_BIND_ERR.
        final MemoryWindow type1 = fx.pdB.allocMw(MwType.TYPE_1);
        assertThrows(IllegalArgumentException.class,
            () -> type1.bind(c.b.qp, 1, 0, mr, mr.address(0), WINDOW_BYTES, REMOTE_ALL));
        assertBindFails(c, fx.pdB.allocMw(MwType.TYPE_2), mr, mr.address(0), WINDOW_BYTES, REMOTE_ALL);
    }

    @Test
    void staleWindowRkey()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.RC);
        final MemoryRegion mr = bindable(fx.pdB);
        final MemoryWindow mw = fx.pdB.allocMw(MwType.TYPE_1);
        // rxe_bind_mw: mw->rkey != wr.mw.mw_rkey. The first bind fails (no MW_BIND on a second region), the
        // second is posted with the rkey the first left, which the device never took.
        final MemoryRegion plain = register(fx.pdB, REGION_BYTES, ALL_ACCESS);
        mw.bind(c.b.qp, 1, 0, plain, plain.address(0), WINDOW_BYTES, REMOTE_ALL);
        assertEquals(WcStatus.MW_BIND_ERR, drain(c.b.sendCq, 1).get(0).status());
        final VerbsFixture.Pair d = fx.connect(QpType.RC);
        mw.bind(d.b.qp, 2, 0, mr, mr.address(0), WINDOW_BYTES, REMOTE_ALL);
        assertEquals(WcStatus.MW_BIND_ERR, drain(d.b.sendCq, 1).get(0).status());
        // Undone, it binds.
        mw.restoreRkey();
        final VerbsFixture.Pair e = fx.connect(QpType.RC);
        final int rkey = mw.bind(e.b.qp, 3, SendFlags.SIGNALED, mr, mr.address(0), WINDOW_BYTES, REMOTE_ALL);
        assertEquals(WcStatus.SUCCESS, drain(e.b.sendCq, 1).get(0).status());
        assertEquals(rkey, mw.deviceRkey());
    }

    @Test
    void deallocatedWindowOrRegionIsRefusedAtPost()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.RC);
        final MemoryRegion mr = bindable(fx.pdB);
        final MemoryWindow mw = fx.pdB.allocMw(MwType.TYPE_2);
        mw.dealloc();
        assertThrows(BadWorkRequestException.class, () -> c.b.qp.postSend(new SendWorkRequest(0)
            .opcode(WrOpcode.BIND_MW).bindMw(mw, 1, mr, mr.address(0), WINDOW_BYTES, REMOTE_ALL)));
        final MemoryWindow live = fx.pdB.allocMw(MwType.TYPE_2);
        mr.deregister();
        assertThrows(BadWorkRequestException.class, () -> c.b.qp.postSend(new SendWorkRequest(0)
            .opcode(WrOpcode.BIND_MW).bindMw(live, 1, mr, mr.address(0), WINDOW_BYTES, REMOTE_ALL)));
        assertEquals(QpState.RTS, c.b.qp.state());
    }

    @Test
    void postChecksOfIbvBindMwAndIbvPostSend()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.RC);
        final VerbsFixture.Pair ud = fx.connect(QpType.UD);
        final MemoryRegion mr = bindable(fx.pdB);
        final MemoryWindow type1 = fx.pdB.allocMw(MwType.TYPE_1);
        final MemoryWindow type2 = fx.pdB.allocMw(MwType.TYPE_2);
        // ibv_bind_mw: type 1 only; no zero-based window; no address or length without a region.
        assertThrows(IllegalArgumentException.class,
            () -> type2.bind(c.b.qp, 1, 0, mr, mr.address(0), WINDOW_BYTES, REMOTE_ALL));
        assertThrows(IllegalArgumentException.class, () -> type1.bind(c.b.qp, 1, 0, mr, 0, WINDOW_BYTES,
            AccessFlags.REMOTE_READ | AccessFlags.ZERO_BASED));
        assertThrows(BadWorkRequestException.class, () -> type1.bind(c.b.qp, 1, 0, null, 0, 8, REMOTE_ALL));
        // rxe's provider: BIND_MW on RC and UC only, without SGEs; a window must be named.
        assertThrows(BadWorkRequestException.class,
            () -> type1.bind(ud.b.qp, 1, 0, mr, mr.address(0), WINDOW_BYTES, REMOTE_ALL));
        assertThrows(BadWorkRequestException.class, () -> c.b.qp.postSend(new SendWorkRequest()
            .opcode(WrOpcode.BIND_MW).addSge(mr, 0, 8).bindMw(type2, 1, mr, mr.address(0), 8, REMOTE_ALL)));
        assertThrows(BadWorkRequestException.class, () -> c.b.qp.postSend(new SendWorkRequest(0)
            .opcode(WrOpcode.BIND_MW)));
        assertThrows(BadWorkRequestException.class, () -> ud.b.qp.postSend(new SendWorkRequest(0)
            .opcode(WrOpcode.LOCAL_INV).invalidateRkey(type2.rkey())));
        // Nothing was queued: the QPs are fine and the windows unbound.
        assertEquals(QpState.RTS, c.b.qp.state());
        assertFalse(type1.isBound());
        assertEquals(type1.deviceRkey(), type1.rkey());
    }

    @Test
    void localInvalidateOfAType1Window()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.RC);
        final MemoryRegion mr = bindable(fx.pdB);
        final MemoryWindow mw = fx.pdB.allocMw(MwType.TYPE_1);
        mw.bind(c.b.qp, 1, SendFlags.SIGNALED, mr, mr.address(0), WINDOW_BYTES, REMOTE_ALL);
        assertEquals(WcStatus.SUCCESS, drain(c.b.sendCq, 1).get(0).status());
        // o10-37.2.26: type 1 windows are not invalidated.
        assertLocalInvFails(c, mw.rkey());
        assertTrue(mw.isBound());
    }

    @Test
    void localInvalidateOfAFreeWindowOrAnUnknownOrOrdinaryRkey()
    {
        final MemoryWindow free = fx.pdB.allocMw(MwType.TYPE_2);
        assertLocalInvFails(fx.connect(QpType.RC), free.rkey());
        assertLocalInvFails(fx.connect(QpType.RC), 0x1234_5678);
        final MemoryRegion ordinary = register(fx.pdB, REGION_BYTES, ALL_ACCESS);
        assertLocalInvFails(fx.connect(QpType.RC), ordinary.rkey());
        assertTrue(ordinary.isValid());
    }

    @Test
    void localInvalidateOfAnInvalidatableRegion()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.RC);
        final MemoryRegion mr = register(fx.pdB, REGION_BYTES, ALL_ACCESS | AccessFlags.REMOTE_INVALIDATE);
        c.b.qp.postSend(new SendWorkRequest(0).wrId(5).opcode(WrOpcode.LOCAL_INV).sendFlags(SendFlags.SIGNALED)
            .invalidateRkey(mr.rkey()));
        final WorkCompletion wc = drain(c.b.sendCq, 1).get(0);
        assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
        assertEquals(WcOpcode.LOCAL_INV, wc.opcode());
        assertFalse(mr.isValid());
    }

    @Test
    void aBindWaitsForEarlierWorkRequestsAndLaterOnesFlushAfterItFails()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.RC);
        final MemoryRegion plain = register(fx.pdB, REGION_BYTES, ALL_ACCESS);
        final MemoryRegion peer = register(fx.pdA, REGION_BYTES, ALL_ACCESS);
        final MemoryWindow mw = fx.pdB.allocMw(MwType.TYPE_1);
        // WRITE, failing BIND, WRITE: the first completes, the bind fails in order, the last is flushed.
        c.b.qp.postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
            .addSge(plain, 0, 8).rdma(peer.address(0), peer.rkey()));
        mw.bind(c.b.qp, 2, 0, plain, plain.address(0), WINDOW_BYTES, REMOTE_ALL);
        c.b.qp.postSend(new SendWorkRequest().wrId(3).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
            .addSge(plain, 0, 8).rdma(peer.address(8), peer.rkey()));
        final java.util.List<WorkCompletion> wcs = drain(c.b.sendCq, 3);
        assertEquals(1, wcs.get(0).wrId());
        assertEquals(WcStatus.SUCCESS, wcs.get(0).status());
        assertEquals(2, wcs.get(1).wrId());
        assertEquals(WcStatus.MW_BIND_ERR, wcs.get(1).status());
        assertEquals(3, wcs.get(2).wrId());
        assertEquals(WcStatus.WR_FLUSH_ERR, wcs.get(2).status());
    }
}
