package org.roce4j.ib;

/**
 * Memory window types (enum ibv_mw_type), with the libibverbs values. roce4j implements type 1 and type 2B, as rxe
 * does (its device_cap_flags carry MEM_WINDOW and MEM_WINDOW_TYPE_2B).
 */
public enum MwType
{
    /**
     * IBV_MW_TYPE_1 = 1: bound with ibv_bind_mw (which posts a BIND_MW work request for the caller), associated
     * with its protection domain only, not invalidated remotely (IBA o10-37.2.26).
     */
    TYPE_1(1),
    /**
     * IBV_MW_TYPE_2 = 2 (type 2B): bound only by a BIND_MW work request the caller posts, associated with the QP that
     * bound it (rxe checks the QP on every access), invalidated by LOCAL_INV or a peer's SEND with Invalidate.
     */
    TYPE_2(2);

    private final int verbsValue;

    MwType(final int verbsValue)
    {
        this.verbsValue = verbsValue;
    }

    /**
     * @return the libibverbs enum value.
     */
    public int verbsValue()
    {
        return verbsValue;
    }
}
