package org.roce4j.transport.engine;

import java.nio.ByteOrder;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.roce4j.ib.QpState;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WcOpcode;
import org.roce4j.ib.WcStatus;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.ib.WrOpcode;
import org.roce4j.transport.TransportCounter;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.header.AethHeader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.roce4j.transport.engine.RequesterScript.ACK;
import static org.roce4j.transport.engine.RequesterScript.REMOTE_RKEY;
import static org.roce4j.transport.engine.RequesterScript.REMOTE_VA;
import static org.roce4j.transport.engine.RequesterScript.S;
import static org.roce4j.transport.engine.RequesterScript.assertSent;
import static org.roce4j.transport.engine.RequesterScript.local;
import static org.roce4j.transport.engine.RequesterScript.post;
import static org.roce4j.transport.engine.RequesterScript.postFetchAdd;
import static org.roce4j.transport.engine.RequesterScript.postRead;
import static org.roce4j.transport.engine.RequesterScript.postSend;
import static org.roce4j.transport.engine.RequesterScript.psns;
import static org.roce4j.transport.engine.RequesterScript.sentPattern;
import static org.roce4j.transport.engine.ScriptedPeer.MTU_BYTES;
import static org.roce4j.transport.engine.ScriptedPeer.assertCompletions;
import static org.roce4j.transport.engine.ScriptedPeer.pattern;
import static org.roce4j.transport.engine.ScriptedPeer.slice;

/**
 * Requester and completer rules (rxe_req.c, rxe_comp.c; protocol-facts §A.6): the engine's QP is the requester,
 * the scripted peer answers with crafted ACKs, NAKs and responses, and the test checks completions and the packets
 * (re)sent: ACKs and sequence NAKs, READ and atomic responses, error NAKs and stray responses. Retries and timers are
 * in {@link RequesterRetryTest}, ORD, fence, send window and BTH flags in {@link RequesterFlowTest}.
 */
@ExtendWith(EngineHealthCheck.class)
class RequesterCompleterTest
{
    // ---- ACK and sequence NAK ----------------------------------------------------------------------------------

    @Test
    void ackCompletesExactlyTheWqesUpToItsPsnImplyingTheEarlierOnes()
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        final MemoryRegionEntry mr = local(peer);
        for (int i = 0; i < 3; i++)
        {
            postSend(peer, i + 1, mr, i * 100, 100);
        }
        final List<SentPacket> sent = peer.sent();
        assertEquals(List.of(S, S + 1, S + 2), psns(sent));
        for (int i = 0; i < 3; i++)
        {
            assertSent(sent.get(i), Opcode.RC_SEND_ONLY, S + i);
            assertTrue(sent.get(i).ackReq(), "AckReq on the last packet of every message");
            assertArrayEquals(sentPattern(i * 100, 100), sent.get(i).payload());
        }

        peer.deliver(peer.ack(S + 1, ACK));

        final List<WorkCompletion> done = peer.sendCompletions();
        assertCompletions(done, 1, WcStatus.SUCCESS, 2, WcStatus.SUCCESS);
        assertEquals(WcOpcode.SEND, done.get(0).opcode());
        assertEquals(100, done.get(0).byteLen());
        assertEquals(S + 2, peer.qp.completerPsn());
        assertEquals(List.of(), peer.sent());

