package org.roce4j.verbs;

import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.YieldingIdleStrategy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.roce4j.transport.QpType;
import org.roce4j.transport.TransportCounter;
import org.roce4j.transport.WcStatus;
import org.roce4j.transport.WorkCompletion;
import org.roce4j.transport.WrOpcode;
import org.roce4j.transport.engine.EngineConfig;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.RoceFrameParser;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.roce4j.verbs.VerbsFixture.ALL_ACCESS;

/**
 * Memory deregistered by the application's thread while the engines run on their own (DEDICATED threading mode,
 * issue 13): the message in flight is stopped at a known packet by holding the rest back on the link, the region
 * is deregistered from the test thread, then the held packets are let go. Nothing may be written into a region
 * after its deregistration returned, nor read out of one (the application may free the memory at once), and the
 * WRs must complete with the errors rxe gives. Deterministic: the hold, not timing, places the deregistration.
 */
class DeregisterWhileRunningTest
{
    private static final long WAIT_NS = TimeUnit.SECONDS.toNanos(20);
    /** Packets of the message that get through before the rest is held back. */
    private static final int BEFORE_HOLD = 2;
    private static final int MTU = 1024;
    private static final int MESSAGE = 8 * MTU;
    private static final int PSN_A = 0x10;

    private PairLink[] links;
    private RdmaDevice a;
    private RdmaDevice b;
    private QueuePair qpA;
    private QueuePair qpB;
    private CompletionQueue sendA;
    private CompletionQueue recvB;
    private MemoryRegion memA;
    private MemoryRegion memB;

    @BeforeEach
    void open()
    {
        links = PairLink.pair(VerbsFixture.ADDRESS_A, VerbsFixture.ADDRESS_B, 1500);
        // A's send window of 2 PSNs lets a test stop A itself in the middle of a message by holding B's ACKs.
        a = RdmaDevice.open(links[0], DeviceOptions.dedicated().idleStrategy(new YieldingIdleStrategy())
            .engineConfig(new EngineConfig().sendWindow(BEFORE_HOLD)).name("deregA"));
        b = RdmaDevice.open(links[1], DeviceOptions.dedicated().idleStrategy(new YieldingIdleStrategy())
            .name("deregB"));
        final ProtectionDomain pdA = a.allocPd();
        final ProtectionDomain pdB = b.allocPd();
        sendA = a.createCq(64);
        recvB = b.createCq(64);
        qpA = pdA.createQp(VerbsFixture.init(QpType.RC, sendA, a.createCq(64)));
        qpB = pdB.createQp(VerbsFixture.init(QpType.RC, b.createCq(64), recvB));
        final VerbsFixture.Params params = VerbsFixture.Params.realClock();
        VerbsFixture.bringUp(qpA, qpB.qpNum(), b.queryGid(1), PSN_A, 0x20, params);
        VerbsFixture.bringUp(qpB, qpA.qpNum(), a.queryGid(1), 0x20, PSN_A, params);
        memA = VerbsFixture.register(pdA, MESSAGE, ALL_ACCESS);
        memB = VerbsFixture.register(pdB, MESSAGE, ALL_ACCESS);
        for (int i = 0; i < MESSAGE; i++)
        {
            memA.buffer().putByte(i, (byte)(i * 13 + 1));
        }
    }

    @AfterEach
    void close()
    {
        assertEquals(0, a.counters().get(TransportCounter.INTERNAL_ERRORS), a.describeCounters());
        assertEquals(0, b.counters().get(TransportCounter.INTERNAL_ERRORS), b.describeCounters());
        assertEquals(0, a.agentErrors(), String.valueOf(a.lastAgentError()));
        assertEquals(0, b.agentErrors(), String.valueOf(b.lastAgentError()));
        a.close();
        b.close();
    }

    @Test
    void writeTargetDeregisteredMidMessageTakesNoMoreBytes()
    {
        // The WRITE's packets from the third on wait on the link.
        links[0].holdWhen(frame -> psn(frame) >= PSN_A + BEFORE_HOLD);
        qpA.postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
            .addSge(memA, 0, MESSAGE).rdma(memB.iova(), memB.rkey()));
        awaitTrue(() -> BEFORE_HOLD * MTU == b.counters().get(TransportCounter.PAYLOAD_BYTES_RECEIVED),
            "the first packets placed");

