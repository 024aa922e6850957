package org.roce4j.ib;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The send work request and work completion opcode tables whole against libibverbs (verbs.h enum ibv_wr_opcode and
 * enum ibv_wc_opcode), with the completion opcode each send WR reports (rxe_comp.c wr_to_wc_opcode) and which WRs
 * take an ORD credit (rxe_req.c check_init_depth).
 */
class WorkOpcodesTest
{
    @Test
    void everySendOpcodeHasItsLibibverbsValueCompletionOpcodeAndOrdUse()
    {
        final List<String> expected = List.of(
            "0 RDMA_WRITE RDMA_WRITE",
            "1 RDMA_WRITE_WITH_IMM RDMA_WRITE",
            "2 SEND SEND",
            "3 SEND_WITH_IMM SEND",
            "4 RDMA_READ RDMA_READ ord",
            "5 ATOMIC_CMP_AND_SWP COMP_SWAP ord",
            "6 ATOMIC_FETCH_AND_ADD FETCH_ADD ord",
            "7 LOCAL_INV LOCAL_INV",
            "8 BIND_MW BIND_MW",
            "9 SEND_WITH_INV SEND",
            "14 FLUSH FLUSH",
            "15 ATOMIC_WRITE ATOMIC_WRITE ord");
        final List<String> actual = new ArrayList<>();
        for (final WrOpcode op : WrOpcode.values())
        {
            actual.add(op.verbsValue() + " " + op + " " + op.completionOpcode() + (op.usesOrd() ? " ord" : ""));
        }
        assertEquals(expected, actual);
    }

    @Test
    void everyCompletionOpcodeHasItsLibibverbsValue()
    {
        final List<String> expected = List.of("0 SEND", "1 RDMA_WRITE", "2 RDMA_READ", "3 COMP_SWAP", "4 FETCH_ADD",
            "5 BIND_MW", "6 LOCAL_INV", "8 FLUSH", "9 ATOMIC_WRITE", "128 RECV", "129 RECV_RDMA_WITH_IMM");
        final List<String> actual = new ArrayList<>();
        for (final WcOpcode op : WcOpcode.values())
        {
            actual.add(op.verbsValue() + " " + op);
            assertEquals(op, WcOpcode.fromOrdinal(op.ordinal()));
        }
        assertEquals(expected, actual);
    }
}
