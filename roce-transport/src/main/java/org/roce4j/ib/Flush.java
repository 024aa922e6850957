package org.roce4j.ib;

import org.roce4j.wire.header.FethHeader;

/**
 * The arguments of a FLUSH (ibv_wr_flush, IBA 1.5 annex A19): placement types (enum ibv_placement_type, combined
 * with bitwise or) and selectivity levels (enum ibv_selectivity_level), with the libibverbs values, which are the
 * FETH's PLT and SEL fields on the wire.
 */
public final class Flush
{
    /** IBV_FLUSH_GLOBAL: make the data globally visible; the region needs {@link AccessFlags#FLUSH_GLOBAL}. */
    public static final int GLOBAL = FethHeader.PLACEMENT_GLOBAL;
    /** IBV_FLUSH_PERSISTENT: make the data persistent; the region needs {@link AccessFlags#FLUSH_PERSISTENT}. */
    public static final int PERSISTENT = FethHeader.PLACEMENT_PERSISTENT;
    /** Every placement type. */
    public static final int ALL_TYPES = GLOBAL | PERSISTENT;
    /** IBV_FLUSH_RANGE: flush the range the remote address and length name. */
    public static final int RANGE = FethHeader.SELECTIVITY_RANGE;
    /** IBV_FLUSH_MR: flush the whole region the rkey names (address and length are ignored). */
    public static final int MR = FethHeader.SELECTIVITY_MR;

    private Flush()
    {
    }
}
