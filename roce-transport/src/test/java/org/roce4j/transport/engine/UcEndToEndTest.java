package org.roce4j.transport.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.Mtu;
import org.roce4j.ib.QpType;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WcOpcode;
import org.roce4j.ib.WcStatus;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.ib.WrOpcode;
import org.roce4j.transport.TransportCounter;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.Position;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.roce4j.transport.engine.ScriptedPeer.pattern;

/**
 * UC between two engines (IBA 9.8): no ACKs and no retransmission; a lost packet costs exactly the message it
 * belonged to (class D1: the responder drops until the next FIRST/ONLY), and the sender completes every message as
 * soon as its last packet leaves.
 */
@ExtendWith(EngineHealthCheck.class)
class UcEndToEndTest
{
    private static final int ALL = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE;
    private static final int MTU = 256;
    /** Three packets per message: FIRST, MIDDLE, LAST (PSNs 0x100 + 3m .. 0x102 + 3m). */
    private static final int MESSAGE = 3 * MTU - 16;
    private static final int FIRST_PSN = 0x100;

    static Stream<Arguments> losses()
    {
        return Stream.of(WrOpcode.SEND, WrOpcode.RDMA_WRITE_WITH_IMM).flatMap(op -> Stream.of(
            Arguments.of(op, Position.FIRST, 2L), Arguments.of(op, Position.MIDDLE, 2L),
            Arguments.of(op, Position.LAST, 1L)));
    }

    @ParameterizedTest(name = "{0}, {1} of the second message lost")
    @MethodSource("losses")
    void lostPacketCostsOnlyItsOwnMessage(final WrOpcode opcode, final Position lost, final long dropCount)
    {
        final EnginePair pair = EnginePair.overTestLinks(1500);
        final EnginePair.Connection c = pair.connect(QpType.UC, Mtu.MTU_256, attr -> {});
        pair.testLinkA().recordSent = true;
        final int lostPsn = FIRST_PSN + 3 + lost.ordinal();
        final Opcode lostOpcode = lostOpcode(opcode, lost);
        pair.testLinkA().dropWhen(Frames.dropFirst(lostOpcode, lostPsn, 1));
        final MemoryRegionEntry local = EnginePair.register(pair.a, 4096, ALL);
        final MemoryRegionEntry remote = EnginePair.register(pair.b, 8192, ALL);
        for (int m = 0; m < 3; m++)
        {
            local.memory().putBytes(m * 1024, pattern(MESSAGE, m));
            EnginePair.postRecv(c.qpB, m + 1, remote, m * 1024, 1024);
        }

        for (int m = 0; m < 3; m++)
        {
            final int message = m;
            EnginePair.post(pair.a, c.qpA, w -> w.wrId(message + 1).opcode(opcode).flags(SendFlags.SIGNALED)
                .immediate(0x100 + message).remote(remote.iova() + 4096 + message * 1024L, remote.rkey())
                .sgl().add(local.iova() + message * 1024L, MESSAGE, local.lkey()));
        }
        final List<WorkCompletion> sent = new ArrayList<>();
        final List<WorkCompletion> received = new ArrayList<>();
        pair.runUntil(() ->
        {
            sent.addAll(ScriptedPeer.drain(c.sendCqA));
            received.addAll(ScriptedPeer.drain(c.recvCqB));
            return sent.size() >= 3 && received.size() >= 2 && 0 == pair.testLinkB().pending();
        }, 10_000);

        assertEquals(9, pair.testLinkA().sent.size(), "every packet sent exactly once: UC never retransmits");
        assertEquals(3, sent.size());
        for (int m = 0; m < 3; m++)
        {
            assertEquals(m + 1, sent.get(m).wrId());
            assertEquals(WcStatus.SUCCESS, sent.get(m).status(), "the UC sender cannot know of the loss");
        }
        assertEquals(2, received.size(), received.toString());
        final boolean send = WrOpcode.SEND == opcode;
        // Message 1 completes normally; message 2 produces no completion; message 3 completes in the second
        // receive WQE: a broken SEND gives back the WQE its FIRST had taken (class D1), a broken WRITE with
        // immediate never reached the LAST that would have taken one.
        assertEquals(1, received.get(0).wrId());
        assertEquals(2, received.get(1).wrId());
        for (final WorkCompletion wc : received)
        {
            assertEquals(WcStatus.SUCCESS, wc.status());
            assertEquals(MESSAGE, wc.byteLen());
            assertEquals(send ? WcOpcode.RECV : WcOpcode.RECV_RDMA_WITH_IMM, wc.opcode());
        }
        if (send)
        {
            assertArrayEquals(pattern(MESSAGE, 0), ScriptedPeer.bytesOf(remote, 0, MESSAGE));
            assertArrayEquals(pattern(MESSAGE, 2), ScriptedPeer.bytesOf(remote, 1024, MESSAGE));
        }
        else
        {
            assertEquals(0x100, received.get(0).immData());
            assertEquals(0x102, received.get(1).immData());
            assertArrayEquals(pattern(MESSAGE, 0), ScriptedPeer.bytesOf(remote, 4096, MESSAGE));
            assertArrayEquals(pattern(MESSAGE, 2), ScriptedPeer.bytesOf(remote, 4096 + 2048, MESSAGE));
        }
        assertEquals(1, c.qpB.receiveQueue().available(), "the third receive WQE is still posted");
        assertEquals(dropCount, pair.b.counters().get(TransportCounter.DROP_UC_MESSAGE), pair.b.counters().toString());
        assertEquals(0, pair.b.counters().get(TransportCounter.ACKS_SENT));
        assertEquals(0, pair.a.counters().get(TransportCounter.RETRIES));
    }

