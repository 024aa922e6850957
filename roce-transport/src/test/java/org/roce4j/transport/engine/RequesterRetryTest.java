package org.roce4j.transport.engine;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.roce4j.ib.QpState;
import org.roce4j.ib.QpType;
import org.roce4j.ib.WcStatus;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.transport.TransportCounter;
import org.roce4j.wire.Opcode;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.roce4j.transport.engine.RequesterScript.ACK;
import static org.roce4j.transport.engine.RequesterScript.S;
import static org.roce4j.transport.engine.RequesterScript.assertSent;
import static org.roce4j.transport.engine.RequesterScript.local;
import static org.roce4j.transport.engine.RequesterScript.postSend;
import static org.roce4j.transport.engine.RequesterScript.psns;
import static org.roce4j.transport.engine.RequesterScript.sentPattern;
import static org.roce4j.transport.engine.ScriptedPeer.assertCompletions;

/**
 * The requester's retries (rxe_comp.c, rxe_req.c req_retry; IBA 9.7.5.2.8, 9.7.6.1.3): RNR NAKs and the RNR timer,
 * the retransmit timer, the retry and RNR retry budgets, with the exact timer deadlines. The engine's QP is the
 * requester, the scripted peer answers ({@link RequesterScript}).
 */
@ExtendWith(EngineHealthCheck.class)
class RequesterRetryTest
{
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
        final SentPacket resent = peer.onlySent();
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

        final SentPacket resent = peer.onlySent();
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
            for (final SentPacket s : peer.sent())
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
}
