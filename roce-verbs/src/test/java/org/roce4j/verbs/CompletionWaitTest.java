package org.roce4j.verbs;

import org.agrona.concurrent.BusySpinIdleStrategy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.roce4j.ib.QpType;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WcStatus;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.ib.WrOpcode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.roce4j.verbs.VerbsFixture.ALL_ACCESS;
import static org.roce4j.verbs.VerbsFixture.register;

/**
 * Polling and waiting in INVOKER mode: polls drive the progress group, waits end on a completion or in
 * (simulated) time, and event-style notification fires on the next completion only.
 */
class CompletionWaitTest
{
    private final VerbsFixture fx = new VerbsFixture();
    private final VerbsFixture.Pair c = fx.connect(QpType.RC);
    private final MemoryRegion src = register(fx.pdA, 64, ALL_ACCESS);
    private final MemoryRegion dst = register(fx.pdB, 64, ALL_ACCESS);
    private final WorkCompletion[] out = VerbsFixture.completions(4);

    @AfterEach
    void close()
    {
        fx.close();
    }

    private void write(final long wrId)
    {
        c.a.qp.postSend(new SendWorkRequest().wrId(wrId).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
            .addSge(src, 0, 8).rdma(dst.iova(), dst.rkey()));
    }

    @Test
    void plainPollDrivesTheEngines()
    {
        write(1);
        int polls = 0;
        int n = 0;
        while (0 == n && polls < 100)
        {
            n = c.a.sendCq.poll(out);
            polls++;
        }
        assertEquals(1, n);
        assertEquals(1, out[0].wrId());
        assertTrue(polls > 1, "the WRITE and its ACK needed duty cycles run by poll itself");
        assertEquals(0, c.a.sendCq.poll(out, 0, 0), "max 0 takes nothing");
        assertThrows(IllegalArgumentException.class, () -> c.a.sendCq.poll(out, 3, 2));
    }

    @Test
    void blockingWaitsRunOutInSimulatedTime()
    {
        final long start = fx.clock.nanoTime();
        assertEquals(0, c.a.sendCq.pollBlocking(out, 2_000_000L));
        assertEquals(start + 2_000_000L, fx.clock.nanoTime(), "idle: the clock jumped straight to the deadline");
        assertEquals(0, c.a.sendCq.pollBusy(out, 0), "timeout 0 polls once");
        assertEquals(0, c.a.sendCq.pollHybrid(out, 1_000, 5_000));
        assertEquals("every engine of the progress group is idle, no timer is armed and the wait has no deadline: " +
            "it would never end", assertThrows(IllegalStateException.class,
            () -> c.a.sendCq.pollBlocking(out, Long.MAX_VALUE)).getMessage());
        assertThrows(IllegalArgumentException.class, () -> c.a.sendCq.pollBlocking(out, -1));
        assertThrows(IllegalArgumentException.class, () -> c.a.sendCq.pollBlocking(new WorkCompletion[0], 1));

        write(2);
        assertEquals(1, c.a.sendCq.pollBusy(out, Long.MAX_VALUE));
        assertEquals(2, out[0].wrId());
        write(3);
        assertEquals(1, c.a.sendCq.pollHybrid(out, 100, VerbsFixture.WAIT_NS));
        assertEquals(3, out[0].wrId());
    }

    @Test
    void notificationFiresOnTheNextCompletionOnly()
    {
        assertEquals("CQ " + c.a.sendCq.handle() + " is not armed: call requestNotify(false) first",
            assertThrows(IllegalStateException.class, () -> c.a.sendCq.awaitEvent(1)).getMessage());
        assertThrows(UnsupportedOperationException.class, () -> c.a.sendCq.requestNotify(true));

        c.a.sendCq.requestNotify(false);
        assertTrue(c.a.sendCq.isArmed());
        write(1);
        assertTrue(c.a.sendCq.awaitEvent(VerbsFixture.WAIT_NS));
        assertFalse(c.a.sendCq.isArmed(), "one event per arming");
        assertEquals(1, c.a.sendCq.size(), "the event does not take the completion");

        // Armed while a completion is already queued: that one does not fire the event.
        c.a.sendCq.requestNotify(false);
        assertFalse(c.a.sendCq.awaitEvent(1_000_000L));
        assertTrue(c.a.sendCq.isArmed());
        write(2);
        assertTrue(c.a.sendCq.awaitEvent(VerbsFixture.WAIT_NS));
        assertEquals(2, c.a.sendCq.poll(out));
        assertEquals(1, out[0].wrId());
        assertEquals(2, out[1].wrId());
    }

    @Test
    void realTimeProgressGroupAlsoWorks()
    {
        final PairLink[] links = PairLink.pair(VerbsFixture.ADDRESS_A, VerbsFixture.ADDRESS_B, 1500);
        final ProgressGroup group = new ProgressGroup();
        try (RdmaDevice a = RdmaDevice.open(links[0], DeviceOptions.invoker().progressGroup(group));
             RdmaDevice b = RdmaDevice.open(links[1], DeviceOptions.invoker().progressGroup(group)))
        {
            assertEquals(2, group.size());
            final ProtectionDomain pdA = a.allocPd();
            final ProtectionDomain pdB = b.allocPd();
            final CompletionQueue cqA = a.createCq(8);
            final CompletionQueue cqB = b.createCq(8);
            final QueuePair qpA = pdA.createQp(VerbsFixture.init(QpType.RC, cqA, cqA));
            final QueuePair qpB = pdB.createQp(VerbsFixture.init(QpType.RC, cqB, cqB));
            VerbsFixture.bringUp(qpA, qpB.qpNum(), b.queryGid(1), 1, 2, new VerbsFixture.Params());
            VerbsFixture.bringUp(qpB, qpA.qpNum(), a.queryGid(1), 2, 1, new VerbsFixture.Params());
            final MemoryRegion from = register(pdA, 64, ALL_ACCESS);
            final MemoryRegion to = register(pdB, 64, ALL_ACCESS);
            qpB.postRecv(new RecvWorkRequest().wrId(4).addSge(to, 0, 64));
            qpA.postSend(new SendWorkRequest().wrId(5).sendFlags(SendFlags.SIGNALED).addSge(from, 0, 32));
            assertEquals(1, cqB.pollBlocking(out, VerbsFixture.WAIT_NS), "B's wait also ran A's engine");
            assertEquals(WcStatus.SUCCESS, out[0].status());
            assertEquals(32, out[0].byteLen());
            assertEquals(1, cqA.pollBlocking(out, VerbsFixture.WAIT_NS));
            assertEquals(5, out[0].wrId());
        }
        assertEquals(0, group.size(), "closed devices leave the group");
    }

    @Test
    void optionsRefuseMismatchedThreadingSettings()
    {
        final PairLink[] links = PairLink.pair(VerbsFixture.ADDRESS_A, VerbsFixture.ADDRESS_B, 1500);
        assertEquals("a progress group applies to INVOKER mode only; a DEDICATED device has its own agent thread",
            assertThrows(IllegalArgumentException.class, () -> RdmaDevice.open(links[0],
                DeviceOptions.dedicated().progressGroup(new ProgressGroup()))).getMessage());
        assertEquals("an idle strategy applies to DEDICATED mode only; in INVOKER mode give the ProgressGroup one",
            assertThrows(IllegalArgumentException.class, () -> RdmaDevice.open(links[0],
                DeviceOptions.invoker().idleStrategy(new BusySpinIdleStrategy()))).getMessage());
    }
}
