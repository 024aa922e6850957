package org.roce4j.transport.engine;

import java.nio.ByteOrder;
import java.util.ArrayList;
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
import org.junit.jupiter.params.provider.ValueSource;
import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.QpState;
import org.roce4j.ib.QpType;
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
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.roce4j.transport.engine.ScriptedPeer.MTU_BYTES;
import static org.roce4j.transport.engine.ScriptedPeer.PEER_QPN;
import static org.roce4j.transport.engine.ScriptedPeer.SQ_PSN;
import static org.roce4j.transport.engine.ScriptedPeer.assertCompletions;
import static org.roce4j.transport.engine.ScriptedPeer.pattern;
import static org.roce4j.transport.engine.ScriptedPeer.slice;

/**
 * Requester and completer rules (rxe_req.c, rxe_comp.c; protocol-facts §A.6): the engine's QP is the requester,
 * the scripted peer answers with crafted ACKs, NAKs and responses, and the test checks completions, the packets
 * (re)sent and the exact timer deadlines.
 */
@ExtendWith(EngineHealthCheck.class)
class RequesterCompleterTest
{
    private static final long REMOTE_VA = 0x7000_0000L;
    private static final int REMOTE_RKEY = 0xABCD;
    private static final int S = SQ_PSN;
    private static final int ACK = AethHeader.SYNDROME_ACK_UNLIMITED;

    /** Local memory: the first 64 KiB hold the pattern sent; READ and atomic results land above. */
    private static MemoryRegionEntry local(final ScriptedPeer peer)
    {
        final MemoryRegionEntry mr = peer.mr(128 * 1024, AccessFlags.LOCAL_WRITE);
        mr.memory().putBytes(0, pattern(64 * 1024, 0));
        return mr;
    }

    private static byte[] sentPattern(final int offset, final int length)
    {
        return slice(pattern(64 * 1024, 0), offset, length);
    }

    private static void postSend(final ScriptedPeer peer, final long wrId, final MemoryRegionEntry mr,
        final int offset, final int length)
    {
        post(peer, WrOpcode.SEND, wrId, mr, offset, length, SendFlags.SIGNALED);
    }

    private static void post(final ScriptedPeer peer, final WrOpcode opcode, final long wrId,
        final MemoryRegionEntry mr, final int offset, final int length, final int flags)
    {
        peer.post(w -> w.wrId(wrId).opcode(opcode).flags(flags).remote(REMOTE_VA + offset, REMOTE_RKEY)
            .immediate(0x5EED).sgl().add(mr.iova() + offset, length, mr.lkey()));
    }

    private static void postRead(final ScriptedPeer peer, final long wrId, final MemoryRegionEntry mr,
        final int localOffset, final int length, final int flags)
    {
        peer.post(w -> w.wrId(wrId).opcode(WrOpcode.RDMA_READ).flags(SendFlags.SIGNALED | flags)
            .remote(REMOTE_VA, REMOTE_RKEY).sgl().add(mr.iova() + localOffset, length, mr.lkey()));
    }

