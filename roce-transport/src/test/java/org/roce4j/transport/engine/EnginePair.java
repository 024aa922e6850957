package org.roce4j.transport.engine;

import java.nio.ByteBuffer;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

import org.agrona.concurrent.CachedNanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.Mtu;
import org.roce4j.ib.QpAttrMask;
import org.roce4j.ib.QpAttributes;
import org.roce4j.ib.QpCapabilities;
import org.roce4j.ib.QpState;
import org.roce4j.ib.QpType;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.transport.link.Link;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.transport.provider.EngineConfig;
import org.roce4j.wire.addr.Mac;
import org.roce4j.wire.header.Ipv4Header;

/**
 * Two engines in invoker mode on one fake clock, joined by a link pair, with helpers to create connected QPs,
 * register memory, post work and run until a condition holds. Time only moves when both engines are idle, and
 * then straight to the next timer deadline, so tests are deterministic and never sleep.
 */
final class EnginePair
{
    static final LinkAddress ADDRESS_A = new LinkAddress(Mac.parse("02:00:00:00:00:0a"),
        Ipv4Header.parseAddress("10.0.0.1"));
    static final LinkAddress ADDRESS_B = new LinkAddress(Mac.parse("02:00:00:00:00:0b"),
        Ipv4Header.parseAddress("10.0.0.2"));

    final CachedNanoClock clock = new CachedNanoClock();
    final Link linkA;
    final Link linkB;
    final RoceEngine a;
    final RoceEngine b;
    final WorkCompletion[] completions = new WorkCompletion[64];
    private int pd = 1;

    EnginePair(final Link linkA, final Link linkB, final Consumer<EngineConfig> configure)
    {
        clock.update(1_000_000_000L);
        this.linkA = linkA;
        this.linkB = linkB;
        final EngineConfig configA = new EngineConfig().clock(clock);
        final EngineConfig configB = new EngineConfig().clock(clock);
        configure.accept(configA);
        configure.accept(configB);
        a = new RoceEngine(linkA, configA);
        b = new RoceEngine(linkB, configB);
        EngineHealthCheck.track(a);
        EngineHealthCheck.track(b);
        for (int i = 0; i < completions.length; i++)
        {
            completions[i] = new WorkCompletion();
        }
    }

    static EnginePair overTestLinks(final int mtu)
    {
        final TestLink[] links = TestLink.pair(ADDRESS_A, ADDRESS_B, mtu);
        return new EnginePair(links[0], links[1], config -> {});
    }

    TestLink testLinkA()
    {
        return (TestLink)linkA;
    }

    TestLink testLinkB()
    {
        return (TestLink)linkB;
    }

    /** A connected QP pair plus its CQs. */
    static final class Connection
    {
        QpContext qpA;
        QpContext qpB;
        CompletionRing sendCqA;
        CompletionRing recvCqA;
        CompletionRing sendCqB;
        CompletionRing recvCqB;
    }

    Connection connect(final QpType type, final Mtu mtu, final Consumer<QpAttributes> tweak)
    {
        final Connection c = new Connection();
        final QpCapabilities caps = new QpCapabilities();
        caps.maxSendWr = 256;
        caps.maxRecvWr = 256;
        caps.maxSendSge = 4;
        caps.maxRecvSge = 4;
        caps.maxInlineData = 64;
        c.sendCqA = new CompletionRing(1, 1024);
        c.recvCqA = new CompletionRing(2, 1024);
        c.sendCqB = new CompletionRing(3, 1024);
        c.recvCqB = new CompletionRing(4, 1024);
        c.qpA = a.createQp(type, pd, caps, c.sendCqA, c.recvCqA, null, false);
        c.qpB = b.createQp(type, pd, caps, c.sendCqB, c.recvCqB, null, false);
        bringUp(a, c.qpA, c.qpB.qpn(), b, 0x100, 0x200, mtu, tweak);
        bringUp(b, c.qpB, c.qpA.qpn(), a, 0x200, 0x100, mtu, tweak);
        return c;
    }

