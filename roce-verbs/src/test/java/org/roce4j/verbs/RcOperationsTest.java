package org.roce4j.verbs;

import java.nio.ByteOrder;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.AsyncEventType;
import org.roce4j.ib.QpState;
import org.roce4j.ib.QpType;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WcOpcode;
import org.roce4j.ib.WcStatus;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.ib.WrOpcode;
import org.roce4j.transport.TransportCounter;
import org.roce4j.wire.Opcode;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.roce4j.verbs.VerbsFixture.ALL_ACCESS;
import static org.roce4j.verbs.VerbsFixture.drain;
import static org.roce4j.verbs.VerbsFixture.register;

/**
 * Every RC operation end to end through the verbs API, between two invoker-mode devices in simulated time.
 */
class RcOperationsTest
{
    private final VerbsFixture fx = new VerbsFixture();

    @AfterEach
    void close()
    {
        fx.assertNoInternalErrors();
        fx.close();
    }

    private static void fill(final MemoryRegion mr, final int offset, final int length, final int seed)
    {
        for (int i = 0; i < length; i++)
        {
            mr.buffer().putByte(offset + i, (byte)(seed + i * 7));
        }
    }

    private static void assertFilled(final MemoryRegion mr, final int offset, final int length, final int seed)
    {
        for (int i = 0; i < length; i++)
        {
            assertEquals((byte)(seed + i * 7), mr.buffer().getByte(offset + i), "byte " + i);
        }
    }

