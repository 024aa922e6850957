package org.roce4j.ib;

/**
 * Work completion opcodes (enum ibv_wc_opcode), with the libibverbs values.
 */
public enum WcOpcode
{
    /** IBV_WC_SEND = 0. */
    SEND(0),
    /** IBV_WC_RDMA_WRITE = 1. */
    RDMA_WRITE(1),
    /** IBV_WC_RDMA_READ = 2. */
    RDMA_READ(2),
    /** IBV_WC_COMP_SWAP = 3. */
    COMP_SWAP(3),
    /** IBV_WC_FETCH_ADD = 4. */
    FETCH_ADD(4),
    /** IBV_WC_BIND_MW = 5: a BIND_MW work request (or ibv_bind_mw) completed. */
    BIND_MW(5),
    /** IBV_WC_LOCAL_INV = 6: a LOCAL_INV work request completed. */
    LOCAL_INV(6),
    /** IBV_WC_FLUSH = 8 (rxe wr_to_wc_opcode: IB_WR_FLUSH). */
    FLUSH(8),
    /** IBV_WC_ATOMIC_WRITE = 9 (rxe wr_to_wc_opcode: IB_WR_ATOMIC_WRITE). */
    ATOMIC_WRITE(9),
    /** IBV_WC_RECV = 128: a SEND arrived. */
    RECV(128),
    /** IBV_WC_RECV_RDMA_WITH_IMM = 129: an RDMA WRITE with immediate consumed a receive. */
    RECV_RDMA_WITH_IMM(129);

    private static final WcOpcode[] VALUES = values();

    private final int verbsValue;

    WcOpcode(final int verbsValue)
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

    /**
     * @param ordinal from {@link #ordinal()}.
     * @return the constant.
     */
    public static WcOpcode fromOrdinal(final int ordinal)
    {
        return VALUES[ordinal];
    }
}
