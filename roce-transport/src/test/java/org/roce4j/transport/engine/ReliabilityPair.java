package org.roce4j.transport.engine;

import java.util.ArrayDeque;
import java.util.SplittableRandom;

import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.Mtu;
import org.roce4j.ib.QpAttrMask;
import org.roce4j.ib.QpAttributes;
import org.roce4j.ib.QpCapabilities;
import org.roce4j.ib.QpState;
import org.roce4j.ib.QpType;

import static org.roce4j.transport.engine.ReliabilityHarness.IN_FLIGHT;
import static org.roce4j.transport.engine.ReliabilityHarness.MAX_RDMA;
import static org.roce4j.transport.engine.ReliabilityHarness.MAX_SEND;
import static org.roce4j.transport.engine.ReliabilityHarness.PATTERN;
import static org.roce4j.transport.engine.ReliabilityHarness.RECEIVES;

/**
 * One QP pair of a {@link ReliabilityHarness}: its QPs, CQs and regions, what it has outstanding and expects, and
 * how it is created and connected.
 */
final class ReliabilityPair
{
    QpContext qpA;
    QpContext qpB;
    CompletionRing sendCq;
    CompletionRing recvCq;
    MemoryRegionEntry source;
    MemoryRegionEntry landing;
    MemoryRegionEntry remote;
    MemoryRegionEntry receive;
    final ArrayDeque<long[]> outstanding = new ArrayDeque<>();
    final ArrayDeque<long[]> expectedReceives = new ArrayDeque<>();
    final boolean[] slotBusy = new boolean[IN_FLIGHT];
    long counter;
    int receivesPosted;
    long nextReceiveId;

    /**
     * Create a QP pair, its regions and CQs, and connect it (A's QP the requester, B's the responder).
     *
     * @param a       A's engine.
     * @param b       B's engine.
     * @param mtu     path MTU.
     * @param pattern the harness's random pattern, copied behind B's target region for READs.
     * @param random  the harness's random source (the PSNs).
     * @return the pair, in RTS on both sides.
     */
    static ReliabilityPair connect(final RoceEngine a, final RoceEngine b, final Mtu mtu, final UnsafeBuffer pattern,
        final SplittableRandom random)
    {
        final ReliabilityPair pair = new ReliabilityPair();
        final QpCapabilities caps = new QpCapabilities();
        caps.maxSendWr = IN_FLIGHT;
        caps.maxRecvWr = RECEIVES;
        caps.maxSendSge = 2;
        caps.maxRecvSge = 1;
        pair.sendCq = new CompletionRing(1, 256);
        pair.recvCq = new CompletionRing(2, 256);
        final CompletionRing unusedA = new CompletionRing(3, 16);
        final CompletionRing unusedB = new CompletionRing(4, 16);
        pair.qpA = a.createQp(QpType.RC, 1, caps, pair.sendCq, unusedA, null, false);
        pair.qpB = b.createQp(QpType.RC, 1, caps, unusedB, pair.recvCq, null, false);
        final int all = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ |
            AccessFlags.REMOTE_ATOMIC;
        pair.source = EnginePair.register(a, IN_FLIGHT * MAX_RDMA, all);
        pair.landing = EnginePair.register(a, IN_FLIGHT * MAX_RDMA, all);
        pair.remote = EnginePair.register(b, IN_FLIGHT * MAX_RDMA + PATTERN + 8, all);
        pair.receive = EnginePair.register(b, RECEIVES * MAX_SEND, all);
        pair.remote.memory().putBytes(IN_FLIGHT * MAX_RDMA, pattern, 0, PATTERN);
        final int psnA = random.nextInt(0x100_0000);
        final int psnB = random.nextInt(0x100_0000);
        bringUp(a, pair.qpA, pair.qpB.qpn(), b, psnA, psnB, mtu);
        bringUp(b, pair.qpB, pair.qpA.qpn(), a, psnB, psnA, mtu);
        return pair;
    }

    private static void bringUp(
        final RoceEngine local, final QpContext qp, final int remoteQpn, final RoceEngine remote, final int sqPsn,
        final int rqPsn, final Mtu mtu)
    {
        final QpAttributes attr = new QpAttributes();
        attr.qpState = QpState.INIT;
        attr.qpAccessFlags = AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC;
        local.modifyQp(qp, attr, QpAttrMask.STATE | QpAttrMask.ACCESS_FLAGS);
        attr.qpState = QpState.RTR;
        attr.pathMtu = mtu;
        attr.destQpNum = remoteQpn;
        attr.rqPsn = rqPsn;
        attr.maxDestRdAtomic = 4;
        attr.minRnrTimer = 1;
        attr.ahAttr.dgid(remote.gids.high(1), remote.gids.low(1)).sgidIndex(1);
        local.modifyQp(qp, attr, QpAttrMask.STATE | QpAttrMask.AV | QpAttrMask.PATH_MTU | QpAttrMask.DEST_QPN |
            QpAttrMask.RQ_PSN | QpAttrMask.MAX_DEST_RD_ATOMIC | QpAttrMask.MIN_RNR_TIMER);
        attr.qpState = QpState.RTS;
        attr.sqPsn = sqPsn;
        attr.timeout = 10;
        attr.retryCnt = 7;
        attr.rnrRetry = 7;
        attr.maxRdAtomic = 4;
        local.modifyQp(qp, attr, QpAttrMask.STATE | QpAttrMask.SQ_PSN | QpAttrMask.TIMEOUT | QpAttrMask.RETRY_CNT |
            QpAttrMask.RNR_RETRY | QpAttrMask.MAX_QP_RD_ATOMIC);
    }
}
