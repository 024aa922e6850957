package org.roce4j.bench.baseline;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;

import org.HdrHistogram.Histogram;
import org.agrona.BufferUtil;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;
import org.roce4j.bench.ServerLoop;

/**
 * The in-process baselines the benchmarks' figures are compared with, measured in the same JVM and run (the raw
 * media have their own classes here: {@link RawUdpBusyPoll}, {@link RawUdpEventLoop}, {@link RawPcap}; so has the
 * peer measured beside roce4j, {@link AeronPeer}):
 * <ul>
 *   <li>memcpy: {@code UnsafeBuffer.putBytes} between two direct buffers (Unsafe.copyMemory), one copy of the
 *   message; the engine makes three per packet on the memory fabric (gather into the frame, frame into the
 *   peer's ring, ring into the target) plus two CRC passes (send and verify);</li>
 *   <li>frame copies: one frame copied slot after slot through a buffer the size of a fabric ring, so the target
 *   lines are as cold as the ring's (what the fabric alone is compared with);</li>
 *   <li>CRC32: {@link CRC32} over a direct buffer (the JDK intrinsic the ICRC uses);</li>
 *   <li>ring hand-off: frames of a given length through the Agrona many-to-one ring the memory fabric uses, from
 *   one thread to another (rate), and back and forth between two threads (round trip): what the medium alone
 *   costs, with no protocol.</li>
 * </ul>
 */
public final class Baselines
{
    /** Iterations between clock reads in the single-thread loops. */
    private static final int BATCH = 64;
    /** Ring size of the hand-off baselines: the memory fabric's default. */
    private static final int RING_BYTES = 4 * 1024 * 1024;
    /** Message type of the hand-off records (any positive value). */
    private static final int MSG_TYPE = 1;
    /** Largest round trip the histogram records exactly: 1 s. */
    private static final long HISTOGRAM_MAX_NS = TimeUnit.SECONDS.toNanos(1);

    /** Keeps CRC results alive so the JIT cannot drop the loop. */
    private static volatile long sink;

    private Baselines()
    {
    }

    /**
     * @param sizeBytes bytes per copy.
     * @param measureNs how long to copy (after a warm-up of a quarter of that).
     * @return bytes copied per second.
     */
    public static double memcpyBytesPerSecond(final int sizeBytes, final long measureNs)
    {
        final UnsafeBuffer source = new UnsafeBuffer(BufferUtil.allocateDirectAligned(sizeBytes, 64));
        final UnsafeBuffer target = new UnsafeBuffer(BufferUtil.allocateDirectAligned(sizeBytes, 64));
        source.setMemory(0, sizeBytes, (byte)0x5A);
        copyLoop(source, target, sizeBytes, 0, BATCH, measureNs / 4);
        return copyLoop(source, target, sizeBytes, 0, BATCH, measureNs) * sizeBytes * 1e9 / measureNs;
    }

    /**
     * Copy {@code source} to {@code slots} consecutive places {@code slotBytes} apart in {@code target} (all to the
     * same place when {@code slotBytes} is 0), reading the clock once per round, until the time is up.
     *
     * @return copies per {@code durationNs}.
     */
    private static double copyLoop(final UnsafeBuffer source, final UnsafeBuffer target, final int length,
        final int slotBytes, final int slots, final long durationNs)
    {
        final long startNs = System.nanoTime();
        long copies = 0;
        long nowNs;
        do
        {
            for (int i = 0; i < slots; i++)
            {
                target.putBytes(i * slotBytes, source, 0, length);
            }
            copies += slots;
            nowNs = System.nanoTime();
        }
        while (nowNs - startNs < durationNs);
        return copies * (double)durationNs / (nowNs - startNs);
    }

    /**
     * Copy one frame again and again into consecutive slots of a target buffer, wrapping at its end.
     *
     * @param frame       the frame (its first {@code length} bytes).
     * @param length      frame length.
     * @param targetBytes size of the target, e.g. a memory fabric ring.
     * @param measureNs   how long to copy (after a warm-up of a quarter of that).
     * @return frames copied per second.
     */
    public static double frameCopiesPerSecond(
        final UnsafeBuffer frame, final int length, final int targetBytes, final long measureNs)
    {
        final UnsafeBuffer target = new UnsafeBuffer(BufferUtil.allocateDirectAligned(targetBytes, 64));
        // Slots as the ring lays records out: 8-byte aligned, with a record header.
        final int slot = (length + 15) & ~7;
        final int slots = targetBytes / slot;
        copyLoop(frame, target, length, slot, slots, measureNs / 4);
        return copyLoop(frame, target, length, slot, slots, measureNs) * 1e9 / measureNs;
    }

    /**
     * @param sizeBytes bytes per checksum.
     * @param measureNs how long to checksum (after a warm-up of a quarter of that).
     * @return bytes checksummed per second.
     */
    public static double crc32BytesPerSecond(final int sizeBytes, final long measureNs)
    {
        final ByteBuffer data = BufferUtil.allocateDirectAligned(sizeBytes, 64);
        for (int i = 0; i < sizeBytes; i++)
        {
            data.put(i, (byte)i);
        }
        final CRC32 crc = new CRC32();
        crcLoop(crc, data, measureNs / 4);
        return crcLoop(crc, data, measureNs) * sizeBytes * 1e9 / measureNs;
    }

