package org.roce4j.transport.engine;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

import org.agrona.concurrent.CachedNanoClock;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.ib.Mtu;
import org.roce4j.ib.QpState;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WcOpcode;
import org.roce4j.ib.WcStatus;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.ib.WrOpcode;
import org.roce4j.transport.TransportCounter;
import org.roce4j.transport.link.Link;
import org.roce4j.transport.link.fault.FaultInjector;
import org.roce4j.transport.link.memory.MemoryFabric;
import org.roce4j.transport.link.memory.MemoryLink;
import org.roce4j.transport.provider.EngineConfig;

/**
 * Drives many RC QP pairs between two engines over the in-memory fabric with a random mix of every operation and
 * checks exactly-once, byte-identical delivery: every SEND lands in the next receive of its QP with the right
 * bytes, every WRITE's bytes are in place when it completes, every READ returns the source bytes, atomics on a
 * per-QP counter are linearizable (each returns exactly the value before it), and every work request completes
 * exactly once with SUCCESS. Time is a CachedNanoClock that jumps to the next deadline when nothing moves.
 */
final class ReliabilityHarness
{
    /** Largest SEND (it must fit a receive buffer). */
    static final int MAX_SEND = 64 * 1024;
    /** Largest WRITE or READ. */
    static final int MAX_RDMA = 1024 * 1024;
    /** Work requests each QP pair keeps outstanding. */
    static final int IN_FLIGHT = 8;
    /** Receives each responder QP keeps posted. */
    static final int RECEIVES = 16;
    /** Bytes of the random pattern every payload is cut from. */
    static final int PATTERN = 2 * MAX_RDMA;

    /** Longest a run over kernel links (system clock) may take before it fails instead of hanging. */
    private static final long WALL_LIMIT_NS = 120_000_000_000L;

    /** The engines' clock when it is simulated (jumped to the next deadline when nothing moves), else null. */
    final CachedNanoClock clock;
    /** The in-memory fabric the links are ports of, or null over kernel links. */
    final MemoryFabric fabric;
    final Link linkA;
    final Link linkB;
    final RoceEngine a;
    final RoceEngine b;
    private final ReliabilityPair[] pairs;
    private final SplittableRandom random;
    private final UnsafeBuffer pattern;
    private final WorkCompletion[] wcs = new WorkCompletion[64];
    private long posted;
    private long completed;
    private long receivesWithheldUntilNs;
    private long withholdPeriodNs;
    private long bytesMoved;

    /**
     * Two engines over the in-memory fabric on a simulated clock.
     *
     * @param qpPairs QP pairs.
     * @param seed    for the operation mix and the data.
     * @param mtu     path MTU.
     * @param window  send window.
     */
    ReliabilityHarness(final int qpPairs, final long seed, final Mtu mtu, final int window)
    {
        this(qpPairs, seed, mtu, window, config -> {});
    }

    /**
     * Two engines over the in-memory fabric on a simulated clock, with more settings.
     *
     * @param qpPairs   QP pairs.
     * @param seed      for the operation mix and the data.
     * @param mtu       path MTU.
     * @param window    send window.
     * @param configure applied to both engines' configurations (congestion control, say).
     */
    ReliabilityHarness(final int qpPairs, final long seed, final Mtu mtu, final int window,
        final Consumer<EngineConfig> configure)
    {
        this(fabricPorts(), qpPairs, seed, mtu, window, configure);
    }

    private ReliabilityHarness(final FabricPorts ports, final int qpPairs, final long seed, final Mtu mtu,
        final int window, final Consumer<EngineConfig> configure)
    {
        this(ports.fabric(), ports.a(), ports.b(), ports.clock(), qpPairs, seed, mtu, window, configure);
    }

