package org.roce4j.transport.engine;

import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.wire.ExtHeader;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RoceFrameParser;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A packet the engine under a {@link ScriptedPeer} sent, parsed.
 *
 * @param opcode       opcode.
 * @param destQp       BTH destination QP.
 * @param psn          BTH PSN.
 * @param ackReq       BTH AckReq.
 * @param solicited    BTH SE.
 * @param syndrome     AETH syndrome, -1 without AETH.
 * @param msn          AETH MSN, -1 without AETH.
 * @param payload      payload bytes.
 * @param va           RETH/AtomicETH VA, 0 without.
 * @param rkey         RETH/AtomicETH R_Key, 0 without.
 * @param dmaLength    RETH DMA length, -1 without RETH.
 * @param originalData AtomicAckETH original data, 0 without.
 * @param swapAdd      AtomicETH swap/add, 0 without.
 * @param compare      AtomicETH compare, 0 without.
 * @param feth         FETH word, -1 without.
 */
record SentPacket(
    Opcode opcode,
    int destQp,
    int psn,
    boolean ackReq,
    boolean solicited,
    int syndrome,
    int msn,
    byte[] payload,
    long va,
    int rkey,
    long dmaLength,
    long originalData,
    long swapAdd,
    long compare,
    int feth)
{
    /**
     * @return e.g. {@code RC_ACKNOWLEDGE psn=0x100 syndrome=0x1f msn=1}.
     */
    public String toString()
    {
        return opcode + " psn=0x" + Integer.toHexString(psn) + (ackReq ? " A" : "") + (solicited ? " SE" : "") +
            (syndrome >= 0 ? " syndrome=0x" + Integer.toHexString(syndrome) + " msn=" + msn : "") +
            (payload.length > 0 ? " payload=" + payload.length : "") +
            (dmaLength >= 0 ? " reth=0x" + Long.toHexString(va) + "/" + dmaLength : "");
    }

    /**
     * Parse a frame the engine sent.
     *
     * @param p     a parser to use.
     * @param frame the frame.
     * @return the packet.
     */
    static SentPacket parse(final RoceFrameParser p, final byte[] frame)
    {
        assertEquals(FrameStatus.OK, p.parse(new UnsafeBuffer(frame), 0, frame.length), "engine sent a bad frame");
        final Opcode opcode = p.opcode();
        final byte[] payload = new byte[p.payloadLength()];
        p.buffer().getBytes(p.payloadOffset(), payload);
        final boolean aeth = opcode.has(ExtHeader.AETH);
        long va = 0;
        int rkey = 0;
        long dmaLength = -1;
        long swapAdd = 0;
        long compare = 0;
        if (opcode.has(ExtHeader.RETH))
        {
            va = p.reth().va();
            rkey = p.reth().rkey();
            dmaLength = p.reth().dmaLength();
        }
        if (opcode.has(ExtHeader.ATOMIC_ETH))
        {
            va = p.atomicEth().va();
            rkey = p.atomicEth().rkey();
            swapAdd = p.atomicEth().swapAdd();
            compare = p.atomicEth().compare();
        }
        return new SentPacket(opcode, p.bth().destQp(), p.bth().psn(), p.bth().ackReq(), p.bth().solicitedEvent(),
            aeth ? p.aeth().syndrome() : -1, aeth ? p.aeth().msn() : -1, payload, va, rkey, dmaLength,
            opcode.has(ExtHeader.ATOMIC_ACK_ETH) ? p.atomicAckEth().originalData() : 0, swapAdd, compare,
            opcode.has(ExtHeader.FETH) ? p.feth().word() : -1);
    }
}