    private static double crcLoop(final CRC32 crc, final ByteBuffer data, final long durationNs)
    {
        final long startNs = System.nanoTime();
        long sums = 0;
        long nowNs;
        long acc = 0;
        do
        {
            for (int i = 0; i < BATCH; i++)
            {
                crc.reset();
                data.clear();
                crc.update(data);
                acc += crc.getValue();
            }
            sums += BATCH;
            nowNs = System.nanoTime();
        }
        while (nowNs - startNs < durationNs);
        sink = acc;
        return sums * (double)durationNs / (nowNs - startNs);
    }

    /**
     * Frames of one length from a producer thread to a consumer thread through a many-to-one ring, as fast as
     * they go.
     *
     * @param frameBytes record length.
     * @param measureNs  how long to measure (after a warm-up of a quarter of that).
     * @return frames handed over per second.
     */
    public static double ringFramesPerSecond(final int frameBytes, final long measureNs)
    {
        final ManyToOneRingBuffer ring = newRing();
        final UnsafeBuffer frame = new UnsafeBuffer(new byte[frameBytes]);
        final long[] consumed = new long[1];
        final MessageHandler handler = (type, buffer, index, length) -> consumed[0] += buffer.getByte(index);
        final ServerLoop consumer = new ServerLoop("baseline-consumer", () -> ring.read(handler));
        try
        {
            final long warmEndNs = System.nanoTime() + measureNs / 4;
            long sent = 0;
            while (System.nanoTime() - warmEndNs < 0)
            {
                sent += offerBatch(ring, frame);
            }
            final long startNs = System.nanoTime();
            long nowNs;
            sent = 0;
            do
            {
                sent += offerBatch(ring, frame);
                nowNs = System.nanoTime();
            }
            while (nowNs - startNs < measureNs);
            return sent * 1e9 / (nowNs - startNs);
        }
        finally
        {
            consumer.close();
        }
    }

    private static int offerBatch(final ManyToOneRingBuffer ring, final UnsafeBuffer frame)
    {
        int sent = 0;
        for (int i = 0; i < BATCH; i++)
        {
            if (ring.write(MSG_TYPE, frame, 0, frame.capacity()))
            {
                sent++;
            }
        }
        return sent;
    }

    /**
     * One frame back and forth between two threads through two many-to-one rings, one in flight.
     *
     * @param frameBytes record length.
     * @param warmupNs   time before recording.
     * @param measureNs  time recording.
     * @return round trips in nanoseconds.
     */
    public static Histogram ringRoundTrips(final int frameBytes, final long warmupNs, final long measureNs)
    {
        final ManyToOneRingBuffer ping = newRing();
        final ManyToOneRingBuffer pong = newRing();
        final UnsafeBuffer frame = new UnsafeBuffer(new byte[frameBytes]);
        final UnsafeBuffer echo = new UnsafeBuffer(new byte[frameBytes]);
        final MessageHandler echoHandler = (type, buffer, index, length) ->
        {
            echo.putBytes(0, buffer, index, length);
            while (!pong.write(MSG_TYPE, echo, 0, length))
            {
                Thread.onSpinWait();
            }
        };
        final ServerLoop echoer = new ServerLoop("baseline-echo", () -> ping.read(echoHandler));
        final int[] received = new int[1];
        final MessageHandler pongHandler = (type, buffer, index, length) -> received[0] = length;
        try
        {
            return recordRoundTrips(warmupNs, measureNs, () ->
            {
                while (!ping.write(MSG_TYPE, frame, 0, frameBytes))
                {
                    Thread.onSpinWait();
                }
                received[0] = 0;
                while (0 == received[0])
                {
                    pong.read(pongHandler);
                }
                return true;
            });
        }
        finally
        {
            echoer.close();
        }
    }

    /**
     * One round trip of a ping-pong baseline.
     */
    @FunctionalInterface
    interface RoundTrip
    {
        /**
         * Send, and wait for the answer.
         *
         * @return false when the round trip was abandoned (lost): it is not recorded.
         */
        boolean run();
    }

    /**
     * Run round trips one after the other and record those that end after the warm-up, clamped to 1 s.
     *
     * @param warmupNs  time before recording.
     * @param measureNs time recording.
     * @param roundTrip one round trip.
     * @return the round trips in nanoseconds.
     */
    static Histogram recordRoundTrips(final long warmupNs, final long measureNs, final RoundTrip roundTrip)
    {
        final Histogram histogram = new Histogram(HISTOGRAM_MAX_NS, 3);
        final long startNs = System.nanoTime();
        final long recordFromNs = startNs + warmupNs;
        final long endNs = recordFromNs + measureNs;
        long nowNs = startNs;
        while (nowNs - endNs < 0)
        {
            final long sentNs = System.nanoTime();
            final boolean done = roundTrip.run();
            nowNs = System.nanoTime();
            if (done && nowNs - recordFromNs >= 0)
            {
                histogram.recordValue(Math.min(nowNs - sentNs, HISTOGRAM_MAX_NS));
            }
        }
        return histogram;
    }

    private static ManyToOneRingBuffer newRing()
    {
        return new ManyToOneRingBuffer(new UnsafeBuffer(
            BufferUtil.allocateDirectAligned(RING_BYTES + RingBufferDescriptor.TRAILER_LENGTH, 64)));
    }

    /**
     * @return the last CRC computed (keeps results observable).
     */
    static long sink()
    {
        return sink;
    }
}
