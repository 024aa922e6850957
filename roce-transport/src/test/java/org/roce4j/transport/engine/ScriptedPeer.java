package org.roce4j.transport.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import org.agrona.concurrent.CachedNanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.AsyncEvent;
import org.roce4j.ib.AsyncEventType;
import org.roce4j.ib.Mtu;
import org.roce4j.ib.QpAttrMask;
import org.roce4j.ib.QpAttributes;
import org.roce4j.ib.QpCapabilities;
import org.roce4j.ib.QpState;
import org.roce4j.ib.QpType;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.transport.TransportCounter;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.transport.provider.EngineConfig;
import org.roce4j.wire.RoceFrameBuilder;
import org.roce4j.wire.RoceFrameParser;
import org.roce4j.wire.addr.Gid;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * One engine under test facing a scripted peer: the test crafts every packet the peer sends with
 * {@link RoceFrameBuilder} and looks at every packet the engine sends back, parsed into {@link SentPacket} records.
 *
 * <p>The engine runs in invoker mode on a {@link CachedNanoClock} that only moves when the test moves it, so no
 * timer fires by accident. The engine's QP is connected to peer QP {@link #PEER_QPN} at {@link #PEER}'s address;
 * its responder expects {@link #RQ_PSN} first and its requester starts at {@link #SQ_PSN}, path MTU 256.
 */
final class ScriptedPeer extends PeerFrames
{
    /** The engine's address. */
    static final LinkAddress ENGINE = EnginePair.ADDRESS_A;
    /** The scripted peer's address. */
    static final LinkAddress PEER = EnginePair.ADDRESS_B;
    /** The peer's QP number (the engine's QP is connected to it). */
    static final int PEER_QPN = 0x77;
    /** First PSN the engine's responder expects. */
    static final int RQ_PSN = 0x100;
    /** First PSN the engine's requester sends. */
    static final int SQ_PSN = 0x500;
    /** Path MTU of the engine's QP. */
    static final Mtu MTU = Mtu.MTU_256;
    /** {@link #MTU} in bytes. */
    static final int MTU_BYTES = 256;
    /** Q_Key of UD QPs. */
    static final int QKEY = 0x1111_1111;
    /** min_rnr_timer of the engine's QP: code 12, 0.64 ms. */
    static final int MIN_RNR_TIMER = 12;
    /** Clock value when the harness starts. */
    static final long START_NS = 1_000_000_000L;

    /** Counters that only move when something unusual happens; tests state each one they expect to move. */
    private static final EnumSet<TransportCounter> ANOMALIES = EnumSet.complementOf(EnumSet.of(
        TransportCounter.PACKETS_SENT, TransportCounter.PACKETS_RECEIVED, TransportCounter.PAYLOAD_BYTES_SENT,
        TransportCounter.PAYLOAD_BYTES_RECEIVED, TransportCounter.ACKS_SENT, TransportCounter.ACKS_RECEIVED,
        TransportCounter.SEND_COMPLETIONS, TransportCounter.RECEIVE_COMPLETIONS, TransportCounter.WINDOW_STALLS,
        TransportCounter.ORD_STALLS, TransportCounter.FENCE_STALLS, TransportCounter.FLUSHES_EXECUTED));

    final CachedNanoClock clock = new CachedNanoClock();
    final TestLink link;
    final RoceEngine engine;
    final QpContext qp;
    final CompletionRing sendCq = new CompletionRing(1, 4096);
    final CompletionRing recvCq = new CompletionRing(2, 4096);
    final QpAttributes attributes = new QpAttributes();
    private final RoceFrameParser parser = new RoceFrameParser();
    private long nextIova = 0x10_0000_0000L;


    private ScriptedPeer(final QpType type, final QpState upTo, final Consumer<EngineConfig> configure,
        final Consumer<QpAttributes> tweak, final ReceiveQueue srq, final int maxRecvSge)
    {
        clock.update(START_NS);
        final TestLink[] links = TestLink.pair(ENGINE, PEER, 1500);
        link = links[0];
        link.recordSent = true;
        // Nobody polls the peer side: the test reads what the engine sent from the record.
        link.dropWhen(frame -> true);
        final EngineConfig config = new EngineConfig().clock(clock);
        configure.accept(config);
        engine = new RoceEngine(link, config);
        EngineHealthCheck.track(engine);
        final QpCapabilities caps = new QpCapabilities();
        caps.maxSendWr = 64;
        caps.maxRecvWr = 64;
        caps.maxSendSge = 4;
        caps.maxRecvSge = maxRecvSge;
        caps.maxInlineData = 64;
        qp = engine.createQp(type, 1, caps, sendCq, recvCq, srq, false);

        final QpAttributes attr = attributes;
        attr.qpAccessFlags = AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC;
        attr.qkey = QKEY;
        attr.pathMtu = MTU;
        attr.destQpNum = PEER_QPN;
        attr.rqPsn = RQ_PSN;
        attr.sqPsn = SQ_PSN;
        attr.ahAttr.dgid(Gid.IPV4_MAPPED_HIGH, PEER.ipv4MappedLow()).sgidIndex(1).hopLimit(64);
        attr.minRnrTimer = MIN_RNR_TIMER;
        attr.timeout = 14;
        attr.retryCnt = 7;
        attr.rnrRetry = 7;
        attr.maxRdAtomic = 4;
        attr.maxDestRdAtomic = 4;
        tweak.accept(attr);

        attr.qpState = QpState.INIT;
        engine.modifyQp(qp, attr, QpAttrMask.STATE | QpAttrMask.ACCESS_FLAGS | QpAttrMask.QKEY);
        if (upTo.ordinal() >= QpState.RTR.ordinal())
        {
            attr.qpState = QpState.RTR;
            engine.modifyQp(qp, attr, type.isDatagram() ? QpAttrMask.STATE : QpAttrMask.STATE | QpAttrMask.AV |
                QpAttrMask.PATH_MTU | QpAttrMask.DEST_QPN | QpAttrMask.RQ_PSN | QpAttrMask.MAX_DEST_RD_ATOMIC |
                QpAttrMask.MIN_RNR_TIMER);
        }
        if (upTo.ordinal() >= QpState.RTS.ordinal())
        {
            attr.qpState = QpState.RTS;
            engine.modifyQp(qp, attr, QpType.RC == type ? QpAttrMask.STATE | QpAttrMask.SQ_PSN |
                QpAttrMask.TIMEOUT | QpAttrMask.RETRY_CNT | QpAttrMask.RNR_RETRY | QpAttrMask.MAX_QP_RD_ATOMIC :
                QpAttrMask.STATE | QpAttrMask.SQ_PSN);
        }
        run();
        events();
    }

    /**
     * @return an RC QP in RTS with the defaults.
     */
    static ScriptedPeer rc()
    {
        return create(QpType.RC, QpState.RTS, config -> {}, attr -> {});
    }

    /**
     * @param tweak changes to the default QP attributes.
     * @return an RC QP in RTS.
     */
    static ScriptedPeer rc(final Consumer<QpAttributes> tweak)
    {
        return create(QpType.RC, QpState.RTS, config -> {}, tweak);
    }

    /**
     * @param type      QP type.
     * @param upTo      state to bring the QP to (INIT, RTR or RTS).
     * @param configure changes to the engine configuration.
     * @param tweak     changes to the default QP attributes.
     * @return the harness.
     */
    static ScriptedPeer create(final QpType type, final QpState upTo, final Consumer<EngineConfig> configure,
        final Consumer<QpAttributes> tweak)
    {
        return new ScriptedPeer(type, upTo, configure, tweak, null, 4);
    }

    /**
     * @param type       RC or UC.
     * @param srq        the shared receive queue the QP takes its receive WQEs from.
     * @param maxRecvSge the QP's own max_recv_sge (ibv_create_qp ignores it with an SRQ).
     * @return a QP in RTS on the SRQ.
     */
    static ScriptedPeer withSrq(final QpType type, final ReceiveQueue srq, final int maxRecvSge)
    {
        return new ScriptedPeer(type, QpState.RTS, config -> {}, attr -> {}, srq, maxRecvSge);
    }

    // ---- memory and work requests ------------------------------------------------------------------------------

    /**
     * Register zeroed memory in PD 1 at a fresh IOVA.
     *
     * @param size   bytes.
     * @param access access flags.
     * @return the region.
     */
    MemoryRegionEntry mr(final int size, final int access)
    {
        return mrInPd(size, access, 1);
    }

    /**
     * Register zeroed memory at a fresh IOVA.
     *
     * @param size   bytes.
     * @param access access flags.
     * @param pd     protection domain handle.
     * @return the region.
     */
    MemoryRegionEntry mrInPd(final int size, final int access, final int pd)
    {
        final long iova = nextIova;
        nextIova += 1L << 24;
        return engine.registerMemory(iova, access, pd, new UnsafeBuffer(new byte[size]));
    }

    /**
     * Post a receive WR with one SGE.
     *
     * @param wrId   id.
     * @param mr     region.
     * @param offset into the region.
     * @param length bytes.
     */
    void postRecv(final long wrId, final MemoryRegionEntry mr, final int offset, final int length)
    {
        EnginePair.postRecv(qp, wrId, mr, offset, length);
    }

    /**
     * Post a send WR and run the engine.
     *
     * @param fill fills the WQE.
     */
    void post(final Consumer<SendWqe> fill)
    {
        EnginePair.post(engine, qp, fill);
        run();
    }

    /**
     * Move the QP to a state with no other attribute.
     *
     * @param state target.
     */
    void moveTo(final QpState state)
    {
        attributes.qpState = state;
        engine.modifyQp(qp, attributes, QpAttrMask.STATE);
        run();
    }

    /** {@inheritDoc} */
    int engineQpn()
    {
        return qp.qpn();
    }

    /** {@inheritDoc} */
    long engineGidHigh()
    {
        return engine.gids.high(0);
    }

    /** {@inheritDoc} */
    long engineGidLow()
    {
        return engine.gids.low(0);
    }

    // ---- running and observing ---------------------------------------------------------------------------------

    /**
     * Inject frames (all in one receive batch when they fit) and run the engine until it is quiet.
     *
     * @param frames to deliver, in order.
     */
    void deliver(final byte[]... frames)
    {
        for (final byte[] frame : frames)
        {
            link.inject(frame);
        }
        run();
    }

    /**
     * Inject frames and run exactly one duty cycle (to interleave responses with a requester limited by its
     * per-cycle packet budget).
     *
     * @param frames to deliver, in order.
     */
    void step(final byte[]... frames)
    {
        for (final byte[] frame : frames)
        {
            link.inject(frame);
        }
        engine.doWork();
    }

    /**
     * Run duty cycles until one does nothing (the clock does not move).
     */
    void run()
    {
        int cycles = 0;
        while (0 != engine.doWork())
        {
            if (++cycles > 100_000)
            {
                fail("engine never went quiet: " + engine.counters());
            }
        }
    }

    /**
     * Set the clock and run.
     *
     * @param nowNs new clock value.
     */
    void advanceClockTo(final long nowNs)
    {
        clock.update(nowNs);
        run();
    }

    /**
     * @return the current clock value.
     */
    long now()
    {
        return clock.nanoTime();
    }

    /**
     * Take every packet the engine sent since the last call.
     *
     * @return them, parsed, in order.
     */
    List<SentPacket> sent()
    {
        final List<SentPacket> out = new ArrayList<>();
        byte[] frame;
        while (null != (frame = link.sent.pollFirst()))
        {
            link.handledBeforeSent.pollFirst();
            out.add(SentPacket.parse(parser, frame));
        }
        return out;
    }

    /**
     * Take the packets sent since the last call and require exactly one.
     *
     * @return it.
     */
    SentPacket onlySent()
    {
        final List<SentPacket> all = sent();
        assertEquals(1, all.size(), "packets sent: " + all);
        return all.get(0);
    }


    /**
     * @return completions waiting on the send CQ.
     */
    List<WorkCompletion> sendCompletions()
    {
        return drain(sendCq);
    }

    /**
     * @return completions waiting on the receive CQ.
     */
    List<WorkCompletion> recvCompletions()
    {
        return drain(recvCq);
    }

    static List<WorkCompletion> drain(final CompletionRing cq)
    {
        final List<WorkCompletion> out = new ArrayList<>();
        final WorkCompletion[] batch = new WorkCompletion[16];
        for (int i = 0; i < batch.length; i++)
        {
            batch[i] = new WorkCompletion();
        }
        int n;
        while ((n = cq.poll(batch, 0, batch.length)) > 0)
        {
            for (int i = 0; i < n; i++)
            {
                final WorkCompletion copy = new WorkCompletion();
                final WorkCompletion wc = batch[i];
                copy.set(wc.wrId(), wc.status(), wc.opcode(), wc.byteLen(), wc.immData(), wc.qpNum(), wc.srcQp(),
                    wc.wcFlags(), wc.invalidatedRkey());
                out.add(copy);
            }
        }
        return out;
    }

    /**
     * @return asynchronous events raised since the last call, PORT_ACTIVE left out.
     */
    List<AsyncEventType> events()
    {
        final List<AsyncEventType> out = new ArrayList<>();
        AsyncEvent event;
        while (null != (event = engine.pollEvent()))
        {
            if (AsyncEventType.PORT_ACTIVE != event.type())
            {
                out.add(event.type());
            }
        }
        return out;
    }

    /**
     * @param counter a counter.
     * @return its value.
     */
    long counter(final TransportCounter counter)
    {
        return engine.counters().get(counter);
    }

    /**
     * Every anomaly counter (drops, NAKs, duplicates, retries, errors...) must have the value given, or 0 when not
     * listed: a rule firing must be visible in exactly its own counter.
     *
     * @param expected counters expected to have moved.
     */
    void assertAnomalies(final Map<TransportCounter, Long> expected)
    {
        for (final TransportCounter counter : ANOMALIES)
        {
            assertEquals(expected.getOrDefault(counter, 0L).longValue(), counter(counter),
                counter + " in " + engine.counters());
        }
    }

    /**
     * Check completions by work request id and status, in order.
     *
     * @param completions   what was polled.
     * @param wrIdAndStatus pairs of wr_id (a number) and {@link org.roce4j.ib.WcStatus}.
     */
    static void assertCompletions(final List<WorkCompletion> completions, final Object... wrIdAndStatus)
    {
        assertEquals(wrIdAndStatus.length / 2, completions.size(), completions.toString());
        for (int i = 0; i < completions.size(); i++)
        {
            assertEquals(((Number)wrIdAndStatus[2 * i]).longValue(), completions.get(i).wrId(),
                completions.toString());
            assertEquals(wrIdAndStatus[2 * i + 1], completions.get(i).status(), completions.toString());
        }
    }

    /**
     * @param length bytes.
     * @param seed   varies the pattern.
     * @return a recognizable byte pattern.
     */
    static byte[] pattern(final int length, final int seed)
    {
        final byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++)
        {
            bytes[i] = (byte)(i * 7 + seed * 31 + 1);
        }
        return bytes;
    }

    /**
     * @param mr     region.
     * @param offset into it.
     * @param length bytes.
     * @return a copy of those bytes.
     */
    static byte[] bytesOf(final MemoryRegionEntry mr, final int offset, final int length)
    {
        final byte[] out = new byte[length];
        mr.memory().getBytes(offset, out);
        return out;
    }

    /**
     * @param bytes  source.
     * @param from   first index.
     * @param length bytes.
     * @return the slice.
     */
    static byte[] slice(final byte[] bytes, final int from, final int length)
    {
        return Arrays.copyOfRange(bytes, from, from + length);
    }
}
