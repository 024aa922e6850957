package org.roce4j.cm.ib;

import java.nio.ByteOrder;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.roce4j.wire.mad.CmAttribute;
import org.roce4j.wire.mad.CmDreqMessage;
import org.roce4j.wire.mad.CmMraMessage;
import org.roce4j.wire.mad.CmRejMessage;
import org.roce4j.wire.mad.CmRejectReason;
import org.roce4j.wire.mad.CmRepMessage;
import org.roce4j.wire.mad.CmReqMessage;
import org.roce4j.wire.mad.CmRtuMessage;
import org.roce4j.wire.mad.MadHeader;
import org.roce4j.wire.mad.RdmaCmServiceId;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.roce4j.cm.ib.CmPair.START_NS;

/**
 * The IB CM state machines, one transition or timeout per test, on a scripted wire and a simulated clock: both
 * handshakes, depth and PSN exchange, retransmission of REQ, REP and DREQ at the configured intervals and the
 * give-up after Max CM Retries, MRA, duplicates, REJ in every setup state, TimeWait and stale connections.
 */
class IbCmTest
{
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    /** Linux 6.1 rdma_cm: 2 x 1024 ms (packet lifetime 18) + 4096 ms (CM response timeout 20). */
    private static final long REQ_TIMEOUT_NS = 6144 * MS;
    /** The REQ's local CM response timeout 20: 4096 ms. */
    private static final long REP_TIMEOUT_NS = 4096 * MS;
    /** ACK timeout 19 through cm_convert_to_ms. */
    private static final long TIMEWAIT_NS = 2048 * MS;

    private final CmPair pair = new CmPair().listenB();

    private CmConnection establish()
    {
        final CmConnection active = pair.connectA();
        pair.deliver();
        final CmConnection passive = pair.requests.get(0);
        pair.b.accept(passive, CmPair.reply());
        pair.deliver();
        assertEquals(CmState.ESTABLISHED, active.state());
        assertEquals(CmState.ESTABLISHED, passive.state());
        return active;
    }

    // ---- handshake ------------------------------------------------------------------------------------------------

    @Test
    void reqRepRtuEstablishesBothSidesWithCrossedIdsQpnsAndPsns()
    {
        final CmConnection active = pair.connectA();
        assertEquals(CmState.REQ_SENT, active.state());
        pair.deliver();
        assertEquals(1, pair.requests.size());
        final CmConnection passive = pair.requests.get(0);
        assertEquals(CmState.REQ_RCVD, passive.state());
        assertEquals(active.localCommId(), passive.remoteCommId());
        assertEquals(0x15, passive.remoteQpn());
        assertEquals(0xC19AA7, passive.remotePsn());
        assertEquals(CmPair.GUID_A, passive.remoteCaGuid());
        assertEquals(3, passive.pathMtu());
        assertEquals(0x9F424, passive.flowLabel());
        assertEquals(64, passive.hopLimit());
        assertEquals(19, passive.ackTimeout(), "cm_ack_timeout(15, 18)");
        assertEquals(REP_TIMEOUT_NS, passive.timeoutNs(), "the REQ's local CM response timeout 20");
        assertEquals(1, passive.remoteResponderResources());
        assertEquals(7, passive.retryCount());
        assertEquals(7, passive.rnrRetryCount());
        assertEquals(MadAddress.ipv4(CmPair.IP_A), passive.peer());

        pair.b.accept(passive, CmPair.reply());
        assertEquals(CmState.REP_SENT, passive.state());
        pair.deliver();

        assertEquals(CmState.ESTABLISHED, active.state());
        assertEquals(CmState.ESTABLISHED, passive.state());
        assertEquals(passive.localCommId(), active.remoteCommId());
        assertEquals(0x13, active.remoteQpn());
        assertEquals(0x1DBB70, active.remotePsn());
        assertEquals(CmPair.GUID_B, active.remoteCaGuid());
        assertEquals(19, active.ackTimeout(), "recomputed from the REP's target ACK delay 15");
        assertEquals(List.of("reply", "established"), pair.recA.events);
        assertEquals(List.of("established"), pair.recB.events);
        assertEquals(1, pair.countersA.get(CmCounter.ESTABLISHED));
        assertEquals(1, pair.countersB.get(CmCounter.ESTABLISHED));

        // Every message of the handshake carries the REQ's transaction ID (cm.c: cm_id_priv->tid).
        final long tid = pair.trace.get(0).tid();
        assertEquals(0x1_0000_0000L, tid & 0xFFFF_FFFF_0000_0000L, "hi_tid 1 in the high word");
        assertEquals(Integer.reverseBytes(active.localCommId()) & 0xFFFF_FFFFL, tid & 0xFFFF_FFFFL);
        for (final CmPair.Mad mad : pair.trace)
        {
            assertEquals(tid, mad.tid(), mad.toString());
        }
        assertEquals(List.of(CmAttribute.CONNECT_REQUEST, CmAttribute.CONNECT_REPLY, CmAttribute.READY_TO_USE),
            pair.trace.stream().map(CmPair.Mad::attribute).toList());
        assertEquals(Long.MAX_VALUE, pair.a.earliestDeadlineNs(), "no timer once established");
        assertEquals(Long.MAX_VALUE, pair.b.earliestDeadlineNs());
    }

