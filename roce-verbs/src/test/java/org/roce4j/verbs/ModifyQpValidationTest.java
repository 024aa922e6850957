package org.roce4j.verbs;

import java.util.function.Consumer;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.roce4j.ib.AsyncEventType;
import org.roce4j.ib.Mtu;
import org.roce4j.ib.QpAttrMask;
import org.roce4j.ib.QpAttributes;
import org.roce4j.ib.QpState;
import org.roce4j.ib.QpType;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WrOpcode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.roce4j.ib.QpAttrMask.ACCESS_FLAGS;
import static org.roce4j.ib.QpAttrMask.ALT_PATH;
import static org.roce4j.ib.QpAttrMask.AV;
import static org.roce4j.ib.QpAttrMask.CUR_STATE;
import static org.roce4j.ib.QpAttrMask.DEST_QPN;
import static org.roce4j.ib.QpAttrMask.MAX_DEST_RD_ATOMIC;
import static org.roce4j.ib.QpAttrMask.MAX_QP_RD_ATOMIC;
import static org.roce4j.ib.QpAttrMask.MIN_RNR_TIMER;
import static org.roce4j.ib.QpAttrMask.PATH_MTU;
import static org.roce4j.ib.QpAttrMask.PKEY_INDEX;
import static org.roce4j.ib.QpAttrMask.PORT;
import static org.roce4j.ib.QpAttrMask.QKEY;
import static org.roce4j.ib.QpAttrMask.RETRY_CNT;
import static org.roce4j.ib.QpAttrMask.RNR_RETRY;
import static org.roce4j.ib.QpAttrMask.RQ_PSN;
import static org.roce4j.ib.QpAttrMask.SQ_PSN;
import static org.roce4j.ib.QpAttrMask.STATE;
import static org.roce4j.ib.QpAttrMask.TIMEOUT;

/**
 * ibv_modify_qp validation: every error names its problem, and a refused modify changes nothing.
 */
class ModifyQpValidationTest
{
    private static final int RC_RTR = STATE | AV | PATH_MTU | DEST_QPN | RQ_PSN | MAX_DEST_RD_ATOMIC | MIN_RNR_TIMER;
    private static final int RC_RTS = STATE | SQ_PSN | TIMEOUT | RETRY_CNT | RNR_RETRY | MAX_QP_RD_ATOMIC;

    private final VerbsFixture fx = new VerbsFixture();

    @AfterEach
    void close()
    {
        fx.close();
    }

    /** A valid attribute set for the transition into {@code target} of an RC QP. */
    private QpAttributes valid(final QpState target)
    {
        final QpAttributes attr = new QpAttributes();
        attr.qpState = target;
        attr.portNum = 1;
        attr.pathMtu = Mtu.MTU_1024;
        attr.destQpNum = 0x22;
        attr.rqPsn = 1;
        attr.sqPsn = 2;
        attr.ahAttr.dgid(fx.b.queryGid(1).high(), fx.b.queryGid(1).low()).sgidIndex(1);
        attr.timeout = 14;
        attr.retryCnt = 7;
        attr.rnrRetry = 7;
        attr.maxRdAtomic = 1;
        attr.maxDestRdAtomic = 1;
        return attr;
    }

    private QueuePair rcQp(final QpState state)
    {
        final CompletionQueue cq = fx.a.createCq(16);
        final QueuePair qp = fx.pdA.createQp(VerbsFixture.init(QpType.RC, cq, cq));
        if (QpState.RESET == state)
        {
            return qp;
        }
        qp.modify(valid(QpState.INIT), STATE | PKEY_INDEX | PORT | ACCESS_FLAGS);
        if (QpState.INIT == state)
        {
            return qp;
        }
        qp.modify(valid(QpState.RTR), RC_RTR);
        if (QpState.RTR == state)
        {
            return qp;
        }
        qp.modify(valid(QpState.RTS), RC_RTS);
        return qp;
    }

