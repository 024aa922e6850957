package org.roce4j.transport.engine;

import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

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

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.roce4j.transport.engine.ScriptedPeer.pattern;

/**
 * Every opcode family across the 24-bit PSN wrap (0xFFFFFF to 0x000000), between two engines, with and without
 * the loss of the packet at PSN 0: the data, the completions, the recovery counters and the PSNs seen on the wire.
 */
@ExtendWith(EngineHealthCheck.class)
class PsnWrapTest
{
    private static final int ALL = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ |
        AccessFlags.REMOTE_ATOMIC;
    private static final int MTU = 256;
    /** First message: five packets, PSNs 0xFFFFFD, 0xFFFFFE, 0xFFFFFF, 0x000000, 0x000001. */
    private static final int LONG = 5 * MTU;
    /** Second message: two packets, PSNs 2 and 3. */
    private static final int SHORT = MTU + 44;
    private static final int START = 0xFF_FFFD;

    /** The operations sent across the wrap. */
    enum Family
    {
        RC_SEND, RC_WRITE, RC_READ, RC_ATOMICS, UC_SEND, UC_WRITE
    }

    static Stream<Arguments> cases()
    {
        return Stream.of(Family.values()).flatMap(f -> Stream.of(Arguments.of(f, false), Arguments.of(f, true)));
    }

    private static List<WorkCompletion> runUntilCompleted(final EnginePair pair, final CompletionRing sendCq,
        final int sends, final CompletionRing recvCq, final int recvs, final List<WorkCompletion> received)
    {
        final List<WorkCompletion> sent = new ArrayList<>();
        pair.runUntil(() ->
        {
            sent.addAll(ScriptedPeer.drain(sendCq));
            received.addAll(ScriptedPeer.drain(recvCq));
            return sent.size() >= sends && received.size() >= recvs;
        }, 100_000);
        return sent;
    }

    private static void assertAllSucceeded(final List<WorkCompletion> completions, final int count)
    {
        assertEquals(count, completions.size(), completions.toString());
        for (int i = 0; i < count; i++)
        {
            assertEquals(WcStatus.SUCCESS, completions.get(i).status(), completions.toString());
            assertEquals(i + 1, completions.get(i).wrId(), completions.toString());
        }
    }

