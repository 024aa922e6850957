package org.roce4j.conform;

import java.util.List;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.roce4j.transport.link.LinkAddress;
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
        fromDut(10, Opcode.RC_ACKNOWLEDGE, 0x101, AethHeader.SYNDROME_ACK_UNLIMITED, 1);

        final List<Finding> findings = Checkers.msnMonotonic(capture);

        assertTrue(violated(findings));
        assertTrue(findings.get(0).text().startsWith("MSN went back from 2 to 1 in frame #1"), findings.toString());
    }

    @Test
    void ackPsnThatGoesBackIsAViolation()
    {
        fromDut(0, Opcode.RC_ACKNOWLEDGE, 0x105, AethHeader.SYNDROME_ACK_UNLIMITED, 1);
        fromDut(1, Opcode.RC_ACKNOWLEDGE, 0x104, AethHeader.SYNDROME_ACK_UNLIMITED, 1);

        assertTrue(violated(Checkers.ackPsnMonotonic(capture)));
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

        assertTrue(violated(Checkers.goBackN(capture, 3, 0x500)), "resent from the wrong PSN");
        fromDut(7, Opcode.RC_RDMA_WRITE_ONLY, 0x504, -1, -1);
        final List<Finding> gap = Checkers.goBackN(capture, 3, 0x501);
        assertTrue(violated(gap));
        assertEquals("after frame #3 the DUT sent PSN 0x504 where go-back-N wants 0x503", gap.get(0).text());
        assertTrue(violated(Checkers.goBackN(capture, 7, 0x505)), "nothing resent");
    }

    @Test
    void retransmissionMustWaitTheTimeoutButNotFourTimesIt()
    {
        fromDut(0, Opcode.RC_RDMA_WRITE_ONLY, 0x500, -1, -1);
        fromDut(TIMEOUT_NS - 1, Opcode.RC_RDMA_WRITE_ONLY, 0x500, -1, -1);
        final List<Finding> early = Checkers.retransmissionTiming(capture, 0, TIMEOUT_NS);
        assertTrue(violated(early));
        assertTrue(early.get(0).text().endsWith("earlier than the timeout"), early.toString());

        final Capture late = new Capture();
        late.add(0, Direction.FROM_DUT, frame(DUT, PEER, Opcode.RC_RDMA_WRITE_ONLY, 0x500, -1, -1), null);
        late.add(4 * TIMEOUT_NS + 1, Direction.FROM_DUT, frame(DUT, PEER, Opcode.RC_RDMA_WRITE_ONLY, 0x500, -1, -1),
            null);
        assertTrue(violated(Checkers.retransmissionTiming(late, 0, TIMEOUT_NS)));

        final Capture onTime = new Capture();
        onTime.add(0, Direction.FROM_DUT, frame(DUT, PEER, Opcode.RC_RDMA_WRITE_ONLY, 0x500, -1, -1), null);
        onTime.add(TIMEOUT_NS, Direction.FROM_DUT, frame(DUT, PEER, Opcode.RC_RDMA_WRITE_ONLY, 0x500, -1, -1), null);
        assertFalse(violated(Checkers.retransmissionTiming(onTime, 0, TIMEOUT_NS)));
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
    }
}
