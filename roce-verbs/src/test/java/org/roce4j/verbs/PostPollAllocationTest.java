package org.roce4j.verbs;

import java.lang.management.ManagementFactory;

import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.Test;
import org.roce4j.ib.AhAttributes;
import org.roce4j.ib.QpType;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WcStatus;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.ib.WrOpcode;
import org.roce4j.wire.addr.Gid;
import org.roce4j.transport.TransportCounter;
import org.roce4j.transport.link.memory.MemoryFabric;
import org.roce4j.transport.provider.EngineConfig;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Once warm, posting and polling allocate nothing: RC SEND with inline data, RC RDMA WRITE with immediate, UD SEND
 * through an address handle, their receives and every completion, with both engines and the in-memory fabric run
 * by this thread (INVOKER mode), so every byte the whole path allocates is counted.
 */
class PostPollAllocationTest
{
    private static final int WARM_UP_ROUNDS = 20_000;
    private static final int MEASURED_ROUNDS = 20_000;
    /** Slack for the measuring itself (the MXBean call) and JIT deoptimisation traces: far below 1 byte a round. */
    private static final long ALLOWED_BYTES = 16 * 1024;
    private static final int PAYLOAD_BYTES = 64;
    private static final int INLINE_BYTES = 32;

    private final CachedNanoClock clock = new CachedNanoClock();
    private final WorkCompletion[] out = new WorkCompletion[4];
    private final SendWorkRequest inlineSend = new SendWorkRequest();
    private final SendWorkRequest writeImm = new SendWorkRequest();
    private final SendWorkRequest udSend = new SendWorkRequest();
    private final RecvWorkRequest rcRecv = new RecvWorkRequest();
    private final RecvWorkRequest udRecv = new RecvWorkRequest();

    @Test
    void postingAndPollingAllocateNothingPerWorkRequest()
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        assertTrue(threads.isThreadAllocatedMemorySupported(), "this JVM reports allocated bytes per thread");
        threads.setThreadAllocatedMemoryEnabled(true);
        final long threadId = Thread.currentThread().getId();
        clock.update(1_000_000_000L);
        final ProgressGroup group = ProgressGroup.simulated(clock);

        try (MemoryFabric fabric = MemoryFabric.builder().clock(clock).build();
            RdmaDevice a = RdmaDevice.open(fabric.attach(VerbsFixture.ADDRESS_A, 1500), options(group, "A"));
            RdmaDevice b = RdmaDevice.open(fabric.attach(VerbsFixture.ADDRESS_B, 1500), options(group, "B")))
        {
            final ProtectionDomain pdA = a.allocPd();
            final ProtectionDomain pdB = b.allocPd();
            final VerbsFixture.Params params = new VerbsFixture.Params();
            final CompletionQueue cqA = a.createCq(64);
            final CompletionQueue cqB = b.createCq(64);
            final QueuePair rcA = pdA.createQp(VerbsFixture.init(QpType.RC, cqA, cqA));
            final QueuePair rcB = pdB.createQp(VerbsFixture.init(QpType.RC, cqB, cqB));
            final QueuePair udA = pdA.createQp(VerbsFixture.init(QpType.UD, cqA, cqA));
            final QueuePair udB = pdB.createQp(VerbsFixture.init(QpType.UD, cqB, cqB));
            final Gid gidA = a.queryGid(1);
            final Gid gidB = b.queryGid(1);
            VerbsFixture.bringUp(rcA, rcB.qpNum(), gidB, params.psnA, params.psnB, params);
            VerbsFixture.bringUp(rcB, rcA.qpNum(), gidA, params.psnB, params.psnA, params);
            VerbsFixture.bringUp(udA, 0, gidB, params.psnA, 0, params);
            VerbsFixture.bringUp(udB, 0, gidA, params.psnB, 0, params);
            final AddressHandle ah = pdA.createAh(new AhAttributes().dgid(gidB).sgidIndex(1).hopLimit(64));

            final MemoryRegion source = VerbsFixture.register(pdA, 4096, VerbsFixture.ALL_ACCESS);
            final MemoryRegion target = VerbsFixture.register(pdB, 4096, VerbsFixture.ALL_ACCESS);
            inlineSend.opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED | SendFlags.INLINE)
                .addSge(source, 0, INLINE_BYTES);
            writeImm.opcode(WrOpcode.RDMA_WRITE_WITH_IMM).sendFlags(SendFlags.SIGNALED)
                .addSge(source, 64, PAYLOAD_BYTES).rdma(target.address(1024), target.rkey());
            udSend.opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED).addSge(source, 128, PAYLOAD_BYTES)
                .ud(ah, udB.qpNum(), params.qkey);
            rcRecv.addSge(target, 0, 512);
            udRecv.addSge(target, 2048, WorkCompletion.GRH_BYTES + PAYLOAD_BYTES);

            rounds(rcA, rcB, udA, udB, cqA, cqB, WARM_UP_ROUNDS);
            threads.getThreadAllocatedBytes(threadId);
            final long before = threads.getThreadAllocatedBytes(threadId);
            rounds(rcA, rcB, udA, udB, cqA, cqB, MEASURED_ROUNDS);
            final long allocated = threads.getThreadAllocatedBytes(threadId) - before;

            assertTrue(allocated < ALLOWED_BYTES, allocated + " bytes allocated over " + MEASURED_ROUNDS +
                " rounds of 3 send WRs, 3 receive WRs and 6 completions");
            final long rounds = WARM_UP_ROUNDS + MEASURED_ROUNDS;
            assertEquals(3 * rounds, a.counters().get(TransportCounter.SEND_COMPLETIONS), a.describeCounters());
            assertEquals(3 * rounds, b.counters().get(TransportCounter.RECEIVE_COMPLETIONS), b.describeCounters());
            assertEquals(0, a.counters().get(TransportCounter.PACKETS_RETRANSMITTED), a.describeCounters());
        }
    }

    private DeviceOptions options(final ProgressGroup group, final String name)
    {
        return DeviceOptions.invoker().progressGroup(group).engineConfig(new EngineConfig().clock(clock)).name(name);
    }

    private void rounds(
        final QueuePair rcA,
        final QueuePair rcB,
        final QueuePair udA,
        final QueuePair udB,
        final CompletionQueue cqA,
        final CompletionQueue cqB,
        final int count)
    {
        for (int round = 0; round < count; round++)
        {
            rcB.postRecv(rcRecv.wrId(round));
            rcB.postRecv(rcRecv.wrId(round));
            udB.postRecv(udRecv.wrId(round));
            rcA.postSend(inlineSend.wrId(round).immData(round));
            rcA.postSend(writeImm.wrId(round).immData(round));
            udA.postSend(udSend.wrId(round));
            await(cqA, 3);
            await(cqB, 3);
        }
    }

    private void await(final CompletionQueue cq, final int expected)
    {
        int seen = 0;
        while (seen < expected)
        {
            final int n = cq.pollBusy(out, VerbsFixture.WAIT_NS);
            if (0 == n)
            {
                throw new AssertionError("no completion on " + cq + "\n" + cq.device().describeCounters());
            }
            for (int i = 0; i < n; i++)
            {
                if (WcStatus.SUCCESS != out[i].status())
                {
                    throw new AssertionError(out[i] + "\n" + cq.device().describeCounters());
                }
            }
            seen += n;
        }
    }
}
