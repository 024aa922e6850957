package org.roce4j.wire.header;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.roce4j.wire.header.FieldAssert.assertBytes;
import static org.roce4j.wire.header.FieldAssert.assertField;
import static org.roce4j.wire.header.FieldAssert.assertFlag;
import static org.roce4j.wire.header.FieldAssert.bufferAt3;

/**
 * BTH fields at the bits of IBA 9.2 / rxe_hdr.h (byte 1: SE 0x80, M 0x40, Pad 0x30, TVer 0x0F; byte 4: FECN 0x80,
 * BECN 0x40, Resv6a 0x3F; byte 8: AckReq 0x80, Resv7 0x7F; 24-bit DestQP and PSN).
 */
class BthHeaderTest
{
    @Test
    void everyFieldIsAtItsBitsAndLeavesTheOthersAlone()
    {
        assertField(BthHeader::new, "opcode", 0, "ff", (h, v) -> h.opcode((int)v), BthHeader::opcode, 0x64, "64");
        assertFlag(BthHeader::new, "SE", 1, 0x80, BthHeader::solicitedEvent, BthHeader::solicitedEvent);
        assertFlag(BthHeader::new, "MigReq", 1, 0x40, BthHeader::migReq, BthHeader::migReq);
        for (int pad = 0; pad <= 3; pad++)
        {
            assertField(BthHeader::new, "PadCnt", 1, "30", (h, v) -> h.padCount((int)v), BthHeader::padCount,
                pad, String.format("%02x", pad << 4));
        }
        assertField(BthHeader::new, "TVer", 1, "0f", (h, v) -> h.transportVersion((int)v),
            BthHeader::transportVersion, 0xA, "0a");
        assertField(BthHeader::new, "flags", 1, "ff", (h, v) -> h.flags((int)v), BthHeader::flags, 0xB5, "b5");
        assertField(BthHeader::new, "P_Key", 2, "ffff", (h, v) -> h.pkey((int)v), BthHeader::pkey, 0x8001, "8001");
        assertFlag(BthHeader::new, "FECN", 4, 0x80, BthHeader::fecn, BthHeader::fecn);
        assertFlag(BthHeader::new, "BECN", 4, 0x40, BthHeader::becn, BthHeader::becn);
        assertField(BthHeader::new, "Resv6a", 4, "3f", (h, v) -> h.resv6a((int)v), BthHeader::resv6a, 0x2A, "2a");
        assertField(BthHeader::new, "DestQP", 5, "ffffff", (h, v) -> h.destQp((int)v), BthHeader::destQp,
            0xABCDEF, "abcdef");
        assertFlag(BthHeader::new, "AckReq", 8, 0x80, BthHeader::ackReq, BthHeader::ackReq);
        assertField(BthHeader::new, "Resv7", 8, "7f", (h, v) -> h.resv7((int)v), BthHeader::resv7, 0x55, "55");
        assertField(BthHeader::new, "PSN", 9, "ffffff", (h, v) -> h.psn((int)v), BthHeader::psn, 0xFEDCBA, "fedcba");
    }

    @Test
    void setterTruncatesOversizedValuesToTheField()
    {
        assertField(BthHeader::new, "PadCnt", 1, "30", (h, v) -> h.padCount((int)v), BthHeader::padCount,
            0x7, "30", 3);
        assertField(BthHeader::new, "TVer", 1, "0f", (h, v) -> h.transportVersion((int)v),
            BthHeader::transportVersion, 0x1F, "0f", 0xF);
        assertField(BthHeader::new, "Resv6a", 4, "3f", (h, v) -> h.resv6a((int)v), BthHeader::resv6a,
            0xFF, "3f", 0x3F);
        assertField(BthHeader::new, "Resv7", 8, "7f", (h, v) -> h.resv7((int)v), BthHeader::resv7,
            0xFF, "7f", 0x7F);
        assertField(BthHeader::new, "DestQP", 5, "ffffff", (h, v) -> h.destQp((int)v), BthHeader::destQp,
            0x7F12_3456L, "123456", 0x123456);
        assertField(BthHeader::new, "PSN", 9, "ffffff", (h, v) -> h.psn((int)v), BthHeader::psn,
            0xFF00_0001L, "000001", 1);
        assertField(BthHeader::new, "DestQP", 5, "ffffff", (h, v) -> h.destQp((int)v), BthHeader::destQp,
            BthHeader.MULTICAST_QPN, "ffffff");
    }

    @Test
    void wholeHeaderMatchesAHandAssembledOne()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[12]);
        final BthHeader bth = new BthHeader().wrap(buffer, 0)
            .opcode(0x0A)
            .flags(0)
            .solicitedEvent(true)
            .padCount(3)
            .pkey(0xFFFF)
            .becn(true)
            .destQp(0x000011)
            .ackReq(true)
            .psn(0x123456);
        // 0A | S=1 M=0 Pad=3 TVer=0 -> 1011 0000 = B0 | FFFF | F=0 B=1 -> 40 | 000011 | A=1 -> 80 | 123456
        assertBytes(bth, "0a b0 ff ff  40 00 00 11  80 12 34 56");
        assertEquals(12, bth.length());
    }

    @Test
    void readsTheScapyConnectX4CnpBth()
    {
        // BTH of the ConnectX-4 Lx CNP in scapy's roce.uts (protocol-facts.md B.4).
        final UnsafeBuffer buffer = bufferAt3("81 00 ff ff 40 00 01 18 00 00 00 00");
        final BthHeader bth = new BthHeader().wrap(buffer, 3);
        assertEquals(0x81, bth.opcode());
        assertFalse(bth.solicitedEvent());
        assertFalse(bth.migReq());
        assertEquals(0, bth.padCount());
        assertEquals(0, bth.transportVersion());
        assertEquals(0xFFFF, bth.pkey());
        assertFalse(bth.fecn());
        assertTrue(bth.becn());
        assertEquals(0, bth.resv6a());
        assertEquals(0x118, bth.destQp());
        assertFalse(bth.ackReq());
        assertEquals(0, bth.psn());
        assertEquals(0x81, BthHeader.opcode(buffer, 3));
        assertEquals(0x118, BthHeader.destQp(buffer, 3));
        assertEquals(0, BthHeader.psn(buffer, 3));
    }

    @Test
    void staticReadersIgnoreTheReservedBytes()
    {
        final UnsafeBuffer buffer = bufferAt3("ff ff ff ff  ff ab cd ef  ff 12 34 56");
        assertEquals(0xFF, BthHeader.opcode(buffer, 3));
        assertEquals(0xABCDEF, BthHeader.destQp(buffer, 3));
        assertEquals(0x123456, BthHeader.psn(buffer, 3));
    }
}