    @Test
    void repCarriesTheAcceptedDepthsAndTheActiveSideTakesTheMinimum()
    {
        final CmConnection active = pair.a.connect(CmPair.request().responderResources(4).initiatorDepth(8),
            pair.recA, MadAddress.ipv4(CmPair.IP_B));
        pair.deliver();
        final CmConnection passive = pair.requests.get(0);
        assertEquals(4, passive.remoteResponderResources());
        assertEquals(8, passive.remoteInitiatorDepth());
        pair.b.accept(passive, CmPair.reply().responderResources(2).initiatorDepth(3).rnrRetryCount(5));
        pair.deliver();
        final CmRepMessage rep = new CmRepMessage().wrapMad(new UnsafeBuffer(
            pair.sent("B", CmAttribute.CONNECT_REPLY).get(0).bytes()), 0);
        assertEquals(2, rep.responderResources());
        assertEquals(3, rep.initiatorDepth());
        assertEquals(5, rep.rnrRetryCount());
        assertEquals(15, rep.targetAckDelay());
        assertEquals(2, active.initiatorDepth(), "min(our initiator depth 8, their responder resources 2)");
        assertEquals(2, active.remoteResponderResources());
        assertEquals(3, active.responderResources(), "min(4, their initiator depth 3)");
        assertEquals(5, active.rnrRetryCount(), "the REP's RNR retry count is for our QP");
    }

    // ---- retransmission and timeouts ----------------------------------------------------------------------------

    @Test
    void unansweredReqIsSent16TimesEvery6144MsThenTheConnectionIsUnreachable()
    {
        pair.dropWhen(mad -> true);
        final CmConnection active = pair.connectA();
        for (int i = 1; i <= 15; i++)
        {
            assertEquals(START_NS + i * REQ_TIMEOUT_NS, pair.nextTimer());
            assertEquals(CmState.REQ_SENT, active.state());
        }
        final List<CmPair.Mad> reqs = pair.sent("A", CmAttribute.CONNECT_REQUEST);
        assertEquals(16, reqs.size(), "the REQ and Max CM Retries (15) retransmissions");
        for (final CmPair.Mad mad : reqs)
        {
            assertArrayEquals(reqs.get(0).bytes(), mad.bytes(), "a retransmission is the same MAD");
        }
        assertEquals(List.of(), pair.recA.events);
        assertEquals(START_NS + 16 * REQ_TIMEOUT_NS, pair.nextTimer());
        assertEquals(List.of("timeout REQ_SENT"), pair.recA.events);
        assertEquals(CmState.IDLE, active.state());
        assertNull(pair.a.connection(active.localCommId()), "forgotten");
        assertEquals(15, pair.countersA.get(CmCounter.RETRANSMISSIONS));
        assertEquals(1, pair.countersA.get(CmCounter.TIMEOUTS));
        assertEquals(Long.MAX_VALUE, pair.a.earliestDeadlineNs());
    }