    private static Opcode lostOpcode(final WrOpcode opcode, final Position position)
    {
        final boolean send = WrOpcode.SEND == opcode;
        return switch (position)
        {
            case FIRST -> send ? Opcode.UC_SEND_FIRST : Opcode.UC_RDMA_WRITE_FIRST;
            case MIDDLE -> send ? Opcode.UC_SEND_MIDDLE : Opcode.UC_RDMA_WRITE_MIDDLE;
            default -> send ? Opcode.UC_SEND_LAST : Opcode.UC_RDMA_WRITE_LAST_WITH_IMMEDIATE;
        };
    }

    @Test
    void ucWriteWithoutImmediateLandsInMemoryAndLosesOnlyTheBrokenMessage()
    {
        final EnginePair pair = EnginePair.overTestLinks(1500);
        final EnginePair.Connection c = pair.connect(QpType.UC, Mtu.MTU_256, attr -> {});
        pair.testLinkA().dropWhen(Frames.dropFirst(Opcode.UC_RDMA_WRITE_MIDDLE, FIRST_PSN + 1, 1));
        final MemoryRegionEntry local = EnginePair.register(pair.a, 4096, ALL);
        final MemoryRegionEntry remote = EnginePair.register(pair.b, 4096, ALL);
        local.memory().putBytes(0, pattern(MESSAGE, 5));
        local.memory().putBytes(1024, pattern(MESSAGE, 6));

        for (int m = 0; m < 2; m++)
        {
            final int message = m;
            EnginePair.post(pair.a, c.qpA, w -> w.wrId(message + 1).opcode(WrOpcode.RDMA_WRITE)
                .flags(SendFlags.SIGNALED).remote(remote.iova() + message * 1024L, remote.rkey())
                .sgl().add(local.iova() + message * 1024L, MESSAGE, local.lkey()));
        }
        final List<WorkCompletion> sent = new ArrayList<>();
        pair.runUntil(() ->
        {
            sent.addAll(ScriptedPeer.drain(c.sendCqA));
            return sent.size() >= 2 && 0 == pair.testLinkB().pending();
        }, 10_000);

        assertEquals(2, sent.size());
        assertEquals(WcStatus.SUCCESS, sent.get(1).status());
        assertEquals(WcOpcode.RDMA_WRITE, sent.get(1).opcode());
        // Message 1: its FIRST was placed, the MIDDLE was lost and the LAST dropped after the gap.
        assertArrayEquals(ScriptedPeer.slice(pattern(MESSAGE, 5), 0, MTU), ScriptedPeer.bytesOf(remote, 0, MTU));
        assertArrayEquals(new byte[MESSAGE - MTU], ScriptedPeer.bytesOf(remote, MTU, MESSAGE - MTU));
        assertArrayEquals(pattern(MESSAGE, 6), ScriptedPeer.bytesOf(remote, 1024, MESSAGE));
        assertEquals(0, ScriptedPeer.drain(c.recvCqB).size(), "a WRITE without immediate completes nothing");
        assertEquals(2, pair.b.counters().get(TransportCounter.DROP_UC_MESSAGE), pair.b.counters().toString());
    }
}
