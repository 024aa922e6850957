package org.roce4j.bench.link;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;

import org.HdrHistogram.Histogram;
import org.roce4j.cm.QpSetup;
import org.roce4j.cm.oob.QpInfo;
import org.roce4j.transport.AccessFlags;
import org.roce4j.transport.QpType;
import org.roce4j.transport.TransportCounter;
import org.roce4j.transport.WcOpcode;
import org.roce4j.transport.WcStatus;
import org.roce4j.transport.WorkCompletion;
import org.roce4j.transport.WrOpcode;
import org.roce4j.transport.engine.EngineConfig;
import org.roce4j.transport.link.Link;
import org.roce4j.transport.link.LinkCounter;
import org.roce4j.verbs.CompletionQueue;
import org.roce4j.verbs.DeviceOptions;
import org.roce4j.wire.addr.Gid;
import org.roce4j.verbs.MemoryRegion;
import org.roce4j.verbs.ProgressGroup;
import org.roce4j.verbs.ProtectionDomain;
import org.roce4j.verbs.QpInitAttributes;
import org.roce4j.verbs.QueuePair;
import org.roce4j.verbs.RdmaDevice;
import org.roce4j.verbs.RecvWorkRequest;
import org.roce4j.verbs.SendFlags;
import org.roce4j.verbs.SendWorkRequest;

/**
 * Two roce4j devices, one over each link, with one connected RC QP each, as perftest sets them up: side A posts,
 * side B answers. Both devices run in INVOKER mode, each driven by its own busy-polling thread (the posting or
 * polling application thread runs the engine's duty cycle, as a perftest process busy-polls its CQ), so each side
 * is one thread plus whatever threads its link owns.
 *
 * <p>{@link #writeThroughput}: A keeps {@code depth} RDMA WRITEs of one size in flight (posted in chains of 16, all
 * signalled) to B's memory region; B's thread runs its engine (responder and ACKs). The figure is completed
 * WRITEs per second. {@link #sendLatency}: A sends a message, B's thread answers each received message with one
 * of the same size, A waits for it (and for its own send completion) before the next, as ibv_rc_pingpong does;
 * the figure is the round-trip time.
 */
final class RcPair implements AutoCloseable
{
    /** Receives B and A keep posted in the latency test. */
    private static final int RX_DEPTH = 64;
    /** WRs posted per postSend in the throughput test (one doorbell per chain). */
    private static final int CHAIN = 16;
    /** Inline data up to this size, as ibv_rc_pingpong and perftest do by default. */
    private static final int INLINE_LIMIT = 64;
    /** Longest a side waits for the other before declaring the run broken. */
    private static final long STALL_LIMIT_NS = 10_000_000_000L;
    private static final long SEND_WRID = 2;
    private static final long RECV_WRID = 1;

    private final RdmaDevice deviceA;
    private final RdmaDevice deviceB;
    private final Side a;
    private final Side b;

    private static final class Side
    {
        final RdmaDevice device;
        final ProtectionDomain pd;
        final MemoryRegion mr;
        final CompletionQueue cq;
        final QueuePair qp;
        final int psn;

        Side(final RdmaDevice device, final int bufferBytes, final int depth)
        {
            this.device = device;
            pd = device.allocPd();
            mr = pd.registerMemory(ByteBuffer.allocateDirect(bufferBytes),
                AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
            cq = device.createCq(2 * depth + 2 * RX_DEPTH);
            qp = pd.createQp(new QpInitAttributes().qpType(QpType.RC).cq(cq)
                .cap(depth, RX_DEPTH, 1, 1, INLINE_LIMIT));
            psn = (int)(System.nanoTime() & 0xFF_FFFF);
        }

        QpInfo info()
        {
            final Gid gid = device.queryGid(1);
            return QpInfo.of(0, qp.qpNum(), psn, gid.high(), gid.low());
        }
    }

    private RcPair(final RdmaDevice deviceA, final RdmaDevice deviceB, final int bufferBytes, final int depth)
    {
        this.deviceA = deviceA;
        this.deviceB = deviceB;
        a = new Side(deviceA, bufferBytes, depth);
        b = new Side(deviceB, bufferBytes, depth);
        final QpSetup setup = new QpSetup().mtu(deviceA.activeMtu().bytes() <= deviceB.activeMtu().bytes() ?
            deviceA.activeMtu() : deviceB.activeMtu()).sgidIndex(1).hopLimit(64)
            .accessFlags(AccessFlags.REMOTE_WRITE);
        setup.toInit(a.qp);
        setup.toInit(b.qp);
        setup.toRts(a.qp, a.psn, b.info());
        setup.toRts(b.qp, b.psn, a.info());
    }

