package org.roce4j.wire.header;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.roce4j.wire.addr.Mac;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.roce4j.wire.header.FieldAssert.assertBytes;
import static org.roce4j.wire.header.FieldAssert.assertField;
import static org.roce4j.wire.header.FieldAssert.bufferAt3;

/**
 * Ethernet II and 802.1Q fields, and MAC address text.
 */
class EthernetHeaderTest
{
    @Test
    void everyFieldIsAtItsBitsAndLeavesTheOthersAlone()
    {
        assertField(EthernetHeader::new, "destination", 0, "ffffffffffff", (h, v) -> h.destination(v),
            EthernetHeader::destination, 0x0A1B2C3D4E5FL, "0a1b2c3d4e5f");
        assertField(EthernetHeader::new, "source", 6, "ffffffffffff", (h, v) -> h.source(v),
            EthernetHeader::source, 0xF0E1D2C3B4A5L, "f0e1d2c3b4a5");
        assertField(EthernetHeader::new, "source (only 48 bits)", 6, "ffffffffffff", (h, v) -> h.source(v),
            EthernetHeader::source, 0xABCD_0000_0000_0001L, "000000000001", 1);
        assertField(EthernetHeader::new, "EtherType", 12, "ffff", (h, v) -> h.etherType((int)v),
            EthernetHeader::outerType, EthernetHeader.ETHERTYPE_IPV6, "86dd");
    }

    @Test
    void vlanTagIsTpidTciAndInnerType()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[18]);
        final EthernetHeader eth = new EthernetHeader().wrap(buffer, 0)
            .destination(0x020000000001L)
            .source(0x020000000002L)
            .vlanTag(5, true, 0xABC, EthernetHeader.ETHERTYPE_IPV4);
        // TCI = PCP 5 (101) | DEI 1 | VID 0xABC -> 1011 1010 1011 1100 = BABC
        assertBytes(eth, "02 00 00 00 00 01  02 00 00 00 00 02  81 00  ba bc  08 00");
        assertTrue(eth.hasVlanTag());
        assertEquals(18, eth.length());
        assertEquals(EthernetHeader.TPID_8021Q, eth.outerType());
        assertEquals(EthernetHeader.ETHERTYPE_IPV4, eth.etherType());
        assertEquals(5, eth.priority());
        assertTrue(eth.dropEligible());
        assertEquals(0xABC, eth.vlanId());
        assertEquals(0xBABC, eth.tci());
    }

    @Test
    void vlanTagMasksOversizedPriorityAndVlanId()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[18]);
        final EthernetHeader eth = new EthernetHeader().wrap(buffer, 0).vlanTag(0xF, false, 0xFFFF, 0x86DD);
        assertEquals(7, eth.priority());
        assertFalse(eth.dropEligible(), "an oversized VID must not set DEI");
        assertEquals(0xFFF, eth.vlanId());
        assertEquals(0x86DD, eth.etherType());
    }

    @Test
    void untaggedHeaderIs14BytesAndTypeAtOffset12()
    {
        final UnsafeBuffer buffer = bufferAt3("ff ff ff ff ff ff  52 54 00 12 34 56  08 06");
        final EthernetHeader eth = new EthernetHeader().wrap(buffer, 3);
        assertFalse(eth.hasVlanTag());
        assertEquals(14, eth.length());
        assertEquals(EthernetHeader.ETHERTYPE_ARP, eth.etherType());
        assertEquals(Mac.BROADCAST, eth.destination());
        assertEquals(0x525400123456L, eth.source());
    }

    @Test
    void macTextRoundTrips()
    {
        assertEquals(0x0242AC110002L, Mac.parse("02:42:ac:11:00:02"));
        assertEquals(0x0242AC110002L, Mac.parse("02-42-AC-11-00-02"));
        assertEquals(0x0242AC110002L, Mac.parse(" 2:42:ac:11:0:2 "));
        assertEquals("02:42:ac:11:00:02", Mac.toString(0x0242AC110002L));
        assertEquals("ff:ff:ff:ff:ff:ff", Mac.toString(Mac.BROADCAST));
        assertEquals("00:00:00:00:00:00", Mac.toString(0));
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "", "02:42:ac:11:00", "02:42:ac:11:00:02:03", "02:42:ac:11:00:zz", "02:42:ac:11:00:123", "02::ac:11:00:02",
        "+2:42:ac:11:00:02", "02:42:ac:11:00:-2", "0x2:42:ac:11:00:02", "02.42.ac.11.00.02", "02:42:ac:11:00:\u0661"})
    void badMacTextIsRejectedNamingTheInput(final String text)
    {
        final IllegalArgumentException ex =
            assertThrows(IllegalArgumentException.class, () -> Mac.parse(text));
        assertTrue(ex.getMessage().contains("'" + text + "'"), ex.getMessage());
    }
}