    @ParameterizedTest(name = "{0}, loss of PSN 0: {1}")
    @MethodSource("cases")
    void operationsCrossThePsnWrapIntact(final Family family, final boolean loss)
    {
        final boolean atomics = Family.RC_ATOMICS == family;
        final int start = atomics ? 0xFF_FFFF : START;
        final boolean uc = Family.UC_SEND == family || Family.UC_WRITE == family;
        final EnginePair pair = EnginePair.overTestLinks(1500);
        final EnginePair.Connection c = pair.connect(uc ? QpType.UC : QpType.RC, Mtu.MTU_256, attr ->
        {
            attr.sqPsn = start;
            attr.rqPsn = start;
            attr.timeout = 10;
        });
        pair.testLinkA().recordSent = true;
        pair.testLinkB().recordSent = true;
        final MemoryRegionEntry localA = EnginePair.register(pair.a, 8192, ALL);
        final MemoryRegionEntry memoryB = EnginePair.register(pair.b, 8192, ALL);
        final byte[] first = pattern(LONG, 1);
        final byte[] second = pattern(SHORT, 2);
        localA.memory().putBytes(0, first);
        localA.memory().putBytes(2048, second);
        memoryB.memory().putBytes(4096, pattern(LONG, 3));
        memoryB.memory().putBytes(6144, pattern(SHORT, 4));
        // Responses (READ, atomics) travel B to A; requests A to B.
        final boolean responsesCarryData = Family.RC_READ == family || atomics;
        if (loss)
        {
            final Opcode lost = switch (family)
            {
                case RC_SEND -> Opcode.RC_SEND_MIDDLE;
                case RC_WRITE -> Opcode.RC_RDMA_WRITE_MIDDLE;
                case RC_READ -> Opcode.RC_RDMA_READ_RESPONSE_MIDDLE;
                case RC_ATOMICS -> Opcode.RC_ATOMIC_ACKNOWLEDGE;
                case UC_SEND -> Opcode.UC_SEND_MIDDLE;
                case UC_WRITE -> Opcode.UC_RDMA_WRITE_MIDDLE;
            };
            (responsesCarryData ? pair.testLinkB() : pair.testLinkA()).dropWhen(Frames.dropFirst(lost, 0, 1));
        }

        final List<WorkCompletion> received = new ArrayList<>();
        final List<WorkCompletion> sent;
        switch (family)
        {
            case RC_SEND, UC_SEND ->
            {
                EnginePair.postRecv(c.qpB, 1, memoryB, 0, 2048);
                EnginePair.postRecv(c.qpB, 2, memoryB, 2048, 2048);
                postFrom(pair, c, WrOpcode.SEND, 1, localA, 0, LONG, memoryB, 0);
                postFrom(pair, c, WrOpcode.SEND, 2, localA, 2048, SHORT, memoryB, 0);
                final boolean messageLost = uc && loss;
                sent = runUntilCompleted(pair, c.sendCqA, 2, c.recvCqB, messageLost ? 1 : 2, received);
                if (messageLost)
                {
                    // UC: the broken message is gone; the next one lands in the receive WQE it had taken.
                    assertEquals(1, received.size(), received.toString());
                    assertEquals(1, received.get(0).wrId());
                    assertEquals(SHORT, received.get(0).byteLen());
                    assertArrayEquals(second, ScriptedPeer.bytesOf(memoryB, 0, SHORT));
                }
                else
                {
                    assertAllSucceeded(received, 2);
                    assertEquals(LONG, received.get(0).byteLen());
                    assertEquals(SHORT, received.get(1).byteLen());
                    assertArrayEquals(first, ScriptedPeer.bytesOf(memoryB, 0, LONG));
                    assertArrayEquals(second, ScriptedPeer.bytesOf(memoryB, 2048, SHORT));
                }
            }
            case RC_WRITE, UC_WRITE ->
            {
                EnginePair.postRecv(c.qpB, 1, memoryB, 0, 16);
                postFrom(pair, c, WrOpcode.RDMA_WRITE, 1, localA, 0, LONG, memoryB, 0);
                postFrom(pair, c, WrOpcode.RDMA_WRITE_WITH_IMM, 2, localA, 2048, SHORT, memoryB, 2048);
                sent = runUntilCompleted(pair, c.sendCqA, 2, c.recvCqB, 1, received);
                assertEquals(1, received.size(), received.toString());
                assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, received.get(0).opcode());
                assertEquals(SHORT, received.get(0).byteLen());
                assertEquals(0x1337, received.get(0).immData());
                assertArrayEquals(second, ScriptedPeer.bytesOf(memoryB, 2048, SHORT));
                if (uc && loss)
                {
                    // The packets before the lost one were placed; the rest of the message never arrived.
                    assertArrayEquals(ScriptedPeer.slice(first, 0, 3 * MTU),
                        ScriptedPeer.bytesOf(memoryB, 0, 3 * MTU));
                    assertArrayEquals(new byte[2 * MTU], ScriptedPeer.bytesOf(memoryB, 3 * MTU, 2 * MTU));
                }
                else
                {
                    assertArrayEquals(first, ScriptedPeer.bytesOf(memoryB, 0, LONG));
                }
            }
            case RC_READ ->
            {
                EnginePair.post(pair.a, c.qpA, w -> w.wrId(1).opcode(WrOpcode.RDMA_READ).flags(SendFlags.SIGNALED)
                    .remote(memoryB.iova() + 4096, memoryB.rkey()).sgl().add(localA.iova() + 4096, LONG,
                    localA.lkey()));
                EnginePair.post(pair.a, c.qpA, w -> w.wrId(2).opcode(WrOpcode.RDMA_READ).flags(SendFlags.SIGNALED)
                    .remote(memoryB.iova() + 6144, memoryB.rkey()).sgl().add(localA.iova() + 6144, SHORT,
                    localA.lkey()));
                sent = runUntilCompleted(pair, c.sendCqA, 2, c.recvCqB, 0, received);
                assertArrayEquals(pattern(LONG, 3), ScriptedPeer.bytesOf(localA, 4096, LONG));
                assertArrayEquals(pattern(SHORT, 4), ScriptedPeer.bytesOf(localA, 6144, SHORT));
            }
            case RC_ATOMICS ->
            {
                memoryB.memory().putLong(0, 10L, ByteOrder.nativeOrder());
                postAtomic(pair, c, WrOpcode.ATOMIC_FETCH_AND_ADD, 1, localA, 4096, memoryB, 5, 0);
                postAtomic(pair, c, WrOpcode.ATOMIC_CMP_AND_SWP, 2, localA, 4104, memoryB, 15, 100);
                postAtomic(pair, c, WrOpcode.ATOMIC_FETCH_AND_ADD, 3, localA, 4112, memoryB, 1, 0);
                sent = runUntilCompleted(pair, c.sendCqA, 3, c.recvCqB, 0, received);
                assertEquals(10L, localA.memory().getLong(4096, ByteOrder.nativeOrder()));
                assertEquals(15L, localA.memory().getLong(4104, ByteOrder.nativeOrder()));
                assertEquals(100L, localA.memory().getLong(4112, ByteOrder.nativeOrder()));
                assertEquals(101L, memoryB.memory().getLong(0, ByteOrder.nativeOrder()), "each executed once");
            }
            default -> throw new AssertionError(family);
        }
        assertAllSucceeded(sent, atomics ? 3 : 2);

