package org.roce4j.verbs;

import java.util.function.Function;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.roce4j.ib.AhAttributes;
import org.roce4j.ib.QpAttrMask;
import org.roce4j.ib.QpAttributes;
import org.roce4j.ib.QpState;
import org.roce4j.ib.QpType;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WcStatus;
import org.roce4j.ib.WrOpcode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.roce4j.verbs.VerbsFixture.ALL_ACCESS;

/**
 * post_send / post_recv refuse bad work requests before queueing anything, naming the problem and the index of
 * the bad WR in the chain.
 */
class PostValidationTest
{
    /** The end of the UC opcode list in the refusal: the writes and the local operations. */
    private static final String UC_LOCAL_OPS = "RDMA_WRITE_WITH_IMM, BIND_MW and LOCAL_INV)";

    private final VerbsFixture fx = new VerbsFixture();
    private final VerbsFixture.Pair rc = fx.connect(QpType.RC);
    private final VerbsFixture.Pair uc = fx.connect(QpType.UC);
    private final VerbsFixture.Pair ud = fx.connect(QpType.UD);
    private final MemoryRegion mr = VerbsFixture.register(fx.pdA, 4096, ALL_ACCESS);
    private final AddressHandle ah = fx.pdA.createAh(new AhAttributes().dgid(fx.b.queryGid(1).high(),
        fx.b.queryGid(1).low()).sgidIndex(1));

    @AfterEach
    void close()
    {
        fx.close();
    }

    /** Which QP a case posts on. */
    enum Target
    {
        RC, UC, UD
    }

    private QueuePair qp(final Target target)
    {
        return switch (target)
        {
            case RC -> rc.a.qp;
            case UC -> uc.a.qp;
            case UD -> ud.a.qp;
        };
    }

    private static Arguments refusal(
        final Target target, final String message, final Function<PostValidationTest, SendWorkRequest> wr)
    {
        return Arguments.of(target, message, wr);
    }