        peer.deliver(peer.ack(S + 2, ACK));
        assertCompletions(peer.sendCompletions(), 3, WcStatus.SUCCESS);
        assertEquals(2, peer.counter(TransportCounter.ACKS_RECEIVED));
        assertEquals(Long.MAX_VALUE, peer.engine.earliestDeadlineNs(), "nothing outstanding: no timer");
        peer.assertAnomalies(Map.of());
    }

    @Test
    void sequenceNakCompletesEverythingBeforeItsPsnAndGoesBackToIt()
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        final MemoryRegionEntry mr = local(peer);
        for (int i = 0; i < 3; i++)
        {
            postSend(peer, i + 1, mr, i * 100, 100);
        }
        assertEquals(3, peer.sent().size());

        peer.deliver(peer.nak(S + 1, AethHeader.NakCode.PSN_SEQUENCE_ERROR));

        assertCompletions(peer.sendCompletions(), 1, WcStatus.SUCCESS);
        final List<SentPacket> resent = peer.sent();
        assertEquals(List.of(S + 1, S + 2), psns(resent));
        assertArrayEquals(sentPattern(100, 100), resent.get(0).payload());
        assertArrayEquals(sentPattern(200, 100), resent.get(1).payload());
        peer.assertAnomalies(Map.of(TransportCounter.NAK_SEQUENCE_RECEIVED, 1L, TransportCounter.RETRIES, 1L,
            TransportCounter.PACKETS_RETRANSMITTED, 2L));

        peer.deliver(peer.ack(S + 2, ACK));
        assertCompletions(peer.sendCompletions(), 2, WcStatus.SUCCESS, 3, WcStatus.SUCCESS);
        assertEquals(QpState.RTS, peer.qp.state());
    }

    @ParameterizedTest
    @CsvSource({
        "SEND, 2, RC_SEND_MIDDLE",
        "SEND, 3, RC_SEND_LAST",
        "RDMA_WRITE, 1, RC_RDMA_WRITE_MIDDLE",
        "RDMA_WRITE_WITH_IMM, 3, RC_RDMA_WRITE_LAST_WITH_IMMEDIATE"})
    void partlyAcknowledgedMultiPacketMessageResumesMidMessageWithoutItsFirstPacket(final WrOpcode opcode,
        final int nakOffset, final Opcode firstResent)
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        final MemoryRegionEntry mr = local(peer);
        post(peer, opcode, 1, mr, 0, 4 * MTU_BYTES, SendFlags.SIGNALED);
        final List<SentPacket> first = peer.sent();
        assertEquals(List.of(S, S + 1, S + 2, S + 3), psns(first));
        assertEquals(WrOpcode.SEND == opcode ? -1 : 4 * MTU_BYTES, first.get(0).dmaLength(),
            "RETH on the FIRST packet of a WRITE only");

        peer.deliver(peer.nak(S + nakOffset, AethHeader.NakCode.PSN_SEQUENCE_ERROR));

        final List<SentPacket> resent = peer.sent();
        assertEquals(4 - nakOffset, resent.size(), resent.toString());
        assertEquals(firstResent, resent.get(0).opcode());
        for (int i = 0; i < resent.size(); i++)
        {
            final int packet = nakOffset + i;
            assertEquals(first.get(packet).opcode(), resent.get(i).opcode(), "same opcode as the first time");
            assertEquals(S + packet, resent.get(i).psn());
            assertEquals(-1, resent.get(i).dmaLength(), "no RETH on MIDDLE/LAST");
            assertArrayEquals(sentPattern(packet * MTU_BYTES, MTU_BYTES), resent.get(i).payload());
        }
        assertEquals(0, peer.sendCompletions().size());
        peer.assertAnomalies(Map.of(TransportCounter.NAK_SEQUENCE_RECEIVED, 1L, TransportCounter.RETRIES, 1L,
            TransportCounter.PACKETS_RETRANSMITTED, (long)(4 - nakOffset)));

        peer.deliver(peer.ack(S + 3, ACK));
        assertCompletions(peer.sendCompletions(), 1, WcStatus.SUCCESS);
    }

    // ---- READ and atomic responses -----------------------------------------------------------------------------

    @ParameterizedTest
    @EnumSource(value = WrOpcode.class, names = {"RDMA_READ", "ATOMIC_FETCH_AND_ADD"})
    void ackPastAPendingReadOrAtomicIsAnImpliedNakAndGoesBack(final WrOpcode first)
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        final MemoryRegionEntry mr = local(peer);
        if (WrOpcode.RDMA_READ == first)
        {
            postRead(peer, 1, mr, 64 * 1024, 100, 0);
        }
        else
        {
            postFetchAdd(peer, 1, mr, 64 * 1024);
        }
        postSend(peer, 2, mr, 0, 50);
        final List<SentPacket> original = peer.sent();
        assertEquals(List.of(S, S + 1), psns(original));

        peer.deliver(peer.ack(S + 1, ACK));

        final List<SentPacket> resent = peer.sent();
        assertEquals(List.of(S, S + 1), psns(resent));
        assertEquals(original.get(0).opcode(), resent.get(0).opcode());
        assertEquals(original.get(0).va(), resent.get(0).va());
        assertEquals(original.get(0).dmaLength(), resent.get(0).dmaLength());
        assertEquals(0, peer.sendCompletions().size(), "the SEND is not completed past the unanswered request");
        peer.assertAnomalies(Map.of(TransportCounter.IMPLIED_NAKS, 1L, TransportCounter.RETRIES, 1L,
            TransportCounter.PACKETS_RETRANSMITTED, 2L));

        peer.deliver(WrOpcode.RDMA_READ == first ?
            peer.readResponse(Opcode.RC_RDMA_READ_RESPONSE_ONLY, S, pattern(100, 9)) : peer.atomicAck(S, 41));
        peer.deliver(peer.ack(S + 1, ACK));
        assertCompletions(peer.sendCompletions(), 1, WcStatus.SUCCESS, 2, WcStatus.SUCCESS);
        if (WrOpcode.RDMA_READ == first)
        {
            assertArrayEquals(pattern(100, 9), ScriptedPeer.bytesOf(mr, 64 * 1024, 100));
        }
        else
        {
            assertEquals(41L, mr.memory().getLong(64 * 1024, ByteOrder.nativeOrder()));
        }
    }

    @ParameterizedTest
    @EnumSource(value = WrOpcode.class, names = {"RDMA_READ", "ATOMIC_FETCH_AND_ADD"})
    void plainAckAtThePsnOfAnUnansweredReadOrAtomicIsAnImpliedNakNotAnAcknowledgement(final WrOpcode opcode)
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        final MemoryRegionEntry mr = local(peer);
        if (WrOpcode.RDMA_READ == opcode)
        {
            postRead(peer, 1, mr, 64 * 1024, 100, 0);
        }
        else
        {
            postFetchAdd(peer, 1, mr, 64 * 1024);
        }
        final SentPacket original = peer.onlySent();

        peer.deliver(peer.ack(S, ACK));

        // The ACK carries no READ data / original value: the request must be sent again, not skipped.
        final SentPacket resent = peer.onlySent();
        assertEquals(original.opcode(), resent.opcode());
        assertEquals(S, resent.psn());
        assertEquals(0, peer.sendCompletions().size());
        assertEquals(S, peer.qp.completerPsn());
        peer.assertAnomalies(Map.of(TransportCounter.IMPLIED_NAKS, 1L, TransportCounter.RETRIES, 1L,
            TransportCounter.PACKETS_RETRANSMITTED, 1L));

        peer.deliver(WrOpcode.RDMA_READ == opcode ?
            peer.readResponse(Opcode.RC_RDMA_READ_RESPONSE_ONLY, S, pattern(100, 9)) : peer.atomicAck(S, 41));
        assertCompletions(peer.sendCompletions(), 1, WcStatus.SUCCESS);
    }

    @Test
    void multiPacketReadResponseIsPlacedAndCompletesOnItsLastPacket()
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        final MemoryRegionEntry mr = local(peer);
        final int length = 3 * MTU_BYTES - 20;
        postRead(peer, 1, mr, 64 * 1024, length, 0);
        final SentPacket request = peer.onlySent();
        assertSent(request, Opcode.RC_RDMA_READ_REQUEST, S);
        assertEquals(REMOTE_VA, request.va());
        assertEquals(REMOTE_RKEY, request.rkey());
        assertEquals(length, request.dmaLength());
        assertTrue(request.ackReq());
        final byte[] data = pattern(length, 12);

        peer.deliver(
            peer.readResponse(Opcode.RC_RDMA_READ_RESPONSE_FIRST, S, slice(data, 0, MTU_BYTES)),
            peer.readResponse(Opcode.RC_RDMA_READ_RESPONSE_MIDDLE, S + 1, slice(data, MTU_BYTES, MTU_BYTES)));
        assertEquals(0, peer.sendCompletions().size());
        peer.deliver(peer.readResponse(Opcode.RC_RDMA_READ_RESPONSE_LAST, S + 2,
            slice(data, 2 * MTU_BYTES, MTU_BYTES - 20)));

        final List<WorkCompletion> done = peer.sendCompletions();
        assertCompletions(done, 1, WcStatus.SUCCESS);
        assertEquals(WcOpcode.RDMA_READ, done.get(0).opcode());
        assertEquals(length, done.get(0).byteLen());
        assertArrayEquals(data, ScriptedPeer.bytesOf(mr, 64 * 1024, length));
        assertEquals(S + 3, peer.qp.completerPsn());
        peer.assertAnomalies(Map.of());
    }

    @Test
    void readRetryAfterAPartialResponseAsksOnlyForTheRest()
    {
        final ScriptedPeer peer = ScriptedPeer.rc(attr -> attr.timeout = 10);
        final MemoryRegionEntry mr = local(peer);
        postRead(peer, 1, mr, 64 * 1024, 3 * MTU_BYTES, 0);
        assertEquals(1, peer.sent().size());
        final byte[] data = pattern(3 * MTU_BYTES, 13);
        peer.deliver(peer.readResponse(Opcode.RC_RDMA_READ_RESPONSE_FIRST, S, slice(data, 0, MTU_BYTES)));

        peer.advanceClockTo(peer.engine.earliestDeadlineNs());

        final SentPacket retry = peer.onlySent();
        assertSent(retry, Opcode.RC_RDMA_READ_REQUEST, S + 1);
        assertEquals(REMOTE_VA + MTU_BYTES, retry.va(), "rxe req_retry: resume npsn * mtu bytes in");
        assertEquals(2 * MTU_BYTES, retry.dmaLength());
        peer.deliver(
            peer.readResponse(Opcode.RC_RDMA_READ_RESPONSE_MIDDLE, S + 1, slice(data, MTU_BYTES, MTU_BYTES)),
            peer.readResponse(Opcode.RC_RDMA_READ_RESPONSE_LAST, S + 2, slice(data, 2 * MTU_BYTES, MTU_BYTES)));
        assertCompletions(peer.sendCompletions(), 1, WcStatus.SUCCESS);
        assertArrayEquals(data, ScriptedPeer.bytesOf(mr, 64 * 1024, 3 * MTU_BYTES));
        peer.assertAnomalies(Map.of(TransportCounter.RETRANSMIT_TIMEOUTS, 1L, TransportCounter.RETRIES, 1L,
            TransportCounter.PACKETS_RETRANSMITTED, 1L));
    }

    /** A response the completer cannot accept for an outstanding READ (or a READ response for a SEND). */
    enum BadResponse
    {
        MIDDLE_WITHOUT_FIRST, LAST_WITHOUT_FIRST, FIRST_THEN_ONLY, ONLY_LONGER_THAN_ASKED, ONLY_SHORTER_THAN_ASKED,
        ATOMIC_ACKNOWLEDGE_FOR_A_READ, READ_RESPONSE_FOR_A_SEND
    }

    @ParameterizedTest
    @EnumSource(BadResponse.class)
    void unacceptableReadResponseFailsTheWqeWithBadRespErr(final BadResponse bad)
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        final MemoryRegionEntry mr = local(peer);
        final boolean multi = BadResponse.MIDDLE_WITHOUT_FIRST == bad || BadResponse.LAST_WITHOUT_FIRST == bad ||
            BadResponse.FIRST_THEN_ONLY == bad;
        final int length = multi ? 3 * MTU_BYTES : 100;
        if (BadResponse.READ_RESPONSE_FOR_A_SEND == bad)
        {
            postSend(peer, 1, mr, 0, 100);
        }
        else
        {
            postRead(peer, 1, mr, 64 * 1024, length, 0);
        }
        postSend(peer, 2, mr, 0, 10);
        assertEquals(2, peer.sent().size());
        final int readPackets = multi ? 3 : 1;

        final byte[][] responses = switch (bad)
        {
            case MIDDLE_WITHOUT_FIRST -> new byte[][]
                {peer.readResponse(Opcode.RC_RDMA_READ_RESPONSE_MIDDLE, S, pattern(MTU_BYTES, 1))};
            case LAST_WITHOUT_FIRST -> new byte[][]
                {peer.readResponse(Opcode.RC_RDMA_READ_RESPONSE_LAST, S, pattern(MTU_BYTES, 1))};
            case FIRST_THEN_ONLY -> new byte[][]
                {
                    peer.readResponse(Opcode.RC_RDMA_READ_RESPONSE_FIRST, S, pattern(MTU_BYTES, 1)),
                    peer.readResponse(Opcode.RC_RDMA_READ_RESPONSE_ONLY, S + 1, pattern(MTU_BYTES, 1))
                };
            case ONLY_LONGER_THAN_ASKED -> new byte[][]
                {peer.readResponse(Opcode.RC_RDMA_READ_RESPONSE_ONLY, S, pattern(104, 1))};
            case ONLY_SHORTER_THAN_ASKED -> new byte[][]
                {peer.readResponse(Opcode.RC_RDMA_READ_RESPONSE_ONLY, S, pattern(96, 1))};
            case ATOMIC_ACKNOWLEDGE_FOR_A_READ -> new byte[][] {peer.atomicAck(S, 5)};
            case READ_RESPONSE_FOR_A_SEND -> new byte[][]
                {peer.readResponse(Opcode.RC_RDMA_READ_RESPONSE_ONLY, S, pattern(100, 1))};
        };
        peer.deliver(responses);

        assertCompletions(peer.sendCompletions(), 1, WcStatus.BAD_RESP_ERR, 2, WcStatus.WR_FLUSH_ERR);
        assertEquals(QpState.ERR, peer.qp.state());
        assertEquals(List.of(), peer.sent());
        final boolean lengthProblem = BadResponse.ONLY_LONGER_THAN_ASKED == bad ||
            BadResponse.ONLY_SHORTER_THAN_ASKED == bad;
        final Map<TransportCounter, Long> expected = new HashMap<>();
        expected.put(TransportCounter.QP_ERRORS, 1L);
        expected.put(TransportCounter.ERROR_COMPLETIONS, 2L);
        if (!lengthProblem)
        {
            expected.put(TransportCounter.DROP_BAD_RESPONSE, 1L);
        }
        peer.assertAnomalies(expected);
        assertEquals(S + readPackets + 1, peer.qp.requesterPsn());
    }

    // ---- error NAKs and stray responses ------------------------------------------------------------------------

    static Stream<Arguments> errorNaks()
    {
        return Stream.of(
            Arguments.of(AethHeader.NakCode.INVALID_REQUEST.syndrome(), WcStatus.REM_INV_REQ_ERR),
            Arguments.of(AethHeader.NakCode.REMOTE_ACCESS_ERROR.syndrome(), WcStatus.REM_ACCESS_ERR),
            Arguments.of(AethHeader.NakCode.REMOTE_OPERATIONAL_ERROR.syndrome(), WcStatus.REM_OP_ERR),
            // rxe maps every other NAK code to a remote operational error.
            Arguments.of(AethHeader.NakCode.INVALID_RD_REQUEST.syndrome(), WcStatus.REM_OP_ERR),
            Arguments.of(AethHeader.TYPE_NAK | 0x0A, WcStatus.REM_OP_ERR));
    }

    @ParameterizedTest(name = "syndrome {0} -> {1}")
    @MethodSource("errorNaks")
    void errorNakFailsItsWqeWithTheMatchingStatusAndFlushesEveryLaterWqe(final int syndrome,
        final WcStatus status)
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        final MemoryRegionEntry mr = local(peer);
        for (int i = 0; i < 3; i++)
        {
            postSend(peer, i + 1, mr, i * 100, 100);
        }
        assertEquals(3, peer.sent().size());

        peer.deliver(peer.ack(S + 1, syndrome));

        assertCompletions(peer.sendCompletions(), 1, WcStatus.SUCCESS, 2, status, 3, WcStatus.WR_FLUSH_ERR);
        assertEquals(QpState.ERR, peer.qp.state());
        assertEquals(List.of(), peer.sent());
        assertEquals(Long.MAX_VALUE, peer.engine.earliestDeadlineNs(), "no timer for a QP in error");
        peer.assertAnomalies(Map.of(TransportCounter.NAK_ERROR_RECEIVED, 1L, TransportCounter.QP_ERRORS, 1L,
            TransportCounter.ERROR_COMPLETIONS, 2L));
    }

    @Test
    void ackBeforeAnythingWasSentIsAGhost()
    {
        final ScriptedPeer peer = ScriptedPeer.rc();

        peer.deliver(peer.ack(S, ACK));

        assertEquals(List.of(), peer.sent());
        assertEquals(0, peer.sendCompletions().size());
        assertEquals(0, peer.counter(TransportCounter.ACKS_RECEIVED));
        assertEquals(QpState.RTS, peer.qp.state());
        peer.assertAnomalies(Map.of(TransportCounter.GHOST_RESPONSES, 1L));
    }

    @Test
    void ackOfTheLastPsnWithNothingOutstandingIsAStrayDuplicate()
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        postSend(peer, 1, local(peer), 0, 100);
        peer.deliver(peer.ack(S, ACK));
        assertCompletions(peer.sendCompletions(), 1, WcStatus.SUCCESS);

        peer.deliver(peer.ack(S, ACK));

        assertEquals(1, peer.sent().size(), "only the original packet");
        assertEquals(0, peer.sendCompletions().size());
        assertEquals(1, peer.counter(TransportCounter.ACKS_RECEIVED));
        peer.assertAnomalies(Map.of(TransportCounter.DROP_STRAY_RESPONSE, 1L));
    }

    @Test
    void duplicateAndOldAcksAreDroppedAsStrayAndCompleteNothing()
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        final MemoryRegionEntry mr = local(peer);
        postSend(peer, 1, mr, 0, 100);
        postSend(peer, 2, mr, 100, 100);
        peer.deliver(peer.ack(S, ACK));
        assertCompletions(peer.sendCompletions(), 1, WcStatus.SUCCESS);

        peer.deliver(peer.ack(S, ACK), peer.ack(S - 5, ACK), peer.nak(S - 1,
            AethHeader.NakCode.PSN_SEQUENCE_ERROR));

        assertEquals(0, peer.sendCompletions().size());
        assertEquals(2, peer.sent().size(), "only the two original packets; no retry for an old NAK");
        assertEquals(S + 1, peer.qp.completerPsn());
        assertEquals(QpState.RTS, peer.qp.state());
        peer.assertAnomalies(Map.of(TransportCounter.DROP_STRAY_RESPONSE, 3L));
    }
}