    @Test
    void lostRepIsSentAgainAfterTheRepTimeoutAndTheConnectionCompletes()
    {
        final int[] reps = {0};
        pair.dropWhen(mad -> CmAttribute.CONNECT_REPLY == mad.attribute() && 1 == ++reps[0]);
        final CmConnection active = pair.connectA();
        pair.deliver();
        final CmConnection passive = pair.requests.get(0);
        pair.b.accept(passive, CmPair.reply());
        pair.deliver();
        assertEquals(CmState.REQ_SENT, active.state());
        assertEquals(START_NS + REP_TIMEOUT_NS, pair.nextTimer(), "B's REP timer (4096 ms) fires before A's REQ's");
        assertEquals(CmState.ESTABLISHED, active.state());
        assertEquals(CmState.ESTABLISHED, passive.state());
        assertEquals(1, pair.countersB.get(CmCounter.RETRANSMISSIONS));
        assertEquals(2, pair.sent("B", CmAttribute.CONNECT_REPLY).size());
    }

    @Test
    void repeatedReqWhileTheRepIsOutstandingGetsTheRepAgain()
    {
        final int[] reps = {0};
        pair.dropWhen(mad -> CmAttribute.CONNECT_REPLY == mad.attribute() && 1 == ++reps[0]);
        final CmConnection active = pair.connectA();
        pair.deliver();
        final CmConnection passive = pair.requests.get(0);
        pair.b.accept(passive, CmPair.reply());
        pair.deliver();
        // A retransmits its REQ (as if its timer were shorter than B's REP timer): B answers with the REP again.
        CmPair.inject(pair.b, pair.sent("A", CmAttribute.CONNECT_REQUEST).get(0).bytes(), CmPair.IP_A);
        pair.deliver();
        assertEquals(CmState.ESTABLISHED, active.state());
        assertEquals(1, pair.countersB.get(CmCounter.DUPLICATES));
        assertEquals(1, pair.requests.size(), "a duplicate REQ makes no new connection");
        assertEquals(0, pair.countersB.get(CmCounter.RETRANSMISSIONS));
    }

    @Test
    void lostRtuBringsTheRepAgainAndTheActiveSideAnswersWithTheRtu()
    {
        final int[] rtus = {0};
        pair.dropWhen(mad -> CmAttribute.READY_TO_USE == mad.attribute() && 1 == ++rtus[0]);
        final CmConnection active = pair.connectA();
        pair.deliver();
        final CmConnection passive = pair.requests.get(0);
        pair.b.accept(passive, CmPair.reply());
        pair.deliver();
        assertEquals(CmState.ESTABLISHED, active.state());
        assertEquals(CmState.REP_SENT, passive.state());
        pair.nextTimer();
        assertEquals(CmState.ESTABLISHED, passive.state());
        assertEquals(1, pair.countersA.get(CmCounter.DUPLICATES), "A saw the REP twice");
        assertEquals(2, pair.sent("A", CmAttribute.READY_TO_USE).size());
        assertArrayEquals(pair.sent("A", CmAttribute.READY_TO_USE).get(0).bytes(),
            pair.sent("A", CmAttribute.READY_TO_USE).get(1).bytes());
        assertEquals(List.of("reply", "established"), pair.recA.events, "one ESTABLISHED only");
    }

