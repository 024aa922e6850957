package org.roce4j.verbs;

import java.util.concurrent.TimeUnit;

import org.agrona.concurrent.YieldingIdleStrategy;
import org.junit.jupiter.api.Test;
import org.roce4j.transport.AhAttributes;
import org.roce4j.transport.AsyncEventType;
import org.roce4j.transport.QpType;
import org.roce4j.transport.TransportCounter;
import org.roce4j.transport.WcOpcode;
import org.roce4j.transport.WcStatus;
import org.roce4j.transport.WorkCompletion;
import org.roce4j.transport.WrOpcode;
import org.roce4j.transport.link.memory.MemoryFabric;

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
            final VerbsFixture.Params params = VerbsFixture.Params.realClock();
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

    /**
     * libibverbs: once a completion is polled, its WR and every unsignaled WR before it have left the send queue,
     * so the application may post a full queue again at once (perftest does exactly this with tx depth = CQ
     * moderation: post N, one signaled, poll it, post N). The engine once published the completion before
     * retiring the WQE, so a poster on another thread could see the completion and still find the queue full
     * ("send queue full: 4 outstanding WRs"). UD, because its WQEs complete as soon as they are sent, which makes
     * many rounds cheap; before the fix the race showed within about a thousand rounds.
     */
    @Test
    void aPolledCompletionHasFreedItsSendQueueSlots()
    {
        final int depth = 4;
        final int rounds = 20_000;
        final MemoryFabric fabric = new MemoryFabric();
        try (RdmaDevice a = RdmaDevice.open(fabric.attach(VerbsFixture.ADDRESS_A, 1500),
            DeviceOptions.dedicated().name("sqA"));
            RdmaDevice b = RdmaDevice.open(fabric.attach(VerbsFixture.ADDRESS_B, 1500),
                DeviceOptions.dedicated().idleStrategy(new YieldingIdleStrategy()).name("sqB")))
        {
            final ProtectionDomain pdA = a.allocPd();
            final CompletionQueue cqA = a.createCq(64);
            final QueuePair qpA = pdA.createQp(new QpInitAttributes().qpType(QpType.UD).cq(cqA)
                .cap(depth, 1, 1, 1, 0));
            final CompletionQueue cqB = b.createCq(64);
            final QueuePair qpB = b.allocPd().createQp(VerbsFixture.init(QpType.UD, cqB, cqB));
            final VerbsFixture.Params params = VerbsFixture.Params.realClock();
            VerbsFixture.bringUp(qpA, 0, b.queryGid(1), 0x10, 0, params);
            VerbsFixture.bringUp(qpB, 0, a.queryGid(1), 0x20, 0, params);
            final MemoryRegion memA = VerbsFixture.register(pdA, 64, ALL_ACCESS);
            final AddressHandle ah = pdA.createAh(new AhAttributes().dgid(b.queryGid(1).high(),
                b.queryGid(1).low()).sgidIndex(1));
            // B posts no receives: it drops every message, which is all this test needs.
            final SendWorkRequest send = new SendWorkRequest().opcode(WrOpcode.SEND).addSge(memA, 0, 8)
                .ud(ah, qpB.qpNum(), 0x1111_1111);
            final WorkCompletion[] out = VerbsFixture.completions(1);
            for (int round = 0; round < rounds; round++)
            {
                for (int i = 0; i < depth; i++)
                {
                    // Only the last WR of each round asks for a completion.
                    qpA.postSend(send.wrId(round).sendFlags(depth - 1 == i ? SendFlags.SIGNALED : 0));
                }
                assertEquals(1, cqA.pollBusy(out, WAIT_NS), "completion of round " + round);
                assertEquals(WcStatus.SUCCESS, out[0].status());
                assertEquals(round, out[0].wrId());
            }
            assertEquals(rounds, a.counters().get(TransportCounter.SEND_COMPLETIONS));
            assertEquals((long)depth * rounds, a.counters().get(TransportCounter.PACKETS_SENT));
            assertEquals(0, a.agentErrors(), String.valueOf(a.lastAgentError()));
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