    private static void postFetchAdd(final ScriptedPeer peer, final long wrId, final MemoryRegionEntry mr,
        final int localOffset)
    {
        peer.post(w -> w.wrId(wrId).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).flags(SendFlags.SIGNALED)
            .remote(REMOTE_VA, REMOTE_RKEY).atomic(1, 0).sgl().add(mr.iova() + localOffset, 8, mr.lkey()));
    }

    private static void assertSent(final ScriptedPeer.Sent sent, final Opcode opcode, final int psn)
    {
        assertEquals(opcode, sent.opcode(), sent.toString());
        assertEquals(psn, sent.psn(), sent.toString());
        assertEquals(PEER_QPN, sent.destQp(), sent.toString());
    }

    private static List<Integer> psns(final List<ScriptedPeer.Sent> sent)
    {
        final List<Integer> out = new ArrayList<>();
        for (final ScriptedPeer.Sent s : sent)
        {
            out.add(s.psn());
        }
        return out;
    }

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
        final List<ScriptedPeer.Sent> sent = peer.sent();
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
        final List<ScriptedPeer.Sent> resent = peer.sent();
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
        final List<ScriptedPeer.Sent> first = peer.sent();
        assertEquals(List.of(S, S + 1, S + 2, S + 3), psns(first));
        assertEquals(WrOpcode.SEND == opcode ? -1 : 4 * MTU_BYTES, first.get(0).dmaLength(),
            "RETH on the FIRST packet of a WRITE only");

        peer.deliver(peer.nak(S + nakOffset, AethHeader.NakCode.PSN_SEQUENCE_ERROR));

        final List<ScriptedPeer.Sent> resent = peer.sent();
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

    // ---- RNR ---------------------------------------------------------------------------------------------------

    @ParameterizedTest(name = "RNR timer code {0}: {1} ns")
    @CsvSource({
        "1, 10000",
        "12, 640000",
        "25, 61440000",
        "31, 491520000",
        "0, 655360000"})
    void rnrNakWaitsExactlyTheRnrTimeOfItsTimerCodeBeforeResending(final int timerCode, final long waitNs)
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        final MemoryRegionEntry mr = local(peer);
        postSend(peer, 1, mr, 0, 100);
        assertEquals(1, peer.sent().size());
        final long t0 = peer.now();

        peer.deliver(peer.rnrNak(S, timerCode));
        assertEquals(List.of(), peer.sent());

        // One nanosecond early: nothing (a retransmit timeout falling inside the wait changes nothing either).
        peer.advanceClockTo(t0 + waitNs - 1);
        assertEquals(List.of(), peer.sent());
        peer.advanceClockTo(t0 + waitNs);
        final ScriptedPeer.Sent resent = peer.onlySent();
        assertSent(resent, Opcode.RC_SEND_ONLY, S);
        assertArrayEquals(sentPattern(0, 100), resent.payload());
        peer.assertAnomalies(Map.of(TransportCounter.NAK_RNR_RECEIVED, 1L, TransportCounter.RNR_RETRIES, 1L,
            TransportCounter.RETRIES, 1L, TransportCounter.PACKETS_RETRANSMITTED, 1L));

        peer.deliver(peer.ack(S, ACK));
        assertCompletions(peer.sendCompletions(), 1, WcStatus.SUCCESS);
    }

    @Test
    void rnrNakForALaterPsnCompletesTheEarlierWqesAndResendsFromItsPsn()
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        final MemoryRegionEntry mr = local(peer);
        for (int i = 0; i < 3; i++)
        {
            postSend(peer, i + 1, mr, i * 100, 100);
        }
        assertEquals(3, peer.sent().size());
        final long t0 = peer.now();

        peer.deliver(peer.rnrNak(S + 1, 1));
        assertCompletions(peer.sendCompletions(), 1, WcStatus.SUCCESS);
        assertEquals(List.of(), peer.sent());

        peer.advanceClockTo(t0 + 10_000);
        assertEquals(List.of(S + 1, S + 2), psns(peer.sent()));
        peer.assertAnomalies(Map.of(TransportCounter.NAK_RNR_RECEIVED, 1L, TransportCounter.RNR_RETRIES, 1L,
            TransportCounter.RETRIES, 1L, TransportCounter.PACKETS_RETRANSMITTED, 2L));
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void goodResponseRestoresTheFullRetryBudget(final boolean rnr)
    {
        final ScriptedPeer peer = ScriptedPeer.rc(attr ->
        {
            attr.retryCnt = 1;
            attr.rnrRetry = 1;
            attr.timeout = 10;
        });
        final MemoryRegionEntry mr = local(peer);
        postSend(peer, 1, mr, 0, 100);
        postSend(peer, 2, mr, 100, 100);
        assertEquals(2, peer.sent().size());

        // Spend the single retry on the first WQE, then acknowledge it: the budget is back (rxe
        // reset_retry_counters), so the second WQE may use its own retry instead of failing.
        failOnce(peer, S, rnr);
        assertEquals(List.of(S, S + 1), psns(peer.sent()));
        peer.deliver(peer.ack(S, ACK));
        assertCompletions(peer.sendCompletions(), 1, WcStatus.SUCCESS);
        failOnce(peer, S + 1, rnr);
        assertEquals(List.of(S + 1), psns(peer.sent()));
        peer.deliver(peer.ack(S + 1, ACK));

        assertCompletions(peer.sendCompletions(), 2, WcStatus.SUCCESS);
        assertEquals(QpState.RTS, peer.qp.state());
        peer.assertAnomalies(rnr ?
            Map.of(TransportCounter.NAK_RNR_RECEIVED, 2L, TransportCounter.RNR_RETRIES, 2L,
                TransportCounter.RETRIES, 2L, TransportCounter.PACKETS_RETRANSMITTED, 3L) :
            Map.of(TransportCounter.RETRANSMIT_TIMEOUTS, 2L, TransportCounter.RETRIES, 2L,
                TransportCounter.PACKETS_RETRANSMITTED, 3L));
    }

    private static void failOnce(final ScriptedPeer peer, final int psn, final boolean rnr)
    {
        if (rnr)
        {
            peer.deliver(peer.rnrNak(psn, 1));
            peer.advanceClockTo(peer.now() + 10_000);
        }
        else
        {
            peer.advanceClockTo(peer.engine.earliestDeadlineNs());
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2, 6})
    void rnrRetryCountsDownAndItsExhaustionFailsWithRnrRetryExcErr(final int rnrRetry)
    {
        final ScriptedPeer peer = ScriptedPeer.rc(attr -> attr.rnrRetry = rnrRetry);
        final MemoryRegionEntry mr = local(peer);
        postSend(peer, 1, mr, 0, 100);
        postSend(peer, 2, mr, 100, 100);
        assertEquals(2, peer.sent().size());

        for (int i = 0; i < rnrRetry; i++)
        {
            peer.deliver(peer.rnrNak(S, 1));
            peer.advanceClockTo(peer.now() + 10_000);
            assertEquals(List.of(S, S + 1), psns(peer.sent()), "go back to the RNR-NAKed PSN");
            assertEquals(0, peer.sendCompletions().size());
        }
        peer.deliver(peer.rnrNak(S, 1));

        assertCompletions(peer.sendCompletions(), 1, WcStatus.RNR_RETRY_EXC_ERR, 2, WcStatus.WR_FLUSH_ERR);
        assertEquals(QpState.ERR, peer.qp.state());
        assertEquals(List.of(), peer.sent());
        final Map<TransportCounter, Long> expected = new HashMap<>();
        expected.put(TransportCounter.NAK_RNR_RECEIVED, rnrRetry + 1L);
        expected.put(TransportCounter.RNR_RETRY_EXCEEDED, 1L);
        expected.put(TransportCounter.QP_ERRORS, 1L);
        expected.put(TransportCounter.ERROR_COMPLETIONS, 2L);
        if (rnrRetry > 0)
        {
            expected.put(TransportCounter.RNR_RETRIES, (long)rnrRetry);
            expected.put(TransportCounter.RETRIES, (long)rnrRetry);
            expected.put(TransportCounter.PACKETS_RETRANSMITTED, 2L * rnrRetry);
        }
        peer.assertAnomalies(expected);
    }

    @Test
    void rnrRetrySevenRetriesForever()
    {
        final ScriptedPeer peer = ScriptedPeer.rc(attr -> attr.rnrRetry = 7);
        final MemoryRegionEntry mr = local(peer);
        postSend(peer, 1, mr, 0, 100);
        assertEquals(1, peer.sent().size());

        for (int i = 0; i < 20; i++)
        {
            peer.deliver(peer.rnrNak(S, 1));
            peer.advanceClockTo(peer.now() + 10_000);
            assertSent(peer.onlySent(), Opcode.RC_SEND_ONLY, S);
        }
        peer.deliver(peer.ack(S, ACK));

        assertCompletions(peer.sendCompletions(), 1, WcStatus.SUCCESS);
        peer.assertAnomalies(Map.of(TransportCounter.NAK_RNR_RECEIVED, 20L, TransportCounter.RNR_RETRIES, 20L,
            TransportCounter.RETRIES, 20L, TransportCounter.PACKETS_RETRANSMITTED, 20L));
    }

    // ---- retransmit timer --------------------------------------------------------------------------------------

    @ParameterizedTest(name = "timeout {0}: {1} ns")
    @CsvSource({
        "1, 8192",
        "10, 4194304",
        "14, 67108864",
        "20, 4294967296"})
    void retransmitTimeoutIs4096NanosecondsTimesTwoToTheTimeoutAttribute(final int timeout, final long timeoutNs)
    {
        final ScriptedPeer peer = ScriptedPeer.rc(attr -> attr.timeout = timeout);
        final MemoryRegionEntry mr = local(peer);
        final long t0 = peer.now();
        postSend(peer, 1, mr, 0, 100);
        assertEquals(1, peer.sent().size());
        assertEquals(t0 + timeoutNs, peer.engine.earliestDeadlineNs());

        peer.advanceClockTo(t0 + timeoutNs - 1);
        assertEquals(List.of(), peer.sent());
        peer.advanceClockTo(t0 + timeoutNs);

        final ScriptedPeer.Sent resent = peer.onlySent();
        assertSent(resent, Opcode.RC_SEND_ONLY, S);
        assertArrayEquals(sentPattern(0, 100), resent.payload());
        assertEquals(t0 + 2 * timeoutNs, peer.engine.earliestDeadlineNs(), "re-armed by the retransmission");
        peer.assertAnomalies(Map.of(TransportCounter.RETRANSMIT_TIMEOUTS, 1L, TransportCounter.RETRIES, 1L,
            TransportCounter.PACKETS_RETRANSMITTED, 1L));
    }

    @Test
    void responseWhilePacketsAreOutstandingPushesTheRetransmitDeadlineForward()
    {
        final ScriptedPeer peer = ScriptedPeer.rc(attr -> attr.timeout = 10);
        final long timeoutNs = 4_194_304;
        final MemoryRegionEntry mr = local(peer);
        final long t0 = peer.now();
        postSend(peer, 1, mr, 0, 100);
        postSend(peer, 2, mr, 100, 100);
        assertEquals(2, peer.sent().size());

        peer.advanceClockTo(t0 + 1000);
        peer.deliver(peer.ack(S, ACK));

        assertEquals(t0 + 1000 + timeoutNs, peer.engine.earliestDeadlineNs(), "rxe reset_retry_timer");
        peer.advanceClockTo(t0 + timeoutNs);
        assertEquals(List.of(), peer.sent());
        peer.advanceClockTo(t0 + 1000 + timeoutNs);
        assertSent(peer.onlySent(), Opcode.RC_SEND_ONLY, S + 1);
        peer.assertAnomalies(Map.of(TransportCounter.RETRANSMIT_TIMEOUTS, 1L, TransportCounter.RETRIES, 1L,
            TransportCounter.PACKETS_RETRANSMITTED, 1L));
    }

    @Test
    void timeoutZeroDisablesTheRetransmitTimer()
    {
        final ScriptedPeer peer = ScriptedPeer.rc(attr -> attr.timeout = 0);
        final MemoryRegionEntry mr = local(peer);
        postSend(peer, 1, mr, 0, 100);
        assertEquals(1, peer.sent().size());

        assertEquals(Long.MAX_VALUE, peer.engine.earliestDeadlineNs());
        peer.advanceClockTo(peer.now() + 3_600_000_000_000L);
        assertEquals(List.of(), peer.sent());
        peer.assertAnomalies(Map.of());
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 3, 6, 7})
    void retryCountExhaustionFailsWithRetryExcErrAfterRetryCountPlusOneTransmissions(final int retryCnt)
    {
        final ScriptedPeer peer = ScriptedPeer.rc(attr ->
        {
            attr.retryCnt = retryCnt;
            attr.timeout = 10;
        });
        final MemoryRegionEntry mr = local(peer);
        postSend(peer, 1, mr, 0, 100);
        postSend(peer, 2, mr, 100, 100);
        int transmissionsOfFirst = 0;
        List<WorkCompletion> done = List.of();
        for (int round = 0; round < 20 && done.isEmpty(); round++)
        {
            for (final ScriptedPeer.Sent s : peer.sent())
            {
                transmissionsOfFirst += S == s.psn() ? 1 : 0;
            }
            peer.advanceClockTo(peer.engine.earliestDeadlineNs());
            done = peer.sendCompletions();
        }

        assertEquals(retryCnt + 1, transmissionsOfFirst);
        assertCompletions(done, 1, WcStatus.RETRY_EXC_ERR, 2, WcStatus.WR_FLUSH_ERR);
        assertEquals(QpState.ERR, peer.qp.state());
        assertEquals(List.of(), peer.sent(), "nothing more after the failure");
        final Map<TransportCounter, Long> expected = new HashMap<>();
        expected.put(TransportCounter.RETRANSMIT_TIMEOUTS, retryCnt + 1L);
        expected.put(TransportCounter.RETRY_EXCEEDED, 1L);
        expected.put(TransportCounter.QP_ERRORS, 1L);
        expected.put(TransportCounter.ERROR_COMPLETIONS, 2L);
        if (retryCnt > 0)
        {
            expected.put(TransportCounter.RETRIES, (long)retryCnt);
            expected.put(TransportCounter.PACKETS_RETRANSMITTED, 2L * retryCnt);
        }
        peer.assertAnomalies(expected);
    }

    @Test
    void retryCountSevenRetriesForeverWhenConfiguredToDoAsRxeDoes()
    {
        final ScriptedPeer peer = ScriptedPeer.create(QpType.RC, QpState.RTS,
            config -> config.retryCountSevenForever(true), attr ->
            {
                attr.retryCnt = 7;
                attr.timeout = 1;
            });
        final MemoryRegionEntry mr = local(peer);
        postSend(peer, 1, mr, 0, 100);
        assertEquals(1, peer.sent().size());

        for (int i = 0; i < 30; i++)
        {
            peer.advanceClockTo(peer.engine.earliestDeadlineNs());
            assertSent(peer.onlySent(), Opcode.RC_SEND_ONLY, S);
        }
        assertEquals(0, peer.sendCompletions().size());
        assertEquals(QpState.RTS, peer.qp.state());
        peer.assertAnomalies(Map.of(TransportCounter.RETRANSMIT_TIMEOUTS, 30L, TransportCounter.RETRIES, 30L,
            TransportCounter.PACKETS_RETRANSMITTED, 30L));
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
        final List<ScriptedPeer.Sent> original = peer.sent();
        assertEquals(List.of(S, S + 1), psns(original));

        peer.deliver(peer.ack(S + 1, ACK));

        final List<ScriptedPeer.Sent> resent = peer.sent();
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
        final ScriptedPeer.Sent original = peer.onlySent();

        peer.deliver(peer.ack(S, ACK));

        // The ACK carries no READ data / original value: the request must be sent again, not skipped.
        final ScriptedPeer.Sent resent = peer.onlySent();
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
        final ScriptedPeer.Sent request = peer.onlySent();
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

        final ScriptedPeer.Sent retry = peer.onlySent();
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

        final List<ScriptedPeer.Sent> firstTwo = peer.sent();
        assertEquals(List.of(S, S + 1), psns(firstTwo));
        assertEquals(Opcode.RC_SEND_FIRST, firstTwo.get(0).opcode());
        assertEquals(Opcode.RC_SEND_MIDDLE, firstTwo.get(1).opcode());
        assertEquals(RequesterStall.WINDOW, peer.qp.requesterStall());

        // An ACK inside the message (as for an AckReq every N packets) opens the window without completing it.
        peer.deliver(peer.ack(S + 1, ACK));
        final List<ScriptedPeer.Sent> rest = peer.sent();
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

        final List<ScriptedPeer.Sent> resent = peer.sent();
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

        final List<ScriptedPeer.Sent> sent = peer.sent();
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

        List<ScriptedPeer.Sent> sent = peer.sent();
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

        final List<ScriptedPeer.Sent> sent = peer.sent();
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

        final List<ScriptedPeer.Sent> sent = peer.sent();
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
