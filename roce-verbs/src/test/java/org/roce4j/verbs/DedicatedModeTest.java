package org.roce4j.verbs;

import java.util.concurrent.TimeUnit;

import org.agrona.concurrent.YieldingIdleStrategy;
import org.junit.jupiter.api.Test;
import org.roce4j.transport.AsyncEventType;
import org.roce4j.transport.QpType;
import org.roce4j.transport.TransportCounter;
import org.roce4j.transport.WcOpcode;
import org.roce4j.transport.WcStatus;
import org.roce4j.transport.WorkCompletion;
import org.roce4j.transport.WrOpcode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.roce4j.verbs.VerbsFixture.ALL_ACCESS;

/**
 * Two devices, each with its own agent thread, driven from the test thread: control calls cross threads, posting
 * and polling do not. Waits are bounded by a deadline loop (a safety net, not a speed assertion).
 */
class DedicatedModeTest
{
    private static final int ROUND_TRIPS = 3000;
    private static final int DEPTH = 16;
    private static final long WAIT_NS = TimeUnit.SECONDS.toNanos(20);

    private static WorkCompletion awaitOne(final CompletionQueue cq, final WorkCompletion[] out, final String what)
    {
        final int n = cq.pollBlocking(out, WAIT_NS);
        if (0 == n)
        {
            throw new AssertionError("no completion for " + what + " within the safety bound; " + cq + "\n" +
                cq.device().describeCounters());
        }
        assertEquals(1, n, "one completion per wait for " + what);
        return out[0];
    }

