package org.roce4j.verbs;

import java.nio.ByteOrder;

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
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.roce4j.verbs.VerbsFixture.ALL_ACCESS;
import static org.roce4j.verbs.VerbsFixture.drain;
import static org.roce4j.verbs.VerbsFixture.register;

/**
 * Memory windows end to end (issue 19 point 2): device B binds a window of one of its regions, device A's requester
 * reads, writes and runs atomics through the window's rkey on B's responder, over the in-memory fabric in simulated
 * time. Type 1 and type 2B, local and remote invalidation, rebinding, deallocation. The bind errors are in
 * {@link MemoryWindowErrorsTest}.
 */
class MemoryWindowTest
{
    /** Bytes of the region windows are bound in. */
    static final int REGION_BYTES = 4096;
    /** Offset of the window in the region: 8-byte aligned for the atomics (see {@link #alignedOffset}). */
    static final int WINDOW_BYTES = 256;
    static final int REMOTE_ALL = AccessFlags.REMOTE_READ | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_ATOMIC;

    private final VerbsFixture fx = new VerbsFixture();

    @AfterEach
    void close()
    {
        fx.assertNoInternalErrors();
        fx.close();
    }

    /**
     * @return an offset near 1024 whose address is 8-byte aligned (a direct buffer's address need not be).
     */
    static int alignedOffset(final MemoryRegion mr)
    {
        return 1024 + (int)(-mr.address(1024) & 7);
    }

    static MemoryRegion bindable(final ProtectionDomain pd)
    {
        return register(pd, REGION_BYTES, ALL_ACCESS | AccessFlags.MW_BIND);
    }

    static WorkCompletion write(final VerbsFixture.Pair c, final MemoryRegion src, final long va, final int rkey,
        final int length)
    {
        c.a.qp.postSend(new SendWorkRequest().wrId(100).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
            .addSge(src, 0, length).rdma(va, rkey));
        return drain(c.a.sendCq, 1).get(0);
    }

    static WorkCompletion read(final VerbsFixture.Pair c, final MemoryRegion dst, final long va, final int rkey,
        final int length)
    {
        c.a.qp.postSend(new SendWorkRequest().wrId(101).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
            .addSge(dst, 0, length).rdma(va, rkey));
        return drain(c.a.sendCq, 1).get(0);
    }

    /**
     * ibv_bind_mw, signaled, and wait for its completion: the rkey is for peers once the bind completed (the bind
     * runs on B's requester, and a peer's request may reach B's responder before it).
     */
    static int bind1(final VerbsFixture.Pair c, final MemoryWindow mw, final MemoryRegion mr, final long addr,
        final long length, final int access)
    {
        final int rkey = mw.bind(c.b.qp, 1, SendFlags.SIGNALED, mr, addr, length, access);
        final WorkCompletion wc = drain(c.b.sendCq, 1).get(0);
        assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
        return rkey;
    }

    /** Post a type 2B bind on B's QP and return its completion. */
    static WorkCompletion bind2(final VerbsFixture.Pair c, final MemoryWindow mw, final int key, final MemoryRegion mr,
        final long addr, final long length, final int access)
    {
        c.b.qp.postSend(new SendWorkRequest(0).wrId(7).opcode(WrOpcode.BIND_MW).sendFlags(SendFlags.SIGNALED)
            .bindMw(mw, (mw.rkey() & ~0xFF) | key, mr, addr, length, access));
        return drain(c.b.sendCq, 1).get(0);
    }