    private static void bringUp(
        final RoceEngine local,
        final QpContext qp,
        final int remoteQpn,
        final RoceEngine remote,
        final int sqPsn,
        final int rqPsn,
        final Mtu mtu,
        final Consumer<QpAttributes> tweak)
    {
        final QpAttributes attr = new QpAttributes();
        attr.qpState = QpState.INIT;
        attr.qpAccessFlags = AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC;
        attr.qkey = 0x11111111;
        attr.pathMtu = mtu;
        attr.destQpNum = remoteQpn;
        attr.rqPsn = rqPsn;
        attr.sqPsn = sqPsn;
        attr.ahAttr.dgid(remote.gids.high(1), remote.gids.low(1)).sgidIndex(1).hopLimit(64);
        attr.minRnrTimer = 1;
        attr.timeout = 14;
        attr.retryCnt = 7;
        attr.rnrRetry = 7;
        attr.maxRdAtomic = 4;
        attr.maxDestRdAtomic = 4;
        tweak.accept(attr);
        local.modifyQp(qp, attr, QpAttrMask.STATE | QpAttrMask.ACCESS_FLAGS | QpAttrMask.QKEY);
        if (qp.type().isDatagram())
        {
            attr.qpState = QpState.RTR;
            local.modifyQp(qp, attr, QpAttrMask.STATE);
            attr.qpState = QpState.RTS;
            local.modifyQp(qp, attr, QpAttrMask.STATE | QpAttrMask.SQ_PSN);
            return;
        }
        attr.qpState = QpState.RTR;
        local.modifyQp(qp, attr, QpAttrMask.STATE | QpAttrMask.AV | QpAttrMask.PATH_MTU | QpAttrMask.DEST_QPN |
            QpAttrMask.RQ_PSN | QpAttrMask.MAX_DEST_RD_ATOMIC | QpAttrMask.MIN_RNR_TIMER);
        attr.qpState = QpState.RTS;
        local.modifyQp(qp, attr, QpAttrMask.STATE | QpAttrMask.SQ_PSN | QpAttrMask.TIMEOUT | QpAttrMask.RETRY_CNT |
            QpAttrMask.RNR_RETRY | QpAttrMask.MAX_QP_RD_ATOMIC);
    }

    static MemoryRegionEntry register(final RoceEngine engine, final int size, final int access)
    {
        final UnsafeBuffer memory = new UnsafeBuffer(ByteBuffer.allocateDirect(size));
        return engine.registerMemory(memory.addressOffset(), access, 1, memory);
    }

    static SendWqe post(final RoceEngine engine, final QpContext qp, final Consumer<SendWqe> fill)
    {
        final SendWqe wqe = qp.sendQueue().claim();
        if (null == wqe)
        {
            throw new IllegalStateException("send queue full");
        }
        fill.accept(wqe);
        qp.sendQueue().publish();
        engine.ringDoorbell(qp);
        return wqe;
    }

    static void postRecv(final QpContext qp, final long wrId, final MemoryRegionEntry mr, final long offset,
        final int length)
    {
        final RecvWqe wqe = qp.receiveQueue().claim(wrId);
        wqe.sgl().add(mr.iova() + offset, length, mr.lkey());
        qp.receiveQueue().publish();
    }

    /**
     * Run both engines until the condition holds; when both are idle, jump the clock to the next deadline.
     *
     * @param condition to reach.
     * @param maxCycles safety bound.
     * @return cycles run.
     */
    int runUntil(final BooleanSupplier condition, final int maxCycles)
    {
        for (int cycle = 0; cycle < maxCycles; cycle++)
        {
            if (condition.getAsBoolean())
            {
                return cycle;
            }
            final int work = a.doWork() + b.doWork();
            if (0 == work)
            {
                final long next = Math.min(a.earliestDeadlineNs(), b.earliestDeadlineNs());
                if (Long.MAX_VALUE == next)
                {
                    if (condition.getAsBoolean())
                    {
                        return cycle;
                    }
                    throw new AssertionError("both engines idle with no timer and the condition not met; A: " +
                        a.counters() + " / B: " + b.counters());
                }
                clock.update(Math.max(clock.nanoTime() + 1, next));
            }
        }
        throw new AssertionError("condition not met after " + maxCycles + " cycles; A: " + a.counters() +
            " / B: " + b.counters());
    }

    int poll(final CompletionRing cq, final WorkCompletion[] out)
    {
        return cq.poll(out, 0, out.length);
    }
}