    static Stream<Arguments> sendRefusals()
    {
        return Stream.of(
            refusal(Target.UD, "opcode RDMA_WRITE is not allowed on a UD QP (only SEND and SEND_WITH_IMM)",
                t -> new SendWorkRequest().opcode(WrOpcode.RDMA_WRITE).addSge(t.mr, 0, 8).ud(t.ah, 2, 3)),
            refusal(Target.UC, "opcode RDMA_READ is not allowed on a UC QP (only SEND, SEND_WITH_IMM, RDMA_WRITE, " +
                UC_LOCAL_OPS, t -> new SendWorkRequest().opcode(WrOpcode.RDMA_READ)
                .addSge(t.mr, 0, 8).rdma(1, 2)),
            refusal(Target.UC, "opcode SEND_WITH_INV is not allowed on a UC QP (only SEND, SEND_WITH_IMM, " +
                "RDMA_WRITE, " + UC_LOCAL_OPS, t -> new SendWorkRequest().opcode(WrOpcode.SEND_WITH_INV)),
            refusal(Target.UC, "opcode ATOMIC_FETCH_AND_ADD is not allowed on a UC QP (only SEND, SEND_WITH_IMM, " +
                "RDMA_WRITE, " + UC_LOCAL_OPS, t -> new SendWorkRequest()
                .opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).addSge(t.mr, 0, 8).atomic(0, 1, 1, 0)),
            refusal(Target.RC, "num_sge 5 exceeds the QP's max_send_sge 4", t -> new SendWorkRequest()
                .addSge(t.mr, 0, 1).addSge(t.mr, 1, 1).addSge(t.mr, 2, 1).addSge(t.mr, 3, 1).addSge(t.mr, 4, 1)),
            refusal(Target.RC, "SGE 1 has a negative length -1", t -> new SendWorkRequest().addSge(t.mr, 0, 1)
                .addSge(t.mr, 0, -1)),
            refusal(Target.RC, "inline data of 65 bytes exceeds the QP's max_inline_data 64",
                t -> new SendWorkRequest().sendFlags(SendFlags.INLINE).addSge(t.mr, 0, 65)),
            refusal(Target.RC, "INLINE is not allowed with RDMA_READ (only SEND and RDMA WRITE carry inline data)",
                t -> new SendWorkRequest().opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.INLINE)
                    .addSge(t.mr, 0, 8).rdma(1, 2)),
            refusal(Target.RC, "inline SGE 0 (addr=0x1000 len=8 lkey=0x7) is not inside a registered memory region " +
                "with that lkey: roce4j copies inline data out of registered memory",
                t -> new SendWorkRequest().sendFlags(SendFlags.INLINE).addSge(0x1000, 8, 7)),
            refusal(Target.RC, "ATOMIC_CMP_AND_SWP needs exactly one 8-byte SGE for the original value, got 2 SGEs " +
                "totalling 8 bytes", t -> new SendWorkRequest().opcode(WrOpcode.ATOMIC_CMP_AND_SWP)
                .addSge(t.mr, 0, 4).addSge(t.mr, 4, 4).atomic(0, 1, 1, 2)),
            refusal(Target.RC, "ATOMIC_FETCH_AND_ADD needs exactly one 8-byte SGE for the original value, got 1 " +
                "SGEs totalling 4 bytes", t -> new SendWorkRequest().opcode(WrOpcode.ATOMIC_FETCH_AND_ADD)
                .addSge(t.mr, 0, 4).atomic(0, 1, 1, 2)),
            refusal(Target.RC, "ATOMIC_FETCH_AND_ADD remote_addr 0x1004 is not 8-byte aligned",
                t -> new SendWorkRequest().opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).addSge(t.mr, 0, 8)
                    .atomic(0x1004, 1, 1, 0)),
            refusal(Target.UD, "a UD send needs an address handle: wr.ud(ah, remoteQpn, remoteQkey)",
                t -> new SendWorkRequest().addSge(t.mr, 0, 8)),
            refusal(Target.UD, "remote_qpn 0x1000000 does not fit in 24 bits",
                t -> new SendWorkRequest().addSge(t.mr, 0, 8).ud(t.ah, 0x100_0000, 1)),
            refusal(Target.RC, "unknown send_flags bits 0x10", t -> new SendWorkRequest().sendFlags(0x10)),
            refusal(Target.RC, "opcode is null", t -> new SendWorkRequest().opcode(null)),
            refusal(Target.RC, "message length 4294967294 exceeds the port's max message size 2147483648",
                t -> new SendWorkRequest()
                .addSge(t.mr, 0, Integer.MAX_VALUE).addSge(t.mr, 0, Integer.MAX_VALUE)));
    }

    @ParameterizedTest(name = "[{index}] {1}")
    @MethodSource("sendRefusals")
    void postSendRefusesBadWorkRequests(
        final Target target, final String message, final Function<PostValidationTest, SendWorkRequest> make)
    {
        final QueuePair qp = qp(target);
        final SendWorkRequest wr = make.apply(this).wrId(99);
        final BadWorkRequestException ex = assertThrows(BadWorkRequestException.class, () -> qp.postSend(wr));
        assertEquals("WR #0 (wr_id=99) of the chain: " + message, ex.getMessage());
        assertEquals(0, ex.index());
        assertEquals(99, ex.wrId());
        assertEquals(0, qp.outstandingSendWrs(), "nothing queued");
    }

    @Test
    void theIndexOfTheBadWorkRequestIsReportedAndNothingIsQueued()
    {
        final SendWorkRequest third = new SendWorkRequest().wrId(3).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD)
            .addSge(mr, 0, 8).atomic(0x7, 1, 1, 0);
        final SendWorkRequest chain = new SendWorkRequest().wrId(1).addSge(mr, 0, 8)
            .next(new SendWorkRequest().wrId(2).addSge(mr, 0, 8).next(third));
        final BadWorkRequestException ex = assertThrows(BadWorkRequestException.class, () -> rc.a.qp.postSend(chain));
        assertEquals(2, ex.index());
        assertEquals(3, ex.wrId());
        assertEquals("WR #2 (wr_id=3) of the chain: ATOMIC_FETCH_AND_ADD remote_addr 0x7 is not 8-byte aligned",
            ex.getMessage());
        assertEquals(0, rc.a.qp.outstandingSendWrs());
    }

    @Test
    void fullSendQueueIsReportedWithAHint()
    {
        final CompletionQueue cq = fx.a.createCq(64);
        final QueuePair qp = fx.pdA.createQp(VerbsFixture.init(QpType.RC, cq, cq).cap(4, 4, 1, 1, 0));
        VerbsFixture.bringUp(qp, rc.b.qp.qpNum(), fx.b.queryGid(1), 1, 1, new VerbsFixture.Params());
        final SendWorkRequest wr = new SendWorkRequest();
        for (int i = 0; i < 4; i++)
        {
            qp.postSend(wr.reset().wrId(i).addSge(mr, 0, 8));
        }
        final BadWorkRequestException ex = assertThrows(BadWorkRequestException.class,
            () -> qp.postSend(wr.reset().wrId(4).addSge(mr, 0, 8)));
        assertEquals("WR #0 (wr_id=4) of the chain: send queue full: 4 outstanding WRs (max_send_wr 4), poll the CQ",
            ex.getMessage());
        final SendWorkRequest cyclic = new SendWorkRequest().wrId(5);
        cyclic.next(cyclic);
        final CompletionQueue cq2 = fx.a.createCq(64);
        final QueuePair fresh = fx.pdA.createQp(VerbsFixture.init(QpType.RC, cq2, cq2).cap(4, 4, 1, 1, 0));
        VerbsFixture.bringUp(fresh, rc.b.qp.qpNum(), fx.b.queryGid(1), 1, 1, new VerbsFixture.Params());
        final BadWorkRequestException loop = assertThrows(BadWorkRequestException.class, () -> fresh.postSend(cyclic));
        assertEquals(4, loop.index(), "a cyclic chain stops at the queue depth");
        assertEquals(0, fresh.outstandingSendWrs());
    }

    @Test
    void postingNeedsRtsOrLater()
    {
        final CompletionQueue cq = fx.a.createCq(8);
        final QueuePair qp = fx.pdA.createQp(VerbsFixture.init(QpType.RC, cq, cq));
        final String label = "QP 0x" + Integer.toHexString(qp.qpNum());
        final SendWorkRequest wr = new SendWorkRequest().wrId(1).addSge(mr, 0, 8);
        assertEquals("WR #0 (wr_id=1) of the chain: " + label + " is in RESET: post_send needs RTS (or SQD, SQE, " +
            "ERR; WRs posted in ERR complete with WR_FLUSH_ERR)",
            assertThrows(BadWorkRequestException.class, () -> qp.postSend(wr)).getMessage());
        assertEquals("WR #0 (wr_id=1) of the chain: " + label + " is in RESET: post_recv needs INIT or a later " +
            "state (C10-97.2.1)", assertThrows(BadWorkRequestException.class,
            () -> qp.postRecv(new RecvWorkRequest().wrId(1))).getMessage());

        VerbsFixture.toInit(qp, new VerbsFixture.Params());
        assertEquals("WR #0 (wr_id=1) of the chain: " + label + " is in INIT: post_send needs RTS (or SQD, SQE, " +
            "ERR; WRs posted in ERR complete with WR_FLUSH_ERR)",
            assertThrows(BadWorkRequestException.class, () -> qp.postSend(wr)).getMessage());
        qp.postRecv(new RecvWorkRequest().wrId(1).addSge(mr, 0, 64));

        VerbsFixture.toRtr(qp, rc.b.qp.qpNum(), fx.b.queryGid(1), 1, new VerbsFixture.Params());
        assertThrows(BadWorkRequestException.class, () -> qp.postSend(wr));
    }

    @Test
    void workRequestsPostedInErrAreFlushed()
    {
        final QpAttributes attr = new QpAttributes();
        attr.qpState = QpState.ERR;
        rc.a.qp.modify(attr, QpAttrMask.STATE);
        rc.a.qp.postSend(new SendWorkRequest().wrId(7).addSge(mr, 0, 8));
        rc.a.qp.postRecv(new RecvWorkRequest().wrId(8).addSge(mr, 0, 8));
        assertEquals(WcStatus.WR_FLUSH_ERR, VerbsFixture.drain(rc.a.sendCq, 1).get(0).status());
        assertEquals(WcStatus.WR_FLUSH_ERR, VerbsFixture.drain(rc.a.recvCq, 1).get(0).status());
    }

    @Test
    void readNeedsMaxRdAtomic()
    {
        final VerbsFixture.Pair noOrd = fx.connect(QpType.RC, p -> p.maxRdAtomic = 0, init -> { });
        final BadWorkRequestException ex = assertThrows(BadWorkRequestException.class, () -> noOrd.a.qp.postSend(
            new SendWorkRequest().opcode(WrOpcode.RDMA_READ).addSge(mr, 0, 8).rdma(1, 2)));
        assertEquals("WR #0 (wr_id=0) of the chain: RDMA_READ needs max_rd_atomic >= 1, and the QP was given " +
            "max_rd_atomic 0 (it could never start)", ex.getMessage());
    }

    @Test
    void udAddressHandleMustBeLiveAndOfTheSamePd()
    {
        final AddressHandle foreign = fx.a.allocPd().createAh(new AhAttributes().dgid(fx.b.queryGid(1).high(),
            fx.b.queryGid(1).low()).sgidIndex(1));
        assertEquals("WR #0 (wr_id=0) of the chain: the address handle belongs to protection domain " +
            foreign.pd().handle() + ", the QP to " + fx.pdA.handle(), assertThrows(BadWorkRequestException.class,
            () -> ud.a.qp.postSend(new SendWorkRequest().addSge(mr, 0, 8).ud(foreign, 2, 3))).getMessage());
        final AddressHandle gone = fx.pdA.createAh(new AhAttributes().dgid(fx.b.queryGid(1).high(),
            fx.b.queryGid(1).low()).sgidIndex(1));
        gone.destroy();
        assertEquals("WR #0 (wr_id=0) of the chain: the address handle was destroyed",
            assertThrows(BadWorkRequestException.class, () -> ud.a.qp.postSend(new SendWorkRequest()
                .addSge(mr, 0, 8).ud(gone, 2, 3))).getMessage());
    }

    @Test
    void postRecvRefusals()
    {
        final String label = "QP 0x" + Integer.toHexString(rc.a.qp.qpNum());
        assertEquals("WR #1 (wr_id=2) of the chain: num_sge 5 exceeds " + label + "'s max_recv_sge 4",
            assertThrows(BadWorkRequestException.class, () -> rc.a.qp.postRecv(new RecvWorkRequest().wrId(1)
                .next(new RecvWorkRequest().wrId(2).addSge(mr, 0, 1).addSge(mr, 0, 1).addSge(mr, 0, 1)
                    .addSge(mr, 0, 1).addSge(mr, 0, 1)))).getMessage());
        assertEquals("WR #0 (wr_id=3) of the chain: SGE 0 has a negative length -4",
            assertThrows(BadWorkRequestException.class, () -> rc.a.qp.postRecv(new RecvWorkRequest().wrId(3)
                .addSge(mr, 0, -4))).getMessage());
        assertEquals(0, rc.a.qp.postedRecvWrs(), "nothing queued");

        final CompletionQueue cq = fx.a.createCq(8);
        final SharedReceiveQueue srq = fx.pdA.createSrq(2, 1);
        final QueuePair withSrq = fx.pdA.createQp(VerbsFixture.init(QpType.RC, cq, cq).srq(srq));
        assertEquals("WR #0 (wr_id=4) of the chain: QP 0x" + Integer.toHexString(withSrq.qpNum()) + " takes its " +
            "receive WRs from SRQ " + srq.handle() + ": post them there (ibv_post_srq_recv)",
            assertThrows(BadWorkRequestException.class, () -> withSrq.postRecv(new RecvWorkRequest().wrId(4)))
                .getMessage());
        srq.postRecv(new RecvWorkRequest().wrId(5).next(new RecvWorkRequest().wrId(6)));
        assertEquals("WR #0 (wr_id=7) of the chain: SRQ " + srq.handle() + " receive queue full: 2 WRs posted and " +
            "not yet consumed, max_recv_wr 2 (is the chain cyclic?)", assertThrows(BadWorkRequestException.class,
            () -> srq.postRecv(new RecvWorkRequest().wrId(7))).getMessage());
    }
}