    /**
     * Two engines over any two links that reach each other (kernel UDP, the tunnel), on the system clock: the
     * harness never jumps time, it spins while frames are in flight.
     *
     * @param linkA   A's link.
     * @param linkB   B's link.
     * @param qpPairs QP pairs.
     * @param seed    for the operation mix and the data.
     * @param mtu     path MTU.
     * @param window  send window.
     * @return the harness.
     */
    static ReliabilityHarness overLinks(final Link linkA, final Link linkB, final int qpPairs, final long seed,
        final Mtu mtu, final int window)
    {
        return new ReliabilityHarness(null, linkA, linkB, null, qpPairs, seed, mtu, window, config -> {});
    }

    private ReliabilityHarness(final MemoryFabric fabric, final Link linkA, final Link linkB,
        final CachedNanoClock clock, final int qpPairs, final long seed, final Mtu mtu, final int window,
        final Consumer<EngineConfig> configure)
    {
        this.fabric = fabric;
        this.clock = clock;
        this.linkA = linkA;
        this.linkB = linkB;
        random = new SplittableRandom(seed);
        final NanoClock engineClock = null != clock ? clock : SystemNanoClock.INSTANCE;
        // Suites inject heavy loss: retry_cnt 7 retries forever here, as in rxe, so every WR must get through.
        final EngineConfig configA = new EngineConfig().clock(engineClock).sendWindow(window)
            .retryCountSevenForever(true);
        final EngineConfig configB = new EngineConfig().clock(engineClock).sendWindow(window)
            .retryCountSevenForever(true);
        configure.accept(configA);
        configure.accept(configB);
        a = new RoceEngine(linkA, configA);
        b = new RoceEngine(linkB, configB);
        pattern = new UnsafeBuffer(ByteBuffer.allocateDirect(PATTERN));
        for (int i = 0; i < PATTERN; i += 8)
        {
            pattern.putLong(i, random.nextLong());
        }
        for (int i = 0; i < wcs.length; i++)
        {
            wcs[i] = new WorkCompletion();
        }
        pairs = new ReliabilityPair[qpPairs];
        for (int p = 0; p < qpPairs; p++)
        {
            pairs[p] = ReliabilityPair.connect(a, b, mtu, pattern, random);
        }
    }

    /** A's and B's ports on a fabric whose clock the engines share. */
    private record FabricPorts(MemoryFabric fabric, CachedNanoClock clock, MemoryLink a, MemoryLink b)
    {
    }

    private static FabricPorts fabricPorts()
    {
        final CachedNanoClock clock = new CachedNanoClock();
        clock.update(1_000_000_000L);
        final MemoryFabric fabric = MemoryFabric.builder().clock(clock).ringCapacityBytes(16 * 1024 * 1024).build();
        return new FabricPorts(fabric, clock, fabric.attach(EnginePair.ADDRESS_A, 9000),
            fabric.attach(EnginePair.ADDRESS_B, 9000));
    }

    FaultInjector faultsA()
    {
        return ((MemoryLink)linkA).faults();
    }

    FaultInjector faultsB()
    {
        return ((MemoryLink)linkB).faults();
    }

    /**
     * @return QP pairs.
     */
    int pairCount()
    {
        return pairs.length;
    }

    /**
     * @param pair index.
     * @return A's QP of that pair (the requester).
     */
    QpContext qpA(final int pair)
    {
        return pairs[pair].qpA;
    }

    /**
     * @param pair index.
     * @return B's QP of that pair (the responder).
     */
    QpContext qpB(final int pair)
    {
        return pairs[pair].qpB;
    }

    /**
     * @param pair  index.
     * @param onB   true for B's region WRITEs, READs and atomics target, false for A's READ landing region.
     * @return a region a spoofed request could aim at with its real rkey.
     */
    MemoryRegionEntry exposedRegion(final int pair, final boolean onB)
    {
        return onB ? pairs[pair].remote : pairs[pair].landing;
    }

    /**
     * Post no receives for {@code periodNs} out of every 2 * periodNs: an RNR storm.
     *
     * @param periodNs length of each dry spell.
     */
    void withholdReceives(final long periodNs)
    {
        withholdPeriodNs = periodNs;
        receivesWithheldUntilNs = clock.nanoTime() + periodNs;
    }

