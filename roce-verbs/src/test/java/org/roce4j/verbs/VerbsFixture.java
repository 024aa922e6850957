package org.roce4j.verbs;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import org.agrona.concurrent.CachedNanoClock;
import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.AsyncEvent;
import org.roce4j.ib.Mtu;
import org.roce4j.ib.QpAttrMask;
import org.roce4j.ib.QpAttributes;
import org.roce4j.ib.QpState;
import org.roce4j.ib.QpType;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.wire.addr.Gid;
import org.roce4j.transport.TransportCounter;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.transport.provider.EngineConfig;
import org.roce4j.wire.addr.Mac;
import org.roce4j.wire.header.Ipv4Header;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Two INVOKER-mode devices over a {@link PairLink}, in one simulated-time progress group: every wait runs both
 * engines and, when both are idle, jumps the shared clock to the next timer, so tests are deterministic and never
 * sleep. Helpers bring QPs up through the verbs API (so every test also exercises modify validation).
 */
final class VerbsFixture implements AutoCloseable
{
    static final LinkAddress ADDRESS_A = new LinkAddress(Mac.parse("02:00:00:00:00:0a"),
        Ipv4Header.parseAddress("10.0.0.1"));
    static final LinkAddress ADDRESS_B = new LinkAddress(Mac.parse("02:00:00:00:00:0b"),
        Ipv4Header.parseAddress("10.0.0.2"));
    /** Access granting everything. */
    static final int ALL_ACCESS = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ |
        AccessFlags.REMOTE_ATOMIC;
    /** Simulated seconds a drain may wait. */
    static final long WAIT_NS = 30_000_000_000L;

    final CachedNanoClock clock = new CachedNanoClock();
    final ProgressGroup group = ProgressGroup.simulated(clock);
    final PairLink linkA;
    final PairLink linkB;
    final RdmaDevice a;
    final RdmaDevice b;
    final ProtectionDomain pdA;
    final ProtectionDomain pdB;

    VerbsFixture()
    {
        this(1500);
    }

    VerbsFixture(final int linkMtu)
    {
        this(ADDRESS_A, ADDRESS_B, linkMtu);
    }

    VerbsFixture(final LinkAddress addressA, final LinkAddress addressB, final int linkMtu)
    {
        this(addressA, addressB, linkMtu, config -> {}, config -> {});
    }

    /**
     * @param configA sets engine options of device A beyond the simulated clock.
     * @param configB the same for device B.
     */
    VerbsFixture(final Consumer<EngineConfig> configA, final Consumer<EngineConfig> configB)
    {
        this(ADDRESS_A, ADDRESS_B, 1500, configA, configB);
    }

    private VerbsFixture(final LinkAddress addressA, final LinkAddress addressB, final int linkMtu,
        final Consumer<EngineConfig> configA, final Consumer<EngineConfig> configB)
    {
        clock.update(1_000_000_000L);
        final PairLink[] links = PairLink.pair(addressA, addressB, linkMtu);
        linkA = links[0];
        linkB = links[1];
        final EngineConfig engineA = new EngineConfig().clock(clock);
        configA.accept(engineA);
        final EngineConfig engineB = new EngineConfig().clock(clock);
        configB.accept(engineB);
        a = RdmaDevice.open(linkA, DeviceOptions.invoker().progressGroup(group).engineConfig(engineA).name("A"));
        b = RdmaDevice.open(linkB, DeviceOptions.invoker().progressGroup(group).engineConfig(engineB).name("B"));
        pdA = a.allocPd();
        pdB = b.allocPd();
    }

    public void close()
    {
        a.close();
        b.close();
    }

    /** Attribute values used to bring QPs up; tests tweak them. */
    static final class Params
    {
        Mtu mtu = Mtu.MTU_1024;
        int access = AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC;
        int timeout = 14;
        int retryCnt = 7;
        int rnrRetry = 7;
        int minRnrTimer = 1;
        int maxRdAtomic = 4;
        int maxDestRdAtomic = 4;
        int qkey = 0x1111_1111;
        int psnA = 0x100;
        int psnB = 0x200;
        /** The index of the peer's GID that {@link #connect} names as the destination: 1, the IPv4-mapped GID. */
        int gidIndex = 1;
        /** The source GID index; -1: by the destination's family (1 for an IPv4-mapped GID, else 0). */
        int sourceGidIndex = -1;

