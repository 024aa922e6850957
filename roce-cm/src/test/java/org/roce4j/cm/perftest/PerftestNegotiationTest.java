package org.roce4j.cm.perftest;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * perftest 6.28's struct perftest_parameters_negotiate, at the offsets gcc gives it on x86-64 (checked with a C
 * program compiling the struct from perftest_parameters.h and libibverbs' verbs.h: 320 bytes with mlx5dv, 312
 * without, size at 32, the device attributes at 80, max_qp_rd_atom at 144).
 */
class PerftestNegotiationTest
{
    /** ib_write_bw's defaults (RC, WRITE, BW, 65536 B, 5000 iterations, MB/s) with the given verb number. */
    static PerftestNegotiation writeBw(final int verb)
    {
        return PerftestNegotiation.of(new PerftestNegotiation.Params(0, 0, verb, 1, 0, 0, 1, 65536, 5000, 1, 5,
            false, "roce4j-0.1", 0xFFFFFF, 16), true);
    }

    @Test
    void theFieldsSitWherePerftestPutsThemInItsByteOrders()
    {
        final byte[] bytes = writeBw(2).encode();
        assertEquals(PerftestNegotiation.LENGTH_MLX5DV, bytes.length);
        final ByteBuffer be = ByteBuffer.wrap(bytes);
        assertEquals(0, be.getInt(0), "test_method RUN_REGULAR");
        assertEquals(2, be.getInt(8), "verb WRITE, htonl");
        assertEquals(1, be.getInt(12), "tst BW");
        assertEquals(1, be.getInt(24), "report_fmt MBS");
        assertEquals(0, be.getInt(28), "padding before the 8-byte aligned size");
        assertEquals(65536, be.getLong(32), "size, hton_64");
        assertEquals(5000, be.getLong(40), "iters, hton_64");
        assertEquals(1, be.getInt(52), "num_of_qps");
        assertEquals(5, be.getInt(56), "duration DEF_DURATION");
        final ByteBuffer le = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals('r', bytes[80], "fw_ver first");
        assertEquals(0xFFFFFF, le.getInt(80 + 96), "vendor_id in host order");
        assertEquals(16, le.getInt(144), "max_qp_rd_atom in host order");
        assertEquals(16, writeBw(2).maxQpRdAtom());
        assertEquals(0L, be.getLong(312), "mlx5dv_comp_mask: no OOO_RECV_WRS");
        assertEquals(PerftestNegotiation.LENGTH_PLAIN, PerftestNegotiation.of(new PerftestNegotiation.Params(0, 0, 2,
            1, 0, 0, 1, 65536, 5000, 1, 5, false, "x", 0, 16), false).encode().length);
    }

    @Test
    void comparesInPerftestsOrderAndWords()
    {
        assertNull(writeBw(2).firstMismatch(PerftestNegotiation.decode(writeBw(2).encode())));
        assertEquals(" verb mismatch: local=WRITE, remote=READ", writeBw(2).firstMismatch(writeBw(4)));
        final PerftestNegotiation iters = PerftestNegotiation.of(new PerftestNegotiation.Params(0, 0, 2, 1, 0, 0, 1,
            65536, 1000, 1, 5, false, "x", 0, 16), true);
        assertEquals(" iters mismatch: local=5000, remote=1000", writeBw(2).firstMismatch(iters));
        final PerftestNegotiation uc = PerftestNegotiation.of(new PerftestNegotiation.Params(0, 1, 2, 1, 0, 0, 1,
            65536, 5000, 1, 5, false, "x", 0, 16), true);
        assertEquals(" connection_type mismatch: local=RC, remote=UC", writeBw(2).firstMismatch(uc));
        // The device attributes are not compared (only max_qp_rd_atom is used, to cap out_reads).
        final PerftestNegotiation otherDevice = PerftestNegotiation.of(new PerftestNegotiation.Params(0, 0, 2, 1, 0,
            0, 1, 65536, 5000, 1, 5, false, "20.31.1014", 0x02c9, 1), true);
        assertNull(writeBw(2).firstMismatch(otherDevice));
    }

    @Test
    void aStructOfAnotherLengthIsNamed()
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
            () -> PerftestNegotiation.decode(new byte[300]));
        assertTrue(ex.getMessage().contains("320 bytes (312 without mlx5dv), got 300"), ex.getMessage());
    }
}