    @Test
    void repWithoutRtuTimesOutAfterMaxCmRetries()
    {
        pair.dropWhen(mad -> "B".equals(mad.from()));
        final CmConnection active = pair.connectA();
        pair.deliver();
        final CmConnection passive = pair.requests.get(0);
        pair.b.accept(passive, CmPair.reply());
        pair.dropWhen(mad -> true);
        final long acceptedAt = pair.clock.nanoTime();
        while (CmState.REP_SENT == passive.state())
        {
            pair.nextTimer();
        }
        assertEquals(CmState.IDLE, passive.state());
        assertEquals(List.of("timeout REP_SENT"), pair.recB.events);
        assertEquals(16, pair.sent("B", CmAttribute.CONNECT_REPLY).size());
        assertEquals(acceptedAt + 16 * REP_TIMEOUT_NS, pair.sent("B", CmAttribute.CONNECT_REPLY).get(15).sentNs() +
            REP_TIMEOUT_NS);
        assertEquals(CmState.REQ_SENT, active.state());
    }

    // ---- MRA ----------------------------------------------------------------------------------------------------

    @Test
    void repeatedReqWhileTheApplicationDecidesGetsAnMraAndTheActiveSideWaitsLonger()
    {
        final CmConnection active = pair.connectA();
        pair.deliver();
        final CmConnection passive = pair.requests.get(0);
        assertEquals(0, pair.sent("B", CmAttribute.MSG_RCPT_ACK).size(), "no MRA until the REQ comes again");

        assertEquals(START_NS + REQ_TIMEOUT_NS, pair.nextTimer());
        assertEquals(CmState.MRA_REQ_SENT, passive.state());
        assertEquals(CmState.MRA_REQ_RCVD, active.state());
        final CmMraMessage mra = new CmMraMessage().wrapMad(new UnsafeBuffer(
            pair.sent("B", CmAttribute.MSG_RCPT_ACK).get(0).bytes()), 0);
        assertEquals(CmMraMessage.MRAED_REQ, mra.messageMraed());
        assertEquals(24, mra.serviceTimeout());
        assertEquals(active.localCommId(), mra.remoteCommId());
        assertEquals(passive.localCommId(), mra.localCommId());
        assertEquals(List.of("mra"), pair.recA.events);
        // cm.c cm_mra_handler: service timeout 24 (65536 ms) + ACK timeout 19 (2048 ms).
        assertEquals(START_NS + REQ_TIMEOUT_NS + (65536 + 2048) * MS, active.deadlineNs());

        pair.b.accept(passive, CmPair.reply());
        pair.deliver();
        assertEquals(CmState.ESTABLISHED, active.state());
        assertEquals(CmState.ESTABLISHED, passive.state());
        assertEquals(1, pair.countersB.get(CmCounter.MRA_SENT));
        assertEquals(1, pair.countersA.get(CmCounter.MRA_RECEIVED));
    }

    @Test
    void afterTheMraWaitTheReqIsSentAgainAndAnotherRepeatGetsTheMraAgain()
    {
        final CmConnection active = pair.connectA();
        pair.deliver();
        final CmConnection passive = pair.requests.get(0);
        pair.nextTimer();
        assertEquals(CmState.MRA_REQ_RCVD, active.state());
        assertEquals(START_NS + REQ_TIMEOUT_NS + (65536 + 2048) * MS, pair.nextTimer());
        assertEquals(2, pair.sent("B", CmAttribute.MSG_RCPT_ACK).size(), "the MRA answers the next REQ too");
        assertEquals(CmState.MRA_REQ_SENT, passive.state());
        assertEquals(1, pair.countersA.get(CmCounter.DUPLICATES), "the second MRA is a duplicate for A");
        assertEquals(2, pair.countersB.get(CmCounter.DUPLICATES));
    }

