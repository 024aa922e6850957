package org.roce4j.conform;

import org.roce4j.wire.ExtHeader;
import org.roce4j.wire.FrameSeal;
import org.roce4j.wire.Opcode;

/**
 * The frames the conform peer crafts most, built with roce-wire's builder through {@link ConformContext#frame}, and
 * the mutations fault rules apply. Every crafted frame carries a correct ICRC unless a mutation says otherwise.
 */
public final class Frames
{
    private Frames()
    {
    }

    /**
     * @param ctx     the scenario.
     * @param opcode  a SEND opcode.
     * @param psn     PSN.
     * @param payload payload.
     * @param ackReq  AckReq.
     * @return a SEND packet to the DUT's QP.
     */
    public static byte[] send(final ConformContext ctx, final Opcode opcode, final int psn, final byte[] payload,
        final boolean ackReq)
    {
        return ctx.frame(opcode, psn, payload, b -> b.bthHeader().ackReq(ackReq));
    }

    /**
     * @param ctx       the scenario.
     * @param opcode    a WRITE opcode.
     * @param psn       PSN.
     * @param payload   payload.
     * @param va        RETH VA (FIRST and ONLY).
     * @param rkey      RETH R_Key.
     * @param dmaLength RETH DMA length.
     * @param ackReq    AckReq.
     * @return a WRITE packet to the DUT's QP.
     */
    public static byte[] write(final ConformContext ctx, final Opcode opcode, final int psn, final byte[] payload,
        final long va, final int rkey, final long dmaLength, final boolean ackReq)
    {
        return ctx.frame(opcode, psn, payload, b ->
        {
            b.bthHeader().ackReq(ackReq);
            if (opcode.has(ExtHeader.RETH))
            {
                b.reth().va(va).rkey(rkey).dmaLength(dmaLength);
            }
        });
    }

    /**
     * @param ctx     the scenario.
     * @param psn     PSN.
     * @param payload payload.
     * @return a WRITE ONLY into the DUT's region at offset 0, AckReq set.
     */
    public static byte[] writeOnly(final ConformContext ctx, final int psn, final byte[] payload)
    {
        return write(ctx, Opcode.RC_RDMA_WRITE_ONLY, psn, payload, ctx.qp().va(), ctx.qp().rkey(), payload.length,
            true);
    }

    /**
     * @param ctx       the scenario.
     * @param psn       PSN.
     * @param va        RETH VA.
     * @param rkey      RETH R_Key.
     * @param dmaLength bytes asked for.
     * @return an RDMA READ request, AckReq set as requesters do.
     */
    public static byte[] read(final ConformContext ctx, final int psn, final long va, final int rkey,
        final long dmaLength)
    {
        return ctx.frame(Opcode.RC_RDMA_READ_REQUEST, psn, new byte[0], b ->
        {
            b.bthHeader().ackReq(true);
            b.reth().va(va).rkey(rkey).dmaLength(dmaLength);
        });
    }

    /**
     * @param ctx     the scenario.
     * @param opcode  RC_COMPARE_SWAP or RC_FETCH_ADD.
     * @param psn     PSN.
     * @param va      target.
     * @param rkey    R_Key.
     * @param swapAdd swap value or addend.
     * @param compare compare value.
     * @return an atomic request.
     */
    public static byte[] atomic(final ConformContext ctx, final Opcode opcode, final int psn, final long va,
        final int rkey, final long swapAdd, final long compare)
    {
        return ctx.frame(opcode, psn, new byte[0], b ->
        {
            b.bthHeader().ackReq(true);
            b.atomicEth().va(va).rkey(rkey).swapAdd(swapAdd).compare(compare);
        });
    }

    /**
     * @param ctx      the scenario.
     * @param psn      PSN.
     * @param syndrome AETH syndrome.
     * @param msn      AETH MSN.
     * @return an ACKNOWLEDGE to the DUT's requester.
     */
    public static byte[] ack(final ConformContext ctx, final int psn, final int syndrome, final int msn)
    {
        return ctx.frame(Opcode.RC_ACKNOWLEDGE, psn, new byte[0], b -> b.aeth().syndrome(syndrome).msn(msn));
    }

    /**
     * @param ctx     the scenario.
     * @param qkey    DETH Q_Key.
     * @param payload payload.
     * @return a UD SEND ONLY to the DUT's UD QP.
     */
    public static byte[] udSend(final ConformContext ctx, final int qkey, final byte[] payload)
    {
        return ctx.frame(Opcode.UD_SEND_ONLY, 0, payload,
            b -> b.deth().qkey(qkey).srcQp(ConformContext.PEER_QPN));
    }

    /**
     * @param length bytes.
     * @param seed   varies the pattern.
     * @return a recognisable byte pattern (no two neighbouring bytes equal), to check payload integrity.
     */
    public static byte[] pattern(final int length, final int seed)
    {
        final byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++)
        {
            bytes[i] = (byte)(i * 7 + seed * 31 + 1);
        }
        return bytes;
    }

    /**
     * @param frame a well-formed frame (not modified).
     * @return a copy whose ICRC has one bit flipped.
     */
    public static byte[] corruptIcrc(final byte[] frame)
    {
        final byte[] copy = frame.clone();
        copy[copy.length - 1] ^= 0x01;
        return copy;
    }

    /**
     * Recompute the ICRC of a frame in place after a mutation changed covered fields, so the change is the only
     * thing wrong with it ({@link FrameSeal#reseal(byte[])}).
     *
     * @param frame a frame that parses up to its ICRC.
     * @return the same array.
     */
    public static byte[] reseal(final byte[] frame)
    {
        return FrameSeal.reseal(frame);
    }
}
