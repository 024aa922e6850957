package org.roce4j.wire;

import org.agrona.collections.LongHashSet;

/**
 * Tells a request packet that was sent before from a new one, over a capture read in order: the one judgement of
 * "resent" that the ladder of any capture ({@code ladder.PcapLadder}) and the conformance checkers (retransmission
 * timing) share.
 *
 * <p>A request is the same request again when it goes the same way to the same destination QP with the same opcode
 * and PSN: a requester retransmits a packet with its original PSN and opcode (IBA 9.7.5.1.2 and 9.7.6.1.3; rxe_req.c
 * replays the WQE from the PSN it goes back to). A link can duplicate a packet too; from the frames alone the two
 * look alike, so either is "resent". Only requests count: responses (ACKs, READ responses) repeat PSNs
 * legitimately, as a responder coalesces and re-acknowledges (IBA 9.7.5.1.2).
 *
 * <p>{@link #resent} remembers every request seen (a set of 64-bit keys, no allocation per packet once the set has
 * grown); {@link #sameRequest} compares two packets without state.
 */
public final class ResendDetector
{
    /** A packet's key: direction bit 56, destination QP bits 32..55, opcode bits 24..31, PSN bits 0..23. */
    private static final int DIRECTION_SHIFT = 56;
    private static final int DEST_QP_SHIFT = 32;
    private static final int OPCODE_SHIFT = 24;
    /** The BTH's DestQP and PSN are 24-bit fields (IBA 9.2). */
    private static final int FIELD_24_MASK = 0xFF_FFFF;

    private final LongHashSet seen = new LongHashSet();

    /**
     * Note a packet in capture order.
     *
     * @param forward true for one direction of the capture, false for the other.
     * @param destQp  the BTH's DestQP.
     * @param opcode  the BTH's opcode, or null when it is not one the table knows (never a request).
     * @param psn     the BTH's PSN.
     * @return true when it is a request sent before in the same direction (a retransmission or a duplicate); false
     *     for the first sending of a request, and for every response.
     */
    public boolean resent(final boolean forward, final int destQp, final Opcode opcode, final int psn)
    {
        return null != opcode && opcode.isRequest() && !seen.add(key(forward, destQp, opcode, psn));
    }

    /**
     * Forget every packet seen.
     */
    public void clear()
    {
        seen.clear();
    }

    /**
     * Whether a later packet is the same request as an earlier one sent the same way: a retransmission (or a
     * duplicate) of it.
     *
     * @param destQp      the earlier packet's DestQP.
     * @param opcode      its opcode, or null.
     * @param psn         its PSN.
     * @param laterDestQp the later packet's DestQP.
     * @param laterOpcode its opcode, or null.
     * @param laterPsn    its PSN.
     * @return true when the earlier packet is a request and the later one repeats its DestQP, opcode and PSN.
     */
    public static boolean sameRequest(final int destQp, final Opcode opcode, final int psn, final int laterDestQp,
        final Opcode laterOpcode, final int laterPsn)
    {
        return null != opcode && opcode.isRequest() && opcode == laterOpcode &&
            key(true, destQp, opcode, psn) == key(true, laterDestQp, laterOpcode, laterPsn);
    }

    private static long key(final boolean forward, final int destQp, final Opcode opcode, final int psn)
    {
        return (forward ? 1L : 0L) << DIRECTION_SHIFT |
            (long)(destQp & FIELD_24_MASK) << DEST_QP_SHIFT |
            (long)opcode.code() << OPCODE_SHIFT |
            (psn & FIELD_24_MASK);
    }
}