    @Test
    void type1BindReturnsTheNextRkeyAndCompletesAsBindMw()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.RC);
        final MemoryRegion mr = bindable(fx.pdB);
        final MemoryWindow mw = fx.pdB.allocMw(MwType.TYPE_1);
        assertEquals(MwType.TYPE_1, mw.type());
        assertFalse(mw.isBound());
        final int before = mw.rkey();
        final int off = alignedOffset(mr);
        final int rkey = mw.bind(c.b.qp, 9, SendFlags.SIGNALED, mr, mr.address(off), WINDOW_BYTES, REMOTE_ALL);

        // ibv_inc_rkey: same index, key byte + 1.
        assertEquals((before & ~0xFF) | ((before + 1) & 0xFF), rkey);
        assertEquals(rkey, mw.rkey());
        final WorkCompletion wc = drain(c.b.sendCq, 1).get(0);
        assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
        assertEquals(WcOpcode.BIND_MW, wc.opcode());
        assertEquals(9, wc.wrId());
        assertTrue(mw.isBound());
        assertEquals(rkey, mw.deviceRkey());
        // The window's rkey is not the region's.
        assertNotEquals(mr.rkey(), rkey);
    }

    @Test
    void readWriteAndAtomicsThroughAType1Window()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.RC);
        final MemoryRegion mr = bindable(fx.pdB);
        final MemoryRegion local = register(fx.pdA, REGION_BYTES, ALL_ACCESS);
        final MemoryWindow mw = fx.pdB.allocMw(MwType.TYPE_1);
        final int off = alignedOffset(mr);
        final long va = mr.address(off);
        final int rkey = bind1(c, mw, mr, va, WINDOW_BYTES, REMOTE_ALL);

        for (int i = 0; i < WINDOW_BYTES; i++)
        {
            local.buffer().putByte(i, (byte)(i * 3 + 1));
        }
        assertEquals(WcStatus.SUCCESS, write(c, local, va, rkey, WINDOW_BYTES).status());
        for (int i = 0; i < WINDOW_BYTES; i++)
        {
            assertEquals((byte)(i * 3 + 1), mr.buffer().getByte(off + i), "byte " + i);
        }

        mr.buffer().putLong(off + 8, 0x1122_3344_5566_7788L, ByteOrder.nativeOrder());
        final WorkCompletion readWc = read(c, local, va + 8, rkey, 8);
        assertEquals(WcStatus.SUCCESS, readWc.status(), readWc.toString());
        assertEquals(0x1122_3344_5566_7788L, local.buffer().getLong(0, ByteOrder.nativeOrder()));

        mr.buffer().putLong(off + 16, 40, ByteOrder.nativeOrder());
        c.a.qp.postSend(new SendWorkRequest().wrId(3).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD)
            .sendFlags(SendFlags.SIGNALED).addSge(local, 64, 8).atomic(va + 16, rkey, 2, 0));
        final WorkCompletion atomic = drain(c.a.sendCq, 1).get(0);
        assertEquals(WcStatus.SUCCESS, atomic.status(), atomic.toString());
        assertEquals(40, local.buffer().getLong(64, ByteOrder.nativeOrder()));
        assertEquals(42, mr.buffer().getLong(off + 16, ByteOrder.nativeOrder()));
    }

    @Test
    void accessBeyondTheWindowIsARemoteAccessErrorEvenInsideTheRegion()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.RC);
        final MemoryRegion mr = bindable(fx.pdB);
        final MemoryRegion local = register(fx.pdA, REGION_BYTES, ALL_ACCESS);
        final MemoryWindow mw = fx.pdB.allocMw(MwType.TYPE_1);
        final int off = alignedOffset(mr);
        final int rkey = bind1(c, mw, mr, mr.address(off), WINDOW_BYTES, REMOTE_ALL);

        // The last 4 bytes of the window and 4 after it: the region has them, the window does not.
        final WorkCompletion wc = write(c, local, mr.address(off + WINDOW_BYTES - 4), rkey, 8);
        assertEquals(WcStatus.REM_ACCESS_ERR, wc.status(), wc.toString());
        assertEquals(1, fx.b.counters().get(TransportCounter.NAK_REMOTE_ACCESS_SENT));
        assertEquals(0, mr.buffer().getByte(off + WINDOW_BYTES));
    }

    @Test
    void accessTheWindowDoesNotGrantIsARemoteAccessError()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.RC);
        final MemoryRegion mr = bindable(fx.pdB);
        final MemoryRegion local = register(fx.pdA, REGION_BYTES, ALL_ACCESS);
        final MemoryWindow mw = fx.pdB.allocMw(MwType.TYPE_1);
        final int off = alignedOffset(mr);
        // The region allows everything, the window only READ (rxe_lookup_mw checks the window's access).
        final int rkey = bind1(c, mw, mr, mr.address(off), WINDOW_BYTES, AccessFlags.REMOTE_READ);
        assertEquals(WcStatus.SUCCESS, read(c, local, mr.address(off), rkey, 16).status());
        assertEquals(WcStatus.REM_ACCESS_ERR, write(c, local, mr.address(off), rkey, 16).status());
    }

    @Test
    void rebindingAType1WindowRetiresItsOldRkey()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.RC);
        final MemoryRegion mr = bindable(fx.pdB);
        final MemoryRegion local = register(fx.pdA, REGION_BYTES, ALL_ACCESS);
        final MemoryWindow mw = fx.pdB.allocMw(MwType.TYPE_1);
        final int off = alignedOffset(mr);
        final int first = bind1(c, mw, mr, mr.address(off), WINDOW_BYTES, REMOTE_ALL);
        final int second = bind1(c, mw, mr, mr.address(0), WINDOW_BYTES, REMOTE_ALL);
        assertNotEquals(first, second);
        assertEquals(WcStatus.SUCCESS, read(c, local, mr.address(0), second, 8).status());
        assertEquals(WcStatus.REM_ACCESS_ERR, read(c, local, mr.address(off), first, 8).status());
    }

    @Test
    void unbindingAType1WindowWithoutARegionRetiresItsRkey()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.RC);
        final MemoryRegion mr = bindable(fx.pdB);
        final MemoryRegion local = register(fx.pdA, REGION_BYTES, ALL_ACCESS);
        final MemoryWindow mw = fx.pdB.allocMw(MwType.TYPE_1);
        final int rkey = bind1(c, mw, mr, mr.address(0), WINDOW_BYTES, REMOTE_ALL);
        final int unbound = mw.bind(c.b.qp, 2, SendFlags.SIGNALED, null, 0, 0, 0);
        assertEquals(WcStatus.SUCCESS, drain(c.b.sendCq, 1).get(0).status());
        assertFalse(mw.isBound());
        assertEquals(WcStatus.REM_ACCESS_ERR, read(c, local, mr.address(0), rkey, 8).status());
        assertNotEquals(rkey, unbound);
        // Unbound, the region may go.
        mr.deregister();
        assertTrue(mr.isDeregistered());
    }

    @Test
    void type2BBoundByAWorkRequestTakesTheKeyByteAndIsInvalidatedLocally()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.RC);
        final MemoryRegion mr = bindable(fx.pdB);
        final MemoryRegion local = register(fx.pdA, REGION_BYTES, ALL_ACCESS);
        final MemoryWindow mw = fx.pdB.allocMw(MwType.TYPE_2);
        assertFalse(mw.isBound());
        final int index = mw.rkey() & ~0xFF;
        final WorkCompletion bound = bind2(c, mw, 0x5A, mr, mr.address(0), WINDOW_BYTES, REMOTE_ALL);
        assertEquals(WcStatus.SUCCESS, bound.status(), bound.toString());
        assertEquals(WcOpcode.BIND_MW, bound.opcode());
        final int rkey = index | 0x5A;
        assertEquals(rkey, mw.rkey());
        assertEquals(rkey, mw.deviceRkey());
        assertEquals(WcStatus.SUCCESS, read(c, local, mr.address(8), rkey, 8).status());

        c.b.qp.postSend(new SendWorkRequest(0).wrId(8).opcode(WrOpcode.LOCAL_INV).sendFlags(SendFlags.SIGNALED)
            .invalidateRkey(rkey));
        final WorkCompletion inv = drain(c.b.sendCq, 1).get(0);
        assertEquals(WcStatus.SUCCESS, inv.status(), inv.toString());
        assertEquals(WcOpcode.LOCAL_INV, inv.opcode());
        assertFalse(mw.isBound());
        assertEquals(WcStatus.REM_ACCESS_ERR, read(c, local, mr.address(8), rkey, 8).status());
    }

    @Test
    void type2BIsInvalidatedByAPeersSendWithInvalidateAndMayBeBoundAgain()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.RC);
        final MemoryRegion mr = bindable(fx.pdB);
        final MemoryRegion local = register(fx.pdA, REGION_BYTES, ALL_ACCESS);
        final MemoryWindow mw = fx.pdB.allocMw(MwType.TYPE_2);
        assertEquals(WcStatus.SUCCESS, bind2(c, mw, 0x11, mr, mr.address(0), WINDOW_BYTES, REMOTE_ALL).status());
        final int rkey = mw.rkey();

        c.b.qp.postRecv(new RecvWorkRequest().wrId(1).addSge(mr, 2048, 64));
        c.a.qp.postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.SEND_WITH_INV).invalidateRkey(rkey)
            .sendFlags(SendFlags.SIGNALED).addSge(local, 0, 8));
        final WorkCompletion recv = drain(c.b.recvCq, 1).get(0);
        assertEquals(WcStatus.SUCCESS, recv.status(), recv.toString());
        assertTrue(0 != (recv.wcFlags() & WorkCompletion.FLAG_WITH_INV));
        assertEquals(rkey, recv.invalidatedRkey());
        assertEquals(WcStatus.SUCCESS, drain(c.a.sendCq, 1).get(0).status());
        assertFalse(mw.isBound());
        assertEquals(WcStatus.REM_ACCESS_ERR, write(c, local, mr.address(0), rkey, 8).status());

        // Free again, the window takes a new bind (o10-37.2.30) on a fresh pair (the first QP is in ERR now).
        final VerbsFixture.Pair d = fx.connect(QpType.RC);
        assertEquals(WcStatus.SUCCESS, bind2(d, mw, 0x12, mr, mr.address(0), WINDOW_BYTES, REMOTE_ALL).status());
        assertEquals(WcStatus.SUCCESS, read(d, local, mr.address(0), mw.rkey(), 8).status());
    }

    @Test
    void type1CannotBeInvalidatedByAPeer()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.RC);
        final MemoryRegion mr = bindable(fx.pdB);
        final MemoryRegion local = register(fx.pdA, REGION_BYTES, ALL_ACCESS);
        final MemoryWindow mw = fx.pdB.allocMw(MwType.TYPE_1);
        final int rkey = bind1(c, mw, mr, mr.address(0), WINDOW_BYTES, REMOTE_ALL);
        c.b.qp.postRecv(new RecvWorkRequest().wrId(1).addSge(mr, 2048, 64));
        c.a.qp.postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.SEND_WITH_INV).invalidateRkey(rkey)
            .sendFlags(SendFlags.SIGNALED).addSge(local, 0, 8));

        // o10-37.2.26 / rxe_check_invalidate_mw: class J, the window stays bound.
        final WorkCompletion recv = drain(c.b.recvCq, 1).get(0);
        assertEquals(WcStatus.REM_INV_REQ_ERR, recv.status(), recv.toString());
        assertEquals(QpState.ERR, c.b.qp.state());
        assertTrue(mw.isBound());
    }

    @Test
    void type2BIsUsableOnlyThroughTheQpThatBoundIt()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.RC);
        final VerbsFixture.Pair other = fx.connect(QpType.RC);
        final MemoryRegion mr = bindable(fx.pdB);
        final MemoryRegion local = register(fx.pdA, REGION_BYTES, ALL_ACCESS);
        final MemoryWindow mw = fx.pdB.allocMw(MwType.TYPE_2);
        assertEquals(WcStatus.SUCCESS, bind2(c, mw, 0x33, mr, mr.address(0), WINDOW_BYTES, REMOTE_ALL).status());

        // rxe_lookup_mw: mw->qp != qp refuses it, even in the same protection domain.
        assertEquals(WcStatus.REM_ACCESS_ERR, read(other, local, mr.address(0), mw.rkey(), 8).status());
        assertEquals(WcStatus.SUCCESS, read(c, local, mr.address(0), mw.rkey(), 8).status());
    }

    @Test
    void aType1WindowIsUsableThroughAnyQpOfItsDomain()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.RC);
        final VerbsFixture.Pair other = fx.connect(QpType.RC);
        final MemoryRegion mr = bindable(fx.pdB);
        final MemoryRegion local = register(fx.pdA, REGION_BYTES, ALL_ACCESS);
        final MemoryWindow mw = fx.pdB.allocMw(MwType.TYPE_1);
        final int rkey = bind1(c, mw, mr, mr.address(0), WINDOW_BYTES, REMOTE_ALL);
        assertEquals(WcStatus.SUCCESS, read(other, local, mr.address(0), rkey, 8).status());
    }

    @Test
    void deallocatingABoundWindowRetiresItsRkeyAndFreesTheRegion()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.RC);
        final MemoryRegion mr = bindable(fx.pdB);
        final MemoryRegion local = register(fx.pdA, REGION_BYTES, ALL_ACCESS);
        final MemoryWindow mw = fx.pdB.allocMw(MwType.TYPE_1);
        final int rkey = bind1(c, mw, mr, mr.address(0), WINDOW_BYTES, REMOTE_ALL);
        assertEquals(WcStatus.SUCCESS, read(c, local, mr.address(0), rkey, 8).status());

        // rxe_dereg_mr: not while a window is bound.
        final IllegalStateException busy = assertThrows(IllegalStateException.class, mr::deregister);
        assertTrue(busy.getMessage().contains("memory window"), busy.getMessage());
        assertFalse(mr.isDeregistered());
        // ibv_dealloc_pd: not while a window is allocated.
        assertThrows(IllegalStateException.class, fx.pdB::dealloc);

        mw.dealloc();
        assertTrue(mw.isDeallocated());
        assertFalse(mw.isBound());
        assertThrows(IllegalStateException.class, mw::dealloc);
        assertEquals(WcStatus.REM_ACCESS_ERR, read(c, local, mr.address(0), rkey, 8).status());
        mr.deregister();
        assertTrue(mr.isDeregistered());
    }

    @Test
    void aWindowOnAUcQpTakesWrites()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.UC);
        final MemoryRegion mr = bindable(fx.pdB);
        final MemoryRegion local = register(fx.pdA, REGION_BYTES, ALL_ACCESS);
        final MemoryWindow mw = fx.pdB.allocMw(MwType.TYPE_2);
        assertEquals(WcStatus.SUCCESS, bind2(c, mw, 0x44, mr, mr.address(0), WINDOW_BYTES,
            AccessFlags.REMOTE_WRITE).status());
        local.buffer().putLong(0, 0x0102_0304_0506_0708L);
        assertEquals(WcStatus.SUCCESS, write(c, local, mr.address(16), mw.rkey(), 8).status());
        fx.settle();
        assertEquals(0x0102_0304_0506_0708L, mr.buffer().getLong(16));
    }

    @Test
    void multiPacketWriteAndReadThroughAType2BWindow()
    {
        // MTU 1024: a 3000-byte WRITE is FIRST, MIDDLE, LAST; its later packets check the window again.
        final VerbsFixture.Pair c = fx.connect(QpType.RC);
        final MemoryRegion mr = bindable(fx.pdB);
        final MemoryRegion local = register(fx.pdA, REGION_BYTES, ALL_ACCESS);
        final MemoryWindow mw = fx.pdB.allocMw(MwType.TYPE_2);
        assertEquals(WcStatus.SUCCESS, bind2(c, mw, 0x55, mr, mr.address(500), 3000, REMOTE_ALL).status());
        for (int i = 0; i < 3000; i++)
        {
            local.buffer().putByte(i, (byte)(i * 11 + 5));
        }
        assertEquals(WcStatus.SUCCESS, write(c, local, mr.address(500), mw.rkey(), 3000).status());
        for (int i = 0; i < 3000; i++)
        {
            assertEquals((byte)(i * 11 + 5), mr.buffer().getByte(500 + i), "byte " + i);
        }
        assertEquals(0, mr.buffer().getByte(499));
        assertEquals(0, mr.buffer().getByte(3500));
        final WorkCompletion readWc = read(c, local, mr.address(500), mw.rkey(), 3000);
        assertEquals(WcStatus.SUCCESS, readWc.status(), readWc.toString());
        assertEquals(3000, readWc.byteLen());
    }
}
