package org.roce4j.transport.link.memory;

import java.lang.management.ManagementFactory;

import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.CachedNanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.roce4j.transport.link.FrameHandler;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.transport.link.LinkCounter;
import org.roce4j.transport.link.TestFrames;
import org.roce4j.transport.link.fault.FaultRule;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.Operation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Once warm, sending and receiving through the fabric, with every fault kind and rules active, allocates nothing.
 */
class AllocationTest
{
    private static final int WARM_UP_FRAMES = 50_000;
    private static final int MEASURED_FRAMES = 100_000;
    /** Slack for the measuring itself (the MXBean call) and JIT deoptimisation traces: far below 1 byte a frame. */
    private static final long ALLOWED_BYTES = 16 * 1024;

    private final CachedNanoClock clock = new CachedNanoClock();
    private final UnsafeBuffer request = new UnsafeBuffer(new byte[2048]);
    private final UnsafeBuffer ack = new UnsafeBuffer(new byte[256]);
    private long psnSum;
    private final FrameHandler counting = this::onFrame;

    @Test
    void sendingAndPollingAllocateNothingPerFrame()
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        assertTrue(threads.isThreadAllocatedMemorySupported(), "this JVM reports allocated bytes per thread");
        threads.setThreadAllocatedMemoryEnabled(true);
        final long threadId = Thread.currentThread().getId();

        try (MemoryFabric fabric = MemoryFabric.builder().clock(clock).delaySlots(1024).build())
        {
            final LinkAddress addressA = TestFrames.address(1);
            final LinkAddress addressB = TestFrames.address(2);
            final MemoryLink a = fabric.attach(addressA, 1500);
            final MemoryLink b = fabric.attach(addressB, 1500);
            final TestFrames frames = new TestFrames();
            final int requestLength =
                frames.ipv4(request, 0, addressA, addressB, Opcode.RC_RDMA_WRITE_MIDDLE, 7, 1, 1024);
            final int ackLength = frames.ipv4(ack, 0, addressB, addressA, Opcode.RC_ACKNOWLEDGE, 7, 1, 0);
            a.faults().seed(1).loss(0.01).duplication(0.01).corruption(0.01, 3).reordering(0.01, 4)
                .delay(0.02, 1_000, 500)
                .addRule(FaultRule.corruptIcrc().destQp(7).skip(10).times(1_000))
                .addRule(FaultRule.delay(300).window(0, Long.MAX_VALUE));
            b.faults().seed(2).loss(0.01)
                .addRule(FaultRule.drop().operation(Operation.ACKNOWLEDGE).skip(5).times(100));

            run(a, b, requestLength, ackLength, WARM_UP_FRAMES);
            threads.getThreadAllocatedBytes(threadId);
            final long before = threads.getThreadAllocatedBytes(threadId);
            run(a, b, requestLength, ackLength, MEASURED_FRAMES);
            final long allocated = threads.getThreadAllocatedBytes(threadId) - before;

            assertTrue(allocated < ALLOWED_BYTES, allocated + " bytes allocated over " + MEASURED_FRAMES + " frames");
            assertTrue(a.counters().get(LinkCounter.INJECTED_DROPS) > 0);
            assertTrue(a.counters().get(LinkCounter.INJECTED_CORRUPTIONS) > 0);
            assertTrue(a.counters().get(LinkCounter.INJECTED_DUPLICATES) > 0);
            assertTrue(a.counters().get(LinkCounter.INJECTED_DELAYS) > 0);
            assertTrue(b.counters().get(LinkCounter.INJECTED_DROPS) > 0);
            assertTrue(psnSum > 0);
            assertEquals(0, b.fabricCounters().get(FabricCounter.HOLD_OVERFLOW));
        }
    }

    private void run(final MemoryLink a, final MemoryLink b, final int requestLength, final int ackLength,
        final int count)
    {
        for (int i = 0; i < count; i++)
        {
            a.send(request, 0, requestLength);
            b.send(ack, 0, ackLength);
            clock.advance(100);
            if (0 == (i & 15))
            {
                b.poll(counting, 64);
                a.poll(counting, 64);
                a.flush();
            }
        }
    }

    private void onFrame(final MutableDirectBuffer buffer, final int offset, final int length)
    {
        psnSum += length;
    }
}
