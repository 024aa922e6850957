package org.roce4j.bench.engine;

import org.roce4j.ib.WrOpcode;

/**
 * The operations the benchmarks post, with the verbs opcode each uses.
 */
public enum Op
{
    /** RDMA WRITE into the server's buffer. */
    WRITE("write", WrOpcode.RDMA_WRITE),
    /** RDMA READ from the server's buffer. */
    READ("read", WrOpcode.RDMA_READ),
    /** SEND into a receive the server posted. */
    SEND("send", WrOpcode.SEND),
    /** 8-byte FETCH_AND_ADD on the server's buffer. */
    FETCH_ADD("fetch_add", WrOpcode.ATOMIC_FETCH_AND_ADD),
    /** 8-byte CMP_AND_SWP on the server's buffer. */
    CMP_SWAP("cmp_swap", WrOpcode.ATOMIC_CMP_AND_SWP);

    private final String label;
    private final WrOpcode opcode;

    Op(final String label, final WrOpcode opcode)
    {
        this.label = label;
        this.opcode = opcode;
    }

    /**
     * @return the name used in reports and on the command line.
     */
    public String label()
    {
        return label;
    }

    /**
     * @return the work request opcode.
     */
    public WrOpcode opcode()
    {
        return opcode;
    }

    /**
     * @return true for the 8-byte atomics, whose message size is fixed.
     */
    public boolean isAtomic()
    {
        return opcode.isAtomic();
    }

    /**
     * @param label as printed by {@link #label()}.
     * @return the operation.
     * @throws IllegalArgumentException naming the valid labels.
     */
    public static Op of(final String label)
    {
        for (final Op op : values())
        {
            if (op.label.equals(label))
            {
                return op;
            }
        }
        throw new IllegalArgumentException("unknown operation '" + label + "' (write, read, send, fetch_add, " +
            "cmp_swap)");
    }
}
