package org.roce4j.bench.link;

import java.util.concurrent.atomic.AtomicBoolean;

import org.agrona.BufferUtil;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.SystemNanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.bench.baseline.Baselines;
import org.roce4j.transport.link.FrameHandler;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.transport.link.LinkCounter;
import org.roce4j.transport.link.fault.FaultRule;
import org.roce4j.transport.link.memory.FabricCounter;
import org.roce4j.transport.link.memory.MemoryFabric;
import org.roce4j.transport.link.memory.MemoryLink;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RoceFrameBuilder;

/**
 * The memory fabric alone, on frames (no engine): frames per second through send + poll on one thread (with and
 * without every fault kind armed) and from one thread to another, next to copies of the same frame into a
 * ring-sized buffer ({@link Baselines#frameCopiesPerSecond}) measured in the same run. Run by hand:
 * <pre>
 * java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -cp bench/target/benchmarks.jar \
 *     org.roce4j.bench.link.MemoryFabricFrameBench [secondsPerCase]
 * </pre>
 */
public final class MemoryFabricFrameBench
{
    private static final int BATCH = 64;
    private static final int MTU = 4200;
    /** The fabric's default ring, and the target of the copy baseline. */
    private static final int RING_BYTES = 4 * 1024 * 1024;
    /** Locally administered unicast MACs 02:00:00:00:00:0n. */
    private static final long MAC_PREFIX = 0x02_00_00_00_00_00L;
    /** 10.0.0.n. */
    private static final int NET = 0x0A00_0000;
    /** rxe's UDP source port base; any value works. */
    private static final int SOURCE_PORT = 0xC000;
    /** Frames the two-thread sender keeps in flight: 512 frames of 4 KiB is 2 MiB, half the default ring. */
    private static final int WINDOW_FRAMES = 512;

    private long sink;
    private final FrameHandler handler = this::onFrame;

    private MemoryFabricFrameBench()
    {
    }

    /**
     * @param args optional seconds per case (default 2).
     * @throws InterruptedException when interrupted while the two-thread case runs.
     */
    public static void main(final String[] args) throws InterruptedException
    {
        final double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 2.0;
        final MemoryFabricFrameBench check = new MemoryFabricFrameBench();
        for (final int payload : new int[]{64, 4096})
        {
            final double copy = check.memcpy(payload, seconds);
            final double plain = check.oneThread(payload, seconds, false);
            final double faulty = check.oneThread(payload, seconds, true);
            final double twoThreads = check.twoThreads(payload, seconds);
            System.out.printf("payload %4d B: memcpy %,.0f frames/s | fabric 1 thread %,.0f (%.2f of memcpy)" +
                " | with faults armed %,.0f | 2 threads delivered %,.0f frames/s%n",
                payload, copy, plain, plain / copy, faulty, twoThreads);
        }
        System.out.println("sink " + check.sink);
    }

    private static int frame(final UnsafeBuffer buffer, final LinkAddress from, final LinkAddress to, final int payload)
    {
        final RoceFrameBuilder builder = new RoceFrameBuilder();
        builder.wrap(buffer, 0).ethernet(0, from.mac()).ipv4(from.ipv4(), to.ipv4()).udp(SOURCE_PORT)
            .bth(Opcode.RC_RDMA_WRITE_MIDDLE, 7, 1);
        return builder.payloadLength(payload).finish();
    }

    private static LinkAddress address(final int host)
    {
        return new LinkAddress(MAC_PREFIX | host, NET | host);
    }

    private double memcpy(final int payload, final double seconds)
    {
        final UnsafeBuffer source = new UnsafeBuffer(BufferUtil.allocateDirectAligned(8192, 64));
        final int length = frame(source, address(1), address(2), payload);
        return Baselines.frameCopiesPerSecond(source, length, RING_BYTES, (long)(seconds * 1e9));
    }