    @Test
    void pingPongBetweenTwoAgentThreadsThenCleanClose() throws InterruptedException
    {
        final PairLink[] links = PairLink.pair(VerbsFixture.ADDRESS_A, VerbsFixture.ADDRESS_B, 1500);
        final RdmaDevice a = RdmaDevice.open(links[0], DeviceOptions.dedicated()
            .idleStrategy(new YieldingIdleStrategy()).name("dedA"));
        final RdmaDevice b = RdmaDevice.open(links[1], DeviceOptions.dedicated()
            .idleStrategy(new YieldingIdleStrategy()).name("dedB"));
        final Thread threadA = a.agentThread();
        final Thread threadB = b.agentThread();
        try
        {
            assertNotNull(threadA);
            assertTrue(threadA.isAlive() && threadB.isAlive());
            assertTrue(threadA.getName().contains("dedA"), threadA.getName());
            assertEquals(AsyncEventType.PORT_ACTIVE, a.getAsyncEvent(WAIT_NS).type());

            final ProtectionDomain pdA = a.allocPd();
            final ProtectionDomain pdB = b.allocPd();
            final CompletionQueue sendA = a.createCq(64);
            final CompletionQueue recvA = a.createCq(64);
            final CompletionQueue sendB = b.createCq(64);
            final CompletionQueue recvB = b.createCq(64);
            final QueuePair qpA = pdA.createQp(VerbsFixture.init(QpType.RC, sendA, recvA));
            final QueuePair qpB = pdB.createQp(VerbsFixture.init(QpType.RC, sendB, recvB));
            final VerbsFixture.Params params = new VerbsFixture.Params();
            VerbsFixture.bringUp(qpA, qpB.qpNum(), b.queryGid(1), 0x10, 0x20, params);
            VerbsFixture.bringUp(qpB, qpA.qpNum(), a.queryGid(1), 0x20, 0x10, params);

            final MemoryRegion memA = VerbsFixture.register(pdA, 64 * (DEPTH + 1), ALL_ACCESS);
            final MemoryRegion memB = VerbsFixture.register(pdB, 64 * (DEPTH + 1), ALL_ACCESS);
            final RecvWorkRequest recv = new RecvWorkRequest();
            for (int i = 0; i < DEPTH; i++)
            {
                qpA.postRecv(recv.reset().wrId(i).addSge(memA, 64L * (i + 1), 64));
                qpB.postRecv(recv.reset().wrId(i).addSge(memB, 64L * (i + 1), 64));
            }
            final SendWorkRequest send = new SendWorkRequest();
            final WorkCompletion[] out = VerbsFixture.completions(1);
            for (int i = 0; i < ROUND_TRIPS; i++)
            {
                memA.buffer().putInt(0, i);
                qpA.postSend(send.reset().wrId(i).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .addSge(memA, 0, 4));
                final WorkCompletion ping = awaitOne(recvB, out, "ping " + i);
                assertEquals(WcStatus.SUCCESS, ping.status());
                final int slotB = (int)ping.wrId();
                assertEquals(i, memB.buffer().getInt(64 * (slotB + 1)));
                qpB.postRecv(recv.reset().wrId(slotB).addSge(memB, 64L * (slotB + 1), 64));

                memB.buffer().putInt(0, -i);
                qpB.postSend(send.reset().wrId(i).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .addSge(memB, 0, 4));
                final WorkCompletion pong = awaitOne(recvA, out, "pong " + i);
                assertEquals(WcStatus.SUCCESS, pong.status());
                final int slotA = (int)pong.wrId();
                assertEquals(-i, memA.buffer().getInt(64 * (slotA + 1)));
                qpA.postRecv(recv.reset().wrId(slotA).addSge(memA, 64L * (slotA + 1), 64));

                assertEquals(WcOpcode.SEND, awaitOne(sendA, out, "send completion A " + i).opcode());
                assertEquals(i, out[0].wrId());
                assertEquals(WcOpcode.SEND, awaitOne(sendB, out, "send completion B " + i).opcode());
            }
            assertEquals(ROUND_TRIPS, a.counters().get(TransportCounter.RECEIVE_COMPLETIONS));
            assertEquals(ROUND_TRIPS, b.counters().get(TransportCounter.RECEIVE_COMPLETIONS));
            assertEquals(0, a.counters().get(TransportCounter.INTERNAL_ERRORS));
            assertEquals(0, a.agentErrors(), String.valueOf(a.lastAgentError()));
            assertEquals(0, b.agentErrors(), String.valueOf(b.lastAgentError()));
            assertEquals(0, a.progress(), "progress() does nothing in DEDICATED mode");
            assertNull(a.pollAsyncEvent(), "no error events");
        }
        finally
        {
            a.close();
            b.close();
        }
        threadA.join(TimeUnit.SECONDS.toMillis(10));
        threadB.join(TimeUnit.SECONDS.toMillis(10));
        assertFalse(threadA.isAlive(), "agent thread A stopped");
        assertFalse(threadB.isAlive(), "agent thread B stopped");
        assertTrue(links[0].isClosed() && links[1].isClosed());
        for (final Thread thread : Thread.getAllStackTraces().keySet())
        {
            assertFalse(thread.getName().contains("roce-engine-ded"), "left running: " + thread.getName());
        }
    }

    @Test
    void controlCallsFromAnotherThreadRunOnTheAgent() throws Exception
    {
        final PairLink[] links = PairLink.pair(VerbsFixture.ADDRESS_A, VerbsFixture.ADDRESS_B, 1500);
        try (RdmaDevice a = RdmaDevice.open(links[0], DeviceOptions.dedicated().backoff().name("ctl")))
        {
            final ProtectionDomain pd = a.allocPd();
            final Throwable[] failure = new Throwable[1];
            final MemoryRegion[] region = new MemoryRegion[1];
            final Thread other = new Thread(() ->
            {
                try
                {
                    region[0] = VerbsFixture.register(pd, 128, ALL_ACCESS);
                }
                catch (final Throwable ex)
                {
                    failure[0] = ex;
                }
            });
            other.start();
            other.join(TimeUnit.SECONDS.toMillis(10));
            assertNull(failure[0]);
            assertEquals(1, a.engine().memoryRegionCount());
            region[0].deregister();
            assertEquals(0, a.engine().memoryRegionCount());
        }
    }
}