    @Test
    void mraForTheRepExtendsThePassiveSidesWait()
    {
        final CmConnection active = pair.connectA();
        pair.deliver();
        final CmConnection passive = pair.requests.get(0);
        pair.dropWhen(mad -> CmAttribute.READY_TO_USE == mad.attribute());
        pair.recA.autoRtu = false;
        pair.b.accept(passive, CmPair.reply());
        pair.deliver();
        assertEquals(CmState.REP_RCVD, active.state());
        // An MRA for the REP (a peer whose application is slow to confirm).
        final UnsafeBuffer mad = new UnsafeBuffer(new byte[MadHeader.MAD_LENGTH]);
        new MadHeader().wrap(mad, 0).cm(CmAttribute.MSG_RCPT_ACK, active.transactionId());
        new CmMraMessage().wrapMad(mad, 0).localCommId(active.localCommId()).remoteCommId(passive.localCommId())
            .messageMraed(CmMraMessage.MRAED_REP).serviceTimeout(20);
        CmPair.inject(pair.b, mad.byteArray(), CmPair.IP_A);
        assertEquals(CmState.MRA_REP_RCVD, passive.state());
        assertEquals(pair.clock.nanoTime() + (4096 + 2048) * MS, passive.deadlineNs());
        assertEquals(List.of("mra"), pair.recB.events);
    }

    // ---- REJ ----------------------------------------------------------------------------------------------------

    @Test
    void reqForAServiceNobodyListensOnGetsRejectReason8AtOnce()
    {
        final CmConnection active = pair.a.connect(CmPair.request().serviceId(
            RdmaCmServiceId.serviceId(RdmaCmServiceId.PS_TCP, 9999)), pair.recA, MadAddress.ipv4(CmPair.IP_B));
        pair.deliver();
        assertEquals(List.of("rejected 8"), pair.recA.events);
        assertEquals(CmState.IDLE, active.state());
        final CmPair.Mad rejMad = pair.sent("B", CmAttribute.CONNECT_REJECT).get(0);
        final CmRejMessage rej = new CmRejMessage().wrapMad(new UnsafeBuffer(rejMad.bytes()), 0);
        assertEquals(0, rej.localCommId(), "no connection was made: our comm ID is 0 (cm_issue_rej)");
        assertEquals(active.localCommId(), rej.remoteCommId());
        assertEquals(CmRejMessage.REJECTED_REQ, rej.messageRejected());
        assertEquals(CmRejectReason.INVALID_SERVICE_ID.code(), rej.reason());
        assertEquals(pair.trace.get(0).tid(), rejMad.tid(), "the REQ's TID");
        assertEquals(1, pair.countersB.get(CmCounter.REJ_INVALID_SERVICE_ID));
        assertEquals(1, pair.countersA.get(CmCounter.REJ_RECEIVED));
        assertTrue(pair.b.connections().isEmpty());
    }

    @Test
    void listenerRejectionAndApplicationRejectCarryReasonAndPrivateData()
    {
        final CmConnection active = pair.connectA();
        pair.deliver();
        final CmConnection passive = pair.requests.get(0);
        final byte[] why = "busy, try later".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        pair.b.reject(passive, CmRejectReason.CONSUMER_DEFINED.code(), why);
        assertEquals(CmState.IDLE, passive.state());
        pair.deliver();
        assertEquals(List.of("rejected 28"), pair.recA.events);
        final byte[] received = active.privateData();
        assertEquals(CmRejMessage.PRIVATE_DATA_LENGTH, received.length);
        assertArrayEquals(why, java.util.Arrays.copyOf(received, why.length));

        final CmPair second = new CmPair().listenB();
        second.listenerVerdict = CmRejectReason.INVALID_TRANSPORT_TYPE.code();
        second.connectA();
        second.deliver();
        assertEquals(List.of("rejected 9"), second.recA.events, "a listener's verdict is sent as the reason");
        assertTrue(second.b.connections().isEmpty());
    }

    @Test
    void rejOfTheRepByTheActiveSideEndsThePassiveConnection()
    {
        pair.recA.autoRtu = false;
        final CmConnection active = pair.connectA();
        pair.deliver();
        final CmConnection passive = pair.requests.get(0);
        pair.b.accept(passive, CmPair.reply());
        pair.deliver();
        assertEquals(CmState.REP_RCVD, active.state());
        pair.a.reject(active, CmRejectReason.CONSUMER_DEFINED.code(), null);
        pair.deliver();
        assertEquals(CmState.IDLE, passive.state());
        assertEquals(List.of("rejected 28"), pair.recB.events);
        final CmRejMessage rej = new CmRejMessage().wrapMad(new UnsafeBuffer(
            pair.sent("A", CmAttribute.CONNECT_REJECT).get(0).bytes()), 0);
        assertEquals(CmRejMessage.REJECTED_REP, rej.messageRejected());
        assertEquals(Long.MAX_VALUE, pair.b.earliestDeadlineNs(), "the REP timer is cancelled");
    }

