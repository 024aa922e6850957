package org.roce4j.transport.engine;

import org.roce4j.ib.WrOpcode;
import org.roce4j.wire.Opcode;

/**
 * Which opcode the requester puts on the next packet of a SEND, RDMA WRITE, FLUSH or ATOMIC WRITE (rxe_req.c
 * next_opcode_rc and next_opcode_uc): by transport, work request opcode and the packet's place in the message
 * (FIRST, MIDDLE, LAST, ONLY). The table is data; {@code RequestOpcodesTest} checks it whole against the opcode table.
 */
final class RequestOpcodes
{
    /** Index of the first packet of a message longer than the MTU. */
    static final int FIRST = 0;
    /** Index of a packet between the first and the last. */
    static final int MIDDLE = 1;
    /** Index of the last packet of a message longer than the MTU. */
    static final int LAST = 2;
    /** Index of the only packet of a message that fits the MTU. */
    static final int ONLY = 3;

    /** [transport RC=0/UC=1][WrOpcode ordinal][FIRST, MIDDLE, LAST, ONLY]; null where the transport has no such WR. */
    private static final Opcode[][][] NEXT_OPCODE = new Opcode[2][WrOpcode.values().length][];

    static
    {
        NEXT_OPCODE[0][WrOpcode.SEND.ordinal()] = new Opcode[]
            {Opcode.RC_SEND_FIRST, Opcode.RC_SEND_MIDDLE, Opcode.RC_SEND_LAST, Opcode.RC_SEND_ONLY};
        NEXT_OPCODE[0][WrOpcode.SEND_WITH_IMM.ordinal()] = new Opcode[]
            {Opcode.RC_SEND_FIRST, Opcode.RC_SEND_MIDDLE, Opcode.RC_SEND_LAST_WITH_IMMEDIATE,
                Opcode.RC_SEND_ONLY_WITH_IMMEDIATE};
        NEXT_OPCODE[0][WrOpcode.SEND_WITH_INV.ordinal()] = new Opcode[]
            {Opcode.RC_SEND_FIRST, Opcode.RC_SEND_MIDDLE, Opcode.RC_SEND_LAST_WITH_INVALIDATE,
                Opcode.RC_SEND_ONLY_WITH_INVALIDATE};
        NEXT_OPCODE[0][WrOpcode.RDMA_WRITE.ordinal()] = new Opcode[]
            {Opcode.RC_RDMA_WRITE_FIRST, Opcode.RC_RDMA_WRITE_MIDDLE, Opcode.RC_RDMA_WRITE_LAST,
                Opcode.RC_RDMA_WRITE_ONLY};
        NEXT_OPCODE[0][WrOpcode.RDMA_WRITE_WITH_IMM.ordinal()] = new Opcode[]
            {Opcode.RC_RDMA_WRITE_FIRST, Opcode.RC_RDMA_WRITE_MIDDLE, Opcode.RC_RDMA_WRITE_LAST_WITH_IMMEDIATE,
                Opcode.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE};
        // rxe next_opcode_rc: FLUSH and ATOMIC_WRITE are one packet whatever their length (RC only).
        NEXT_OPCODE[0][WrOpcode.FLUSH.ordinal()] = new Opcode[]
            {Opcode.RC_FLUSH, Opcode.RC_FLUSH, Opcode.RC_FLUSH, Opcode.RC_FLUSH};
        NEXT_OPCODE[0][WrOpcode.ATOMIC_WRITE.ordinal()] = new Opcode[]
            {Opcode.RC_ATOMIC_WRITE, Opcode.RC_ATOMIC_WRITE, Opcode.RC_ATOMIC_WRITE, Opcode.RC_ATOMIC_WRITE};
        NEXT_OPCODE[1][WrOpcode.SEND.ordinal()] = new Opcode[]
            {Opcode.UC_SEND_FIRST, Opcode.UC_SEND_MIDDLE, Opcode.UC_SEND_LAST, Opcode.UC_SEND_ONLY};
        NEXT_OPCODE[1][WrOpcode.SEND_WITH_IMM.ordinal()] = new Opcode[]
            {Opcode.UC_SEND_FIRST, Opcode.UC_SEND_MIDDLE, Opcode.UC_SEND_LAST_WITH_IMMEDIATE,
                Opcode.UC_SEND_ONLY_WITH_IMMEDIATE};
        NEXT_OPCODE[1][WrOpcode.RDMA_WRITE.ordinal()] = new Opcode[]
            {Opcode.UC_RDMA_WRITE_FIRST, Opcode.UC_RDMA_WRITE_MIDDLE, Opcode.UC_RDMA_WRITE_LAST,
                Opcode.UC_RDMA_WRITE_ONLY};
        NEXT_OPCODE[1][WrOpcode.RDMA_WRITE_WITH_IMM.ordinal()] = new Opcode[]
            {Opcode.UC_RDMA_WRITE_FIRST, Opcode.UC_RDMA_WRITE_MIDDLE, Opcode.UC_RDMA_WRITE_LAST_WITH_IMMEDIATE,
                Opcode.UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE};
    }

    private RequestOpcodes()
    {
    }

    /**
     * @param reliable true for RC, false for UC.
     * @param op       a SEND, RDMA WRITE, FLUSH or ATOMIC_WRITE work request opcode.
     * @param place    {@link #FIRST}, {@link #MIDDLE}, {@link #LAST} or {@link #ONLY}.
     * @return the packet's opcode, or null when the transport has no such work request (UC SEND_WITH_INV).
     */
    static Opcode next(final boolean reliable, final WrOpcode op, final int place)
    {
        final Opcode[] row = NEXT_OPCODE[reliable ? 0 : 1][op.ordinal()];
        return null == row ? null : row[place];
    }
}