    static Stream<Arguments> refusals()
    {
        return Stream.of(
            // from, mask, tweak, exception type, expected message tail
            Arguments.of(QpState.RTR, RC_RTS & ~TIMEOUT, tweak(a -> { }), IllegalArgumentException.class,
                "RTR→RTS for RC requires TIMEOUT|RETRY_CNT|RNR_RETRY|MAX_QP_RD_ATOMIC|SQ_PSN; missing TIMEOUT"),
            Arguments.of(QpState.INIT, STATE | PATH_MTU, tweak(a -> a.qpState = QpState.INIT),
                IllegalArgumentException.class,
                "attribute PATH_MTU not allowed in INIT→INIT for RC (allowed: ACCESS_FLAGS|PKEY_INDEX|PORT)"),
            Arguments.of(QpState.RESET, STATE, tweak(a -> a.qpState = QpState.RTS), IllegalArgumentException.class,
                "transition RESET→RTS is not allowed; from RESET a QP may go to RESET, INIT"),
            Arguments.of(QpState.RESET, STATE, tweak(a -> a.qpState = QpState.ERR), IllegalArgumentException.class,
                "transition RESET→ERR is not allowed; from RESET a QP may go to RESET, INIT"),
            Arguments.of(QpState.RTR, MIN_RNR_TIMER, tweak(a -> { }), IllegalArgumentException.class,
                "transition RTR→RTR is not allowed (the mask has no STATE, so the QP would stay in RTR); " +
                "from RTR a QP may go to RESET, RTS, ERR"),
            Arguments.of(QpState.RTS, STATE | CUR_STATE, tweak(a -> a.curQpState = QpState.SQD),
                IllegalStateException.class, "cur_qp_state mismatch: the attributes say SQD but the QP is in RTS"),
            Arguments.of(QpState.INIT, STATE | CUR_STATE, tweak(a -> a.curQpState = QpState.INIT),
                IllegalArgumentException.class, "CUR_STATE may only be given in RTR, RTS, SQD or SQE; the QP is " +
                "in INIT"),
            Arguments.of(QpState.RTR, RC_RTS, tweak(a -> a.timeout = 32), IllegalArgumentException.class,
                "timeout (local ACK timeout 4.096 µs × 2^timeout, 0 = infinite) must be 0..31, got 32"),
            Arguments.of(QpState.RTR, RC_RTS, tweak(a -> a.retryCnt = 8), IllegalArgumentException.class,
                "retry_cnt (7 = retry forever) must be 0..7, got 8"),
            Arguments.of(QpState.RTR, RC_RTS, tweak(a -> a.rnrRetry = 8), IllegalArgumentException.class,
                "rnr_retry (7 = retry forever) must be 0..7, got 8"),
            Arguments.of(QpState.INIT, RC_RTR, tweak(a -> a.minRnrTimer = 32), IllegalArgumentException.class,
                "min_rnr_timer (an IBA RNR timer code) must be 0..31, got 32"),
            Arguments.of(QpState.RTR, RC_RTS, tweak(a -> a.maxRdAtomic = 129), IllegalArgumentException.class,
                "max_rd_atomic must be 0..128, got 129"),
            Arguments.of(QpState.INIT, RC_RTR, tweak(a -> a.maxDestRdAtomic = 129), IllegalArgumentException.class,
                "max_dest_rd_atomic must be 0..128, got 129"),
            Arguments.of(QpState.INIT, RC_RTR, tweak(a -> a.pathMtu = Mtu.MTU_2048), IllegalArgumentException.class,
                "path_mtu 2048 exceeds the port's active MTU 1024 (link MTU 1500)"),
            Arguments.of(QpState.INIT, RC_RTR, tweak(a -> a.destQpNum = 0x100_0000), IllegalArgumentException.class,
                "dest_qp_num 0x1000000 does not fit in 24 bits"),
            Arguments.of(QpState.INIT, RC_RTR, tweak(a -> a.rqPsn = -1), IllegalArgumentException.class,
                "rq_psn 0xffffffff does not fit in 24 bits"),
            Arguments.of(QpState.RTR, RC_RTS, tweak(a -> a.sqPsn = 0x100_0000), IllegalArgumentException.class,
                "sq_psn 0x1000000 does not fit in 24 bits"),
            Arguments.of(QpState.INIT, RC_RTR, tweak(a -> a.ahAttr.sgidIndex(2)), IllegalArgumentException.class,
                "ah_attr.grh.sgid_index 2 is not in the GID table (2 entries: 0 link-local fe80::ff:fe00:a, 1 " +
                "IPv4-mapped ::ffff:10.0.0.1)"),
            Arguments.of(QpState.INIT, RC_RTR, tweak(a -> a.ahAttr.sgidIndex(0)), IllegalArgumentException.class,
                "ah_attr: destination GID ::ffff:10.0.0.2 is IPv4-mapped but source GID index 0 (fe80::ff:fe00:a) " +
                "is IPv6: RoCEv2 needs both ends in one IP family (use sgid_index 1)"),
            Arguments.of(QpState.INIT, RC_RTR, tweak(a -> a.ahAttr.dgid(0, 0)), IllegalArgumentException.class,
                "ah_attr.grh.dgid is the unspecified address ::"),
            Arguments.of(QpState.INIT, RC_RTR, tweak(a -> a.ahAttr.hopLimit(256)), IllegalArgumentException.class,
                "ah_attr.grh.hop_limit must be 0..255, got 256"),
            Arguments.of(QpState.INIT, RC_RTR, tweak(a -> a.ahAttr.portNum(2)), IllegalArgumentException.class,
                "port_num must be 1 (a roce4j device has one port), got 2"),
            Arguments.of(QpState.RESET, STATE | PKEY_INDEX | PORT | ACCESS_FLAGS,
                tweak(a ->
                {
                    a.qpState = QpState.INIT;
                    a.pkeyIndex = 1;
                }), IllegalArgumentException.class,
                "pkey_index must be 0 (the P_Key table holds only the default P_Key 0xFFFF), got 1"),
            Arguments.of(QpState.RESET, STATE | PKEY_INDEX | PORT | ACCESS_FLAGS,
                tweak(a ->
                {
                    a.qpState = QpState.INIT;
                    a.portNum = 2;
                }), IllegalArgumentException.class,
                "port_num must be 1 (a roce4j device has one port), got 2"),
            Arguments.of(QpState.RESET, STATE | PKEY_INDEX | PORT | ACCESS_FLAGS,
                tweak(a ->
                {
                    a.qpState = QpState.INIT;
                    a.qpAccessFlags = 0x40;
                }), IllegalArgumentException.class,
                "unknown qp_access_flags bits 0x40"),
            Arguments.of(QpState.INIT, RC_RTR | ALT_PATH, tweak(a -> { }), IllegalArgumentException.class,
                "ALT_PATH: alternate paths and automatic path migration are not supported on RoCE"),
            Arguments.of(QpState.RTS, 1 << 25, tweak(a -> { }), IllegalArgumentException.class,
                "unknown attribute mask bits 0x2000000"),
            Arguments.of(QpState.RESET, STATE | PKEY_INDEX | PORT | ACCESS_FLAGS | QKEY,
                tweak(a -> a.qpState = QpState.INIT), IllegalArgumentException.class,
                "attribute QKEY not allowed in RESET→INIT for RC (allowed: ACCESS_FLAGS|PKEY_INDEX|PORT)"));
    }

