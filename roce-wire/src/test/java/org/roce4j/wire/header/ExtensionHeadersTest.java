package org.roce4j.wire.header;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.roce4j.wire.header.FieldAssert.assertBytes;
import static org.roce4j.wire.header.FieldAssert.assertField;
import static org.roce4j.wire.header.FieldAssert.bufferAt3;

/**
 * The extension transport headers (IBA 9.3; rxe_hdr.h): every field at its bytes, lengths as in ib_pack.h.
 */
class ExtensionHeadersTest
{
    @Test
    void reth()
    {
        assertField(RethHeader::new, "VA", 0, "ffffffffffffffff", (h, v) -> h.va(v), RethHeader::va,
            0x0123_4567_89AB_CDEFL, "0123456789abcdef");
        assertField(RethHeader::new, "R_Key", 8, "ffffffff", (h, v) -> h.rkey((int)v),
            h -> h.rkey() & 0xFFFF_FFFFL, 0xDEADBEEFL, "deadbeef");
        assertField(RethHeader::new, "DMA length", 12, "ffffffff", (h, v) -> h.dmaLength(v), RethHeader::dmaLength,
            0xFFFF_FFFFL, "ffffffff");
        assertField(RethHeader::new, "DMA length", 12, "ffffffff", (h, v) -> h.dmaLength(v), RethHeader::dmaLength,
            0x8000_0000L, "80000000");
        assertEquals(16, new RethHeader().length());
        final RethHeader reth = new RethHeader().wrap(bufferAt3("00007f0012345678 00001234 00001000"), 3);
        assertEquals(0x7F0012345678L, reth.va());
        assertEquals(0x1234, reth.rkey());
        assertEquals(4096, reth.dmaLength());
    }

    @Test
    void aeth()
    {
        assertField(AethHeader::new, "syndrome", 0, "ff", (h, v) -> h.syndrome((int)v), AethHeader::syndrome,
            0x61, "61");
        assertField(AethHeader::new, "MSN", 1, "ffffff", (h, v) -> h.msn((int)v), AethHeader::msn,
            0xC0FFEE, "c0ffee");
        assertField(AethHeader::new, "MSN (24 bits)", 1, "ffffff", (h, v) -> h.msn((int)v), AethHeader::msn,
            0x1FF_FFFF, "ffffff", 0xFF_FFFF);
        assertEquals(4, new AethHeader().length());
        final AethHeader aeth = new AethHeader().wrap(new UnsafeBuffer(new byte[4]), 0)
            .syndrome(AethHeader.SYNDROME_ACK_UNLIMITED).msn(7);
        assertBytes(aeth, "1f 000007");
    }

    @Test
    void atomicEth()
    {
        assertField(AtomicEthHeader::new, "VA", 0, "ffffffffffffffff", (h, v) -> h.va(v), AtomicEthHeader::va,
            0x0000_7FFF_0000_1000L, "00007fff00001000");
        assertField(AtomicEthHeader::new, "R_Key", 8, "ffffffff", (h, v) -> h.rkey((int)v),
            h -> h.rkey() & 0xFFFF_FFFFL, 0x80000001L, "80000001");
        assertField(AtomicEthHeader::new, "swap/add", 12, "ffffffffffffffff", (h, v) -> h.swapAdd(v),
            AtomicEthHeader::swapAdd, 0xFEDC_BA98_7654_3210L, "fedcba9876543210");
        assertField(AtomicEthHeader::new, "compare", 20, "ffffffffffffffff", (h, v) -> h.compare(v),
            AtomicEthHeader::compare, 0x1122_3344_5566_7788L, "1122334455667788");
        assertEquals(28, new AtomicEthHeader().length());
        final AtomicEthHeader atomic = new AtomicEthHeader().wrap(new UnsafeBuffer(new byte[28]), 0)
            .va(0x1000).rkey(0x55).swapAdd(2).compare(1);
        assertBytes(atomic, "0000000000001000 00000055 0000000000000002 0000000000000001");
    }