    @Test
    void sendAndReceive()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.RC);
        final MemoryRegion src = register(fx.pdA, 5000, ALL_ACCESS);
        final MemoryRegion dst = register(fx.pdB, 5000, ALL_ACCESS);
        fill(src, 0, 5000, 3);
        c.b.qp.postRecv(new RecvWorkRequest().wrId(77).addSge(dst, 0, 5000));
        c.a.qp.postSend(new SendWorkRequest().wrId(5).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
            .addSge(src, 0, 5000));

        final WorkCompletion recv = drain(c.b.recvCq, 1).get(0);
        final WorkCompletion send = drain(c.a.sendCq, 1).get(0);
        assertEquals(WcStatus.SUCCESS, recv.status(), recv.toString());
        assertEquals(WcOpcode.RECV, recv.opcode());
        assertEquals(5000, recv.byteLen());
        assertEquals(77, recv.wrId());
        assertEquals(c.b.qp.qpNum(), recv.qpNum());
        assertFalse(recv.hasImmediate());
        assertEquals(WcStatus.SUCCESS, send.status());
        assertEquals(WcOpcode.SEND, send.opcode());
        assertEquals(5, send.wrId());
        assertFilled(dst, 0, 5000, 3);
        // 5000 bytes at MTU 1024: FIRST, 3 MIDDLE, LAST.
        assertEquals(5, fx.b.counters().get(TransportCounter.PACKETS_RECEIVED) -
            fx.b.counters().get(TransportCounter.ACKS_RECEIVED));
    }

    @Test
    void sendWithImmediate()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.RC);
        final MemoryRegion src = register(fx.pdA, 64, ALL_ACCESS);
        final MemoryRegion dst = register(fx.pdB, 64, ALL_ACCESS);
        c.b.qp.postRecv(new RecvWorkRequest().wrId(1).addSge(dst, 0, 64));
        c.a.qp.postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.SEND_WITH_IMM).immData(0x1234_5678)
            .sendFlags(SendFlags.SIGNALED).addSge(src, 0, 16));

        final WorkCompletion recv = drain(c.b.recvCq, 1).get(0);
        assertEquals(WcStatus.SUCCESS, recv.status());
        assertEquals(WcOpcode.RECV, recv.opcode());
        assertTrue(recv.hasImmediate());
        assertEquals(0x1234_5678, recv.immData());
        assertEquals(16, recv.byteLen());
        assertEquals(WcStatus.SUCCESS, drain(c.a.sendCq, 1).get(0).status());
    }

    @Test
    void sendWithInvalidateInvalidatesARegionRegisteredForRemoteInvalidation()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.RC);
        final MemoryRegion src = register(fx.pdA, 64, ALL_ACCESS);
        final MemoryRegion dst = register(fx.pdB, 64, ALL_ACCESS);
        final MemoryRegion exposed = register(fx.pdB, 64, ALL_ACCESS | AccessFlags.REMOTE_INVALIDATE);
        c.b.qp.postRecv(new RecvWorkRequest().wrId(1).addSge(dst, 0, 64));
        c.a.qp.postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.SEND_WITH_INV)
            .invalidateRkey(exposed.rkey()).sendFlags(SendFlags.SIGNALED).addSge(src, 0, 8));

        final WorkCompletion recv = drain(c.b.recvCq, 1).get(0);
        assertEquals(WcStatus.SUCCESS, recv.status());
        assertEquals(0, recv.wcFlags() & WorkCompletion.FLAG_WITH_IMM);
        assertTrue(0 != (recv.wcFlags() & WorkCompletion.FLAG_WITH_INV));
        assertEquals(exposed.rkey(), recv.invalidatedRkey());
        assertEquals(WcStatus.SUCCESS, drain(c.a.sendCq, 1).get(0).status());
        assertFalse(exposed.isValid());

        // A later RDMA WRITE to the invalidated region fails with a remote access error.
        c.a.qp.postSend(new SendWorkRequest().wrId(3).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
            .addSge(src, 0, 8).rdma(exposed.iova(), exposed.rkey()));
        final WorkCompletion write = drain(c.a.sendCq, 1).get(0);
        assertEquals(WcStatus.REM_ACCESS_ERR, write.status());
        assertEquals(3, write.wrId());
    }

    @Test
    void sendWithInvalidateNamingAnOrdinaryRegionFailsTheReceiveAndLeavesTheRegionValid()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.RC);
        final MemoryRegion src = register(fx.pdA, 64, ALL_ACCESS);
        final MemoryRegion dst = register(fx.pdB, 64, ALL_ACCESS);
        final MemoryRegion ordinary = register(fx.pdB, 64, ALL_ACCESS);
        c.b.qp.postRecv(new RecvWorkRequest().wrId(1).addSge(dst, 0, 64));
        c.a.qp.postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.SEND_WITH_INV)
            .invalidateRkey(ordinary.rkey()).sendFlags(SendFlags.SIGNALED).addSge(src, 0, 8));

        // rxe: only fast-registration MRs and memory windows may be invalidated by a peer; otherwise class J.
        final WorkCompletion recv = drain(c.b.recvCq, 1).get(0);
        assertEquals(WcStatus.REM_INV_REQ_ERR, recv.status());
        assertTrue(ordinary.isValid());
        assertEquals(QpState.ERR, c.b.qp.state());
        assertTrue(VerbsFixture.events(fx.b).stream().anyMatch(e -> AsyncEventType.QP_REQ_ERR == e.type() &&
            c.b.qp.qpNum() == e.element()));
    }

    @Test
    void rdmaWrite()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.RC);
        final MemoryRegion src = register(fx.pdA, 10_000, ALL_ACCESS);
        final MemoryRegion dst = register(fx.pdB, 10_000, ALL_ACCESS);
        fill(src, 0, 10_000, 9);
        c.a.qp.postSend(new SendWorkRequest().wrId(11).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
            .addSge(src, 0, 9000).rdma(dst.address(1000), dst.rkey()));

        final WorkCompletion send = drain(c.a.sendCq, 1).get(0);
        assertEquals(WcStatus.SUCCESS, send.status());
        assertEquals(WcOpcode.RDMA_WRITE, send.opcode());
        assertEquals(11, send.wrId());
        for (int i = 0; i < 9000; i++)
        {
            assertEquals(src.buffer().getByte(i), dst.buffer().getByte(1000 + i));
        }
        assertEquals(0, dst.buffer().getByte(999));
        // A WRITE consumes no receive WR and completes nothing at the responder.
        assertEquals(0, c.b.recvCq.poll(VerbsFixture.completions(4)));
    }

    @Test
    void rdmaWriteWithImmediateConsumesAReceive()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.RC);
        final MemoryRegion src = register(fx.pdA, 3000, ALL_ACCESS);
        final MemoryRegion dst = register(fx.pdB, 3000, ALL_ACCESS);
        final MemoryRegion unused = register(fx.pdB, 16, ALL_ACCESS);
        fill(src, 0, 3000, 1);
        c.b.qp.postRecv(new RecvWorkRequest().wrId(40).addSge(unused, 0, 16));
        c.a.qp.postSend(new SendWorkRequest().wrId(41).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).immData(0xCAFE)
            .sendFlags(SendFlags.SIGNALED).addSge(src, 0, 3000).rdma(dst.iova(), dst.rkey()));

        final WorkCompletion recv = drain(c.b.recvCq, 1).get(0);
        assertEquals(WcStatus.SUCCESS, recv.status());
        assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, recv.opcode());
        assertEquals(40, recv.wrId());
        assertEquals(3000, recv.byteLen(), "byte_len is the length of the WRITE");
        assertEquals(0xCAFE, recv.immData());
        final WorkCompletion send = drain(c.a.sendCq, 1).get(0);
        assertEquals(WcOpcode.RDMA_WRITE, send.opcode());
        assertFilled(dst, 0, 3000, 1);
    }

    @Test
    void rdmaRead()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.RC);
        final MemoryRegion local = register(fx.pdA, 7000, ALL_ACCESS);
        final MemoryRegion remote = register(fx.pdB, 7000, ALL_ACCESS);
        fill(remote, 0, 7000, 21);
        c.a.qp.postSend(new SendWorkRequest().wrId(9).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
            .addSge(local, 0, 7000).rdma(remote.iova(), remote.rkey()));

        final WorkCompletion read = drain(c.a.sendCq, 1).get(0);
        assertEquals(WcStatus.SUCCESS, read.status());
        assertEquals(WcOpcode.RDMA_READ, read.opcode());
        assertEquals(7000, read.byteLen());
        assertFilled(local, 0, 7000, 21);
    }

    @Test
    void atomics()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.RC);
        final MemoryRegion local = register(fx.pdA, 64, ALL_ACCESS);
        final MemoryRegion remote = register(fx.pdB, 64, ALL_ACCESS);
        remote.buffer().putLong(8, 100L, ByteOrder.nativeOrder());
        c.a.qp.postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD)
            .sendFlags(SendFlags.SIGNALED).addSge(local, 0, 8).atomic(remote.address(8), remote.rkey(), 5, 0)
            .next(new SendWorkRequest().wrId(2).opcode(WrOpcode.ATOMIC_CMP_AND_SWP).sendFlags(SendFlags.SIGNALED)
                .addSge(local, 8, 8).atomic(remote.address(8), remote.rkey(), 105, 77)
                .next(new SendWorkRequest().wrId(3).opcode(WrOpcode.ATOMIC_CMP_AND_SWP)
                    .sendFlags(SendFlags.SIGNALED).addSge(local, 16, 8)
                    .atomic(remote.address(8), remote.rkey(), 1, 2))));

        final List<WorkCompletion> done = drain(c.a.sendCq, 3);
        assertEquals(WcOpcode.FETCH_ADD, done.get(0).opcode());
        assertEquals(WcOpcode.COMP_SWAP, done.get(1).opcode());
        for (final WorkCompletion wc : done)
        {
            assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
        }
        assertEquals(100L, local.buffer().getLong(0, ByteOrder.nativeOrder()), "fetch-and-add returns the original");
        assertEquals(105L, local.buffer().getLong(8, ByteOrder.nativeOrder()), "compare matched: original returned");
        assertEquals(77L, local.buffer().getLong(16, ByteOrder.nativeOrder()), "compare failed: original returned");
        assertEquals(77L, remote.buffer().getLong(8, ByteOrder.nativeOrder()), "swapped once, not twice");
    }

    @Test
    void threeSgesOnEachSide()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.RC);
        final MemoryRegion src = register(fx.pdA, 4096, ALL_ACCESS);
        final MemoryRegion dst = register(fx.pdB, 4096, ALL_ACCESS);
        fill(src, 0, 4096, 5);
        // Gather 100 + 1500 + 33 bytes from three places; scatter into 700 + 900 + 33 elsewhere.
        c.b.qp.postRecv(new RecvWorkRequest().wrId(1).addSge(dst, 3000, 700).addSge(dst, 0, 900)
            .addSge(dst, 2000, 33));
        c.a.qp.postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
            .addSge(src, 2000, 100).addSge(src, 0, 1500).addSge(src, 4000, 33));

        final WorkCompletion recv = drain(c.b.recvCq, 1).get(0);
        assertEquals(WcStatus.SUCCESS, recv.status());
        assertEquals(1633, recv.byteLen());
        final byte[] sent = new byte[1633];
        src.buffer().getBytes(2000, sent, 0, 100);
        src.buffer().getBytes(0, sent, 100, 1500);
        src.buffer().getBytes(4000, sent, 1600, 33);
        final byte[] received = new byte[1633];
        dst.buffer().getBytes(3000, received, 0, 700);
        dst.buffer().getBytes(0, received, 700, 900);
        dst.buffer().getBytes(2000, received, 1600, 33);
        assertArrayEquals(sent, received);
        drain(c.a.sendCq, 1);
    }

    @Test
    void onlySignaledWorkRequestsComplete()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.RC);
        final MemoryRegion src = register(fx.pdA, 64, ALL_ACCESS);
        final MemoryRegion dst = register(fx.pdB, 640, ALL_ACCESS);
        for (int i = 0; i < 10; i++)
        {
            c.b.qp.postRecv(new RecvWorkRequest().wrId(100 + i).addSge(dst, 64L * i, 64));
        }
        final SendWorkRequest wr = new SendWorkRequest();
        for (int i = 0; i < 10; i++)
        {
            wr.reset().wrId(i).opcode(WrOpcode.SEND).sendFlags(2 == i % 3 ? SendFlags.SIGNALED : 0)
                .addSge(src, 0, 64);
            c.a.qp.postSend(wr);
        }
        assertEquals(10, drain(c.b.recvCq, 10).size());
        final List<WorkCompletion> sends = drain(c.a.sendCq, 3);
        assertEquals(2, sends.get(0).wrId());
        assertEquals(5, sends.get(1).wrId());
        assertEquals(8, sends.get(2).wrId());
        fx.settle();
        assertEquals(0, c.a.sendCq.poll(VerbsFixture.completions(4)), "unsignaled WRs produce no completion");
        assertEquals(0, c.a.qp.outstandingSendWrs(), "unsignaled WRs were retired all the same");
    }

    @Test
    void sqSigAllCompletesEveryWorkRequest()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.RC, p -> {}, init -> init.sqSigAll(true));
        final MemoryRegion src = register(fx.pdA, 64, ALL_ACCESS);
        final MemoryRegion dst = register(fx.pdB, 64, ALL_ACCESS);
        for (int i = 0; i < 4; i++)
        {
            c.a.qp.postSend(new SendWorkRequest().wrId(i).opcode(WrOpcode.RDMA_WRITE).addSge(src, 0, 8)
                .rdma(dst.iova(), dst.rkey()));
        }
        final List<WorkCompletion> sends = drain(c.a.sendCq, 4);
        for (int i = 0; i < 4; i++)
        {
            assertEquals(i, sends.get(i).wrId());
            assertEquals(WcStatus.SUCCESS, sends.get(i).status());
        }
        assertTrue(c.a.qp.queryInitAttributes(new QpInitAttributes()).sqSigAll());
    }

    @Test
    void inlineDataIsCopiedAtPostTime()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.RC);
        final MemoryRegion src = register(fx.pdA, 64, ALL_ACCESS);
        final MemoryRegion dst = register(fx.pdB, 64, ALL_ACCESS);
        fill(src, 0, 48, 17);
        c.b.qp.postRecv(new RecvWorkRequest().wrId(1).addSge(dst, 0, 64));
        c.a.qp.postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.SEND)
            .sendFlags(SendFlags.SIGNALED | SendFlags.INLINE).addSge(src, 0, 16).addSge(src, 16, 32));
        // Overwrite the source before the engine runs: the inline copy must already hold the old bytes.
        for (int i = 0; i < 48; i++)
        {
            src.buffer().putByte(i, (byte)0xEE);
        }
        final WorkCompletion recv = drain(c.b.recvCq, 1).get(0);
        assertEquals(48, recv.byteLen());
        assertFilled(dst, 0, 48, 17);
        assertEquals(WcStatus.SUCCESS, drain(c.a.sendCq, 1).get(0).status());
    }

    @Test
    void fencedWorkRequestWaitsForTheEarlierRead()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.RC);
        final MemoryRegion local = register(fx.pdA, 8192, ALL_ACCESS);
        final MemoryRegion remote = register(fx.pdB, 8192, ALL_ACCESS);
        fill(remote, 0, 4096, 2);
        fx.linkA.record(true);
        fx.linkB.record(true);
        c.a.qp.postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
            .addSge(local, 0, 4096).rdma(remote.iova(), remote.rkey())
            .next(new SendWorkRequest().wrId(2).opcode(WrOpcode.RDMA_WRITE)
                .sendFlags(SendFlags.SIGNALED | SendFlags.FENCE).addSge(local, 4096, 64)
                .rdma(remote.address(4096), remote.rkey())));

        final List<WorkCompletion> done = drain(c.a.sendCq, 2);
        assertEquals(1, done.get(0).wrId());
        assertEquals(WcOpcode.RDMA_READ, done.get(0).opcode());
        assertEquals(2, done.get(1).wrId());
        assertTrue(fx.a.counters().get(TransportCounter.FENCE_STALLS) > 0, fx.a.describeCounters());

        // Packet trace: the fenced WRITE leaves A only after the last READ response came back from B.
        final List<PairLink.Sent> trace = fx.linkA.trace();
        int lastReadResponse = -1;
        int write = -1;
        for (int i = 0; i < trace.size(); i++)
        {
            final Opcode opcode = trace.get(i).opcode();
            if (Opcode.RC_RDMA_READ_RESPONSE_LAST == opcode)
            {
                lastReadResponse = i;
            }
            if (Opcode.RC_RDMA_WRITE_ONLY == opcode && -1 == write)
            {
                write = i;
            }
        }
        assertTrue(lastReadResponse >= 0 && write > lastReadResponse, "trace: " + trace);
        assertEquals(Opcode.RC_RDMA_READ_REQUEST, trace.get(0).opcode(), "trace: " + trace);
    }

    @Test
    void solicitedFlagSetsTheSolicitedEventBitOnTheLastPacket()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.RC);
        final MemoryRegion src = register(fx.pdA, 4096, ALL_ACCESS);
        final MemoryRegion dst = register(fx.pdB, 4096, ALL_ACCESS);
        fx.linkA.record(true);
        c.b.qp.postRecv(new RecvWorkRequest().wrId(1).addSge(dst, 0, 4096));
        c.b.qp.postRecv(new RecvWorkRequest().wrId(2).addSge(dst, 0, 4096));
        c.a.qp.postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.SEND)
            .sendFlags(SendFlags.SIGNALED | SendFlags.SOLICITED).addSge(src, 0, 2500)
            .next(new SendWorkRequest().wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .addSge(src, 0, 10)));
        drain(c.b.recvCq, 2);
        drain(c.a.sendCq, 2);

        final List<PairLink.Sent> trace = fx.linkA.trace();
        assertEquals(Opcode.RC_SEND_FIRST, trace.get(0).opcode());
        assertFalse(trace.get(0).solicited());
        assertEquals(Opcode.RC_SEND_MIDDLE, trace.get(1).opcode());
        assertFalse(trace.get(1).solicited());
        assertEquals(Opcode.RC_SEND_LAST, trace.get(2).opcode());
        assertTrue(trace.get(2).solicited(), "SE on the last packet of the solicited SEND");
        assertEquals(Opcode.RC_SEND_ONLY, trace.get(3).opcode());
        assertFalse(trace.get(3).solicited(), "no SE without IBV_SEND_SOLICITED");
    }

    @Test
    void sendQueueDrainAndResume()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.RC);
        final MemoryRegion src = register(fx.pdA, 64, ALL_ACCESS);
        final MemoryRegion dst = register(fx.pdB, 64, ALL_ACCESS);
        final org.roce4j.ib.QpAttributes attr = new org.roce4j.ib.QpAttributes();
        attr.qpState = org.roce4j.ib.QpState.SQD;
        c.a.qp.modify(attr, org.roce4j.ib.QpAttrMask.STATE);
        fx.settle();
        assertTrue(VerbsFixture.events(fx.a).stream().anyMatch(e ->
            org.roce4j.ib.AsyncEventType.SQ_DRAINED == e.type() && c.a.qp.qpNum() == e.element()));
        // Posted in SQD: queued, not started until the QP is back in RTS.
        c.a.qp.postSend(new SendWorkRequest().wrId(5).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
            .addSge(src, 0, 8).rdma(dst.iova(), dst.rkey()));
        fx.settle();
        assertEquals(0, c.a.sendCq.poll(VerbsFixture.completions(1)));
        attr.qpState = org.roce4j.ib.QpState.RTS;
        c.a.qp.modify(attr, org.roce4j.ib.QpAttrMask.STATE);
        assertEquals(5, drain(c.a.sendCq, 1).get(0).wrId());
    }

    @Test
    void writeGathersAndReadScattersThreeSges()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.RC);
        final MemoryRegion local = register(fx.pdA, 8192, ALL_ACCESS);
        final MemoryRegion remote = register(fx.pdB, 8192, ALL_ACCESS);
        fill(local, 0, 4096, 11);
        c.a.qp.postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
            .addSge(local, 3000, 1000).addSge(local, 0, 1200).addSge(local, 2000, 7).rdma(remote.iova(),
            remote.rkey())
            .next(new SendWorkRequest().wrId(2).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                .addSge(local, 7000, 7).addSge(local, 4096, 1000).addSge(local, 5200, 1200)
                .rdma(remote.iova(), remote.rkey())));
        final List<WorkCompletion> done = drain(c.a.sendCq, 2);
        assertEquals(WcStatus.SUCCESS, done.get(0).status());
        assertEquals(WcStatus.SUCCESS, done.get(1).status());
        assertEquals(2207, done.get(1).byteLen());
        final byte[] written = new byte[2207];
        local.buffer().getBytes(3000, written, 0, 1000);
        local.buffer().getBytes(0, written, 1000, 1200);
        local.buffer().getBytes(2000, written, 2200, 7);
        final byte[] atRemote = new byte[2207];
        remote.buffer().getBytes(0, atRemote);
        assertArrayEquals(written, atRemote);
        final byte[] readBack = new byte[2207];
        local.buffer().getBytes(7000, readBack, 0, 7);
        local.buffer().getBytes(4096, readBack, 7, 1000);
        local.buffer().getBytes(5200, readBack, 1007, 1200);
        assertArrayEquals(written, readBack);
    }

    @Test
    void zeroLengthOperations()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.RC);
        final MemoryRegion dst = register(fx.pdB, 64, ALL_ACCESS);
        c.b.qp.postRecv(new RecvWorkRequest().wrId(1).addSge(dst, 0, 64));
        c.b.qp.postRecv(new RecvWorkRequest().wrId(2));
        c.a.qp.postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
            .next(new SendWorkRequest().wrId(2).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .rdma(0, 0)
                .next(new SendWorkRequest().wrId(3).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).immData(5)
                    .sendFlags(SendFlags.SIGNALED).rdma(0, 0))));
        final List<WorkCompletion> recv = drain(c.b.recvCq, 2);
        assertEquals(0, recv.get(0).byteLen());
        assertEquals(WcOpcode.RECV, recv.get(0).opcode());
        assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, recv.get(1).opcode());
        assertEquals(5, recv.get(1).immData());
        for (final WorkCompletion wc : drain(c.a.sendCq, 3))
        {
            assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
        }
    }

    @Test
    void inlineRdmaWriteWithImmediate()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.RC);
        final MemoryRegion src = register(fx.pdA, 64, ALL_ACCESS);
        final MemoryRegion dst = register(fx.pdB, 64, ALL_ACCESS);
        fill(src, 0, 40, 77);
        c.b.qp.postRecv(new RecvWorkRequest().wrId(9));
        c.a.qp.postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).immData(0x77)
            .sendFlags(SendFlags.SIGNALED | SendFlags.INLINE).addSge(src, 0, 40).rdma(dst.address(8), dst.rkey()));
        final WorkCompletion recv = drain(c.b.recvCq, 1).get(0);
        assertEquals(40, recv.byteLen());
        assertEquals(0x77, recv.immData());
        for (int i = 0; i < 40; i++)
        {
            assertEquals(src.buffer().getByte(i), dst.buffer().getByte(8 + i));
        }
        drain(c.a.sendCq, 1);
    }

    @Test
    void psnsWrapAroundTwentyFourBits()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.RC, p ->
        {
            p.psnA = 0xFF_FFFD;
            p.psnB = 0xFF_FFFF;
        }, init -> { });
        final MemoryRegion src = register(fx.pdA, 8192, ALL_ACCESS);
        final MemoryRegion dst = register(fx.pdB, 8192, ALL_ACCESS);
        fill(src, 0, 8192, 4);
        for (int i = 0; i < 3; i++)
        {
            c.b.qp.postRecv(new RecvWorkRequest().wrId(i).addSge(dst, 0, 8192));
            c.a.qp.postSend(new SendWorkRequest().wrId(i).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .addSge(src, 0, 5000));
        }
        c.a.qp.postSend(new SendWorkRequest().wrId(3).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
            .addSge(src, 0, 3000).rdma(dst.iova(), dst.rkey()));
        assertEquals(3, drain(c.b.recvCq, 3).size());
        final List<WorkCompletion> sends = drain(c.a.sendCq, 4);
        for (final WorkCompletion wc : sends)
        {
            assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
        }
        // 3 SENDs of 5 packets and a 3-packet READ from 0xFFFFFD: 18 PSNs, the next one has wrapped to 0xF.
        assertEquals(0xF, c.a.qp.query(new org.roce4j.ib.QpAttributes(), 0).sqPsn);
        assertEquals(0, fx.a.counters().get(TransportCounter.RETRIES));
    }
}