    @Test
    void destroyingAnUnansweredReqSendsRejTimeoutWithOurGuidAndThePassiveSideForgetsTheRequest()
    {
        final CmConnection active = pair.connectA();
        pair.deliver();
        final CmConnection passive = pair.requests.get(0);
        pair.a.destroy(active);
        pair.deliver();
        final CmRejMessage rej = new CmRejMessage().wrapMad(new UnsafeBuffer(
            pair.sent("A", CmAttribute.CONNECT_REJECT).get(0).bytes()), 0);
        assertEquals(CmRejectReason.TIMEOUT.code(), rej.reason());
        assertEquals(CmRejMessage.REJECTED_OTHER, rej.messageRejected());
        assertEquals(8, rej.ariLength());
        assertEquals(CmPair.GUID_A, rej.buffer().getLong(rej.ariBufferOffset(), ByteOrder.BIG_ENDIAN));
        assertEquals(0, rej.remoteCommId(), "A never learnt B's comm ID");
        assertEquals(CmState.IDLE, passive.state());
        assertEquals(List.of("rejected 4"), pair.recB.events);
        assertEquals(List.of(), pair.recA.events, "a destroyed connection reports nothing");
    }

    // ---- disconnect and TimeWait ----------------------------------------------------------------------------------

    @Test
    void dreqDrepPutsBothSidesInTimewaitForTheAckTimeoutThenTheyExit()
    {
        final CmConnection active = establish();
        final CmConnection passive = pair.requests.get(0);
        final long t0 = pair.clock.nanoTime();
        assertTrue(pair.a.disconnect(active, null));
        assertEquals(CmState.DREQ_SENT, active.state());
        pair.deliver();
        assertEquals(CmState.TIMEWAIT, active.state());
        assertEquals(CmState.TIMEWAIT, passive.state());
        assertEquals(List.of("established", "dreq"), pair.recB.events);
        assertEquals(List.of("reply", "established", "drep"), pair.recA.events);
        final CmDreqMessage dreq = new CmDreqMessage().wrapMad(new UnsafeBuffer(
            pair.sent("A", CmAttribute.DISCONNECT_REQUEST).get(0).bytes()), 0);
        assertEquals(0x13, dreq.remoteQpn(), "the DREQ names the peer's QP");
        assertEquals(pair.sent("A", CmAttribute.DISCONNECT_REQUEST).get(0).tid(),
            pair.sent("B", CmAttribute.DISCONNECT_REPLY).get(0).tid(), "the DREP echoes the DREQ's TID");
        assertFalse(pair.a.disconnect(active, null), "already disconnected: nothing sent");

        assertEquals(t0 + TIMEWAIT_NS, pair.nextTimer());
        assertEquals(CmState.IDLE, active.state());
        assertEquals(CmState.IDLE, passive.state());
        assertEquals("timewait-exit", pair.recA.events.get(pair.recA.events.size() - 1));
        assertEquals("timewait-exit", pair.recB.events.get(pair.recB.events.size() - 1));
        assertTrue(pair.a.connections().isEmpty());
        assertTrue(pair.b.connections().isEmpty());
        assertEquals(1, pair.countersA.get(CmCounter.TIMEWAIT_EXITED));
        assertEquals(1, pair.countersB.get(CmCounter.TIMEWAIT_ENTERED));
    }

