package org.roce4j.cm.perftest;

import org.junit.jupiter.api.Test;
import org.roce4j.cm.oob.OobProtocolException;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The QP record perftest -R sends over its rdma_cm exchange: struct pingpong_dest, big-endian (rdma_write_keys).
 */
class PerftestRdmaCmChannelTest
{
    @Test
    void aRecordIsPingpongDestBigEndianWithItsPadding() throws OobProtocolException
    {
        final PerftestDest dest = new PerftestDest(0x1234, 16, 0x11, 0xABCDEF, 0x01020304, 0x0000_7F00_1122_3344L,
            0L, 0x0000_FFFF_C0A8_4D01L, 0);
        final byte[] bytes = PerftestRdmaCmChannel.encodeDest(dest);
        final byte[] expected = new byte[56];
        final int[] head = {0, 0, 0x12, 0x34, 0, 0, 0, 16, 0, 0, 0, 0x11, 0, 0xAB, 0xCD, 0xEF, 1, 2, 3, 4};
        for (int i = 0; i < head.length; i++)
        {
            expected[i] = (byte)head[i];
        }
        // 20..23: padding before the 8-byte aligned vaddr.
        final int[] vaddr = {0, 0, 0x7F, 0, 0x11, 0x22, 0x33, 0x44};
        for (int i = 0; i < vaddr.length; i++)
        {
            expected[24 + i] = (byte)vaddr[i];
        }
        // GID at 32: ::ffff:192.168.77.1 in network order.
        expected[42] = (byte)0xFF;
        expected[43] = (byte)0xFF;
        expected[44] = (byte)192;
        expected[45] = (byte)168;
        expected[46] = 77;
        expected[47] = 1;
        assertArrayEquals(expected, bytes);
        assertEquals(dest, PerftestRdmaCmChannel.decodeDest(bytes));
    }

    @Test
    void aShortOrOutOfRangeRecordIsAProtocolError()
    {
        assertThrows(OobProtocolException.class, () -> PerftestRdmaCmChannel.decodeDest(new byte[40]));
        final byte[] bytes = new byte[56];
        bytes[8] = 1;
        assertThrows(OobProtocolException.class, () -> PerftestRdmaCmChannel.decodeDest(bytes));
    }
}