        /**
         * For QPs driven by threads of their own on the real clock: local ACK timeout 18 (1.07 s) instead of 14
         * (67 ms). retry_cnt 7 means seven retries (IBA 9.7.6.1.3), so with 14 a loaded two-core machine that holds
         * an engine thread off for half a second ends the QP in RETRY_EXC_ERR, which is not what these tests test.
         *
         * @return the parameters.
         */
        static Params realClock()
        {
            final Params params = new Params();
            params.timeout = 18;
            return params;
        }
    }

    /** One side of a connection. */
    static final class Side
    {
        CompletionQueue sendCq;
        CompletionQueue recvCq;
        QueuePair qp;
    }

    /** A connected pair. */
    static final class Pair
    {
        final Side a = new Side();
        final Side b = new Side();
    }

    static QpInitAttributes init(final QpType type, final CompletionQueue sendCq, final CompletionQueue recvCq)
    {
        return new QpInitAttributes().qpType(type).sendCq(sendCq).recvCq(recvCq).cap(256, 256, 4, 4, 64);
    }

    Pair connect(final QpType type)
    {
        return connect(type, params -> {}, init -> {});
    }

    Pair connect(final QpType type, final Consumer<Params> tweak, final Consumer<QpInitAttributes> tweakInit)
    {
        return connect(type, tweak, tweakInit, tweakInit);
    }

    Pair connect(
        final QpType type,
        final Consumer<Params> tweak,
        final Consumer<QpInitAttributes> tweakInitA,
        final Consumer<QpInitAttributes> tweakInitB)
    {
        final Params params = new Params();
        tweak.accept(params);
        final Pair pair = new Pair();
        pair.a.sendCq = a.createCq(1024);
        pair.a.recvCq = a.createCq(1024);
        pair.b.sendCq = b.createCq(1024);
        pair.b.recvCq = b.createCq(1024);
        final QpInitAttributes initA = init(type, pair.a.sendCq, pair.a.recvCq);
        final QpInitAttributes initB = init(type, pair.b.sendCq, pair.b.recvCq);
        tweakInitA.accept(initA);
        tweakInitB.accept(initB);
        pair.a.qp = pdA.createQp(initA);
        pair.b.qp = pdB.createQp(initB);
        bringUp(pair.a.qp, pair.b.qp.qpNum(), b.queryGid(params.gidIndex), params.psnA, params.psnB, params);
        bringUp(pair.b.qp, pair.a.qp.qpNum(), a.queryGid(params.gidIndex), params.psnB, params.psnA, params);
        return pair;
    }

    static void bringUp(
        final QueuePair qp,
        final int remoteQpn,
        final Gid remoteGid,
        final int sqPsn,
        final int rqPsn,
        final Params params)
    {
        toInit(qp, params);
        toRtr(qp, remoteQpn, remoteGid, rqPsn, params);
        toRts(qp, sqPsn, params);
    }

    static void toInit(final QueuePair qp, final Params params)
    {
        final QpAttributes attr = new QpAttributes();
        attr.qpState = QpState.INIT;
        attr.pkeyIndex = 0;
        attr.portNum = 1;
        attr.qpAccessFlags = params.access;
        attr.qkey = params.qkey;
        final int third = qp.type().isDatagram() ? QpAttrMask.QKEY : QpAttrMask.ACCESS_FLAGS;
        final int port = QpType.GSI == qp.type() ? 0 : QpAttrMask.PORT;
        qp.modify(attr, QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | port | third);
        assertEquals(QpState.INIT, qp.state());
    }

