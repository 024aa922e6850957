package org.roce4j.transport.engine;

import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.Mtu;
import org.roce4j.ib.QpType;
import org.roce4j.ib.SendFlags;
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
 * Two engines recovering together from losses that make the responder answer duplicates: the duplicate SEND's ACK
 * must not be taken for the response of a READ or atomic that follows it (rxe ack_psn, implied NAK).
 */
@ExtendWith(EngineHealthCheck.class)
class RcRecoveryEndToEndTest
{
    private static final int ALL = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ |
        AccessFlags.REMOTE_ATOMIC;

    @ParameterizedTest
    @EnumSource(value = WrOpcode.class, names = {"RDMA_READ", "ATOMIC_FETCH_AND_ADD"})
    void sendFollowedByAReadOrAtomicRecoversWhenTheAckAndTheResponseAreBothLost(final WrOpcode second)
    {
        final EnginePair pair = EnginePair.overTestLinks(1500);
        final EnginePair.Connection c = pair.connect(QpType.RC, Mtu.MTU_1024, attr -> attr.timeout = 10);
        final MemoryRegionEntry localA = EnginePair.register(pair.a, 4096, ALL);
        final MemoryRegionEntry memoryB = EnginePair.register(pair.b, 4096, ALL);
        localA.memory().putBytes(0, pattern(100, 1));
        memoryB.memory().putBytes(1024, pattern(100, 2));
        memoryB.memory().putLong(2048, 1000L, ByteOrder.nativeOrder());
        EnginePair.postRecv(c.qpB, 1, memoryB, 0, 1024);
        final boolean read = WrOpcode.RDMA_READ == second;
        final Opcode response = read ? Opcode.RC_RDMA_READ_RESPONSE_ONLY : Opcode.RC_ATOMIC_ACKNOWLEDGE;
        pair.testLinkB().dropWhen(Frames.any(Frames.dropFirst(Opcode.RC_ACKNOWLEDGE, -1, 1),
            Frames.dropFirst(response, -1, 1)));

        EnginePair.post(pair.a, c.qpA, w -> w.wrId(1).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED)
            .sgl().add(localA.iova(), 100, localA.lkey()));
        if (read)
        {
            EnginePair.post(pair.a, c.qpA, w -> w.wrId(2).opcode(WrOpcode.RDMA_READ).flags(SendFlags.SIGNALED)
                .remote(memoryB.iova() + 1024, memoryB.rkey()).sgl().add(localA.iova() + 1024, 100, localA.lkey()));
        }
        else
        {
            EnginePair.post(pair.a, c.qpA, w -> w.wrId(2).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD)
                .flags(SendFlags.SIGNALED).remote(memoryB.iova() + 2048, memoryB.rkey()).atomic(5, 0)
                .sgl().add(localA.iova() + 2048, 8, localA.lkey()));
        }

        final List<WorkCompletion> done = new ArrayList<>();
        pair.runUntil(() ->
        {
            done.addAll(ScriptedPeer.drain(c.sendCqA));
            return done.size() >= 2;
        }, 10_000);

        assertEquals(2, done.size(), done.toString());
        assertEquals(1, done.get(0).wrId());
        assertEquals(WcStatus.SUCCESS, done.get(0).status(), done.toString());
        assertEquals(2, done.get(1).wrId());
        assertEquals(WcStatus.SUCCESS, done.get(1).status(), done.toString());
        if (read)
        {
            assertArrayEquals(pattern(100, 2), ScriptedPeer.bytesOf(localA, 1024, 100));
            assertTrue(pair.b.counters().get(TransportCounter.READ_REPLAYS) >= 1);
        }
        else
        {
            assertEquals(1000L, localA.memory().getLong(2048, ByteOrder.nativeOrder()), "the original value");
            assertEquals(1005L, memoryB.memory().getLong(2048, ByteOrder.nativeOrder()), "added once");
            assertTrue(pair.b.counters().get(TransportCounter.ATOMIC_REPLAYS) >= 1);
        }
        assertEquals(1, ScriptedPeer.drain(c.recvCqB).size(), "the SEND was delivered once");
        assertEquals(1, pair.a.counters().get(TransportCounter.RETRANSMIT_TIMEOUTS));
        assertTrue(pair.b.counters().get(TransportCounter.DUPLICATE_REQUESTS) >= 2,
            "the SEND and the READ/atomic were both retransmitted: " + pair.b.counters());
    }
}