    /**
     * Run until {@code operations} work requests completed.
     *
     * @param operations total across all QPs.
     * @param maxCycles  safety bound.
     */
    void run(final long operations, final long maxCycles)
    {
        run(operations, maxCycles, cycle -> {});
    }

    /**
     * Run until {@code operations} work requests completed, calling {@code everyCycle} before each duty cycle (a
     * hostile peer injecting frames, say).
     *
     * @param operations total across all QPs.
     * @param maxCycles  safety bound.
     * @param everyCycle called with the cycle number.
     */
    void run(final long operations, final long maxCycles, final LongConsumer everyCycle)
    {
        final long wallDeadlineNs = System.nanoTime() + WALL_LIMIT_NS;
        for (long cycle = 0; cycle < maxCycles; cycle++)
        {
            if (completed >= operations)
            {
                return;
            }
            if (null == clock && System.nanoTime() - wallDeadlineNs > 0)
            {
                break;
            }
            everyCycle.accept(cycle);
            int work = 0;
            for (final ReliabilityPair pair : pairs)
            {
                work += postReceives(pair);
                if (posted < operations)
                {
                    work += postOperations(pair, operations);
                }
            }
            work += a.doWork();
            work += b.doWork();
            for (final ReliabilityPair pair : pairs)
            {
                work += pollSends(pair);
                work += pollReceives(pair);
            }
            if (0 == work)
            {
                advanceClock();
            }
        }
        throw new AssertionError("only " + completed + " of " + operations + " operations completed; A: " +
            a.counters() + " / B: " + b.counters());
    }

    private void advanceClock()
    {
        if (null == clock)
        {
            // Kernel links: frames in flight arrive on their own and timers run on the system clock.
            Thread.onSpinWait();
            return;
        }
        long next = Math.min(a.earliestDeadlineNs(), b.earliestDeadlineNs());
        if (withholdPeriodNs > 0)
        {
            next = Math.min(next, receivesWithheldUntilNs);
        }
        final long now = clock.nanoTime();
        final MemoryLink portA = (MemoryLink)linkA;
        final MemoryLink portB = (MemoryLink)linkB;
        if (portA.heldFrames() + portB.heldFrames() + portA.reorderedFrames() + portB.reorderedFrames() > 0)
        {
            // Delayed or reordered frames become due with time: step in small increments.
            next = Math.min(next, now + 10_000);
        }
        if (Long.MAX_VALUE == next)
        {
            throw new AssertionError("nothing to do and no timer armed with " + (posted - completed) +
                " operations outstanding; A: " + a.counters() + " / B: " + b.counters());
        }
        clock.update(Math.max(now + 1, next));
    }

    private int postReceives(final ReliabilityPair pair)
    {
        if (withholdPeriodNs > 0)
        {
            final long now = clock.nanoTime();
            if (now - receivesWithheldUntilNs < 0)
            {
                return 0;
            }
            if (now - receivesWithheldUntilNs > withholdPeriodNs)
            {
                receivesWithheldUntilNs = now + withholdPeriodNs;
                return 0;
            }
        }
        int n = 0;
        while (pair.receivesPosted < RECEIVES)
        {
            final long id = pair.nextReceiveId++;
            final RecvWqe wqe = pair.qpB.receiveQueue().claim(id);
            final int slot = (int)(id % RECEIVES);
            wqe.sgl().add(pair.receive.iova() + (long)slot * MAX_SEND, MAX_SEND, pair.receive.lkey());
            pair.qpB.receiveQueue().publish();
            pair.receivesPosted++;
            n++;
        }
        return n;
    }

    private int postOperations(final ReliabilityPair pair, final long operations)
    {
        int n = 0;
        while (posted < operations && pair.outstanding.size() < IN_FLIGHT)
        {
            int slot = -1;
            for (int s = 0; s < IN_FLIGHT; s++)
            {
                if (!pair.slotBusy[s])
                {
                    slot = s;
                    break;
                }
            }
            postOne(pair, slot, posted++);
            n++;
        }
        return n;
    }

