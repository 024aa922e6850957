package org.roce4j.wire.header;

import org.agrona.MutableDirectBuffer;

/**
 * Flush Extended Transport Header (IBA 1.5 A19, FLUSH opcode 0x1C): how far and how durably to flush.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                     Reserved (26)                     |SEL|PLT|
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * PLT (placement type) is bits 3..0 and SEL (selectivity level) bits 5..4 of the 32-bit word, as FETH_PLT_MASK 0xf
 * and FETH_SEL_MASK 0x30 in rxe_hdr.h (the diagram shows them at the right end of the word; PLT is 4 bits wide).
 */
public final class FethHeader extends HeaderFlyweight
{
    /** Header length. */
    public static final int LENGTH = 4;
    /** Offset of the 32-bit FETH word. */
    public static final int WORD_OFFSET = 0;
    /** Placement type bits (FETH_PLT_MASK). */
    public static final int PLACEMENT_TYPE_MASK = 0x0F;
    /** Selectivity level bits (FETH_SEL_MASK). */
    public static final int SELECTIVITY_MASK = 0x30;
    /** Shift of the selectivity level. */
    public static final int SELECTIVITY_SHIFT = 4;
    /** Placement type bit: global visibility (IB_FLUSH_GLOBAL). */
    public static final int PLACEMENT_GLOBAL = 0x1;
    /** Placement type bit: persistence (IB_FLUSH_PERSISTENT). */
    public static final int PLACEMENT_PERSISTENT = 0x2;
    /** Selectivity level: the range the RETH names (IB_FLUSH_RANGE). */
    public static final int SELECTIVITY_RANGE = 0;
    /** Selectivity level: the whole region the rkey names; the RETH's VA and length are ignored (IB_FLUSH_MR). */
    public static final int SELECTIVITY_MR = 1;

    /** {@inheritDoc} */
    public FethHeader wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    /**
     * @return 4.
     */
    public int length()
    {
        return LENGTH;
    }

    /**
     * @return the whole 32-bit word.
     */
    public int word()
    {
        return i32(WORD_OFFSET);
    }

    /**
     * @param word the whole 32-bit word.
     * @return this.
     */
    public FethHeader word(final int word)
    {
        i32(WORD_OFFSET, word);
        return this;
    }

    /**
     * @return placement type, 4 bits.
     */
    public int placementType()
    {
        return word() & PLACEMENT_TYPE_MASK;
    }

    /**
     * @return selectivity level, 2 bits (0: memory region range, 1: whole memory region).
     */
    public int selectivityLevel()
    {
        return (word() & SELECTIVITY_MASK) >>> SELECTIVITY_SHIFT;
    }

    /**
     * @param selectivityLevel 2 bits.
     * @param placementType    4 bits.
     * @return this.
     */
    public FethHeader flush(final int selectivityLevel, final int placementType)
    {
        return word(((selectivityLevel << SELECTIVITY_SHIFT) & SELECTIVITY_MASK) |
            (placementType & PLACEMENT_TYPE_MASK));
    }
}
