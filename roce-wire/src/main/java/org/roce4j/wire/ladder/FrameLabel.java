package org.roce4j.wire.ladder;

import org.roce4j.wire.Opcode;
import org.roce4j.wire.header.AethHeader;

/**
 * The one-line description of a RoCEv2 frame used by ladders and the conform report's tables, e.g.
 * {@code RC_SEND_ONLY psn=0x5 A len=64} or {@code RC_ACKNOWLEDGE psn=0x100 NAK (PSN sequence error) msn=3}: opcode,
 * PSN in hex, {@code A} when AckReq is set, the AETH's syndrome ({@link AethHeader#describe}: ACK with credits, RNR
 * NAK with its timer, NAK with its code) and MSN, and the payload length when there is a payload.
 */
public final class FrameLabel
{
    private FrameLabel()
    {
    }

    /**
     * @param opcode        BTH opcode.
     * @param psn           BTH PSN.
     * @param ackReq        BTH AckReq.
     * @param syndrome      AETH syndrome, or -1 when the frame has no AETH.
     * @param msn           AETH MSN (ignored without AETH).
     * @param payloadLength payload bytes (0: not shown).
     * @return the label.
     */
    public static String describe(final Opcode opcode, final int psn, final boolean ackReq, final int syndrome,
        final int msn, final int payloadLength)
    {
        final StringBuilder out = new StringBuilder(64).append(opcode).append(" psn=0x")
            .append(Integer.toHexString(psn));
        if (ackReq)
        {
            out.append(" A");
        }
        if (syndrome >= 0)
        {
            out.append(' ').append(AethHeader.describe(syndrome)).append(" msn=").append(msn);
        }
        if (payloadLength > 0)
        {
            out.append(" len=").append(payloadLength);
        }
        return out.toString();
    }
}
