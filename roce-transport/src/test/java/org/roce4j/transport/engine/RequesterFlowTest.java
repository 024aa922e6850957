package org.roce4j.transport.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.QpState;
import org.roce4j.ib.QpType;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WcStatus;
import org.roce4j.ib.WrOpcode;
import org.roce4j.transport.TransportCounter;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.header.AethHeader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.roce4j.transport.engine.RequesterScript.ACK;
import static org.roce4j.transport.engine.RequesterScript.S;
import static org.roce4j.transport.engine.RequesterScript.assertSent;
import static org.roce4j.transport.engine.RequesterScript.local;
import static org.roce4j.transport.engine.RequesterScript.post;
import static org.roce4j.transport.engine.RequesterScript.postRead;
import static org.roce4j.transport.engine.RequesterScript.postSend;
import static org.roce4j.transport.engine.RequesterScript.psns;
import static org.roce4j.transport.engine.ScriptedPeer.MTU_BYTES;
import static org.roce4j.transport.engine.ScriptedPeer.assertCompletions;
import static org.roce4j.transport.engine.ScriptedPeer.pattern;

/**
 * What the requester may send and how it marks it (rxe_req.c; IBA 9.4.4, 10.8.3.3): ORD (max_rd_atomic), fences, the
 * send window, and the BTH flags AckReq and SE. The engine's QP is the requester, the scripted peer answers
 * ({@link RequesterScript}).
 */
@ExtendWith(EngineHealthCheck.class)
class RequesterFlowTest
{
    // ---- ORD, fence, window ------------------------------------------------------------------------------------

    @Test
    void withMaxRdAtomicOneTheSecondReadWaitsForTheFirstToComplete()
    {
        final ScriptedPeer peer = ScriptedPeer.rc(attr -> attr.maxRdAtomic = 1);
        final MemoryRegionEntry mr = local(peer);
        postRead(peer, 1, mr, 64 * 1024, 100, 0);
        postRead(peer, 2, mr, 64 * 1024 + 100, 100, 0);

        assertSent(peer.onlySent(), Opcode.RC_RDMA_READ_REQUEST, S);
        assertEquals(RequesterStall.ORD, peer.qp.requesterStall());
        assertTrue(peer.counter(TransportCounter.ORD_STALLS) > 0);

        peer.deliver(peer.readResponse(Opcode.RC_RDMA_READ_RESPONSE_ONLY, S, pattern(100, 1)));

        assertCompletions(peer.sendCompletions(), 1, WcStatus.SUCCESS);
        assertSent(peer.onlySent(), Opcode.RC_RDMA_READ_REQUEST, S + 1);
        peer.assertAnomalies(Map.of());
    }

    @Test
    void maxRdAtomicIsRoundedUpToAPowerOfTwoAsRxeDoes()
    {
        final ScriptedPeer peer = ScriptedPeer.rc(attr -> attr.maxRdAtomic = 3);
        final MemoryRegionEntry mr = local(peer);
        for (int i = 0; i < 5; i++)
        {
            postRead(peer, i + 1, mr, 64 * 1024 + i * 8, 8, 0);
        }

        assertEquals(List.of(S, S + 1, S + 2, S + 3), psns(peer.sent()), "four READs outstanding, not three");
        assertEquals(RequesterStall.ORD, peer.qp.requesterStall());
        peer.assertAnomalies(Map.of());
    }

    @Test
    void fencedWqeWaitsForEarlierReadsAndAtomicsToComplete()
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        final MemoryRegionEntry mr = local(peer);
        postRead(peer, 1, mr, 64 * 1024, 100, 0);
        post(peer, WrOpcode.SEND, 2, mr, 0, 10, SendFlags.SIGNALED | SendFlags.FENCE);

        assertSent(peer.onlySent(), Opcode.RC_RDMA_READ_REQUEST, S);
        assertEquals(RequesterStall.FENCE, peer.qp.requesterStall());
        assertTrue(peer.counter(TransportCounter.FENCE_STALLS) > 0);

        peer.deliver(peer.readResponse(Opcode.RC_RDMA_READ_RESPONSE_ONLY, S, pattern(100, 1)));

