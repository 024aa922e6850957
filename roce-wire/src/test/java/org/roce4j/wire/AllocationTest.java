package org.roce4j.wire;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;

import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The per-packet paths allocate nothing: parse + ICRC verification and build + finish, measured with the JVM's
 * per-thread allocation counter over {@value #OPERATIONS} operations after a warm-up that lets the JIT compile
 * them. The bound (well under a byte per operation) leaves room only for the counter's own noise.
 */
class AllocationTest
{
    private static final int OPERATIONS = 100_000;
    private static final int WARM_UP = 50_000;
    private static final double MAX_BYTES_PER_OPERATION = 0.01;

    private static final com.sun.management.ThreadMXBean THREADS = threads();

    private final Opcode[] opcodes = Opcode.values();

    @Test
    void parseAndVerifyAllocateNothing()
    {
        for (final MutableDirectBuffer buffer : new MutableDirectBuffer[] {
            new UnsafeBuffer(new byte[16384]), new UnsafeBuffer(ByteBuffer.allocateDirect(16384))})
        {
            final int[] lengths = new int[opcodes.length];
            final int[] offsets = new int[opcodes.length];
            final RoceFrameBuilder builder = new RoceFrameBuilder();
            int at = 0;
            for (int i = 0; i < opcodes.length; i++)
            {
                offsets[i] = at;
                lengths[i] = build(builder, buffer, at, opcodes[i], i);
                at += 256;
            }
            final RoceFrameParser parser = new RoceFrameParser();
            final Runnable parse = () ->
            {
                for (int i = 0; i < opcodes.length; i++)
                {
                    if (FrameStatus.OK != parser.parse(buffer, offsets[i], lengths[i], true))
                    {
                        throw new AssertionError("frame " + i + " did not parse");
                    }
                }
            };
            final double perOperation = bytesPerCall(parse) / opcodes.length;
            System.out.println("parse + verify over " + buffer.getClass().getSimpleName() + " (" +
                (null != buffer.byteArray() ? "heap" : "direct") + "): " +
                perOperation + " bytes/frame");
            assertTrue(perOperation < MAX_BYTES_PER_OPERATION,
                "parse + verify allocated " + perOperation + " bytes per frame over " + buffer.getClass());
            assertEquals(0, parser.counters().rejected());
        }
    }

    @Test
    void buildAndFinishAllocateNothing()
    {
        for (final MutableDirectBuffer buffer : new MutableDirectBuffer[] {
            new UnsafeBuffer(new byte[16384]), new UnsafeBuffer(ByteBuffer.allocateDirect(16384))})
        {
            final RoceFrameBuilder builder = new RoceFrameBuilder();
            final Runnable build = () ->
            {
                for (int i = 0; i < opcodes.length; i++)
                {
                    build(builder, buffer, 0, opcodes[i], i);
                }
            };
            final double perOperation = bytesPerCall(build) / opcodes.length;
            System.out.println("build + finish (" + (null != buffer.byteArray() ? "heap" : "direct") + "): " +
                perOperation + " bytes/frame");
            assertTrue(perOperation < MAX_BYTES_PER_OPERATION,
                "build + finish allocated " + perOperation + " bytes per frame over " + buffer.getClass());
        }
    }

    private static int build(
        final RoceFrameBuilder builder, final MutableDirectBuffer buffer, final int offset, final Opcode opcode,
        final int i)
    {
        builder.wrap(buffer, offset).ethernet(0x020000000002L, 0x020000000001L);
        if (0 == (i & 1))
        {
            builder.ipv4(0x0A4D0001, 0x0A4D0002);
            builder.ipv4Header().identification(i);
        }
        else
        {
            builder.ipv6(0xFE80_0000_0000_0000L, 1, 0xFE80_0000_0000_0000L, 2);
        }
        builder.udp(0xC000 + i).bth(opcode, 0x11 + i, i);
        builder.bthHeader().ackReq(opcode.canRequestAck());
        if (opcode.has(ExtHeader.RETH))
        {
            builder.reth().va(0x1000L * i).rkey(i).dmaLength(64);
        }
        if (opcode.has(ExtHeader.AETH))
        {
            builder.aeth().syndrome(0x1F).msn(i);
        }
        builder.payloadLength(opcode.hasPayload() ? 13 + i : 0);
        return builder.finish();
    }

    /** Allocated bytes per call of the task, after a warm-up; the task runs OPERATIONS / frames-per-call times. */
    private double bytesPerCall(final Runnable task)
    {
        final int calls = OPERATIONS / opcodes.length;
        for (int i = 0; i < WARM_UP / opcodes.length * 10; i++)
        {
            task.run();
        }
        final long threadId = Thread.currentThread().getId();
        final long before = THREADS.getThreadAllocatedBytes(threadId);
        for (int i = 0; i < calls; i++)
        {
            task.run();
        }
        final long after = THREADS.getThreadAllocatedBytes(threadId);
        return (double)(after - before) / calls;
    }

    private static com.sun.management.ThreadMXBean threads()
    {
        final java.lang.management.ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        if (!(bean instanceof com.sun.management.ThreadMXBean))
        {
            return null;
        }
        final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean)bean;
        if (threads.isThreadAllocatedMemorySupported() && !threads.isThreadAllocatedMemoryEnabled())
        {
            threads.setThreadAllocatedMemoryEnabled(true);
        }
        return threads;
    }

    @BeforeEach
    void allocationCounterAvailable()
    {
        assumeTrue(null != THREADS && THREADS.isThreadAllocatedMemorySupported(),
            "this JVM has no per-thread allocation counter (com.sun.management.ThreadMXBean)");
    }
}