    private static Consumer<QpAttributes> tweak(final Consumer<QpAttributes> tweak)
    {
        return tweak;
    }

    @ParameterizedTest(name = "[{index}] {4}")
    @MethodSource("refusals")
    void refusedModifyNamesTheProblemAndChangesNothing(
        final QpState from,
        final int mask,
        final Consumer<QpAttributes> tweak,
        final Class<? extends RuntimeException> type,
        final String message)
    {
        final QueuePair qp = rcQp(from);
        final QpAttributes before = qp.query(new QpAttributes(), QpAttrMask.ALL);
        final QpState target = QpState.values()[Math.min(from.ordinal() + 1, QpState.RTS.ordinal())];
        final QpAttributes attr = valid(target);
        tweak.accept(attr);
        final RuntimeException ex = assertThrows(type, () -> qp.modify(attr, mask));
        assertEquals("QP 0x" + Integer.toHexString(qp.qpNum()) + ": " + message, ex.getMessage());
        assertEquals(from, qp.state());
        assertEquals(before.toString(), qp.query(new QpAttributes(), QpAttrMask.ALL).toString());
    }

    @Test
    void curStateMatchingTheQpIsAccepted()
    {
        final QueuePair qp = rcQp(QpState.RTS);
        final QpAttributes attr = valid(QpState.RTS);
        attr.curQpState = QpState.RTS;
        attr.minRnrTimer = 12;
        qp.modify(attr, STATE | CUR_STATE | MIN_RNR_TIMER);
        assertEquals(12, qp.query(new QpAttributes(), MIN_RNR_TIMER).minRnrTimer);
    }