    private void postOne(final ReliabilityPair pair, final int slot, final long id)
    {
        pair.slotBusy[slot] = true;
        final WrOpcode op = OperationMix.opcode(random);
        final int length = op.isAtomic() ? 8 : OperationMix.length(random, op.isSend() ? MAX_SEND : MAX_RDMA);
        final long slotOffset = (long)slot * MAX_RDMA;
        final int patternOffset = random.nextInt(PATTERN - Math.max(length, 8));
        final long immediate = id & 0x7FFF_FFFFL;
        long expectedOriginal = 0;
        long operand = 0;
        final SendWqe wqe = pair.qpA.sendQueue().claim();
        wqe.wrId(id).opcode(op).flags(SendFlags.SIGNALED);
        if (op.isAtomic())
        {
            final long address = pair.remote.iova() + IN_FLIGHT * (long)MAX_RDMA + PATTERN;
            wqe.remote(address, pair.remote.rkey()).sgl().add(pair.landing.iova() + slotOffset, 8,
                pair.landing.lkey());
            expectedOriginal = pair.counter;
            if (WrOpcode.ATOMIC_FETCH_AND_ADD == op)
            {
                operand = 1 + random.nextInt(1000);
                wqe.atomic(operand, 0);
                pair.counter += operand;
            }
            else
            {
                operand = random.nextLong();
                wqe.atomic(pair.counter, operand);
                pair.counter = operand;
            }
        }
        else if (WrOpcode.RDMA_READ == op)
        {
            wqe.remote(pair.remote.iova() + IN_FLIGHT * (long)MAX_RDMA + patternOffset, pair.remote.rkey())
                .sgl().add(pair.landing.iova() + slotOffset, length, pair.landing.lkey());
        }
        else
        {
            // Source bytes: the pattern at a random offset, copied into this slot of the source region; split in
            // two SGEs to exercise gathering.
            pair.source.memory().putBytes((int)slotOffset, pattern, patternOffset, length);
            final int first = length / 3;
            wqe.sgl().add(pair.source.iova() + slotOffset, first, pair.source.lkey());
            wqe.sgl().add(pair.source.iova() + slotOffset + first, length - first, pair.source.lkey());
            if (op.isWrite())
            {
                wqe.remote(pair.remote.iova() + slotOffset, pair.remote.rkey());
            }
            if (op.hasImmediate())
            {
                wqe.immediate((int)immediate);
            }
            if (op.isSend() || WrOpcode.RDMA_WRITE_WITH_IMM == op)
            {
                pair.expectedReceives.addLast(new long[] {id, op.ordinal(), length, patternOffset, immediate});
            }
        }
        pair.qpA.sendQueue().publish();
        a.ringDoorbell(pair.qpA);
        pair.outstanding.addLast(new long[] {id, op.ordinal(), length, patternOffset, slot, expectedOriginal});
    }

    private int pollSends(final ReliabilityPair pair)
    {
        final int n = pair.sendCq.poll(wcs, 0, wcs.length);
        for (int i = 0; i < n; i++)
        {
            final WorkCompletion wc = wcs[i];
            final long[] op = pair.outstanding.pollFirst();
            if (null == op || op[0] != wc.wrId())
            {
                throw new AssertionError("completion out of order or unexpected: " + wc + " expected wr_id " +
                    (null == op ? "none" : op[0]));
            }
            if (WcStatus.SUCCESS != wc.status())
            {
                throw new AssertionError("operation failed: " + wc + " A: " + a.counters() + " B: " + b.counters());
            }
            verifySend(pair, op);
            pair.slotBusy[(int)op[4]] = false;
            completed++;
        }
        return n;
    }