        // The PSNs on the wire went through 0xFFFFFF to 0.
        final List<Integer> requestPsns = Frames.psns(pair.testLinkA().sent);
        final List<Integer> responsePsns = Frames.psns(pair.testLinkB().sent);
        final List<Integer> dataPsns = Family.RC_READ == family ? responsePsns : requestPsns;
        assertTrue(dataPsns.contains(0xFF_FFFF) && dataPsns.contains(0), dataPsns.toString());
        if (!loss)
        {
            final List<Integer> expected = switch (family)
            {
                case RC_READ -> List.of(START, 2);
                case RC_ATOMICS -> List.of(0xFF_FFFF, 0, 1);
                default -> List.of(START, 0xFF_FFFE, 0xFF_FFFF, 0, 1, 2, 3);
            };
            assertEquals(expected, requestPsns);
        }
        final int end = atomics ? 2 : 4;
        assertEquals(end, c.qpA.requesterPsn());
        assertEquals(end, c.qpB.responderPsn());
        if (!uc)
        {
            assertEquals(end, c.qpA.completerPsn());
        }
        assertRecovery(pair, family, loss);
    }

    private static void assertRecovery(final EnginePair pair, final Family family, final boolean loss)
    {
        final long retries = pair.a.counters().get(TransportCounter.RETRIES);
        final String counters = "A: " + pair.a.counters() + " / B: " + pair.b.counters();
        if (!loss)
        {
            assertEquals(0, retries, counters);
            assertEquals(0, pair.b.counters().get(TransportCounter.DUPLICATE_REQUESTS), counters);
            assertEquals(0, pair.b.counters().get(TransportCounter.DROP_UC_MESSAGE), counters);
            return;
        }
        switch (family)
        {
            case RC_SEND, RC_WRITE ->
            {
                assertEquals(1, pair.b.counters().get(TransportCounter.NAK_SEQUENCE_SENT), counters);
                assertEquals(1, pair.a.counters().get(TransportCounter.NAK_SEQUENCE_RECEIVED), counters);
                assertEquals(1, retries, counters);
            }
            case RC_READ ->
            {
                // The second READ's response arrives past the gap: an implied NAK, no need to wait for the timer.
                // The first READ is asked again from PSN 0 for its last two packets, the second READ whole; the
                // responder replays both from its resources.
                assertEquals(1, pair.a.counters().get(TransportCounter.IMPLIED_NAKS), counters);
                assertEquals(0, pair.a.counters().get(TransportCounter.RETRANSMIT_TIMEOUTS), counters);
                assertEquals(2, pair.b.counters().get(TransportCounter.READ_REPLAYS), counters);
                assertEquals(1, retries, counters);
            }
            case RC_ATOMICS ->
            {
                // The ACK for PSN 1 arrives without the one for PSN 0: implied NAK, both replayed from storage.
                assertEquals(1, pair.a.counters().get(TransportCounter.IMPLIED_NAKS), counters);
                assertEquals(2, pair.b.counters().get(TransportCounter.ATOMIC_REPLAYS), counters);
                assertEquals(1, retries, counters);
            }
            case UC_SEND, UC_WRITE ->
            {
                // The LAST after the gap is dropped, then the next FIRST abandons the incomplete message.
                assertEquals(2, pair.b.counters().get(TransportCounter.DROP_UC_MESSAGE), counters);
                assertEquals(0, retries, counters);
            }
            default -> throw new AssertionError(family);
        }
    }

    private static void postFrom(final EnginePair pair, final EnginePair.Connection c, final WrOpcode opcode,
        final long wrId, final MemoryRegionEntry local, final int offset, final int length,
        final MemoryRegionEntry remote, final int remoteOffset)
    {
        EnginePair.post(pair.a, c.qpA, w -> w.wrId(wrId).opcode(opcode).flags(SendFlags.SIGNALED)
            .remote(remote.iova() + remoteOffset, remote.rkey()).immediate(0x1337)
            .sgl().add(local.iova() + offset, length, local.lkey()));
    }

    private static void postAtomic(final EnginePair pair, final EnginePair.Connection c, final WrOpcode opcode,
        final long wrId, final MemoryRegionEntry local, final int offset, final MemoryRegionEntry remote,
        final long compareAdd, final long swap)
    {
        EnginePair.post(pair.a, c.qpA, w -> w.wrId(wrId).opcode(opcode).flags(SendFlags.SIGNALED)
            .remote(remote.iova(), remote.rkey()).atomic(compareAdd, swap)
            .sgl().add(local.iova() + offset, 8, local.lkey()));
    }

}
