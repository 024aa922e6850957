package org.roce4j.conform;

import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.wire.ExtHeader;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RoceFrameParser;
import org.roce4j.wire.header.AethHeader;
import org.roce4j.wire.ladder.FrameLabel;

/**
 * One frame the conform link saw, with the fields the checkers read, parsed once by roce-wire's
 * {@link RoceFrameParser}. Fields a frame does not carry are -1 (or 0 for 64-bit values).
 *
 * @param index        position in the capture, from 0.
 * @param timeNs       the runner's clock when the frame passed the link.
 * @param direction    which way it went.
 * @param bytes        the whole Ethernet frame, as it went (after any fault was applied).
 * @param status       what the parser said ({@link FrameStatus#OK} for a well-formed RoCEv2 frame).
 * @param opcode       BTH opcode, null when the frame did not parse.
 * @param destQp       BTH destination QP.
 * @param psn          BTH PSN.
 * @param ackReq       BTH AckReq.
 * @param syndrome     AETH syndrome, -1 without AETH.
 * @param msn          AETH MSN, -1 without AETH.
 * @param payload      the payload bytes (empty without).
 * @param va           RETH or AtomicETH virtual address.
 * @param rkey         RETH or AtomicETH R_Key.
 * @param dmaLength    RETH DMA length, -1 without RETH.
 * @param originalData AtomicAckETH original data.
 * @param fault        the fault the conform link applied to it ({@link FrameRule.Action}: "dropped", "duplicated",
 *                     "delayed N ns", "mutated: NAME"), or null.
 */
public record CapturedFrame(
    int index,
    long timeNs,
    Direction direction,
    byte[] bytes,
    FrameStatus status,
    Opcode opcode,
    int destQp,
    int psn,
    boolean ackReq,
    int syndrome,
    int msn,
    byte[] payload,
    long va,
    int rkey,
    long dmaLength,
    long originalData,
    String fault)
{
    private static final byte[] EMPTY = new byte[0];

    /**
     * Parse a frame into a capture record.
     *
     * @param index     position in the capture.
     * @param timeNs    clock.
     * @param direction which way.
     * @param frame     the bytes (kept, not copied).
     * @param fault     fault note or null.
     * @param parser    a parser to use (not kept).
     * @return the record.
     */
    public static CapturedFrame parse(final int index, final long timeNs, final Direction direction,
        final byte[] frame, final String fault, final RoceFrameParser parser)
    {
        final FrameStatus status = parser.parse(new UnsafeBuffer(frame), 0, frame.length);
        if (FrameStatus.OK != status && FrameStatus.BAD_ICRC != status)
        {
            return new CapturedFrame(index, timeNs, direction, frame, status, null, -1, -1, false, -1, -1, EMPTY, 0,
                -1, -1, 0, fault);
        }
        final Opcode opcode = parser.opcode();
        final byte[] payload = new byte[parser.payloadLength()];
        parser.buffer().getBytes(parser.payloadOffset(), payload);
        long va = 0;
        int rkey = -1;
        long dmaLength = -1;
        if (opcode.has(ExtHeader.RETH))
        {
            va = parser.reth().va();
            rkey = parser.reth().rkey();
            dmaLength = parser.reth().dmaLength();
        }
        else if (opcode.has(ExtHeader.ATOMIC_ETH))
        {
            va = parser.atomicEth().va();
            rkey = parser.atomicEth().rkey();
        }
        final boolean aeth = opcode.has(ExtHeader.AETH);
        return new CapturedFrame(index, timeNs, direction, frame, status, opcode, parser.bth().destQp(),
            parser.bth().psn(), parser.bth().ackReq(), aeth ? parser.aeth().syndrome() : -1,
            aeth ? parser.aeth().msn() : -1, payload, va, rkey, dmaLength,
            opcode.has(ExtHeader.ATOMIC_ACK_ETH) ? parser.atomicAckEth().originalData() : 0, fault);
    }

    /**
     * @return true for a frame carrying an AETH whose syndrome is a NAK (PSN sequence, invalid request, ...).
     */
    public boolean isNak()
    {
        return syndrome >= 0 && AethHeader.TYPE_NAK == AethHeader.type(syndrome);
    }

    /**
     * @return true for a frame carrying an AETH whose syndrome is an RNR NAK.
     */
    public boolean isRnrNak()
    {
        return syndrome >= 0 && AethHeader.TYPE_RNR_NAK == AethHeader.type(syndrome);
    }

    /**
     * @return the fault rule's action that befell the frame (read from its fault note), or null when none did.
     */
    public FrameRule.Action faultAction()
    {
        return FrameRule.Action.of(fault);
    }

    /**
     * @return true when the conform link dropped the frame: its receiver never saw it.
     */
    public boolean dropped()
    {
        return FrameRule.Action.DROP == faultAction();
    }

    /**
     * @return true for a plain ACK (ACKNOWLEDGE opcode with an ACK syndrome).
     */
    public boolean isAck()
    {
        return Opcode.RC_ACKNOWLEDGE == opcode && AethHeader.TYPE_ACK == AethHeader.type(syndrome);
    }

    /**
     * @return what the frame carries, as {@link FrameLabel} describes it (opcode, PSN, AckReq, AETH, length), or
     * {@code not RoCEv2 (STATUS)}; no fault note (a ladder draws the fault).
     */
    public String wireLabel()
    {
        return null == opcode ? "not RoCEv2 (" + status + ")" :
            FrameLabel.describe(opcode, psn, ackReq, syndrome, msn, payload.length);
    }

    /**
     * @return a one-line label for tables, e.g. {@code RC_ACKNOWLEDGE psn=0x100 NAK PSN sequence error}.
     */
    public String label()
    {
        if (null == opcode)
        {
            return "not RoCEv2 (" + status + ")";
        }
        final StringBuilder out = new StringBuilder(64).append(wireLabel());
        if (FrameStatus.BAD_ICRC == status)
        {
            out.append(" BAD_ICRC");
        }
        if (null != fault)
        {
            out.append(" [").append(fault).append(']');
        }
        return out.toString();
    }
}
