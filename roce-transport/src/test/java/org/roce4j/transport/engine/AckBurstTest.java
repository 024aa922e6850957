package org.roce4j.transport.engine;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.Mtu;
import org.roce4j.ib.QpType;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WcStatus;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.ib.WrOpcode;
import org.roce4j.transport.TransportCounter;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RoceFrameParser;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * When the responder's coalesced ACK leaves, and how many leave. rxe ACKs every packet that asks (AckReq); roce4j
 * coalesces the AckReqs of one QP's burst (the frames for that QP that arrive back to back) into one ACK carrying the
 * burst's last PSN (IBA 9.7.5.1.1), and sends it as soon as the burst ends: when the receive batch reaches a frame
 * for another QP, or at the end of the batch. So the ACK leaves in the duty cycle of the AckReq packet that ends its
 * burst, before the engine handles the frames of the next QP, and a burst costs one ACK; a QP whose frames come
 * interleaved with other QPs' (several bursts per batch) keeps one ACK per batch, so the counts stay those of
 * coalescing per batch.
 *
 * <p>Two engines in invoker mode over {@link TestLink}s on an injected clock; every duty cycle is run by the test.
 */
class AckBurstTest
{
    private static final int MESSAGE_BYTES = 64;

    @Test
    void theAckOfABurstLeavesInItsDutyCycleBeforeTheNextQpsFramesAreHandled()
    {
        final EnginePair pair = EnginePair.overTestLinks(9000);
        final Qps qps = new Qps(pair, 2, 8);
        final TestLink serverLink = pair.testLinkB();
        serverLink.recordSent = true;
        // A first round: until a batch brought a QP's frames in one burst, its ACK waits for the end of the batch.
        postBursts(qps, 2, 4);
        pair.a.doWork();
        pair.b.doWork();
        assertEquals(List.of(
            new Ack(qps.connections[0].qpA.qpn(), 0x100 + 3, 8),
            new Ack(qps.connections[1].qpA.qpn(), 0x100 + 3, 8)), acks(serverLink));
        pair.a.doWork();
        assertEquals(8, qps.completed());

        postBursts(qps, 2, 4);
        pair.a.doWork();
        assertEquals(8, serverLink.pending(), "the requester sent both bursts in one duty cycle");

        pair.b.doWork();

        // Every WRITE ONLY asks for an ACK; each burst of four is answered by one ACK of its last PSN, and QP 0's
        // leaves once its four frames are handled (8 + 4), before the engine looks at QP 1's.
        assertEquals(List.of(
            new Ack(qps.connections[0].qpA.qpn(), 0x100 + 7, 12),
            new Ack(qps.connections[1].qpA.qpn(), 0x100 + 7, 16)), acks(serverLink));
        assertEquals(4, pair.b.counters().get(TransportCounter.ACKS_SENT));
        assertEquals(12, pair.b.counters().get(TransportCounter.ACKS_COALESCED));

        pair.a.doWork();
        assertEquals(16, qps.completed(), "both bursts completed by their ACKs");
    }

    @Test
    void aBurstSplitByTheReceiveBatchIsAnsweredInTheDutyCycleOfEachPart()
    {
        final TestLink[] links = TestLink.pair(EnginePair.ADDRESS_A, EnginePair.ADDRESS_B, 9000);
        final EnginePair pair = new EnginePair(links[0], links[1], config -> config.receiveBatch(4));
        final Qps qps = new Qps(pair, 1, 8);
        final TestLink serverLink = pair.testLinkB();
        serverLink.recordSent = true;
        for (int i = 0; i < 6; i++)
        {
            qps.postWrite(0);
        }
        pair.a.doWork();

        pair.b.doWork();
        assertEquals(List.of(new Ack(qps.connections[0].qpA.qpn(), 0x100 + 3, 4)), acks(serverLink));
        pair.b.doWork();
        assertEquals(List.of(new Ack(qps.connections[0].qpA.qpn(), 0x100 + 5, 6)), acks(serverLink));
        assertEquals(2, pair.b.counters().get(TransportCounter.ACKS_SENT));
        assertEquals(4, pair.b.counters().get(TransportCounter.ACKS_COALESCED));
    }

    /**
     * Deterministic runs shaped like {@code bench/run.sh engine}'s WRITE figures, 4096 RDMA WRITEs of 64 B, each
     * reposted as it completes, the two engines' duty cycles interleaved by the test: the server sends exactly as
     * many ACKs as when every ACK waited for the end of the receive batch (the figures main gave before the ACK left
     * at the end of its burst), also when a lagging server receives the QPs' frames interleaved (a client sending one
     * or two packets per QP and duty cycle, as an rxe peer's per-QP tasks do).
     */
    @Test
    void ackCountsOfStreamingWritesAreThoseOfBatchCoalescing()
    {
        // 16 QPs x 16 outstanding and 1 QP x 16: one ACK per 16 WRITEs (a burst per QP and batch).
        assertEquals(256, stream(16, 16, 1, 32, 4096));
        assertEquals(256, stream(1, 16, 1, 32, 4096));
        // 2 outstanding, the client running 2 or 3 duty cycles per server cycle: one ACK per 2 WRITEs.
        assertEquals(2048, stream(16, 2, 2, 32, 4096));
        assertEquals(2048, stream(64, 2, 3, 32, 4096));
        // Interleaved: a send budget of 1 or 2 packets per QP and cycle, 4 client cycles per server cycle.
        assertEquals(1024, stream(2, 16, 4, 1, 4096));
        assertEquals(512, stream(4, 16, 4, 2, 4096));
    }

