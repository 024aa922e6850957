package org.roce4j.wire;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The whole opcode table against an independent expected table, written here as literal rows from
 * protocol-facts.md A.3 (header order, rxe_opcode.c) and B.2 (codes, ib_pack.h), not derived from the enum.
 *
 * <p>Columns: code, name, transport, operation, extension headers in wire order, BTH + extension header length,
 * carries payload, position, AckReq meaningful (RC requests only: IBA 9.2.1), is a request. Header lengths are
 * sums of the B.1 sizes: BTH 12, RETH 16, AETH 4, AtomicETH 28, AtomicAckETH 8, DETH 8, ImmDt 4, IETH 4, FETH 4,
 * CNP reserved 16.
 */
class OpcodeTableTest
{
    private static final String[] ROWS =
    {
        // code name                              transport operation          headers          len pay pos  ack req
        "0x00 RC_SEND_FIRST                           RC  SEND                    -                  12 Y FIRST  Y Y",
        "0x01 RC_SEND_MIDDLE                          RC  SEND                    -                  12 Y MIDDLE Y Y",
        "0x02 RC_SEND_LAST                            RC  SEND                    -                  12 Y LAST   Y Y",
        "0x03 RC_SEND_LAST_WITH_IMMEDIATE             RC  SEND                    IMM_DT             16 Y LAST   Y Y",
        "0x04 RC_SEND_ONLY                            RC  SEND                    -                  12 Y ONLY   Y Y",
        "0x05 RC_SEND_ONLY_WITH_IMMEDIATE             RC  SEND                    IMM_DT             16 Y ONLY   Y Y",
        "0x06 RC_RDMA_WRITE_FIRST                     RC  RDMA_WRITE              RETH               28 Y FIRST  Y Y",
        "0x07 RC_RDMA_WRITE_MIDDLE                    RC  RDMA_WRITE              -                  12 Y MIDDLE Y Y",
        "0x08 RC_RDMA_WRITE_LAST                      RC  RDMA_WRITE              -                  12 Y LAST   Y Y",
        "0x09 RC_RDMA_WRITE_LAST_WITH_IMMEDIATE       RC  RDMA_WRITE              IMM_DT             16 Y LAST   Y Y",
        "0x0A RC_RDMA_WRITE_ONLY                      RC  RDMA_WRITE              RETH               28 Y ONLY   Y Y",
        "0x0B RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE       RC  RDMA_WRITE              RETH,IMM_DT        32 Y ONLY   Y Y",
        "0x0C RC_RDMA_READ_REQUEST                    RC  RDMA_READ_REQUEST       RETH               28 N ONLY   Y Y",
        "0x0D RC_RDMA_READ_RESPONSE_FIRST             RC  RDMA_READ_RESPONSE      AETH               16 Y FIRST  N N",
        "0x0E RC_RDMA_READ_RESPONSE_MIDDLE            RC  RDMA_READ_RESPONSE      -                  12 Y MIDDLE N N",
        "0x0F RC_RDMA_READ_RESPONSE_LAST              RC  RDMA_READ_RESPONSE      AETH               16 Y LAST   N N",
        "0x10 RC_RDMA_READ_RESPONSE_ONLY              RC  RDMA_READ_RESPONSE      AETH               16 Y ONLY   N N",
        "0x11 RC_ACKNOWLEDGE                          RC  ACKNOWLEDGE             AETH               16 N ONLY   N N",
        "0x12 RC_ATOMIC_ACKNOWLEDGE                   RC  ATOMIC_ACKNOWLEDGE      AETH,ATOMIC_ACK_ETH 24 N ONLY  N N",
        "0x13 RC_COMPARE_SWAP                         RC  COMPARE_SWAP            ATOMIC_ETH         40 N ONLY   Y Y",
        "0x14 RC_FETCH_ADD                            RC  FETCH_ADD               ATOMIC_ETH         40 N ONLY   Y Y",
        "0x16 RC_SEND_LAST_WITH_INVALIDATE            RC  SEND                    IETH               16 Y LAST   Y Y",
        "0x17 RC_SEND_ONLY_WITH_INVALIDATE            RC  SEND                    IETH               16 Y ONLY   Y Y",
        "0x1C RC_FLUSH                                RC  FLUSH                   FETH,RETH          32 N ONLY   Y Y",
        "0x1D RC_ATOMIC_WRITE                         RC  ATOMIC_WRITE            RETH               28 Y ONLY   Y Y",
        "0x20 UC_SEND_FIRST                           UC  SEND                    -                  12 Y FIRST  N Y",
        "0x21 UC_SEND_MIDDLE                          UC  SEND                    -                  12 Y MIDDLE N Y",
        "0x22 UC_SEND_LAST                            UC  SEND                    -                  12 Y LAST   N Y",
        "0x23 UC_SEND_LAST_WITH_IMMEDIATE             UC  SEND                    IMM_DT             16 Y LAST   N Y",
        "0x24 UC_SEND_ONLY                            UC  SEND                    -                  12 Y ONLY   N Y",
        "0x25 UC_SEND_ONLY_WITH_IMMEDIATE             UC  SEND                    IMM_DT             16 Y ONLY   N Y",
        "0x26 UC_RDMA_WRITE_FIRST                     UC  RDMA_WRITE              RETH               28 Y FIRST  N Y",
        "0x27 UC_RDMA_WRITE_MIDDLE                    UC  RDMA_WRITE              -                  12 Y MIDDLE N Y",
        "0x28 UC_RDMA_WRITE_LAST                      UC  RDMA_WRITE              -                  12 Y LAST   N Y",
        "0x29 UC_RDMA_WRITE_LAST_WITH_IMMEDIATE       UC  RDMA_WRITE              IMM_DT             16 Y LAST   N Y",
        "0x2A UC_RDMA_WRITE_ONLY                      UC  RDMA_WRITE              RETH               28 Y ONLY   N Y",
        "0x2B UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE       UC  RDMA_WRITE              RETH,IMM_DT        32 Y ONLY   N Y",
        "0x64 UD_SEND_ONLY                            UD  SEND                    DETH               20 Y ONLY   N Y",
        "0x65 UD_SEND_ONLY_WITH_IMMEDIATE             UD  SEND                    DETH,IMM_DT        24 Y ONLY   N Y",
        "0x81 CNP_NOTIFICATION                        CNP CONGESTION_NOTIFICATION CNP_RESERVED       28 N ONLY   N N",
    };