    private void verifySend(final ReliabilityPair pair, final long[] op)
    {
        final WrOpcode opcode = WrOpcode.values()[(int)op[1]];
        final int length = (int)op[2];
        final int patternOffset = (int)op[3];
        final int slotOffset = (int)op[4] * MAX_RDMA;
        if (opcode.isWrite())
        {
            compare(pair.remote.memory(), slotOffset, patternOffset, length, "WRITE wr_id " + op[0]);
        }
        else if (WrOpcode.RDMA_READ == opcode)
        {
            compare(pair.landing.memory(), slotOffset, patternOffset, length, "READ wr_id " + op[0]);
        }
        else if (opcode.isAtomic())
        {
            final long original = pair.landing.memory().getLong(slotOffset, ByteOrder.nativeOrder());
            if (original != op[5])
            {
                throw new AssertionError(opcode + " wr_id " + op[0] + " returned " + original + ", the value " +
                    "before it was " + op[5] + " (not linearizable or executed twice)");
            }
        }
        bytesMoved += length;
    }

    private int pollReceives(final ReliabilityPair pair)
    {
        final int n = pair.recvCq.poll(wcs, 0, wcs.length);
        for (int i = 0; i < n; i++)
        {
            final WorkCompletion wc = wcs[i];
            final long[] expected = pair.expectedReceives.pollFirst();
            if (null == expected)
            {
                throw new AssertionError("unexpected receive completion " + wc);
            }
            if (WcStatus.SUCCESS != wc.status())
            {
                throw new AssertionError("receive failed: " + wc);
            }
            final WrOpcode opcode = WrOpcode.values()[(int)expected[1]];
            final int length = (int)expected[2];
            if (wc.byteLen() != length)
            {
                throw new AssertionError("receive byte_len " + wc.byteLen() + " expected " + length + " for " +
                    opcode + " wr_id " + expected[0]);
            }
            if (opcode.hasImmediate() && (!wc.hasImmediate() || wc.immData() != (int)expected[4]))
            {
                throw new AssertionError("immediate data wrong for wr_id " + expected[0] + ": " + wc);
            }
            if (opcode.isSend())
            {
                if (WcOpcode.RECV != wc.opcode())
                {
                    throw new AssertionError("expected RECV for a SEND: " + wc);
                }
                final int slot = (int)(wc.wrId() % RECEIVES);
                compare(pair.receive.memory(), slot * MAX_SEND, (int)expected[3], length, "SEND wr_id " + expected[0]);
            }
            else if (WcOpcode.RECV_RDMA_WITH_IMM != wc.opcode())
            {
                throw new AssertionError("expected RECV_RDMA_WITH_IMM for a WRITE with immediate: " + wc);
            }
            pair.receivesPosted--;
        }
        return n;
    }

    private void compare(final UnsafeBuffer memory, final int offset, final int patternOffset, final int length,
        final String what)
    {
        int i = 0;
        for (; i + 8 <= length; i += 8)
        {
            if (memory.getLong(offset + i) != pattern.getLong(patternOffset + i))
            {
                break;
            }
        }
        for (; i < length; i++)
        {
            if (memory.getByte(offset + i) != pattern.getByte(patternOffset + i))
            {
                throw new AssertionError(what + ": byte " + i + " of " + length + " differs");
            }
        }
    }

    /**
     * Check nothing is left over and the engines saw no internal error.
     */
    void verifyQuiet()
    {
        for (final ReliabilityPair pair : pairs)
        {
            if (!pair.outstanding.isEmpty() || !pair.expectedReceives.isEmpty())
            {
                throw new AssertionError("left over: " + pair.outstanding.size() + " sends, " +
                    pair.expectedReceives.size() + " receives");
            }
            if (QpState.RTS != pair.qpA.state() || QpState.RTS != pair.qpB.state())
            {
                throw new AssertionError("a QP left RTS: " + pair.qpA + " / " + pair.qpB);
            }
        }
        if (0 != a.counters().get(TransportCounter.INTERNAL_ERRORS) ||
            0 != b.counters().get(TransportCounter.INTERNAL_ERRORS))
        {
            throw new AssertionError("internal error: " + a.lastInternalError() + " / " + b.lastInternalError());
        }
    }

    long completed()
    {
        return completed;
    }

    long bytesMoved()
    {
        return bytesMoved;
    }
}
