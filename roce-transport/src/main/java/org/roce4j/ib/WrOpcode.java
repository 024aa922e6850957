package org.roce4j.ib;

/**
 * Send work request opcodes (enum ibv_wr_opcode), with the libibverbs values.
 */
public enum WrOpcode
{
    /** IBV_WR_RDMA_WRITE = 0. */
    RDMA_WRITE(0),
    /** IBV_WR_RDMA_WRITE_WITH_IMM = 1. */
    RDMA_WRITE_WITH_IMM(1),
    /** IBV_WR_SEND = 2. */
    SEND(2),
    /** IBV_WR_SEND_WITH_IMM = 3. */
    SEND_WITH_IMM(3),
    /** IBV_WR_RDMA_READ = 4. */
    RDMA_READ(4),
    /** IBV_WR_ATOMIC_CMP_AND_SWP = 5. */
    ATOMIC_CMP_AND_SWP(5),
    /** IBV_WR_ATOMIC_FETCH_AND_ADD = 6. */
    ATOMIC_FETCH_AND_ADD(6),
    /**
     * IBV_WR_LOCAL_INV = 7: invalidate a type 2B memory window (or a region registered for invalidation) named by
     * its rkey ({@code invalidate_rkey}); a local operation, no packet leaves (rxe rxe_do_local_ops).
     */
    LOCAL_INV(7),
    /**
     * IBV_WR_BIND_MW = 8: bind a memory window to a window of a memory region (ibv_bind_mw for type 1, the caller's
     * WR for type 2B); a local operation, no packet leaves (rxe rxe_bind_mw).
     */
    BIND_MW(8),
    /** IBV_WR_SEND_WITH_INV = 9. */
    SEND_WITH_INV(9),
    /** IBV_WR_FLUSH = 14 (ibv_wr_flush; IBA A19): make a remote range (or region) globally visible or persistent. */
    FLUSH(14),
    /** IBV_WR_ATOMIC_WRITE = 15 (ibv_wr_atomic_write; IBA A19): write 8 bytes at the remote VA as one store. */
    ATOMIC_WRITE(15);

    private final int verbsValue;

    WrOpcode(final int verbsValue)
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
     * @return true for RDMA READ and the atomics: requests answered with data, limited by max_rd_atomic (ORD).
     */
    public boolean isReadOrAtomic()
    {
        return RDMA_READ == this || ATOMIC_CMP_AND_SWP == this || ATOMIC_FETCH_AND_ADD == this;
    }

    /**
     * @return true for the requests that take an ORD credit (max_rd_atomic): READ, the atomics and ATOMIC_WRITE
     *     (rxe check_init_depth runs for RXE_READ_OR_ATOMIC_MASK | RXE_ATOMIC_WRITE_MASK; FLUSH takes none).
     */
    public boolean usesOrd()
    {
        return isReadOrAtomic() || ATOMIC_WRITE == this;
    }

    /**
     * @return true for the two atomics.
     */
    public boolean isAtomic()
    {
        return ATOMIC_CMP_AND_SWP == this || ATOMIC_FETCH_AND_ADD == this;
    }

    /**
     * @return true for the local operations (rxe WR_LOCAL_OP_MASK): BIND_MW and LOCAL_INV, executed by the requester
     *     without a packet.
     */
    public boolean isLocal()
    {
        return BIND_MW == this || LOCAL_INV == this;
    }

    /**
     * @return true for the SEND family: consumes a receive WQE at the responder.
     */
    public boolean isSend()
    {
        return SEND == this || SEND_WITH_IMM == this || SEND_WITH_INV == this;
    }

    /**
     * @return true for the RDMA WRITE family.
     */
    public boolean isWrite()
    {
        return RDMA_WRITE == this || RDMA_WRITE_WITH_IMM == this;
    }

    /**
     * @return true for the opcodes that carry immediate data.
     */
    public boolean hasImmediate()
    {
        return SEND_WITH_IMM == this || RDMA_WRITE_WITH_IMM == this;
    }

    /**
     * @return the completion opcode a send WR of this kind reports.
     */
    public WcOpcode completionOpcode()
    {
        switch (this)
        {
            case RDMA_WRITE:
            case RDMA_WRITE_WITH_IMM:
                return WcOpcode.RDMA_WRITE;
            case RDMA_READ:
                return WcOpcode.RDMA_READ;
            case ATOMIC_CMP_AND_SWP:
                return WcOpcode.COMP_SWAP;
            case ATOMIC_FETCH_AND_ADD:
                return WcOpcode.FETCH_ADD;
            case FLUSH:
                return WcOpcode.FLUSH;
            case ATOMIC_WRITE:
                return WcOpcode.ATOMIC_WRITE;
            case BIND_MW:
                return WcOpcode.BIND_MW;
            case LOCAL_INV:
                return WcOpcode.LOCAL_INV;
            default:
                return WcOpcode.SEND;
        }
    }
}