    /** Codes that use a responder resource (IBA 9.4.4): READ, the two atomics, FLUSH, ATOMIC_WRITE. */
    private static final int[] RESPONDER_RESOURCE_CODES = {0x0C, 0x13, 0x14, 0x1C, 0x1D};

    private record Row(
        int code, String name, Transport transport, Operation operation, List<ExtHeader> headers, int length,
        boolean payload, Position position, boolean canRequestAck, boolean request)
    {
    }

    private static List<Row> rows()
    {
        final List<Row> rows = new ArrayList<>();
        for (final String text : ROWS)
        {
            final String[] c = text.trim().split("\\s+");
            assertEquals(10, c.length, "malformed expected row: " + text);
            final List<ExtHeader> headers = new ArrayList<>();
            if (!"-".equals(c[4]))
            {
                for (final String h : c[4].split(","))
                {
                    headers.add(ExtHeader.valueOf(h));
                }
            }
            rows.add(new Row(Integer.decode(c[0]), c[1], Transport.valueOf(c[2]), Operation.valueOf(c[3]), headers,
                Integer.parseInt(c[5]), "Y".equals(c[6]), Position.valueOf(c[7]), "Y".equals(c[8]),
                "Y".equals(c[9])));
        }
        return rows;
    }

    @Test
    void everyKnownOpcodeMatchesItsRow()
    {
        final List<Row> rows = rows();
        assertEquals(25 + 12 + 2 + 1, rows.size(), "RC 25, UC 12, UD 2, CNP 1");
        assertEquals(rows.size(), Opcode.values().length, "the enum has opcodes the expected table lacks");
        for (final Row row : rows)
        {
            final Opcode opcode = Opcode.of(row.code());
            final String what = String.format("opcode 0x%02X", row.code());
            assertNotNull(opcode, what + " unknown");
            assertEquals(row.name(), opcode.name(), what);
            assertEquals(row.code(), opcode.code(), what);
            assertEquals(row.transport(), opcode.transport(), what);
            assertEquals(row.transport().base(), row.code() & Transport.TRANSPORT_MASK, what + " transport bits");
            assertEquals(row.operation(), opcode.operation(), what);
            assertEquals(row.position(), opcode.position(), what);
            assertEquals(row.payload(), opcode.hasPayload(), what + " payload");
            assertEquals(row.canRequestAck(), opcode.canRequestAck(), what + " canRequestAck");
            assertEquals(row.request(), opcode.isRequest(), what + " isRequest");
            assertEquals(row.length(), opcode.headerLength(), what + " header length");

            final List<ExtHeader> actual = new ArrayList<>();
            for (int i = 0; i < opcode.extHeaderCount(); i++)
            {
                actual.add(opcode.extHeader(i));
            }
            assertEquals(row.headers(), actual, what + " extension headers in order");
            int offset = 12;
            for (final ExtHeader header : ExtHeader.values())
            {
                final int index = row.headers().indexOf(header);
                assertEquals(index >= 0, opcode.has(header), what + " has " + header);
                if (index < 0)
                {
                    assertEquals(-1, opcode.offsetOf(header), what + " offset of absent " + header);
                }
            }
            for (final ExtHeader header : row.headers())
            {
                assertEquals(offset, opcode.offsetOf(header), what + " offset of " + header);
                offset += header.length();
            }
            assertEquals(row.headers().contains(ExtHeader.IMM_DT), opcode.hasImmediate(), what);
            assertEquals(row.headers().contains(ExtHeader.IETH), opcode.hasInvalidate(), what);
            boolean responderResource = false;
            for (final int code : RESPONDER_RESOURCE_CODES)
            {
                responderResource |= code == row.code();
            }
            assertEquals(responderResource, opcode.usesResponderResource(), what + " responder resource");
        }
    }