    /**
     * @return ACKs the server sent for {@code messages} WRITEs on {@code qpCount} QPs, {@code depth} outstanding on
     *     each, the client running {@code clientCyclesPerServerCycle} duty cycles for each of the server's.
     */
    private static long stream(final int qpCount, final int depth, final int clientCyclesPerServerCycle,
        final int clientBudget, final int messages)
    {
        final TestLink[] links = TestLink.pair(EnginePair.ADDRESS_A, EnginePair.ADDRESS_B, 9000);
        final EnginePair pair = new EnginePair(links[0], links[1], config -> config.qpSendBudget(clientBudget));
        final Qps qps = new Qps(pair, qpCount, depth);
        for (int qp = 0; qp < qpCount; qp++)
        {
            for (int i = 0; i < depth; i++)
            {
                qps.postWrite(qp);
            }
        }
        long posted = (long)qpCount * depth;
        for (int cycle = 0; qps.completed < messages; cycle++)
        {
            assertTrue(cycle < 1_000_000, "stream stalled at " + qps.completed);
            for (int i = 0; i < clientCyclesPerServerCycle; i++)
            {
                pair.a.doWork();
                for (int qp = 0; qp < qpCount; qp++)
                {
                    final int done = qps.poll(qp);
                    for (int n = 0; n < done && posted < messages; n++)
                    {
                        qps.postWrite(qp);
                        posted++;
                    }
                }
            }
            pair.b.doWork();
        }
        assertEquals(0, pair.a.counters().get(TransportCounter.PACKETS_RETRANSMITTED));
        return pair.b.counters().get(TransportCounter.ACKS_SENT);
    }

    private static void postBursts(final Qps qps, final int qpCount, final int writes)
    {
        for (int qp = 0; qp < qpCount; qp++)
        {
            for (int i = 0; i < writes; i++)
            {
                qps.postWrite(qp);
            }
        }
    }

    private static List<Ack> acks(final TestLink link)
    {
        final List<Ack> out = new ArrayList<>();
        final RoceFrameParser parser = new RoceFrameParser();
        byte[] frame;
        while (null != (frame = link.sent.pollFirst()))
        {
            final long handled = link.handledBeforeSent.pollFirst();
            final SentPacket packet = SentPacket.parse(parser, frame);
            assertEquals(Opcode.RC_ACKNOWLEDGE, packet.opcode(), packet.toString());
            out.add(new Ack(packet.destQp(), packet.psn(), handled));
        }
        return out;
    }

    /**
     * An ACK the server sent.
     *
     * @param destQp  the client QP it acknowledges to.
     * @param psn     the PSN it acknowledges up to.
     * @param handled frames the server had handled when it left.
     */
    private record Ack(int destQp, int psn, long handled)
    {
    }

    /** RC connections from engine A (the client, posting WRITEs) to engine B, and what completed. */
    private static final class Qps
    {
        final EnginePair pair;
        final EnginePair.Connection[] connections;
        final MemoryRegionEntry source;
        final MemoryRegionEntry target;
        final WorkCompletion[] wcs = new WorkCompletion[64];
        final int depth;
        long completed;

        Qps(final EnginePair pair, final int count, final int depth)
        {
            this.pair = pair;
            this.depth = depth;
            connections = new EnginePair.Connection[count];
            for (int i = 0; i < count; i++)
            {
                connections[i] = pair.connect(QpType.RC, Mtu.MTU_4096, attr -> { });
            }
            source = EnginePair.register(pair.a, MESSAGE_BYTES, AccessFlags.LOCAL_WRITE);
            target = EnginePair.register(pair.b, MESSAGE_BYTES, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
            for (int i = 0; i < wcs.length; i++)
            {
                wcs[i] = new WorkCompletion();
            }
        }

        void postWrite(final int qp)
        {
            EnginePair.post(pair.a, connections[qp].qpA, wqe -> wqe.wrId(qp).opcode(WrOpcode.RDMA_WRITE)
                .flags(SendFlags.SIGNALED).remote(target.iova(), target.rkey()).sgl()
                .add(source.iova(), MESSAGE_BYTES, source.lkey()));
        }

        int poll(final int qp)
        {
            final int n = connections[qp].sendCqA.poll(wcs, 0, wcs.length);
            for (int i = 0; i < n; i++)
            {
                assertEquals(WcStatus.SUCCESS, wcs[i].status(), wcs[i].toString());
            }
            completed += n;
            return n;
        }

        long completed()
        {
            for (int qp = 0; qp < connections.length; qp++)
            {
                poll(qp);
            }
            return completed;
        }
    }
}
