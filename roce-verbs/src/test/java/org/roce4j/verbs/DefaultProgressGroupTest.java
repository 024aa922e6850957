package org.roce4j.verbs;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.QpType;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WcOpcode;
import org.roce4j.ib.WcStatus;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.ib.WrOpcode;
import org.roce4j.wire.addr.Gid;
import org.roce4j.transport.TransportCounter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Devices opened with default options by one thread run together (issue 16): each used to get a private progress
 * group, so a thread waiting on one device never ran the other's engine and the wait ended in "no completion within
 * 5000 ms; ... retransmit_timeouts 73" with nothing saying why. Now they join the opening thread's group; a second
 * thread running that group is refused with an error that says what to do.
 */
class DefaultProgressGroupTest
{
    private static final long WAIT_NS = TimeUnit.SECONDS.toNanos(10);

    @Test
    void twoDevicesOpenedByOneThreadAnswerEachOther() throws Exception
    {
        try (RdmaDevice a = RdmaDevice.open("memory:10.251.0.1");
            RdmaDevice b = RdmaDevice.open("memory:10.251.0.2"))
        {
            assertSame(ProgressGroup.ofCurrentThread(), a.progressGroup());
            assertSame(a.progressGroup(), b.progressGroup());
            final VerbsFixture.Params params = VerbsFixture.Params.realClock();
            final CompletionQueue cqA = a.createCq(8);
            final CompletionQueue cqB = b.createCq(8);
            final ProtectionDomain pdA = a.allocPd();
            final ProtectionDomain pdB = b.allocPd();
            final QueuePair qpA = pdA.createQp(VerbsFixture.init(QpType.RC, cqA, cqA));
            final QueuePair qpB = pdB.createQp(VerbsFixture.init(QpType.RC, cqB, cqB));
            assertEquals(Gid.parse("10.251.0.2"), b.queryGid(1), "the IPv4-mapped GID of a memory:IP device");
            VerbsFixture.bringUp(qpA, qpB.qpNum(), Gid.parse("10.251.0.2"), params.psnA, params.psnB, params);
            VerbsFixture.bringUp(qpB, qpA.qpNum(), a.queryGid(1), params.psnB, params.psnA, params);
            final MemoryRegion source = pdA.registerMemory(ByteBuffer.allocateDirect(4096), AccessFlags.LOCAL_WRITE);
            final MemoryRegion target = pdB.registerMemory(ByteBuffer.allocateDirect(4096),
                AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
            source.buffer().putLong(0, 0x5EED_F00DL);
            qpB.postRecv(new RecvWorkRequest().wrId(7));
            qpA.postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).immData(42)
                .sendFlags(SendFlags.SIGNALED).addSge(source, 0, 4096).rdma(target.address(0), target.rkey()));

            // Only A's CQ is waited on: the group runs B's engine too.
            final WorkCompletion[] wc = {new WorkCompletion()};
            assertEquals(1, cqA.pollBlocking(wc, WAIT_NS), a.describeCounters());
            assertEquals(WcStatus.SUCCESS, wc[0].status());
            assertEquals(1, cqB.poll(wc));
            assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, wc[0].opcode());
            assertEquals(42, wc[0].immData());
            assertEquals(0x5EED_F00DL, target.buffer().getLong(0));
            assertEquals(0, a.counters().get(TransportCounter.RETRANSMIT_TIMEOUTS), a.describeCounters());
        }
    }

    @Test
    void aSecondThreadRunningTheGroupIsToldWhy() throws Exception
    {
        final ProgressGroup group = new ProgressGroup();
        try (RdmaDevice device = RdmaDevice.open("memory:10.251.0.3", DeviceOptions.invoker().progressGroup(group)))
        {
            device.progress();
            assertSame(Thread.currentThread(), group.owner());
            final AtomicReference<Throwable> failure = new AtomicReference<>();
            final Thread other = new Thread(() ->
            {
                try
                {
                    device.progress();
                }
                catch (final Throwable ex)
                {
                    failure.set(ex);
                }
            }, "second-driver");
            other.start();
            other.join();
            final Throwable error = failure.get();
            assertTrue(error instanceof IllegalStateException, String.valueOf(error));
            final String message = error.getMessage();
            assertTrue(message.contains("thread '" + Thread.currentThread().getName() + "'") &&
                message.contains("thread 'second-driver' tried to run it too") &&
                message.contains("DeviceOptions.invoker().progressGroup(new ProgressGroup())"), message);
        }
    }

    @Test
    void aGroupWhoseThreadEndedMayBeTakenOver() throws Exception
    {
        final ProgressGroup group = new ProgressGroup();
        final Thread first = new Thread(group::progress, "first-driver");
        first.start();
        first.join();
        assertSame(first, group.owner());
        group.progress();
        assertSame(Thread.currentThread(), group.owner());
    }

    @Test
    void specStringsOpenDevicesAndBadOnesSayWhy()
    {
        final IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
            () -> RdmaDevice.open("carrier-pigeon:1"));
        assertTrue(unknown.getMessage().startsWith("unknown link spec 'carrier-pigeon:1'"), unknown.getMessage());
        assertThrows(IllegalArgumentException.class, () -> RdmaDevice.open("memory:10.251.0.400"));
        assertThrows(NullPointerException.class, () -> RdmaDevice.open((String)null));
        assertThrows(IllegalArgumentException.class, () -> RdmaDevice.open("memory:10.251.0.4",
            DeviceOptions.invoker().idleStrategy(new org.agrona.concurrent.BusySpinIdleStrategy())));
        assertNull(org.roce4j.transport.link.memory.MemoryFabric.defaultFabric()
            .port(org.roce4j.wire.header.Ipv4Header.parseAddress("10.251.0.4")), "a refused open leaves no port");
    }
}
