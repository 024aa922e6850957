package org.roce4j.wire;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The one judgement of "resent" the ladder and the conformance checkers share: the same request again is the same
 * direction, DestQP, opcode and PSN; responses are never resent.
 */
class ResendDetectorTest
{
    private final ResendDetector detector = new ResendDetector();

    @Test
    void aRequestSeenBeforeInTheSameDirectionIsResent()
    {
        assertFalse(detector.resent(true, 0x11, Opcode.RC_RDMA_WRITE_ONLY, 0x500), "first sending");
        assertTrue(detector.resent(true, 0x11, Opcode.RC_RDMA_WRITE_ONLY, 0x500), "the retransmission");
        assertTrue(detector.resent(true, 0x11, Opcode.RC_RDMA_WRITE_ONLY, 0x500), "and the next one");
        assertFalse(detector.resent(false, 0x11, Opcode.RC_RDMA_WRITE_ONLY, 0x500), "the other direction");
        assertFalse(detector.resent(true, 0x12, Opcode.RC_RDMA_WRITE_ONLY, 0x500), "another QP");
        assertFalse(detector.resent(true, 0x11, Opcode.RC_SEND_ONLY, 0x500), "another opcode");
        assertFalse(detector.resent(true, 0x11, Opcode.RC_RDMA_WRITE_ONLY, 0x501), "the next PSN");
    }

    @Test
    void responsesRepeatPsnsLegitimately()
    {
        for (final Opcode response : new Opcode[] {Opcode.RC_ACKNOWLEDGE, Opcode.RC_RDMA_READ_RESPONSE_ONLY})
        {
            assertFalse(detector.resent(false, 0x22, response, 0x10));
            assertFalse(detector.resent(false, 0x22, response, 0x10), response + " again is a re-ACK, not a resend");
        }
        assertFalse(detector.resent(true, 0x22, null, 0x10), "an opcode the table does not know");
        assertFalse(detector.resent(true, 0x22, null, 0x10));
    }

    @Test
    void fieldsAreTheBthsTwentyFourBitsAndClearForgets()
    {
        assertFalse(detector.resent(true, 0xFF_FFFF, Opcode.UD_SEND_ONLY, 0xFF_FFFF));
        assertTrue(detector.resent(true, 0xFF_FFFF, Opcode.UD_SEND_ONLY, 0xFF_FFFF));
        assertFalse(detector.resent(true, 0xFF_FFFF, Opcode.UD_SEND_ONLY, 0), "PSN wrapped: a new request");
        detector.clear();
        assertFalse(detector.resent(true, 0xFF_FFFF, Opcode.UD_SEND_ONLY, 0xFF_FFFF), "forgotten");
    }

    @Test
    void sameRequestAgreesWithTheDetectorOverEveryPair()
    {
        final List<int[]> packets = new ArrayList<>();
        final Opcode[] opcodes = {Opcode.RC_SEND_ONLY, Opcode.RC_RDMA_WRITE_ONLY, Opcode.RC_RDMA_READ_REQUEST,
            Opcode.RC_ACKNOWLEDGE, null};
        for (final int qp : new int[] {0x11, 0x12})
        {
            for (int op = 0; op < opcodes.length; op++)
            {
                for (final int psn : new int[] {0, 1, 0xFF_FFFF})
                {
                    packets.add(new int[] {qp, op, psn});
                }
            }
        }
        int same = 0;
        for (final int[] first : packets)
        {
            for (final int[] later : packets)
            {
                final ResendDetector fresh = new ResendDetector();
                fresh.resent(true, first[0], opcodes[first[1]], first[2]);
                final boolean resent = fresh.resent(true, later[0], opcodes[later[1]], later[2]);
                final boolean sameRequest = ResendDetector.sameRequest(first[0], opcodes[first[1]], first[2],
                    later[0], opcodes[later[1]], later[2]);
                assertEquals(resent, sameRequest, opcodes[first[1]] + "/" + first[2] + " then " +
                    opcodes[later[1]] + "/" + later[2]);
                same += sameRequest ? 1 : 0;
            }
        }
        assertEquals(2 * 3 * 3, same, "each request with itself: 2 QPs x 3 request opcodes x 3 PSNs");
    }
}