    /**
     * Open a device on each link and connect an RC QP pair.
     *
     * @param linkA       side A's link (the devices own the links from now on).
     * @param linkB       side B's link.
     * @param bufferBytes size of each side's memory region (the largest message).
     * @param depth       send queue depth.
     * @return the pair.
     */
    static RcPair open(final Link linkA, final Link linkB, final int bufferBytes, final int depth)
    {
        final boolean coalesce = Boolean.parseBoolean(System.getProperty("roce4j.bench.coalesceAcks", "true"));
        // Opened here, driven by a thread each: each device needs a group of its own (the default would be this
        // thread's group, shared by both).
        final RdmaDevice deviceA = RdmaDevice.open(linkA, DeviceOptions.invoker().name("bench-a")
            .progressGroup(new ProgressGroup())
            .engineConfig(new EngineConfig().coalesceAcks(coalesce)));
        final RdmaDevice deviceB;
        try
        {
            deviceB = RdmaDevice.open(linkB, DeviceOptions.invoker().name("bench-b").progressGroup(new ProgressGroup())
                .engineConfig(new EngineConfig().coalesceAcks(coalesce)));
        }
        catch (final RuntimeException ex)
        {
            deviceA.close();
            linkB.close();
            throw ex;
        }
        try
        {
            return new RcPair(deviceA, deviceB, bufferBytes, depth);
        }
        catch (final RuntimeException ex)
        {
            deviceA.close();
            deviceB.close();
            throw ex;
        }
    }

    /**
     * Frames side A's link sent so far.
     *
     * @return FRAMES_SENT of A.
     */
    long framesSentA()
    {
        return deviceA.counters().get(LinkCounter.FRAMES_SENT);
    }

    /**
     * @return anomalies seen so far on both sides (retransmissions, link receive errors), for the report.
     */
    String anomalies()
    {
        return "mtu " + deviceA.link().mtu() + "/" + deviceB.link().mtu() + " active " + deviceA.activeMtu() +
            ", retransmitted A " + deviceA.counters().get(TransportCounter.PACKETS_RETRANSMITTED) +
            ", rx errors A/B " + deviceA.counters().get(LinkCounter.RECEIVE_ERRORS) + "/" +
            deviceB.counters().get(LinkCounter.RECEIVE_ERRORS) + ", acks sent B " +
            deviceB.counters().get(TransportCounter.ACKS_SENT);
    }

    /**
     * @return every non-zero counter of both devices.
     */
    String describeCounters()
    {
        return "A:\n" + deviceA.describeCounters() + "\nB:\n" + deviceB.describeCounters();
    }

    /**
     * RDMA WRITE throughput from A to B.
     *
     * @param size      bytes per WRITE.
     * @param depth     WRITEs in flight.
     * @param window    warm-up and measurement durations.
     * @return WRITEs completed per second during the measurement.
     */
    Measurement writeThroughput(final int size, final int depth, final Window window)
    {
        final SendWorkRequest first = chain(CHAIN, WrOpcode.RDMA_WRITE, size);
        final AtomicLong completed = new AtomicLong();
        final Running running = new Running();
        final Thread sender = new Thread(() ->
        {
            final WorkCompletion[] wc = completions(64);
            int outstanding = 0;
            long done = 0;
            long lastProgressNs = System.nanoTime();
            while (running.on || outstanding > 0)
            {
                while (running.on && outstanding + CHAIN <= depth)
                {
                    a.qp.postSend(first);
                    outstanding += CHAIN;
                }
                final int n = a.cq.poll(wc);
                if (n > 0)
                {
                    for (int i = 0; i < n; i++)
                    {
                        check(wc[i], "WRITE");
                    }
                    outstanding -= n;
                    done += n;
                    completed.lazySet(done);
                    lastProgressNs = System.nanoTime();
                }
                else if (System.nanoTime() - lastProgressNs > STALL_LIMIT_NS)
                {
                    running.fail("no WRITE completed for 10 s (" + outstanding + " outstanding; " + anomalies() +
                        ")");
                    break;
                }
            }
            running.senderDone = true;
        }, "bench-write-a");
        final Thread responder = progressThread(deviceB, running, "bench-write-b");
        return window.measure(sender, responder, running, completed);
    }

