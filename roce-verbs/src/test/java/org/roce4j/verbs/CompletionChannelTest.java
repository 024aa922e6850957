package org.roce4j.verbs;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.roce4j.ib.QpType;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WcOpcode;
import org.roce4j.ib.WcStatus;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.ib.WrOpcode;
import org.roce4j.transport.link.memory.MemoryFabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.roce4j.verbs.VerbsFixture.ALL_ACCESS;
import static org.roce4j.verbs.VerbsFixture.register;

/**
 * Completion channels (ibv_create_comp_channel, ibv_req_notify_cq, ibv_get_cq_event, ibv_ack_cq_events): one thread
 * serves several CQs, events are counted and acknowledged, and destroying what still has events or users fails with
 * a named reason. Also polling into arrays of nulls, as a C programmer writes {@code struct ibv_wc wc[N]}.
 */
class CompletionChannelTest
{
    private static final int QPS = 3;
    private static final int MESSAGES_PER_QP = 20;

    private final VerbsFixture fx = new VerbsFixture();

    @AfterEach
    void close()
    {
        fx.close();
    }

    @Test
    void oneThreadServesSeveralCqsThroughOneChannel()
    {
        final CompletionChannel channel = fx.a.createCompChannel();
        final CompletionQueue[] recvCqs = new CompletionQueue[QPS];
        final QueuePair[] senders = new QueuePair[QPS];
        final MemoryRegion target = register(fx.pdA, 64 * QPS, ALL_ACCESS);
        final MemoryRegion source = register(fx.pdB, 64, ALL_ACCESS);
        final VerbsFixture.Params params = new VerbsFixture.Params();
        for (int i = 0; i < QPS; i++)
        {
            recvCqs[i] = fx.a.createCq(64, channel);
            final CompletionQueue sendCq = fx.b.createCq(64);
            final QueuePair receiver = fx.pdA.createQp(VerbsFixture.init(QpType.RC, fx.a.createCq(64), recvCqs[i]));
            senders[i] = fx.pdB.createQp(VerbsFixture.init(QpType.RC, sendCq, sendCq));
            VerbsFixture.bringUp(receiver, senders[i].qpNum(), fx.b.queryGid(1), params.psnA, params.psnB, params);
            VerbsFixture.bringUp(senders[i], receiver.qpNum(), fx.a.queryGid(1), params.psnB, params.psnA, params);
            for (int m = 0; m < MESSAGES_PER_QP; m++)
            {
                receiver.postRecv(new RecvWorkRequest().wrId(i * 1000L + m));
            }
            recvCqs[i].requestNotify(false);
        }
        assertEquals(QPS, channel.cqCount());
        for (int m = 0; m < MESSAGES_PER_QP; m++)
        {
            for (int i = 0; i < QPS; i++)
            {
                senders[i].postSend(new SendWorkRequest().wrId(m).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).immData(i)
                    .addSge(source, 0, 8).rdma(target.address(64 * i), target.rkey()));
            }
        }