    @Test
    void atomicAckEth()
    {
        assertField(AtomicAckEthHeader::new, "original data", 0, "ffffffffffffffff", (h, v) -> h.originalData(v),
            AtomicAckEthHeader::originalData, 0x8000_0000_0000_0001L, "8000000000000001");
        assertEquals(8, new AtomicAckEthHeader().length());
    }

    @Test
    void deth()
    {
        assertField(DethHeader::new, "Q_Key", 0, "ffffffff", (h, v) -> h.qkey((int)v),
            h -> h.qkey() & 0xFFFF_FFFFL, DethHeader.GSI_QKEY & 0xFFFF_FFFFL, "80010000");
        assertField(DethHeader::new, "reserved", 4, "ff", (h, v) -> h.reserved((int)v), DethHeader::reserved,
            0xA5, "a5");
        assertField(DethHeader::new, "SrcQP", 5, "ffffff", (h, v) -> h.srcQp((int)v), DethHeader::srcQp,
            0x000001, "000001");
        assertField(DethHeader::new, "SrcQP (24 bits)", 5, "ffffff", (h, v) -> h.srcQp((int)v), DethHeader::srcQp,
            0xFF12_3456L, "123456", 0x123456);
        assertEquals(8, new DethHeader().length());
        final DethHeader deth = new DethHeader().wrap(bufferAt3("11111111 00 000011"), 3);
        assertEquals(0x11111111, deth.qkey());
        assertEquals(0x11, deth.srcQp());
    }

    @Test
    void immDtIethFeth()
    {
        assertField(ImmDtHeader::new, "immediate", 0, "ffffffff", (h, v) -> h.immediate((int)v),
            h -> h.immediate() & 0xFFFF_FFFFL, 0xCAFEBABEL, "cafebabe");
        assertEquals(4, new ImmDtHeader().length());
        assertField(IethHeader::new, "R_Key", 0, "ffffffff", (h, v) -> h.rkey((int)v),
            h -> h.rkey() & 0xFFFF_FFFFL, 0x00ABCDEFL, "00abcdef");
        assertEquals(4, new IethHeader().length());
        assertField(FethHeader::new, "word", 0, "ffffffff", (h, v) -> h.word((int)v),
            h -> h.word() & 0xFFFF_FFFFL, 0x0000_0031L, "00000031");
        assertEquals(4, new FethHeader().length());

        // rxe_hdr.h: placement type in bits 3..0 and selectivity level in bits 5..4 of the big-endian word.
        final FethHeader feth = new FethHeader().wrap(new UnsafeBuffer(new byte[4]), 0);
        feth.flush(1, FethHeader.PLACEMENT_PERSISTENT);
        assertBytes(feth, "00000012");
        assertEquals(1, feth.selectivityLevel());
        assertEquals(2, feth.placementType());
        feth.flush(7, 0x1F);
        assertBytes(feth, "0000003f");
        assertEquals(3, feth.selectivityLevel());
        assertEquals(0xF, feth.placementType());
        feth.word(0xFFFF_FFC1);
        assertEquals(0, feth.selectivityLevel());
        assertEquals(1, feth.placementType());
    }

    @Test
    void cnpReservedBytes()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[3 + 16 + 3]);
        buffer.setMemory(0, buffer.capacity(), (byte)0x77);
        final CnpHeader cnp = new CnpHeader().wrap(buffer, 3);
        cnp.reserved(0x0102_0304_0506_0708L, 0x1112_1314_1516_1718L);
        assertBytes(cnp, "0102030405060708 1112131415161718");
        assertEquals(0x0102_0304_0506_0708L, cnp.reservedHigh());
        assertEquals(0x1112_1314_1516_1718L, cnp.reservedLow());
        cnp.clear();
        assertBytes(cnp, "00000000000000000000000000000000");
        assertEquals(0x77, buffer.getByte(2));
        assertEquals(0x77, buffer.getByte(19));
        assertEquals(16, cnp.length());
    }
}
