package org.roce4j.conform;

import java.util.List;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.wire.ExtHeader;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RoceFrameBuilder;
import org.roce4j.wire.header.AethHeader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The checkers over hand-made captures: each finds the violation it is for, and passes the exchange that keeps the
 * rule.
 */
class CheckersTest
{
    private static final LinkAddress DUT = LinkAddress.of("02:00:00:00:0d:01", "10.0.0.1");
    private static final LinkAddress PEER = LinkAddress.of("02:00:00:00:0c:02", "10.0.0.2");
    private static final long TIMEOUT_NS = 4096L << 14;

    private final Capture capture = new Capture();

    /** A frame the DUT sent (requests from its requester, ACKs from its responder). */
    private void fromDut(final long timeNs, final Opcode opcode, final int psn, final int syndrome, final int msn)
    {
        capture.add(timeNs, Direction.FROM_DUT, frame(DUT, PEER, opcode, psn, syndrome, msn), null);
    }

    /** A frame the peer sent. */
    private void toDut(final long timeNs, final Opcode opcode, final int psn, final int syndrome)
    {
        capture.add(timeNs, Direction.TO_DUT, frame(PEER, DUT, opcode, psn, syndrome, 0), null);
    }

    private static byte[] frame(final LinkAddress from, final LinkAddress to, final Opcode opcode, final int psn,
        final int syndrome, final int msn)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[512]);
        final RoceFrameBuilder builder = new RoceFrameBuilder().wrap(buffer, 0).ethernet(to.mac(), from.mac())
            .ipv4(from.ipv4(), to.ipv4()).udp(0xC0DE).bth(opcode, 0x11, psn);
        if (Opcode.RC_ACKNOWLEDGE == opcode)
        {
            builder.aeth().syndrome(syndrome).msn(msn);
        }
        else if (Opcode.RC_RDMA_WRITE_ONLY == opcode)
        {
            builder.reth().va(0x1000).rkey(1).dmaLength(8);
            builder.payload(new UnsafeBuffer(new byte[8]), 0, 8);
        }
        final byte[] out = new byte[builder.finish()];
        buffer.getBytes(0, out);
        return out;
    }

    private static boolean violated(final List<Finding> findings)
    {
        return findings.stream().anyMatch(Finding::violation);
    }

    @Test
    void msnThatGoesBackIsAViolation()
    {
        fromDut(0, Opcode.RC_ACKNOWLEDGE, 0x100, AethHeader.SYNDROME_ACK_UNLIMITED, 2);
        assertFalse(violated(Checkers.msnMonotonic(capture)));
        assertEquals(0, Checkers.msnMonotonic(capture).get(0).frame(), "the last AETH judged");
        fromDut(10, Opcode.RC_ACKNOWLEDGE, 0x101, AethHeader.SYNDROME_ACK_UNLIMITED, 1);

        final List<Finding> findings = Checkers.msnMonotonic(capture);

        assertTrue(violated(findings));
        assertTrue(findings.get(0).text().startsWith("MSN went back from 2 to 1 in frame #1"), findings.toString());
        assertEquals(1, findings.get(0).frame());
    }

    @Test
    void ackPsnThatGoesBackIsAViolation()
    {
        fromDut(0, Opcode.RC_ACKNOWLEDGE, 0x105, AethHeader.SYNDROME_ACK_UNLIMITED, 1);
        assertEquals(0, Checkers.ackPsnMonotonic(capture).get(0).frame(), "the last ACK judged");
        fromDut(1, Opcode.RC_ACKNOWLEDGE, 0x104, AethHeader.SYNDROME_ACK_UNLIMITED, 1);

        assertTrue(violated(Checkers.ackPsnMonotonic(capture)));
        assertEquals(1, Checkers.ackPsnMonotonic(capture).get(0).frame());
    }

    @Test
    void goBackNWantsTheNamedPsnFirstAndNoGap()
    {
        fromDut(0, Opcode.RC_RDMA_WRITE_ONLY, 0x500, -1, -1);
        fromDut(0, Opcode.RC_RDMA_WRITE_ONLY, 0x501, -1, -1);
        fromDut(0, Opcode.RC_RDMA_WRITE_ONLY, 0x502, -1, -1);
        toDut(5, Opcode.RC_ACKNOWLEDGE, 0x501, AethHeader.NakCode.PSN_SEQUENCE_ERROR.syndrome());
        fromDut(6, Opcode.RC_RDMA_WRITE_ONLY, 0x501, -1, -1);
        fromDut(6, Opcode.RC_RDMA_WRITE_ONLY, 0x502, -1, -1);
        assertFalse(violated(Checkers.goBackN(capture, 3, 0x501)));
        assertEquals(4, Checkers.goBackN(capture, 3, 0x501).get(0).frame(), "where the retry starts");

        assertTrue(violated(Checkers.goBackN(capture, 3, 0x500)), "resent from the wrong PSN");
        fromDut(7, Opcode.RC_RDMA_WRITE_ONLY, 0x504, -1, -1);
        final List<Finding> gap = Checkers.goBackN(capture, 3, 0x501);
        assertTrue(violated(gap));
        assertEquals("after frame #3 the DUT sent PSN 0x504 where go-back-N wants 0x503", gap.get(0).text());
        assertEquals(6, gap.get(0).frame());
        assertTrue(violated(Checkers.goBackN(capture, 7, 0x505)), "nothing resent");
        assertEquals(6, Checkers.goBackN(capture, 6, 0x505).get(0).frame(), "the event nothing followed");
    }

    @Test
    void retransmissionMustWaitTheTimeoutButNotFourTimesIt()
    {
        fromDut(0, Opcode.RC_RDMA_WRITE_ONLY, 0x500, -1, -1);
        fromDut(TIMEOUT_NS - 1, Opcode.RC_RDMA_WRITE_ONLY, 0x500, -1, -1);
        final List<Finding> early = Checkers.retransmissionTiming(capture, 0, TIMEOUT_NS);
        assertTrue(violated(early));
        assertTrue(early.get(0).text().endsWith("earlier than the timeout"), early.toString());
        assertEquals(1, early.get(0).frame(), "the retransmission");

        final Capture late = new Capture();
        late.add(0, Direction.FROM_DUT, frame(DUT, PEER, Opcode.RC_RDMA_WRITE_ONLY, 0x500, -1, -1), null);
        late.add(4 * TIMEOUT_NS + 1, Direction.FROM_DUT, frame(DUT, PEER, Opcode.RC_RDMA_WRITE_ONLY, 0x500, -1, -1),
            null);
        assertTrue(violated(Checkers.retransmissionTiming(late, 0, TIMEOUT_NS)));

        final Capture onTime = new Capture();
        onTime.add(0, Direction.FROM_DUT, frame(DUT, PEER, Opcode.RC_RDMA_WRITE_ONLY, 0x500, -1, -1), null);
        onTime.add(TIMEOUT_NS, Direction.FROM_DUT, frame(DUT, PEER, Opcode.RC_RDMA_WRITE_ONLY, 0x500, -1, -1), null);
        assertFalse(violated(Checkers.retransmissionTiming(onTime, 0, TIMEOUT_NS)));
        assertEquals(1, Checkers.retransmissionTiming(onTime, 0, TIMEOUT_NS).get(0).frame(), "the retransmission");
        final Capture never = new Capture();
        never.add(0, Direction.FROM_DUT, frame(DUT, PEER, Opcode.RC_RDMA_WRITE_ONLY, 0x500, -1, -1), null);
        assertEquals(0, Checkers.retransmissionTiming(never, 0, TIMEOUT_NS).get(0).frame(), "the unretried request");
    }

    @Test
    void aRetransmissionIsJudgedByTheWindowsItsFramesWereSeenIn()
    {
        // The original was found by a poll 30 ms after the one before it (a runner busy elsewhere): it may have
        // passed the link up to 30 ms before it was timed, so a retransmission timed 20 ms short is not proven early.
        final long stallNs = 30_000_000L;
        final Capture stalled = new Capture();
        stalled.add(0, stallNs, Direction.FROM_DUT, frame(DUT, PEER, Opcode.RC_RDMA_WRITE_ONLY, 0x500, -1, -1), null);
        stalled.add(stallNs + TIMEOUT_NS - 20_000_000L, Direction.FROM_DUT,
            frame(DUT, PEER, Opcode.RC_RDMA_WRITE_ONLY, 0x500, -1, -1), null);
        final List<Finding> windowed = Checkers.retransmissionTiming(stalled, 0, TIMEOUT_NS);
        assertFalse(violated(windowed), windowed.toString());
        assertTrue(windowed.get(0).text().contains("may have passed the link"), windowed.toString());
        assertEquals(0, stalled.earliestNs(0), "the window of the original");

        // Even the longest delay the windows allow is short of the timeout: early.
        final Capture early = new Capture();
        early.add(0, 1_000_000L, Direction.FROM_DUT, frame(DUT, PEER, Opcode.RC_RDMA_WRITE_ONLY, 0x500, -1, -1), null);
        early.add(1_000_000L + TIMEOUT_NS - 2_000_000L, Direction.FROM_DUT,
            frame(DUT, PEER, Opcode.RC_RDMA_WRITE_ONLY, 0x500, -1, -1), null);
        assertTrue(violated(Checkers.retransmissionTiming(early, 0, TIMEOUT_NS)));

        // A retransmission timed late whose window starts before four timeouts is not proven late.
        final Capture late = new Capture();
        late.add(0, Direction.FROM_DUT, frame(DUT, PEER, Opcode.RC_RDMA_WRITE_ONLY, 0x500, -1, -1), null);
        late.add(4 * TIMEOUT_NS - 1, 4 * TIMEOUT_NS + stallNs, Direction.FROM_DUT,
            frame(DUT, PEER, Opcode.RC_RDMA_WRITE_ONLY, 0x500, -1, -1), null);
        assertFalse(violated(Checkers.retransmissionTiming(late, 0, TIMEOUT_NS)));
    }

    @Test
    void retryBeforeTheRnrTimerIsAViolation()
    {
        final int code = 14;
        final long timerNs = AethHeader.rnrTimerNs(code);
        fromDut(0, Opcode.RC_RDMA_WRITE_ONLY, 0x500, -1, -1);
        toDut(10, Opcode.RC_ACKNOWLEDGE, 0x500, AethHeader.TYPE_RNR_NAK | code);
        fromDut(10 + timerNs - 1, Opcode.RC_RDMA_WRITE_ONLY, 0x500, -1, -1);

        assertTrue(violated(Checkers.rnrWait(capture, 1)));
        assertEquals(2, Checkers.rnrWait(capture, 1).get(0).frame(), "the early retry");
    }

    /** A request or CNP with the BTH fields the AckReq and CNP checkers read. */
    private static byte[] bthFrame(final LinkAddress from, final LinkAddress to, final Opcode opcode, final int destQp,
        final int psn, final boolean ackReq)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[512]);
        final RoceFrameBuilder builder = new RoceFrameBuilder().wrap(buffer, 0).ethernet(to.mac(), from.mac())
            .ipv4(from.ipv4(), to.ipv4()).udp(0xC0DE).bth(opcode, destQp, psn);
        builder.bthHeader().ackReq(ackReq);
        if (Opcode.CNP_NOTIFICATION == opcode)
        {
            builder.bthHeader().becn(true);
            builder.cnp().clear();
        }
        else
        {
            if (opcode.has(ExtHeader.RETH))
            {
                builder.reth().va(0x1000).rkey(1).dmaLength(8);
            }
            builder.payload(new UnsafeBuffer(new byte[256]), 0, Opcode.RC_RDMA_WRITE_ONLY == opcode ? 8 : 256);
        }
        final byte[] out = new byte[builder.finish()];
        buffer.getBytes(0, out);
        return out;
    }

    private void request(final Direction direction, final Opcode opcode, final int psn, final boolean ackReq)
    {
        final boolean out = Direction.FROM_DUT == direction;
        capture.add(0, direction, bthFrame(out ? DUT : PEER, out ? PEER : DUT, opcode, 0x11, psn, ackReq), null);
    }

    private void cnp(final long timeNs, final int destQp)
    {
        capture.add(timeNs, Direction.FROM_DUT, bthFrame(DUT, PEER, Opcode.CNP_NOTIFICATION, destQp, 0, false), null);
    }

    @Test
    void everyAckReqMustBeCoveredByALaterAck()
    {
        request(Direction.TO_DUT, Opcode.RC_RDMA_WRITE_ONLY, 0x100, false);
        request(Direction.TO_DUT, Opcode.RC_RDMA_WRITE_ONLY, 0x101, true);
        request(Direction.TO_DUT, Opcode.RC_RDMA_WRITE_ONLY, 0x102, true);
        fromDut(1, Opcode.RC_ACKNOWLEDGE, 0x102, AethHeader.SYNDROME_ACK_UNLIMITED, 3);
        final List<Finding> coalesced = Checkers.ackReqAnswered(capture);
        assertFalse(violated(coalesced), coalesced.toString());
        assertEquals("2 requests with AckReq, each answered; ACK PSNs never went backwards", coalesced.get(0).text());
        assertEquals(3, coalesced.get(0).frame(), "the ACK covering the last request with AckReq");

        request(Direction.TO_DUT, Opcode.RC_RDMA_WRITE_ONLY, 0x103, true);
        final List<Finding> unanswered = Checkers.ackReqAnswered(capture);
        assertTrue(violated(unanswered));
        assertTrue(unanswered.get(0).text().contains("no ACK or response covering PSN 0x103"), unanswered.toString());
        assertEquals(4, unanswered.get(0).frame(), "the request left unanswered");
    }

    @Test
    void ackForAPsnNotSentOrGoingBackIsAViolation()
    {
        request(Direction.TO_DUT, Opcode.RC_RDMA_WRITE_ONLY, 0x100, true);
        fromDut(1, Opcode.RC_ACKNOWLEDGE, 0x105, AethHeader.SYNDROME_ACK_UNLIMITED, 1);
        assertEquals("frame #1 ACKs PSN 0x105, which the peer has not sent",
            Checkers.ackReqAnswered(capture).get(0).text());

        final Capture back = new Capture();
        back.add(0, Direction.TO_DUT, bthFrame(PEER, DUT, Opcode.RC_RDMA_WRITE_ONLY, 0x11, 0x100, true), null);
        back.add(0, Direction.TO_DUT, bthFrame(PEER, DUT, Opcode.RC_RDMA_WRITE_ONLY, 0x11, 0x101, true), null);
        back.add(1, Direction.FROM_DUT, frame(DUT, PEER, Opcode.RC_ACKNOWLEDGE, 0x101,
            AethHeader.SYNDROME_ACK_UNLIMITED, 2), null);
        back.add(2, Direction.FROM_DUT, frame(DUT, PEER, Opcode.RC_ACKNOWLEDGE, 0x100,
            AethHeader.SYNDROME_ACK_UNLIMITED, 2), null);
        assertTrue(Checkers.ackReqAnswered(back).get(0).text().startsWith("ACK PSN went back from 0x101 to 0x100"));

        assertTrue(violated(Checkers.ackReqAnswered(new Capture())), "nothing asked: nothing judged");
    }

    @Test
    void ackReqCadenceWantsItOnEveryLastPacketAndWithinTheRun()
    {
        request(Direction.FROM_DUT, Opcode.RC_RDMA_WRITE_FIRST, 0x500, false);
        request(Direction.FROM_DUT, Opcode.RC_RDMA_WRITE_MIDDLE, 0x501, false);
        request(Direction.FROM_DUT, Opcode.RC_RDMA_WRITE_MIDDLE, 0x502, true);
        request(Direction.FROM_DUT, Opcode.RC_RDMA_WRITE_MIDDLE, 0x503, false);
        request(Direction.FROM_DUT, Opcode.RC_RDMA_WRITE_LAST, 0x504, true);
        final List<Finding> ok = Checkers.ackReqCadence(capture, 2);
        assertFalse(violated(ok), ok.toString());
        assertEquals(4, ok.get(0).frame(), "the last request packet judged");
        assertTrue(violated(Checkers.ackReqCadence(capture, 1)), "two in a row without AckReq where 1 is allowed");

        request(Direction.FROM_DUT, Opcode.RC_SEND_ONLY, 0x505, false);
        final List<Finding> last = Checkers.ackReqCadence(capture, 2);
        assertTrue(last.get(0).text().endsWith("ends a message without AckReq"), last.toString());
        assertEquals(5, last.get(0).frame());
    }

    @Test
    void cnpFormatWantsTheSendingQpBecnAndAGoodIcrc()
    {
        assertEquals("the DUT sent no CNP", Checkers.cnpFormat(capture, 0x77).get(0).text());
        assertEquals(-1, Checkers.cnpFormat(capture, 0x77).get(0).frame(), "no frame to point at");
        cnp(0, 0x77);
        assertFalse(violated(Checkers.cnpFormat(capture, 0x77)));
        assertEquals(0, Checkers.cnpFormat(capture, 0x77).get(0).frame());
        assertTrue(Checkers.cnpFormat(capture, 0x78).get(0).text().contains("DestQP 0x77, the rule wants"));

        final Capture corrupt = new Capture();
        corrupt.add(0, Direction.FROM_DUT, Frames.corruptIcrc(bthFrame(DUT, PEER, Opcode.CNP_NOTIFICATION, 0x77, 0,
            false)), null);
        assertTrue(Checkers.cnpFormat(corrupt, 0x77).get(0).text().endsWith("(BAD_ICRC)"));
    }

    @Test
    void cnpsToOneQpCloserThanTheIntervalAreAViolation()
    {
        cnp(0, 0x77);
        cnp(0, 0x78);
        cnp(4_000, 0x77);
        assertFalse(violated(Checkers.cnpPacing(capture, 4_000)));
        assertEquals(2, Checkers.cnpPacing(capture, 4_000).get(0).frame(), "the last CNP judged");
        cnp(7_999, 0x77);
        final List<Finding> tooSoon = Checkers.cnpPacing(capture, 4_000);
        assertTrue(violated(tooSoon));
        assertEquals("CNPs #2 and #3 to QP 0x77 came 3.999 us apart, less than 4.0 us", tooSoon.get(0).text());
        assertEquals(3, tooSoon.get(0).frame(), "the CNP that came too soon");
    }
}
