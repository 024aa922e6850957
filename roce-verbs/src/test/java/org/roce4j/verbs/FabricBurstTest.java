package org.roce4j.verbs;

import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.Test;
import org.roce4j.ib.Mtu;
import org.roce4j.ib.QpType;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WcOpcode;
import org.roce4j.ib.WcStatus;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.ib.WrOpcode;
import org.roce4j.transport.TransportCounter;
import org.roce4j.transport.link.LinkCounter;
import org.roce4j.transport.link.memory.FabricCounter;
import org.roce4j.transport.link.memory.MemoryFabric;
import org.roce4j.transport.link.memory.MemoryLink;
import org.roce4j.transport.provider.EngineConfig;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A 4 MiB burst (64 RDMA WRITEs of 64 KiB, the last with immediate, as a KV-cache hand-off sends) over a default
 * memory fabric with 9000-byte ports (4096-byte RoCE packets), 20 rounds. The sender's whole window (1024
 * unacknowledged packets of about 4.2 KB) must fit the receiver's inbound ring, whatever the scheduling: when the
 * fabric gave every port 4 MiB, a receiver that did not run while the sender filled its window (a descheduled thread
 * on a busy machine) overflowed the ring, and each round cost back-pressure drops, PSN-sequence NAKs and
 * retransmissions (512, 16 and 528 per 20 rounds in issue 16), visible only in the counters.
 *
 * <p>Deterministic worst case: each device drives its own progress group from this thread, the sender until it has
 * nothing more to send (its window is full), then the receiver until it is idle, and so on; the engines' clock never
 * moves, so no timer fires and every retransmission would come from a NAK.
 */
class FabricBurstTest
{
    private static final int PAGES = 64;
    private static final int PAGE_BYTES = 64 * 1024;
    private static final int ROUNDS = 20;
    /** Turns (sender until idle, then receiver until idle) a round may take: a safety bound, never reached. */
    private static final int MAX_TURNS = 10_000;

    @Test
    void aFourMebibyteBurstNeedsNoRetransmission()
    {
        final CachedNanoClock clock = new CachedNanoClock();
        final MemoryFabric fabric = new MemoryFabric(clock);
        final MemoryLink linkA = fabric.attach(VerbsFixture.ADDRESS_A, 9000);
        final MemoryLink linkB = fabric.attach(VerbsFixture.ADDRESS_B, 9000);
        final ProgressGroup groupA = new ProgressGroup();
        final ProgressGroup groupB = new ProgressGroup();
        try (RdmaDevice a = RdmaDevice.open(linkA, DeviceOptions.invoker().progressGroup(groupA)
                .engineConfig(new EngineConfig().clock(clock)));
            RdmaDevice b = RdmaDevice.open(linkB, DeviceOptions.invoker().progressGroup(groupB)
                .engineConfig(new EngineConfig().clock(clock))))
        {
            final VerbsFixture.Params params = new VerbsFixture.Params();
            params.mtu = Mtu.MTU_4096;
            final ProtectionDomain pdA = a.allocPd();
            final ProtectionDomain pdB = b.allocPd();
            final CompletionQueue cqA = a.createCq(256);
            final CompletionQueue cqB = b.createCq(16);
            final QueuePair qpA = pdA.createQp(VerbsFixture.init(QpType.RC, cqA, cqA).cap(PAGES, 1, 1, 1, 0));
            final QueuePair qpB = pdB.createQp(VerbsFixture.init(QpType.RC, cqB, cqB).cap(1, 4, 1, 1, 0));
            VerbsFixture.bringUp(qpA, qpB.qpNum(), b.queryGid(1), params.psnA, params.psnB, params);
            VerbsFixture.bringUp(qpB, qpA.qpNum(), a.queryGid(1), params.psnB, params.psnA, params);
            final MemoryRegion source = VerbsFixture.register(pdA, PAGES * PAGE_BYTES, VerbsFixture.ALL_ACCESS);
            final MemoryRegion target = VerbsFixture.register(pdB, PAGES * PAGE_BYTES, VerbsFixture.ALL_ACCESS);
            final RecvWorkRequest recv = new RecvWorkRequest();
            final SendWorkRequest write = new SendWorkRequest();
            final WorkCompletion[] wc = VerbsFixture.completions(PAGES);
            for (int round = 0; round < ROUNDS; round++)
            {
                qpB.postRecv(recv.reset().wrId(round));
                for (int page = 0; page < PAGES; page++)
                {
                    source.buffer().putInt(page * PAGE_BYTES, round * PAGES + page);
                    final boolean last = PAGES - 1 == page;
                    qpA.postSend(write.reset().wrId(page)
                        .opcode(last ? WrOpcode.RDMA_WRITE_WITH_IMM : WrOpcode.RDMA_WRITE)
                        .sendFlags(last ? SendFlags.SIGNALED : 0).immData(PAGES)
                        .addSge(source, page * PAGE_BYTES, PAGE_BYTES)
                        .rdma(target.address(page * PAGE_BYTES), target.rkey()));
                }
                int received = 0;
                int sent = 0;
                for (int turn = 0; turn < MAX_TURNS && (0 == received || 0 == sent); turn++)
                {
                    drive(groupA);
                    drive(groupB);
                    received += cqB.poll(wc, 0, 1);
                    if (received > 0 && 0 == sent)
                    {
                        assertEquals(WcStatus.SUCCESS, wc[0].status());
                        assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, wc[0].opcode());
                        assertEquals(PAGES, wc[0].immData());
                    }
                    sent += cqA.poll(wc, 1, 1);
                }
                assertEquals(1, received, "round " + round + ": " + b.describeCounters());
                assertEquals(1, sent, "round " + round + ": " + a.describeCounters());
                assertEquals(WcStatus.SUCCESS, wc[1].status());
                for (int page = 0; page < PAGES; page++)
                {
                    assertEquals(round * PAGES + page, target.buffer().getInt(page * PAGE_BYTES), "page " + page);
                }
            }
            assertEquals(0, clock.nanoTime(), "the clock moved: a timer could have fired");
            final String counters = "A:\n" + a.describeCounters() + "\nB:\n" + b.describeCounters();
            assertEquals(0, linkA.fabricCounters().get(FabricCounter.DESTINATION_FULL), counters);
            assertEquals(0, a.counters().get(LinkCounter.SEND_BACK_PRESSURE), counters);
            assertEquals(0, b.counters().get(TransportCounter.NAK_SEQUENCE_SENT), counters);
            assertEquals(0, a.counters().get(TransportCounter.PACKETS_RETRANSMITTED), counters);
            assertEquals(0, a.counters().get(TransportCounter.RETRANSMIT_TIMEOUTS), counters);
        }
    }

    private static void drive(final ProgressGroup group)
    {
        while (group.progress() > 0)
        {
            Thread.onSpinWait();
        }
    }
}