    /**
     * SEND/RECV round-trip time: A sends, B answers each message with one of the same size.
     *
     * @param size   bytes per message.
     * @param window warm-up and measurement durations.
     * @return the round-trip time histogram of the measurement (nanoseconds) and the round trips per second.
     */
    Measurement sendLatency(final int size, final Window window)
    {
        final RecvWorkRequest recvA = new RecvWorkRequest().wrId(RECV_WRID).addSge(a.mr, 0, Math.max(1, size));
        final RecvWorkRequest recvB = new RecvWorkRequest().wrId(RECV_WRID).addSge(b.mr, 0, Math.max(1, size));
        for (int i = 0; i < RX_DEPTH; i++)
        {
            a.qp.postRecv(recvA);
            b.qp.postRecv(recvB);
        }
        final SendWorkRequest sendA = chain(1, WrOpcode.SEND, size);
        final SendWorkRequest sendB = new SendWorkRequest().wrId(SEND_WRID).opcode(WrOpcode.SEND)
            .sendFlags(SendFlags.SIGNALED | (size <= INLINE_LIMIT ? SendFlags.INLINE : 0))
            .addSge(b.mr, 0, size);
        final AtomicLong completed = new AtomicLong();
        final Running running = new Running();
        final Histogram histogram = new Histogram(3_600_000_000_000L, 3);
        final Thread pinger = new Thread(() ->
        {
            final WorkCompletion[] wc = completions(4);
            long done = 0;
            int receivesPosted = RX_DEPTH;
            while (running.on)
            {
                final long startNs = System.nanoTime();
                a.qp.postSend(sendA);
                boolean sent = false;
                boolean received = false;
                while (!(sent && received))
                {
                    final int n = a.cq.poll(wc);
                    for (int i = 0; i < n; i++)
                    {
                        check(wc[i], "ping");
                        if (WcOpcode.RECV == wc[i].opcode())
                        {
                            received = true;
                            if (--receivesPosted < RX_DEPTH / 2)
                            {
                                while (receivesPosted < RX_DEPTH)
                                {
                                    a.qp.postRecv(recvA);
                                    receivesPosted++;
                                }
                            }
                        }
                        else
                        {
                            sent = true;
                        }
                    }
                    if (0 == n && System.nanoTime() - startNs > STALL_LIMIT_NS)
                    {
                        running.fail("no pong for 10 s (" + anomalies() + ")");
                        running.senderDone = true;
                        return;
                    }
                }
                final long rttNs = System.nanoTime() - startNs;
                if (running.measuring)
                {
                    histogram.recordValue(rttNs);
                }
                completed.lazySet(++done);
            }
            running.senderDone = true;
        }, "bench-ping-a");
        final Thread ponger = new Thread(() ->
        {
            final WorkCompletion[] wc = completions(4);
            int receivesPosted = RX_DEPTH;
            while (running.on || !running.senderDone)
            {
                final int n = b.cq.poll(wc);
                for (int i = 0; i < n; i++)
                {
                    check(wc[i], "pong");
                    if (WcOpcode.RECV == wc[i].opcode())
                    {
                        b.qp.postSend(sendB);
                        if (--receivesPosted < RX_DEPTH / 2)
                        {
                            while (receivesPosted < RX_DEPTH)
                            {
                                b.qp.postRecv(recvB);
                                receivesPosted++;
                            }
                        }
                    }
                }
            }
        }, "bench-ping-b");
        final Measurement measurement = window.measure(pinger, ponger, running, completed);
        return measurement.withHistogram(histogram);
    }

    private SendWorkRequest chain(final int length, final WrOpcode opcode, final int size)
    {
        SendWorkRequest first = null;
        for (int i = 0; i < length; i++)
        {
            final SendWorkRequest wr = new SendWorkRequest().wrId(SEND_WRID).opcode(opcode)
                .sendFlags(SendFlags.SIGNALED | (WrOpcode.SEND == opcode && size <= INLINE_LIMIT ?
                    SendFlags.INLINE : 0))
                .addSge(a.mr, 0, size);
            if (WrOpcode.RDMA_WRITE == opcode)
            {
                wr.rdma(b.mr.iova(), b.mr.rkey());
            }
            wr.next(first);
            first = wr;
        }
        return first;
    }

    private static Thread progressThread(final RdmaDevice device, final Running running, final String name)
    {
        return new Thread(() ->
        {
            while (running.on || !running.senderDone)
            {
                device.progress();
            }
        }, name);
    }

    private static WorkCompletion[] completions(final int count)
    {
        final WorkCompletion[] wc = new WorkCompletion[count];
        for (int i = 0; i < count; i++)
        {
            wc[i] = new WorkCompletion();
        }
        return wc;
    }

    private static void check(final WorkCompletion wc, final String what)
    {
        if (WcStatus.SUCCESS != wc.status())
        {
            throw new IllegalStateException(what + " completed with " + wc.status());
        }
    }

    /**
     * Close both devices (and their links).
     */
    public void close()
    {
        try
        {
            deviceA.close();
        }
        finally
        {
            deviceB.close();
        }
    }
}