        memB.deregister();
        final byte[] atDeregistration = bytes(memB.buffer(), MESSAGE);
        links[0].release();

        final WorkCompletion wc = await(sendA, "the WRITE's completion");
        assertEquals(WcStatus.REM_ACCESS_ERR, wc.status(), wc.toString());
        assertArrayEquals(atDeregistration, bytes(memB.buffer(), MESSAGE), "written after deregistration");
        assertEquals(BEFORE_HOLD * MTU, b.counters().get(TransportCounter.PAYLOAD_BYTES_RECEIVED));
        assertEquals(1, b.counters().get(TransportCounter.NAK_REMOTE_ACCESS_SENT));
    }

    @Test
    void receiveBufferDeregisteredMidSendTakesNoMoreBytes()
    {
        qpB.postRecv(new RecvWorkRequest().wrId(7).addSge(memB, 0, MESSAGE));
        links[0].holdWhen(frame -> psn(frame) >= PSN_A + BEFORE_HOLD);
        qpA.postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
            .addSge(memA, 0, MESSAGE));
        awaitTrue(() -> BEFORE_HOLD * MTU == b.counters().get(TransportCounter.PAYLOAD_BYTES_RECEIVED),
            "the first packets placed");

        memB.deregister();
        final byte[] atDeregistration = bytes(memB.buffer(), MESSAGE);
        links[0].release();

        final WorkCompletion recv = await(recvB, "the receive's completion");
        assertEquals(7, recv.wrId());
        assertEquals(WcStatus.LOC_QP_OP_ERR, recv.status(), recv.toString());
        assertEquals(WcStatus.REM_OP_ERR, await(sendA, "the SEND's completion").status());
        assertArrayEquals(atDeregistration, bytes(memB.buffer(), MESSAGE), "written after deregistration");
        assertEquals(1, b.counters().get(TransportCounter.NAK_REMOTE_OPERATIONAL_SENT));
    }

    @Test
    void sourceDeregisteredMidWriteIsNotReadAgain()
    {
        // A stops after its window of two packets: B's ACK for them waits on the link.
        links[1].holdWhen(frame -> true);
        qpA.postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
            .addSge(memA, 0, MESSAGE).rdma(memB.iova(), memB.rkey()));
        awaitTrue(() -> links[1].heldFrames() > 0, "B's ACK of the first two packets");

        memA.deregister();
        // The application reuses (or frees) the memory at once: these bytes must never leave.
        memA.buffer().setMemory(0, MESSAGE, (byte)0xEE);
        links[1].release();

        final WorkCompletion wc = await(sendA, "the WRITE's completion");
        assertEquals(WcStatus.LOC_PROT_ERR, wc.status(), wc.toString());
        final byte[] landed = bytes(memB.buffer(), MESSAGE);
        for (int i = 0; i < MESSAGE; i++)
        {
            assertFalse((byte)0xEE == landed[i] && i >= BEFORE_HOLD * MTU, "byte " + i + " read after deregistration");
        }
        assertEquals(BEFORE_HOLD * MTU, b.counters().get(TransportCounter.PAYLOAD_BYTES_RECEIVED));
    }

    private static int psn(final byte[] frame)
    {
        final RoceFrameParser parser = new RoceFrameParser();
        return FrameStatus.OK == parser.parse(new UnsafeBuffer(frame), 0, frame.length) ? parser.bth().psn() : -1;
    }

    private static byte[] bytes(final DirectBuffer buffer, final int length)
    {
        final byte[] out = new byte[length];
        buffer.getBytes(0, out);
        return out;
    }

    private static void awaitTrue(final BooleanSupplier condition, final String what)
    {
        final long deadline = System.nanoTime() + WAIT_NS;
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() - deadline > 0)
            {
                throw new AssertionError("gave up waiting for " + what + " (safety bound)");
            }
            Thread.onSpinWait();
        }
    }

    private static WorkCompletion await(final CompletionQueue cq, final String what)
    {
        final WorkCompletion[] out = VerbsFixture.completions(1);
        if (1 != cq.pollBlocking(out, WAIT_NS))
        {
            throw new AssertionError("no completion for " + what + " within the safety bound; " +
                cq.device().describeCounters());
        }
        return out[0];
    }
}