    private double oneThread(final int payload, final double seconds, final boolean faults)
    {
        try (MemoryFabric fabric = new MemoryFabric(SystemNanoClock.INSTANCE))
        {
            final MemoryLink a = fabric.attach(address(1), MTU);
            final MemoryLink b = fabric.attach(address(2), MTU);
            if (faults)
            {
                // Every kind armed at a low rate plus a rule that is evaluated on every frame.
                a.faults().seed(1).loss(0.001).duplication(0.001).corruption(0.001, 1).reordering(0.001, 3)
                    .delay(0.001, 1_000, 1_000).addRule(FaultRule.drop().destQp(0xABCDEF));
            }
            final UnsafeBuffer source = new UnsafeBuffer(BufferUtil.allocateDirectAligned(8192, 64));
            final int length = frame(source, a.address(), b.address(), payload);
            long frames = 0;
            final long endNs = System.nanoTime() + (long)(seconds * 1e9);
            long startNs = 0;
            boolean warm = false;
            while (true)
            {
                for (int i = 0; i < BATCH; i++)
                {
                    final int index = a.tryClaim(length);
                    a.sendBuffer().putBytes(index, source, 0, length);
                    a.commit(index, length);
                }
                a.flush();
                int polled;
                do
                {
                    polled = b.poll(handler, BATCH);
                }
                while (polled > 0);
                frames += BATCH;
                final long nowNs = System.nanoTime();
                if (!warm && nowNs - endNs + (long)(seconds * 0.5e9) > 0)
                {
                    warm = true;
                    frames = 0;
                    startNs = nowNs;
                }
                if (nowNs - endNs > 0)
                {
                    final long received = b.counters().get(LinkCounter.FRAMES_RECEIVED);
                    sink += received;
                    return frames / ((nowNs - startNs) / 1e9);
                }
            }
        }
    }

    private double twoThreads(final int payload, final double seconds) throws InterruptedException
    {
        try (MemoryFabric fabric = new MemoryFabric(SystemNanoClock.INSTANCE))
        {
            final MemoryLink a = fabric.attach(address(1), MTU);
            final MemoryLink b = fabric.attach(address(2), MTU);
            final UnsafeBuffer source = new UnsafeBuffer(BufferUtil.allocateDirectAligned(8192, 64));
            final int length = frame(source, a.address(), b.address(), payload);
            final AtomicBoolean running = new AtomicBoolean(true);
            final Thread sender = new Thread(() ->
            {
                long sent = 0;
                while (running.get())
                {
                    // A window of frames in flight, as RC flow control keeps it, instead of flooding the ring.
                    if (sent - b.counters().get(LinkCounter.FRAMES_RECEIVED) > WINDOW_FRAMES)
                    {
                        // Yield rather than spin: on a shared 2-core machine the receiver may need this core.
                        Thread.yield();
                        continue;
                    }
                    sent += BATCH;
                    for (int i = 0; i < BATCH; i++)
                    {
                        final int index = a.tryClaim(length);
                        a.sendBuffer().putBytes(index, source, 0, length);
                        a.commit(index, length);
                    }
                }
            }, "sender");
            final long[] received = new long[1];
            final Thread receiver = new Thread(() ->
            {
                final FrameHandler counting = (buffer, offset, frameLength) -> received[0]++;
                while (running.get())
                {
                    if (0 == b.poll(counting, BATCH))
                    {
                        Thread.yield();
                    }
                }
            }, "receiver");
            sender.start();
            receiver.start();
            Thread.sleep((long)(seconds * 500));
            final long startFrames = b.counters().get(LinkCounter.FRAMES_RECEIVED);
            final long startNs = System.nanoTime();
            Thread.sleep((long)(seconds * 500));
            final long frames = b.counters().get(LinkCounter.FRAMES_RECEIVED) - startFrames;
            final long elapsedNs = System.nanoTime() - startNs;
            running.set(false);
            sender.join();
            receiver.join();
            System.out.printf("  two threads, payload %d: sent %,d, received %,d, dropped at a full ring %,d%n",
                payload, a.counters().get(LinkCounter.FRAMES_SENT), b.counters().get(LinkCounter.FRAMES_RECEIVED),
                a.fabricCounters().get(FabricCounter.DESTINATION_FULL));
            sink += received[0];
            return frames / (elapsedNs / 1e9);
        }
    }

    private void onFrame(final MutableDirectBuffer buffer, final int offset, final int length)
    {
        sink += buffer.getByte(offset + length - 1);
    }
}