        assertCompletions(peer.sendCompletions(), 1, WcStatus.SUCCESS);
        assertSent(peer.onlySent(), Opcode.RC_SEND_ONLY, S + 1);
        peer.assertAnomalies(Map.of());
    }

    @Test
    void unfencedWqeAfterAReadIsSentAtOnce()
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        final MemoryRegionEntry mr = local(peer);
        postRead(peer, 1, mr, 64 * 1024, 100, 0);
        postSend(peer, 2, mr, 0, 10);

        assertEquals(List.of(S, S + 1), psns(peer.sent()));
        assertEquals(0, peer.counter(TransportCounter.FENCE_STALLS));
        peer.assertAnomalies(Map.of());
    }

    @Test
    void sendWindowStopsTheRequesterAndEachAckReopensIt()
    {
        final ScriptedPeer peer = ScriptedPeer.create(QpType.RC, QpState.RTS, config -> config.sendWindow(2),
            attr -> {});
        final MemoryRegionEntry mr = local(peer);
        for (int i = 0; i < 4; i++)
        {
            postSend(peer, i + 1, mr, i * 10, 10);
        }

        assertEquals(List.of(S, S + 1), psns(peer.sent()));
        assertEquals(RequesterStall.WINDOW, peer.qp.requesterStall());
        assertTrue(peer.counter(TransportCounter.WINDOW_STALLS) > 0);

        peer.deliver(peer.ack(S, ACK));
        assertEquals(List.of(S + 2), psns(peer.sent()));
        peer.deliver(peer.ack(S + 2, ACK));
        assertEquals(List.of(S + 3), psns(peer.sent()));
        peer.deliver(peer.ack(S + 3, ACK));
        assertCompletions(peer.sendCompletions(), 1, WcStatus.SUCCESS, 2, WcStatus.SUCCESS, 3, WcStatus.SUCCESS,
            4, WcStatus.SUCCESS);
        peer.assertAnomalies(Map.of());
    }

    @Test
    void sendWindowCountsPsnsSoItCanStopInsideAMessage()
    {
        final ScriptedPeer peer = ScriptedPeer.create(QpType.RC, QpState.RTS, config -> config.sendWindow(2),
            attr -> {});
        final MemoryRegionEntry mr = local(peer);
        postSend(peer, 1, mr, 0, 4 * MTU_BYTES);

        final List<SentPacket> firstTwo = peer.sent();
        assertEquals(List.of(S, S + 1), psns(firstTwo));
        assertEquals(Opcode.RC_SEND_FIRST, firstTwo.get(0).opcode());
        assertEquals(Opcode.RC_SEND_MIDDLE, firstTwo.get(1).opcode());
        assertEquals(RequesterStall.WINDOW, peer.qp.requesterStall());

        // An ACK inside the message (as for an AckReq every N packets) opens the window without completing it.
        peer.deliver(peer.ack(S + 1, ACK));
        final List<SentPacket> rest = peer.sent();
        assertEquals(List.of(S + 2, S + 3), psns(rest));
        assertEquals(Opcode.RC_SEND_MIDDLE, rest.get(0).opcode());
        assertEquals(Opcode.RC_SEND_LAST, rest.get(1).opcode());
        assertEquals(0, peer.sendCompletions().size());
        peer.deliver(peer.ack(S + 3, ACK));
        assertCompletions(peer.sendCompletions(), 1, WcStatus.SUCCESS);
        peer.assertAnomalies(Map.of());
    }

    @Test
    void retransmitTimerRunsWhileAMessageIsOnlyPartlySentSoALostAckCannotStallIt()
    {
        final ScriptedPeer peer = ScriptedPeer.create(QpType.RC, QpState.RTS, config -> config.sendWindow(2),
            attr -> attr.timeout = 10);
        final long timeoutNs = 4_194_304;
        final MemoryRegionEntry mr = local(peer);
        final long t0 = peer.now();
        postSend(peer, 1, mr, 0, 4 * MTU_BYTES);
        assertEquals(List.of(S, S + 1), psns(peer.sent()));
        assertEquals(RequesterStall.WINDOW, peer.qp.requesterStall());

        // rxe update_state: the timer starts with the first packet sent, not with the message's last one.
        assertEquals(t0 + timeoutNs, peer.engine.earliestDeadlineNs());
        peer.advanceClockTo(t0 + timeoutNs);

        final List<SentPacket> resent = peer.sent();
        assertEquals(List.of(S, S + 1), psns(resent));
        assertEquals(Opcode.RC_SEND_FIRST, resent.get(0).opcode());
        peer.deliver(peer.ack(S + 1, ACK));
        assertEquals(List.of(S + 2, S + 3), psns(peer.sent()));
        peer.deliver(peer.ack(S + 3, ACK));
        assertCompletions(peer.sendCompletions(), 1, WcStatus.SUCCESS);
        peer.assertAnomalies(Map.of(TransportCounter.RETRANSMIT_TIMEOUTS, 1L, TransportCounter.RETRIES, 1L,
            TransportCounter.PACKETS_RETRANSMITTED, 2L));
    }

    @Test
    void ackForTheLastPsnOfAMessageStillBeingResentCompletesItOnceResent()
    {
        // One packet per duty cycle, so the go-back-N resend of the WRITE is still in progress when the ACK that
        // the responder sent for an earlier (duplicate) transmission of its last PSN arrives.
        final ScriptedPeer peer = ScriptedPeer.create(QpType.RC, QpState.RTS, config -> config.qpSendBudget(1),
            attr -> attr.timeout = 10);
        final MemoryRegionEntry mr = local(peer);
        post(peer, WrOpcode.RDMA_WRITE, 1, mr, 0, 4 * MTU_BYTES, SendFlags.SIGNALED);
        assertEquals(List.of(S, S + 1, S + 2, S + 3), psns(peer.sent()));

        peer.step(peer.nak(S + 1, AethHeader.NakCode.PSN_SEQUENCE_ERROR));
        assertEquals(List.of(S + 1), psns(peer.sent()));
        peer.step(peer.ack(S + 3, ACK));
        assertEquals(0, peer.sendCompletions().size(), "not complete while its packets are still going out");
        peer.run();

        assertEquals(List.of(S + 2, S + 3), psns(peer.sent()));
        assertCompletions(peer.sendCompletions(), 1, WcStatus.SUCCESS);
        assertEquals(S + 4, peer.qp.completerPsn());
        peer.assertAnomalies(Map.of(TransportCounter.NAK_SEQUENCE_RECEIVED, 1L, TransportCounter.RETRIES, 1L,
            TransportCounter.PACKETS_RETRANSMITTED, 3L));
    }

    // ---- BTH flags ---------------------------------------------------------------------------------------------

    @Test
    void ackReqIsSetOnTheLastPacketAndOnEveryAckReqIntervalthPacketOfALongMessage()
    {
        final ScriptedPeer peer = ScriptedPeer.create(QpType.RC, QpState.RTS, config -> config.ackReqInterval(4),
            attr -> {});
        final MemoryRegionEntry mr = local(peer);
        postSend(peer, 1, mr, 0, 10 * MTU_BYTES);
        postSend(peer, 2, mr, 0, 2 * MTU_BYTES);

        final List<SentPacket> sent = peer.sent();
        assertEquals(12, sent.size());
        final List<Integer> withAckReq = new ArrayList<>();
        for (int i = 0; i < sent.size(); i++)
        {
            if (sent.get(i).ackReq())
            {
                withAckReq.add(i);
            }
        }
        // Packets 3 and 7 (every 4th), 9 (last of the first message), 11 (last of the second: the count restarts).
        assertEquals(List.of(3, 7, 9, 11), withAckReq);
        peer.assertAnomalies(Map.of());
    }

    @Test
    void packetThatFillsTheSendWindowRequestsAnAckSoTheWindowReopensWithoutATimeout()
    {
        final ScriptedPeer peer = ScriptedPeer.create(QpType.RC, QpState.RTS, config -> config.sendWindow(3),
            attr -> {});
        final MemoryRegionEntry mr = local(peer);
        postSend(peer, 1, mr, 0, 5 * MTU_BYTES);

        List<SentPacket> sent = peer.sent();
        assertEquals(List.of(S, S + 1, S + 2), psns(sent));
        assertFalse(sent.get(0).ackReq());
        assertFalse(sent.get(1).ackReq());
        assertTrue(sent.get(2).ackReq(), "the window is full after this packet: ask for the ACK that reopens it");

        peer.deliver(peer.ack(S + 2, ACK));
        sent = peer.sent();
        assertEquals(List.of(S + 3, S + 4), psns(sent));
        assertFalse(sent.get(0).ackReq());
        assertTrue(sent.get(1).ackReq(), "last packet of the message");
        peer.deliver(peer.ack(S + 4, ACK));
        assertCompletions(peer.sendCompletions(), 1, WcStatus.SUCCESS);
        peer.assertAnomalies(Map.of());
    }

    @Test
    void defaultAckReqIntervalIsEvery64thPacket()
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        final MemoryRegionEntry mr = peer.mr(130 * MTU_BYTES, AccessFlags.LOCAL_WRITE);
        postSend(peer, 1, mr, 0, 130 * MTU_BYTES);

        final List<SentPacket> sent = peer.sent();
        assertEquals(130, sent.size());
        final List<Integer> withAckReq = new ArrayList<>();
        for (int i = 0; i < sent.size(); i++)
        {
            if (sent.get(i).ackReq())
            {
                withAckReq.add(i);
            }
        }
        assertEquals(List.of(63, 127, 129), withAckReq);
        peer.assertAnomalies(Map.of());
    }

    @ParameterizedTest
    @CsvSource({
        "SEND, true, 3",
        "SEND, false, 3",
        "SEND_WITH_IMM, true, 1",
        "RDMA_WRITE_WITH_IMM, true, 2",
        "RDMA_WRITE, true, 2"})
    void solicitedEventBitIsSetOnlyOnTheLastPacketOfASolicitedSendOrWriteWithImmediate(final WrOpcode opcode,
        final boolean solicited, final int packets)
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        final MemoryRegionEntry mr = local(peer);
        post(peer, opcode, 1, mr, 0, packets * MTU_BYTES - 8,
            SendFlags.SIGNALED | (solicited ? SendFlags.SOLICITED : 0));

        final List<SentPacket> sent = peer.sent();
        assertEquals(packets, sent.size());
        final boolean seExpected = solicited && WrOpcode.RDMA_WRITE != opcode;
        for (int i = 0; i < packets - 1; i++)
        {
            assertFalse(sent.get(i).solicited(), sent.get(i).toString());
        }
        assertEquals(seExpected, sent.get(packets - 1).solicited(), sent.get(packets - 1).toString());
        peer.assertAnomalies(Map.of());
    }
}