    @Test
    void thePassiveSideMayDisconnectToo()
    {
        final CmConnection active = establish();
        final CmConnection passive = pair.requests.get(0);
        pair.b.disconnect(passive, null);
        pair.deliver();
        assertEquals(CmState.TIMEWAIT, active.state());
        assertEquals(CmState.TIMEWAIT, passive.state());
        assertEquals("dreq", pair.recA.events.get(pair.recA.events.size() - 1));
        assertEquals("drep", pair.recB.events.get(pair.recB.events.size() - 1));
        final long dreqTid = pair.sent("B", CmAttribute.DISCONNECT_REQUEST).get(0).tid();
        assertEquals(Integer.reverseBytes(passive.localCommId()) & 0xFFFF_FFFFL, dreqTid & 0xFFFF_FFFFL,
            "a DREQ carries a TID formed from the sender's comm ID (cm_form_tid)");
    }

    @Test
    void unansweredDreqIsRetriedThenTheConnectionGoesToTimewaitWithATimeout()
    {
        final CmConnection active = establish();
        pair.dropWhen(mad -> true);
        final long t0 = pair.clock.nanoTime();
        pair.a.disconnect(active, null);
        for (int i = 1; i <= 15; i++)
        {
            assertEquals(t0 + i * REQ_TIMEOUT_NS, pair.nextTimer(), "DREQ retried every REQ timeout (active)");
        }
        assertEquals(t0 + 16 * REQ_TIMEOUT_NS, pair.nextTimer());
        assertEquals(CmState.TIMEWAIT, active.state());
        assertEquals("timeout DREQ_SENT", pair.recA.events.get(pair.recA.events.size() - 1));
        assertEquals(16, pair.sent("A", CmAttribute.DISCONNECT_REQUEST).size());
    }

    @Test
    void lostDrepIsSentAgainForTheRepeatedDreq()
    {
        final CmConnection active = establish();
        final CmConnection passive = pair.requests.get(0);
        pair.dropWhen(mad -> CmAttribute.DISCONNECT_REPLY == mad.attribute());
        pair.a.disconnect(active, null);
        pair.deliver();
        assertEquals(CmState.TIMEWAIT, passive.state());
        assertEquals(CmState.DREQ_SENT, active.state());
        pair.dropWhen(mad -> false);
        pair.advance(TIMEWAIT_NS - MS);
        assertEquals(CmState.TIMEWAIT, passive.state(), "still in TimeWait");
        // B's TimeWait (2048 ms) ends before A's DREQ timer (6144 ms): the repeated DREQ finds no connection and is
        // answered anyway (cm_issue_drep).
        pair.nextTimer();
        assertEquals(CmState.IDLE, passive.state());
        pair.nextTimer();
        assertEquals(CmState.TIMEWAIT, active.state());
        assertEquals(1, pair.countersB.get(CmCounter.DREP_FOR_UNKNOWN_DREQ));

        final CmPair early = new CmPair().listenB();
        final CmConnection active2 = early.connectA();
        early.deliver();
        early.b.accept(early.requests.get(0), CmPair.reply());
        early.deliver();
        early.dropWhen(mad -> CmAttribute.DISCONNECT_REPLY == mad.attribute());
        early.a.disconnect(active2, null);
        early.deliver();
        early.dropWhen(mad -> false);
        CmPair.inject(early.b, early.sent("A", CmAttribute.DISCONNECT_REQUEST).get(0).bytes(), CmPair.IP_A);
        early.deliver();
        assertEquals(CmState.TIMEWAIT, active2.state(), "the DREP sent again from TimeWait reached A");
        assertEquals(1, early.countersB.get(CmCounter.DUPLICATES));
        assertEquals(2, early.sent("B", CmAttribute.DISCONNECT_REPLY).size());
    }

    @Test
    void reqFromAQpStillInTimewaitIsRejectedAsStale()
    {
        final CmConnection active = establish();
        pair.a.disconnect(active, null);
        pair.deliver();
        // The same QP (0x15 at GUID_A) asks again with a new comm ID while B still holds the old one in TimeWait.
        final CmConnection again = pair.connectA();
        pair.deliver();
        assertEquals(CmRejectReason.STALE_CONN.code(), again.rejectReason());
        assertEquals(1, pair.countersB.get(CmCounter.REJ_STALE_CONNECTION));
        assertEquals(CmState.TIMEWAIT, again.state(), "cm.c: a STALE_CONN REJ puts the active side in TimeWait");
        assertEquals(1, pair.requests.size());
    }