    @Test
    void drainingQpMayOnlyLeaveSqdForErr()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.RC);
        final MemoryRegion src = VerbsFixture.register(fx.pdA, 64, VerbsFixture.ALL_ACCESS);
        final MemoryRegion dst = VerbsFixture.register(fx.pdB, 64, VerbsFixture.ALL_ACCESS);
        c.a.qp.postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
            .addSge(src, 0, 8).rdma(dst.iova(), dst.rkey()));
        fx.a.progress();
        // The WRITE is on the wire and not yet acknowledged: SQD has to drain it.
        final QpAttributes attr = new QpAttributes();
        attr.qpState = QpState.SQD;
        c.a.qp.modify(attr, STATE);
        assertTrue(c.a.qp.query(new QpAttributes(), QpAttrMask.STATE).sqDraining);
        attr.qpState = QpState.RTS;
        final IllegalStateException ex = assertThrows(IllegalStateException.class, () -> c.a.qp.modify(attr, STATE));
        assertEquals("QP 0x" + Integer.toHexString(c.a.qp.qpNum()) + " is still draining its send queue: wait for " +
            "SQ_DRAINED before moving it from SQD to RTS (only ERR is allowed while draining)", ex.getMessage());
        assertEquals(QpState.SQD, c.a.qp.state());

        VerbsFixture.drain(c.a.sendCq, 1);
        assertTrue(VerbsFixture.events(fx.a).stream().anyMatch(e -> AsyncEventType.SQ_DRAINED == e.type()));
        c.a.qp.modify(attr, STATE);
        assertEquals(QpState.RTS, c.a.qp.state());
    }

    @Test
    void udAndGsiUseTheirOwnColumns()
    {
        final CompletionQueue cq = fx.a.createCq(16);
        final QueuePair ud = fx.pdA.createQp(VerbsFixture.init(QpType.UD, cq, cq));
        final QpAttributes attr = new QpAttributes();
        attr.qpState = QpState.INIT;
        attr.portNum = 1;
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
            () -> ud.modify(attr, STATE | PKEY_INDEX | PORT | ACCESS_FLAGS));
        assertEquals("QP 0x" + Integer.toHexString(ud.qpNum()) + ": RESET→INIT for UD requires " +
            "PKEY_INDEX|PORT|QKEY; missing QKEY", ex.getMessage());
        ud.modify(attr, STATE | PKEY_INDEX | PORT | QKEY);

        final QueuePair gsi = fx.pdA.createQp(VerbsFixture.init(QpType.GSI, cq, cq));
        assertEquals(1, gsi.qpNum());
        final IllegalArgumentException gsiEx = assertThrows(IllegalArgumentException.class,
            () -> gsi.modify(attr, STATE | PKEY_INDEX | PORT | QKEY));
        assertEquals("QP 0x1: attribute PORT not allowed in RESET→INIT for GSI (allowed: PKEY_INDEX|QKEY)",
            gsiEx.getMessage());
        gsi.modify(attr, STATE | PKEY_INDEX | QKEY);
        assertEquals(QpState.INIT, gsi.state());
    }

    @Test
    void anyStateMayGoToResetAndInitOrLaterToErr()
    {
        for (final QpState from : new QpState[] {QpState.INIT, QpState.RTR, QpState.RTS})
        {
            final QueuePair qp = rcQp(from);
            final QpAttributes attr = new QpAttributes();
            attr.qpState = QpState.ERR;
            qp.modify(attr, STATE);
            assertEquals(QpState.ERR, qp.state());
            attr.qpState = QpState.RESET;
            qp.modify(attr, STATE);
            assertEquals(QpState.RESET, qp.state());
        }
    }
}
