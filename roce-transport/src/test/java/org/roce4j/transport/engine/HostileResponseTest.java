package org.roce4j.transport.engine;

import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.QpState;
import org.roce4j.ib.QpType;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WcStatus;
import org.roce4j.ib.WrOpcode;
import org.roce4j.transport.TransportCounter;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.Psn;
import org.roce4j.wire.header.AethHeader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.roce4j.transport.engine.ScriptedPeer.MTU_BYTES;
import static org.roce4j.transport.engine.ScriptedPeer.SQ_PSN;
import static org.roce4j.transport.engine.ScriptedPeer.assertCompletions;
import static org.roce4j.transport.engine.ScriptedPeer.pattern;

/**
 * A hostile peer answering the engine's requester (issue 13): responses for PSNs the QP never sent (ghosts) must
 * complete nothing, and READ, atomic and SEND/WRITE data must never go to or come from local memory deregistered
 * after the WQE started. Each case checks the completions, the memory and every anomaly counter.
 */
@ExtendWith(EngineHealthCheck.class)
class HostileResponseTest
{
    private static final long REMOTE_VA = 0x7000_0000L;
    private static final int REMOTE_RKEY = 0xABCD;
    private static final int S = SQ_PSN;
    private static final int ACK = AethHeader.SYNDROME_ACK_UNLIMITED;
    /** Local ACK timeout 14 of the harness: 4.096 us x 2^14. */
    private static final long TIMEOUT_NS = 4096L << 14;
    /** Where READ and atomic results land in the local region; the bytes sent sit below. */
    private static final int LANDING = 8192;

    private static MemoryRegionEntry local(final ScriptedPeer peer)
    {
        final MemoryRegionEntry mr = peer.mr(16384, AccessFlags.LOCAL_WRITE);
        mr.memory().putBytes(0, pattern(LANDING, 3));
        return mr;
    }

    private static void post(final ScriptedPeer peer, final WrOpcode opcode, final long wrId,
        final MemoryRegionEntry mr, final int offset, final int length)
    {
        peer.post(w -> w.wrId(wrId).opcode(opcode).flags(SendFlags.SIGNALED).remote(REMOTE_VA, REMOTE_RKEY)
            .atomic(5, 0).sgl().add(mr.iova() + offset, length, mr.lkey()));
    }

    // ---- ghosts ------------------------------------------------------------------------------------------------

    @Test
    void ghostAckBeyondEverythingSentCompletesNothingAndTheLostWriteIsResent()
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        final MemoryRegionEntry mr = local(peer);
        final long sentAt = peer.now();
        post(peer, WrOpcode.RDMA_WRITE, 1, mr, 0, 3 * MTU_BYTES);
        assertEquals(3, peer.sent().size(), "the WRITE's three packets, which the peer never got");

        // Before the fix, this ACK completed the WRITE with SUCCESS and nothing was ever resent (issue 13 #1).
        peer.deliver(peer.ack(S + 1000, ACK), peer.ack(S + 3, ACK), peer.nak(S + 3,
            AethHeader.NakCode.REMOTE_ACCESS_ERROR), peer.nak(S + 5, AethHeader.NakCode.PSN_SEQUENCE_ERROR),
            peer.rnrNak(S + 4, 1), peer.readResponse(Opcode.RC_RDMA_READ_RESPONSE_ONLY, S + 3, new byte[8]),
            peer.atomicAck(S + 0x7F_FFFF, 7));

        assertEquals(List.of(), peer.sendCompletions());
        assertEquals(List.of(), peer.sent());
        assertEquals(S, peer.qp.completerPsn(), "the completer's PSN stays at the oldest unacknowledged PSN");
        assertEquals(S + 3, peer.qp.requesterPsn());
        assertEquals(QpState.RTS, peer.qp.state());
        assertEquals(sentAt + TIMEOUT_NS, peer.engine.earliestDeadlineNs(), "ghosts do not push the timer");