    @Test
    void dreqForAnotherQpIsIgnoredAndUnknownDreqGetsADrep()
    {
        final CmConnection active = establish();
        final CmConnection passive = pair.requests.get(0);
        final UnsafeBuffer mad = new UnsafeBuffer(new byte[MadHeader.MAD_LENGTH]);
        new MadHeader().wrap(mad, 0).cm(CmAttribute.DISCONNECT_REQUEST, 77);
        new CmDreqMessage().wrapMad(mad, 0).localCommId(active.localCommId()).remoteCommId(passive.localCommId())
            .remoteQpn(0x99);
        CmPair.inject(pair.b, mad.byteArray(), CmPair.IP_A);
        assertEquals(CmState.ESTABLISHED, passive.state());
        assertEquals(1, pair.countersB.get(CmCounter.DROP_UNMATCHED));

        new CmDreqMessage().wrapMad(mad, 0).localCommId(0x1234).remoteCommId(0x5678).remoteQpn(0x13);
        CmPair.inject(pair.b, mad.byteArray(), CmPair.IP_A);
        assertEquals(1, pair.countersB.get(CmCounter.DREP_FOR_UNKNOWN_DREQ));
        final CmPair.Mad drep = pair.sent("B", CmAttribute.DISCONNECT_REPLY).get(0);
        assertEquals(77, drep.tid());
    }

    // ---- API misuse -------------------------------------------------------------------------------------------

    @Test
    void apiCallsInTheWrongStateSayWhy()
    {
        final CmConnection active = pair.connectA();
        final IllegalStateException ex = assertThrows(IllegalStateException.class,
            () -> pair.a.accept(active, CmPair.reply()));
        assertTrue(ex.getMessage().contains("cannot accept in state REQ_SENT"), ex.getMessage());
        assertThrows(IllegalStateException.class, () -> pair.a.sendRtu(active, null));
        assertThrows(IllegalStateException.class, () -> pair.a.disconnect(active, null));
        assertThrows(IllegalStateException.class, () -> pair.b.listen(CmPair.SERVICE, c -> 0));
        assertThrows(IllegalArgumentException.class, () -> CmPair.request().pathMtu(6));
        assertThrows(IllegalArgumentException.class, () -> CmPair.request().privateData(new byte[93]));
        assertThrows(IllegalArgumentException.class, () -> CmPair.reply().privateData(new byte[197]));
        assertThrows(IllegalArgumentException.class, () -> new CmConfig().maxCmRetries(16));
    }

    @Test
    void reqFieldsAreWhatRdmaCmSendsOnRoce()
    {
        pair.connectA();
        final CmReqMessage req = new CmReqMessage().wrapMad(new UnsafeBuffer(pair.trace.get(0).bytes()), 0);
        assertEquals(CmPair.SERVICE, req.serviceId());
        assertEquals(CmPair.GUID_A, req.localCaGuid());
        assertEquals(20, req.remoteCmResponseTimeout());
        assertEquals(20, req.localCmResponseTimeout());
        assertEquals(15, req.maxCmRetries());
        assertEquals(0xFFFF, req.pkey());
        assertEquals(0xFFFF, req.primaryPath().localLid(), "permissive LIDs when the hop limit exceeds 1");
        assertEquals(0xFFFF, req.primaryPath().remoteLid());
        assertFalse(req.primaryPath().subnetLocal());
        assertEquals(19, req.primaryPath().localAckTimeout());
        assertEquals(0, req.alternatePath().localLid(), "no alternate path");
        assertSame(CmAttribute.CONNECT_REQUEST, pair.trace.get(0).attribute());
        assertEquals(CmRtuMessage.PRIVATE_DATA_LENGTH, 224);
    }
}