    @Test
    void everyOtherCodeIsUnknown()
    {
        final Map<Integer, Row> known = new HashMap<>();
        for (final Row row : rows())
        {
            known.put(row.code(), row);
        }
        int unknown = 0;
        for (int code = 0; code < 256; code++)
        {
            if (!known.containsKey(code))
            {
                assertNull(Opcode.of(code), String.format("0x%02X should be unknown", code));
                unknown++;
            }
        }
        assertEquals(256 - 40, unknown);
        // Opcode.of looks at the low 8 bits only, as a BTH byte read as int would be.
        assertSame(Opcode.RC_SEND_FIRST, Opcode.of(0x100));
        assertSame(Opcode.CNP_NOTIFICATION, Opcode.of(0xFFFF_FF81));
    }

    @Test
    void extensionHeaderLengthsAreTheWireSizes()
    {
        final String[] expected = {"RETH 16", "AETH 4", "ATOMIC_ETH 28", "ATOMIC_ACK_ETH 8", "DETH 8", "IMM_DT 4",
            "IETH 4", "FETH 4", "CNP_RESERVED 16"};
        assertEquals(expected.length, ExtHeader.values().length);
        assertEquals(expected.length, ExtHeader.COUNT);
        for (final String row : expected)
        {
            final String[] c = row.split(" ");
            assertEquals(Integer.parseInt(c[1]), ExtHeader.valueOf(c[0]).length(), c[0]);
        }
    }

    @Test
    void transportBasesAndPositions()
    {
        assertEquals(0x00, Transport.RC.base());
        assertEquals(0x20, Transport.UC.base());
        assertEquals(0x60, Transport.UD.base());
        assertEquals(0x80, Transport.CNP.base());
        assertEquals(4, Transport.values().length);
        assertTrue(Position.FIRST.isStart());
        assertFalse(Position.FIRST.isEnd());
        assertFalse(Position.MIDDLE.isStart());
        assertFalse(Position.MIDDLE.isEnd());
        assertFalse(Position.LAST.isStart());
        assertTrue(Position.LAST.isEnd());
        assertTrue(Position.ONLY.isStart());
        assertTrue(Position.ONLY.isEnd());
    }
}