        peer.advanceClockTo(peer.engine.earliestDeadlineNs());
        assertEquals(List.of(S, S + 1, S + 2), psns(peer.sent()), "go-back-N resends the whole WRITE");
        peer.deliver(peer.ack(S + 2, ACK));
        assertCompletions(peer.sendCompletions(), 1, WcStatus.SUCCESS);
        peer.assertAnomalies(Map.of(TransportCounter.GHOST_RESPONSES, 7L, TransportCounter.RETRANSMIT_TIMEOUTS, 1L,
            TransportCounter.RETRIES, 1L, TransportCounter.PACKETS_RETRANSMITTED, 3L));
    }

    @Test
    void readResponsesMayUseEveryPsnOfTheReadButNotOneBeyondIt()
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        final MemoryRegionEntry mr = local(peer);
        post(peer, WrOpcode.RDMA_READ, 1, mr, LANDING, 3 * MTU_BYTES);
        assertEquals(1, peer.sent().size(), "one READ request for three response PSNs");
        final byte[] data = pattern(3 * MTU_BYTES, 9);

        peer.deliver(peer.readResponse(Opcode.RC_RDMA_READ_RESPONSE_FIRST, S, ScriptedPeer.slice(data, 0, MTU_BYTES)),
            peer.readResponse(Opcode.RC_RDMA_READ_RESPONSE_MIDDLE, S + 3, new byte[MTU_BYTES]),
            peer.readResponse(Opcode.RC_RDMA_READ_RESPONSE_MIDDLE, S + 1,
                ScriptedPeer.slice(data, MTU_BYTES, MTU_BYTES)),
            peer.readResponse(Opcode.RC_RDMA_READ_RESPONSE_LAST, S + 2,
                ScriptedPeer.slice(data, 2 * MTU_BYTES, MTU_BYTES)));

        assertCompletions(peer.sendCompletions(), 1, WcStatus.SUCCESS);
        assertArrayEquals(data, ScriptedPeer.bytesOf(mr, LANDING, 3 * MTU_BYTES));
        assertEquals(S + 3, peer.qp.completerPsn());
        peer.assertAnomalies(Map.of(TransportCounter.GHOST_RESPONSES, 1L));
    }

    /**
     * A seeded flood of ghost responses of every kind (ACKs with every syndrome, READ responses, atomic
     * acknowledgements) at PSNs beyond the highest sent, while a WRITE, a READ, an atomic and a SEND are
     * outstanding: nothing completes, nothing lands in local memory, and the real responses afterwards complete
     * everything with the right data.
     */
    @Test
    void seededFloodOfGhostResponsesNeitherCompletesNorWritesAnything()
    {
        final long seed = 0x6405_7A1CL;
        System.out.println("seededFloodOfGhostResponses seed=0x" + Long.toHexString(seed));
        final SplittableRandom random = new SplittableRandom(seed);
        final ScriptedPeer peer = ScriptedPeer.rc();
        final MemoryRegionEntry mr = local(peer);
        post(peer, WrOpcode.RDMA_WRITE, 1, mr, 0, 2 * MTU_BYTES);
        post(peer, WrOpcode.RDMA_READ, 2, mr, LANDING, 2 * MTU_BYTES);
        post(peer, WrOpcode.ATOMIC_FETCH_AND_ADD, 3, mr, LANDING + 1024, 8);
        post(peer, WrOpcode.SEND, 4, mr, 1024, 100);
        assertEquals(List.of(S, S + 1, S + 2, S + 4, S + 5), psns(peer.sent()));
        final int highest = S + 5;

        final Opcode[] kinds = {Opcode.RC_ACKNOWLEDGE, Opcode.RC_RDMA_READ_RESPONSE_FIRST,
            Opcode.RC_RDMA_READ_RESPONSE_MIDDLE, Opcode.RC_RDMA_READ_RESPONSE_LAST,
            Opcode.RC_RDMA_READ_RESPONSE_ONLY, Opcode.RC_ATOMIC_ACKNOWLEDGE};
        final int[] syndromes = {ACK, AethHeader.NakCode.PSN_SEQUENCE_ERROR.syndrome(),
            AethHeader.NakCode.INVALID_REQUEST.syndrome(), AethHeader.NakCode.REMOTE_ACCESS_ERROR.syndrome(),
            AethHeader.NakCode.REMOTE_OPERATIONAL_ERROR.syndrome(), AethHeader.TYPE_RNR_NAK | 3, 0x05};
        final int ghosts = 5000;
        for (int i = 0; i < ghosts; i++)
        {
            // Beyond the highest PSN sent, up to half the PSN space ahead (further ahead compares as behind).
            final int psn = Psn.add(highest, 1 + random.nextInt(Psn.HALF_SPACE - 1));
            final Opcode kind = kinds[random.nextInt(kinds.length)];
            if (Opcode.RC_ACKNOWLEDGE == kind)
            {
                peer.step(peer.ack(psn, syndromes[random.nextInt(syndromes.length)]));
            }
            else if (Opcode.RC_ATOMIC_ACKNOWLEDGE == kind)
            {
                peer.step(peer.atomicAck(psn, random.nextLong()));
            }
            else
            {
                final byte[] payload = new byte[Opcode.RC_RDMA_READ_RESPONSE_ONLY == kind ||
                    Opcode.RC_RDMA_READ_RESPONSE_LAST == kind ? 1 + random.nextInt(MTU_BYTES) : MTU_BYTES];
                random.nextBytes(payload);
                peer.step(peer.readResponse(kind, psn, payload));
            }
        }
        peer.run();

        assertEquals(List.of(), peer.sendCompletions(), "seed 0x" + Long.toHexString(seed));
        assertArrayEquals(new byte[2048], ScriptedPeer.bytesOf(mr, LANDING, 2048), "nothing landed");
        assertEquals(S, peer.qp.completerPsn());
        assertEquals(QpState.RTS, peer.qp.state());
        assertEquals(List.of(), peer.sent(), "no retry was started by a ghost NAK");

        final byte[] data = pattern(2 * MTU_BYTES, 5);
        peer.deliver(peer.ack(S + 1, ACK),
            peer.readResponse(Opcode.RC_RDMA_READ_RESPONSE_FIRST, S + 2, ScriptedPeer.slice(data, 0, MTU_BYTES)),
            peer.readResponse(Opcode.RC_RDMA_READ_RESPONSE_LAST, S + 3,
                ScriptedPeer.slice(data, MTU_BYTES, MTU_BYTES)),
            peer.atomicAck(S + 4, 41), peer.ack(S + 5, ACK));
        assertCompletions(peer.sendCompletions(), 1, WcStatus.SUCCESS, 2, WcStatus.SUCCESS, 3, WcStatus.SUCCESS, 4,
            WcStatus.SUCCESS);
        assertArrayEquals(data, ScriptedPeer.bytesOf(mr, LANDING, 2 * MTU_BYTES));
        assertEquals(41, mr.memory().getLong(LANDING + 1024, ByteOrder.nativeOrder()));
        peer.assertAnomalies(Map.of(TransportCounter.GHOST_RESPONSES, (long)ghosts));
    }

    // ---- local memory deregistered while a WQE is in flight ---------------------------------------------------

    @Test
    void readResponseForALandingBufferDeregisteredMeanwhileFailsWithLocalProtectionErrorAndWritesNothing()
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        final MemoryRegionEntry mr = local(peer);
        post(peer, WrOpcode.RDMA_READ, 1, mr, LANDING, 2 * MTU_BYTES);
        post(peer, WrOpcode.SEND, 2, mr, 0, 10);
        assertEquals(2, peer.sent().size());
        peer.engine.deregisterMemory(mr);

        peer.deliver(peer.readResponse(Opcode.RC_RDMA_READ_RESPONSE_FIRST, S, pattern(MTU_BYTES, 1)));

        assertCompletions(peer.sendCompletions(), 1, WcStatus.LOC_PROT_ERR, 2, WcStatus.WR_FLUSH_ERR);
        assertArrayEquals(new byte[2 * MTU_BYTES], ScriptedPeer.bytesOf(mr, LANDING, 2 * MTU_BYTES));
        assertEquals(QpState.ERR, peer.qp.state());
        peer.assertAnomalies(Map.of(TransportCounter.QP_ERRORS, 1L, TransportCounter.ERROR_COMPLETIONS, 2L));
    }

    @Test
    void atomicResultForABufferDeregisteredMeanwhileFailsWithLocalProtectionErrorAndWritesNothing()
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        final MemoryRegionEntry mr = local(peer);
        post(peer, WrOpcode.ATOMIC_FETCH_AND_ADD, 1, mr, LANDING, 8);
        peer.engine.deregisterMemory(mr);

        peer.deliver(peer.atomicAck(S, 0x1122_3344_5566_7788L));

        assertCompletions(peer.sendCompletions(), 1, WcStatus.LOC_PROT_ERR);
        assertEquals(0, mr.memory().getLong(LANDING));
        peer.assertAnomalies(Map.of(TransportCounter.QP_ERRORS, 1L, TransportCounter.ERROR_COMPLETIONS, 1L));
    }

    @Test
    void sendWhoseSourceIsDeregisteredMidMessageStopsReadingItAndFailsWithLocalProtectionError()
    {
        // A send window of 2 stops the requester after two packets of a four-packet SEND.
        final ScriptedPeer peer = ScriptedPeer.create(QpType.RC, QpState.RTS, config -> config.sendWindow(2),
            attr -> {});
        final MemoryRegionEntry mr = local(peer);
        post(peer, WrOpcode.SEND, 1, mr, 0, 4 * MTU_BYTES);
        assertEquals(List.of(S, S + 1), psns(peer.sent()));
        peer.engine.deregisterMemory(mr);

        peer.deliver(peer.ack(S + 1, ACK));

        assertEquals(List.of(), peer.sent(), "no packet gathered from the deregistered region");
        assertCompletions(peer.sendCompletions(), 1, WcStatus.LOC_PROT_ERR);
        assertEquals(QpState.ERR, peer.qp.state());
        peer.assertAnomalies(Map.of(TransportCounter.QP_ERRORS, 1L, TransportCounter.ERROR_COMPLETIONS, 1L));
    }

    @Test
    void wqeFailingBehindAnUnacknowledgedOneCompletesAfterItInSendQueueOrder()
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        final MemoryRegionEntry mr = local(peer);
        final MemoryRegionEntry gone = peer.mr(256, AccessFlags.LOCAL_WRITE);
        post(peer, WrOpcode.SEND, 1, mr, 0, 100);
        assertEquals(1, peer.sent().size());
        peer.engine.deregisterMemory(gone);

        // The second WR's lkey no longer resolves when the requester starts it; the first is still unacknowledged.
        post(peer, WrOpcode.SEND, 2, gone, 0, 100);

        assertCompletions(peer.sendCompletions(), 1, WcStatus.WR_FLUSH_ERR, 2, WcStatus.LOC_PROT_ERR);
        assertEquals(List.of(), peer.sent());
        assertEquals(QpState.ERR, peer.qp.state());
        peer.assertAnomalies(Map.of(TransportCounter.QP_ERRORS, 1L, TransportCounter.ERROR_COMPLETIONS, 2L));
    }

    private static List<Integer> psns(final List<SentPacket> sent)
    {
        final List<Integer> out = new ArrayList<>();
        for (final SentPacket s : sent)
        {
            out.add(s.psn());
        }
        return out;
    }
}
