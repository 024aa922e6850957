package org.roce4j.ib;

/**
 * Memory region and QP access flags (enum ibv_access_flags), combined with bitwise or.
 */
public final class AccessFlags
{
    /** IBV_ACCESS_LOCAL_WRITE: the HCA may write the memory (receive buffers, READ targets, atomic results). */
    public static final int LOCAL_WRITE = 1;
    /** IBV_ACCESS_REMOTE_WRITE: peers may RDMA WRITE it (needs LOCAL_WRITE). */
    public static final int REMOTE_WRITE = 1 << 1;
    /** IBV_ACCESS_REMOTE_READ: peers may RDMA READ it. */
    public static final int REMOTE_READ = 1 << 2;
    /** IBV_ACCESS_REMOTE_ATOMIC: peers may run atomics on it (needs LOCAL_WRITE). */
    public static final int REMOTE_ATOMIC = 1 << 3;
    /**
     * IBV_ACCESS_MW_BIND (1 &lt;&lt; 4): memory windows may be bound to the region (IBA C10-73; rxe_check_bind_mw
     * refuses a bind to a region without it). Memory regions only.
     */
    public static final int MW_BIND = 1 << 4;
    /**
     * IBV_ACCESS_ZERO_BASED (1 &lt;&lt; 5): a memory window addressed from 0 rather than by the region's IOVA. rxe
     * refuses it for type 1 windows (o10-36.2.2) and ibv_bind_mw refuses it; roce4j refuses it for every bind
     * (MW_BIND_ERR): its windows are VA-based.
     */
    public static final int ZERO_BASED = 1 << 5;
    /**
     * IBV_ACCESS_FLUSH_GLOBAL (1 &lt;&lt; 8, verbs.h; IB_ACCESS_FLUSH_GLOBAL): peers may FLUSH it for global visibility
     * (IBA A19, placement type IB_FLUSH_GLOBAL). On a QP it admits FLUSH requests of that placement type.
     */
    public static final int FLUSH_GLOBAL = 1 << 8;
    /**
     * IBV_ACCESS_FLUSH_PERSISTENT (1 &lt;&lt; 9): peers may FLUSH it for persistence (placement type
     * IB_FLUSH_PERSISTENT). rxe registers it only for persistent memory ("Page can't be persistent",
     * rxe_mr_fill_pages_from_sgt, -EINVAL); roce4j's memory is never persistent, so a memory region refuses it the
     * same way. A QP may carry it (rxe check_qp_attr_access reads it from qp_access_flags).
     */
    public static final int FLUSH_PERSISTENT = 1 << 9;
    /** All ibv_access_flags roce4j implements, for memory regions and QPs. */
    public static final int ALL = LOCAL_WRITE | REMOTE_WRITE | REMOTE_READ | REMOTE_ATOMIC | FLUSH_GLOBAL |
        FLUSH_PERSISTENT;
    /**
     * roce4j registration flag, not an ibv_access_flags value (it sits above their range, IBV_ACCESS_OPTIONAL_RANGE
     * 0x3ff00000): a peer's SEND with Invalidate naming this region's rkey may invalidate it. Only memory registered
     * for remote invalidation may be invalidated from the wire: in rxe, MRs made by fast registration
     * (IB_MR_TYPE_MEM_REG, rxe_invalidate_mr) and memory windows; an ordinary MR named by an IETH is the class J
     * error (rxe RESPST_ERR_INVALIDATE_RKEY: IB_WC_REM_INV_REQ_ERR and the QP to the error state). roce4j has no
     * fast registration work request, so a region asks for this at registration. Memory regions only.
     */
    public static final int REMOTE_INVALIDATE = 1 << 30;
    /** Every flag a memory region may be registered with. */
    public static final int ALL_MR = ALL | REMOTE_INVALIDATE | MW_BIND;
    /**
     * Every flag a memory window may be bound with (rxe RXE_ACCESS_SUPPORTED_MW: the remote ones; LOCAL_WRITE is
     * accepted and means nothing for a window).
     */
    public static final int ALL_MW = LOCAL_WRITE | REMOTE_WRITE | REMOTE_READ | REMOTE_ATOMIC | FLUSH_GLOBAL;

    private static final int[] BITS =
        {LOCAL_WRITE, REMOTE_WRITE, REMOTE_READ, REMOTE_ATOMIC, MW_BIND, ZERO_BASED, FLUSH_GLOBAL, FLUSH_PERSISTENT,
            REMOTE_INVALIDATE};
    private static final String[] NAMES = {"LOCAL_WRITE", "REMOTE_WRITE", "REMOTE_READ", "REMOTE_ATOMIC", "MW_BIND",
        "ZERO_BASED", "FLUSH_GLOBAL", "FLUSH_PERSISTENT", "REMOTE_INVALIDATE"};

    private AccessFlags()
    {
    }

    /**
     * @param flags a combination.
     * @return e.g. "LOCAL_WRITE|REMOTE_READ" or "none".
     */
    public static String toString(final int flags)
    {
        return FlagNames.toString(flags, BITS, NAMES);
    }
}