        // The libibverbs loop: get an event, ack it, re-arm, poll until empty.
        final int[] received = new int[QPS];
        final WorkCompletion[] wc = new WorkCompletion[4];
        int events = 0;
        while (sum(received) < QPS * MESSAGES_PER_QP)
        {
            final CompletionQueue fired = channel.getCqEvent(VerbsFixture.WAIT_NS);
            assertNotNull(fired, "no event; received so far " + java.util.Arrays.toString(received));
            events++;
            final int index = indexOf(recvCqs, fired);
            assertEquals(1, fired.unackedEvents());
            fired.ackEvents(1);
            fired.requestNotify(false);
            int n;
            while ((n = fired.poll(wc)) > 0)
            {
                for (int k = 0; k < n; k++)
                {
                    assertEquals(WcStatus.SUCCESS, wc[k].status());
                    assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, wc[k].opcode());
                    assertEquals(index, wc[k].immData(), "the completion came to its own QP's CQ");
                    assertEquals(index * 1000L + received[index], wc[k].wrId(), "in order");
                    received[index]++;
                }
            }
        }
        for (int i = 0; i < QPS; i++)
        {
            assertEquals(MESSAGES_PER_QP, received[i]);
            assertEquals(0, recvCqs[i].unackedEvents());
            assertTrue(recvCqs[i].eventsReported() >= 1, "CQ " + i + " fired");
        }
        assertEquals(events, recvCqs[0].eventsReported() + recvCqs[1].eventsReported() +
            recvCqs[2].eventsReported(), "every event was counted on its CQ");
        assertNull(channel.getCqEvent(1_000_000), "armed, but nothing new: the wait times out");
    }

    @Test
    void unacknowledgedEventsAndUsedChannelsAreNotDestroyed()
    {
        final CompletionChannel channel = fx.a.createCompChannel();
        final CompletionQueue cq = fx.a.createCq(8, channel);
        final VerbsFixture.Pair c = fx.connect(QpType.RC, params -> { }, init -> init.recvCq(cq), init -> { });
        final MemoryRegion src = register(fx.pdB, 64, ALL_ACCESS);
        final MemoryRegion dst = register(fx.pdA, 64, ALL_ACCESS);
        assertThrows(IllegalStateException.class, () -> cq.awaitEvent(0), "a channel's CQ is waited on there");
        cq.requestNotify(false);
        c.a.qp.postRecv(new RecvWorkRequest().wrId(1));
        c.b.qp.postSend(new SendWorkRequest().opcode(WrOpcode.RDMA_WRITE_WITH_IMM).addSge(src, 0, 8)
            .rdma(dst.iova(), dst.rkey()));
        assertSame(cq, channel.getCqEvent(VerbsFixture.WAIT_NS));
        assertEquals(1, cq.poll(new WorkCompletion[1]));

        final String tooMany = assertThrows(IllegalArgumentException.class, () -> cq.ackEvents(2)).getMessage();
        assertEquals("cannot acknowledge 2 events on CQ " + cq.handle() + ": 1 unacknowledged (1 reported)", tooMany);
        assertThrows(IllegalArgumentException.class, () -> cq.ackEvents(-1));
        c.a.qp.destroy();
        final String unacked = assertThrows(IllegalStateException.class, cq::destroy).getMessage();
        assertTrue(unacked.contains("has 1 unacknowledged completion event: call ackEvents(1) first"), unacked);
        final String busy = assertThrows(IllegalStateException.class, channel::close).getMessage();
        assertTrue(busy.startsWith("the completion channel is still used by 1 CQ"), busy);

        cq.ackEvents(1);
        cq.destroy();
        channel.close();
        assertThrows(IllegalStateException.class, () -> fx.a.createCq(8, channel), "closed");
        assertThrows(IllegalStateException.class, () -> channel.getCqEvent(0));
        final CompletionChannel othersChannel = fx.b.createCompChannel();
        assertThrows(IllegalArgumentException.class, () -> fx.a.createCq(8, othersChannel));
    }

    /**
     * DEDICATED devices: the engine runs on its agent thread, the waiting thread checks the CQs between back-offs.
     */
    @Test
    void aDedicatedDevicesChannelWakesItsWaiter()
    {
        try (MemoryFabric fabric = new MemoryFabric();
            RdmaDevice a = RdmaDevice.open(fabric.attach(VerbsFixture.ADDRESS_A, 1500),
                DeviceOptions.dedicated().backoff());
            RdmaDevice b = RdmaDevice.open(fabric.attach(VerbsFixture.ADDRESS_B, 1500),
                DeviceOptions.dedicated().backoff()))
        {
            final CompletionChannel channel = a.createCompChannel();
            final CompletionQueue first = a.createCq(8, channel);
            final CompletionQueue second = a.createCq(8, channel);
            final CompletionQueue sendCq = b.createCq(8);
            final VerbsFixture.Params params = new VerbsFixture.Params();
            final QueuePair qpA = a.allocPd().createQp(VerbsFixture.init(QpType.RC, first, second));
            final ProtectionDomain pdB = b.allocPd();
            final QueuePair qpB = pdB.createQp(VerbsFixture.init(QpType.RC, sendCq, sendCq));
            VerbsFixture.bringUp(qpA, qpB.qpNum(), b.queryGid(1), params.psnA, params.psnB, params);
            VerbsFixture.bringUp(qpB, qpA.qpNum(), a.queryGid(1), params.psnB, params.psnA, params);
            first.requestNotify(false);
            second.requestNotify(false);
            qpA.postRecv(new RecvWorkRequest().wrId(5));
            qpB.postSend(new SendWorkRequest().opcode(WrOpcode.SEND).addSge(register(pdB, 8, ALL_ACCESS), 0, 8));
            // A bound against a hang, not a speed check.
            final CompletionQueue fired = channel.getCqEvent(TimeUnit.SECONDS.toNanos(20));
            assertSame(second, fired, "the receive completion goes to the QP's receive CQ");
            fired.ackEvents(1);
            final WorkCompletion[] wc = new WorkCompletion[2];
            assertEquals(1, fired.poll(wc));
            assertEquals(5, wc[0].wrId());
            assertNull(wc[1], "only the slots filled are allocated");
        }
    }

    /**
     * {@code cq.poll(new WorkCompletion[1])} used to throw a bare NullPointerException.
     */
    @Test
    void pollingIntoAnArrayOfNullsFillsIt()
    {
        final VerbsFixture.Pair c = fx.connect(QpType.RC);
        final MemoryRegion src = register(fx.pdA, 64, ALL_ACCESS);
        final MemoryRegion dst = register(fx.pdB, 64, ALL_ACCESS);
        for (int i = 0; i < 3; i++)
        {
            c.a.qp.postSend(new SendWorkRequest().wrId(i).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .addSge(src, 0, 8).rdma(dst.iova(), dst.rkey()));
        }
        final WorkCompletion[] wc = new WorkCompletion[8];
        final java.util.List<WorkCompletion> seen = new java.util.ArrayList<>();
        int done = 0;
        while (done < 3)
        {
            final int n = c.a.sendCq.pollBlocking(wc, VerbsFixture.WAIT_NS);
            assertTrue(n > 0);
            for (int k = 0; k < n; k++)
            {
                assertEquals(done++, wc[k].wrId());
                seen.add(wc[k]);
            }
        }
        final WorkCompletion first = wc[0];
        c.a.qp.postSend(new SendWorkRequest().wrId(9).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
            .addSge(src, 0, 8).rdma(dst.iova(), dst.rkey()));
        assertEquals(1, c.a.sendCq.pollBlocking(wc, VerbsFixture.WAIT_NS));
        assertSame(first, wc[0], "an element is allocated once, then reused");
        assertEquals(9, wc[0].wrId());

        assertEquals("out must not be null", assertThrows(NullPointerException.class,
            () -> c.a.sendCq.poll(null)).getMessage());
        assertEquals("offset 6 + max 4 exceeds the array length 8", assertThrows(IllegalArgumentException.class,
            () -> c.a.sendCq.poll(wc, 6, 4)).getMessage());
        assertEquals("out must hold at least one WorkCompletion to wait for one",
            assertThrows(IllegalArgumentException.class,
                () -> c.a.sendCq.pollBlocking(new WorkCompletion[0], 0)).getMessage());
    }

    private static int sum(final int[] values)
    {
        int total = 0;
        for (final int value : values)
        {
            total += value;
        }
        return total;
    }

    private static int indexOf(final CompletionQueue[] cqs, final CompletionQueue cq)
    {
        for (int i = 0; i < cqs.length; i++)
        {
            if (cqs[i] == cq)
            {
                return i;
            }
        }
        throw new AssertionError("an event for a CQ not on the channel: " + cq);
    }
}