    static void toRtr(
        final QueuePair qp, final int remoteQpn, final Gid remoteGid, final int rqPsn, final Params params)
    {
        final QpAttributes attr = new QpAttributes();
        attr.qpState = QpState.RTR;
        int mask = QpAttrMask.STATE;
        if (!qp.type().isDatagram())
        {
            attr.pathMtu = params.mtu;
            attr.destQpNum = remoteQpn;
            attr.rqPsn = rqPsn;
            attr.ahAttr.dgid(remoteGid.high(), remoteGid.low()).hopLimit(64)
                .sgidIndex(params.sourceGidIndex >= 0 ? params.sourceGidIndex : remoteGid.isIpv4Mapped() ? 1 : 0);
            mask |= QpAttrMask.AV | QpAttrMask.PATH_MTU | QpAttrMask.DEST_QPN | QpAttrMask.RQ_PSN;
            if (QpType.RC == qp.type())
            {
                attr.maxDestRdAtomic = params.maxDestRdAtomic;
                attr.minRnrTimer = params.minRnrTimer;
                mask |= QpAttrMask.MAX_DEST_RD_ATOMIC | QpAttrMask.MIN_RNR_TIMER;
            }
        }
        qp.modify(attr, mask);
        assertEquals(QpState.RTR, qp.state());
    }

    static void toRts(final QueuePair qp, final int sqPsn, final Params params)
    {
        final QpAttributes attr = new QpAttributes();
        attr.qpState = QpState.RTS;
        attr.sqPsn = sqPsn;
        int mask = QpAttrMask.STATE | QpAttrMask.SQ_PSN;
        if (QpType.RC == qp.type())
        {
            attr.timeout = params.timeout;
            attr.retryCnt = params.retryCnt;
            attr.rnrRetry = params.rnrRetry;
            attr.maxRdAtomic = params.maxRdAtomic;
            mask |= QpAttrMask.TIMEOUT | QpAttrMask.RETRY_CNT | QpAttrMask.RNR_RETRY | QpAttrMask.MAX_QP_RD_ATOMIC;
        }
        qp.modify(attr, mask);
        assertEquals(QpState.RTS, qp.state());
    }

    static MemoryRegion register(final ProtectionDomain pd, final int size, final int access)
    {
        return pd.registerMemory(ByteBuffer.allocateDirect(size), access);
    }

    static WorkCompletion[] completions(final int n)
    {
        final WorkCompletion[] out = new WorkCompletion[n];
        for (int i = 0; i < n; i++)
        {
            out[i] = new WorkCompletion();
        }
        return out;
    }

    /**
     * Wait (simulated time) for exactly {@code expected} completions.
     */
    static List<WorkCompletion> drain(final CompletionQueue cq, final int expected)
    {
        final List<WorkCompletion> all = new ArrayList<>();
        final WorkCompletion[] out = completions(16);
        while (all.size() < expected)
        {
            final int n = cq.pollBlocking(out, WAIT_NS);
            if (0 == n)
            {
                throw new AssertionError("timed out with " + all.size() + " of " + expected + " completions on " +
                    cq + ": " + all + "\nA:\n" + cq.device().describeCounters());
            }
            for (int i = 0; i < n; i++)
            {
                all.add(new WorkCompletion().set(out[i].wrId(), out[i].status(), out[i].opcode(), out[i].byteLen(),
                    out[i].immData(), out[i].qpNum(), out[i].srcQp(), out[i].wcFlags(), out[i].invalidatedRkey()));
            }
        }
        return all;
    }

    /**
     * Run both engines until they are idle with no timer armed (or the bound is reached) and assert that the CQ
     * stays empty.
     */
    void settle()
    {
        for (int i = 0; i < 10_000; i++)
        {
            if (0 == group.progress() && Long.MAX_VALUE == group.earliestDeadlineNs())
            {
                return;
            }
            if (0 == group.progress())
            {
                clock.update(Math.max(clock.nanoTime() + 1, group.earliestDeadlineNs()));
            }
        }
        throw new AssertionError("engines did not settle");
    }

    static List<AsyncEvent> events(final RdmaDevice device)
    {
        final List<AsyncEvent> events = new ArrayList<>();
        AsyncEvent event;
        while (null != (event = device.pollAsyncEvent()))
        {
            events.add(event);
        }
        return events;
    }

    void assertNoInternalErrors()
    {
        assertEquals(0, a.counters().get(TransportCounter.INTERNAL_ERRORS), a.describeCounters());
        assertEquals(0, b.counters().get(TransportCounter.INTERNAL_ERRORS), b.describeCounters());
    }
}
