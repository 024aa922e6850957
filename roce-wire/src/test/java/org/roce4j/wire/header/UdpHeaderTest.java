package org.roce4j.wire.header;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.roce4j.wire.header.FieldAssert.assertBytes;
import static org.roce4j.wire.header.FieldAssert.assertField;

/**
 * UDP fields (RFC 768).
 */
class UdpHeaderTest
{
    @Test
    void everyFieldIsAtItsBitsAndLeavesTheOthersAlone()
    {
        assertField(UdpHeader::new, "source port", 0, "ffff", (h, v) -> h.sourcePort((int)v), UdpHeader::sourcePort,
            0xC123, "c123");
        assertField(UdpHeader::new, "destination port", 2, "ffff", (h, v) -> h.destinationPort((int)v),
            UdpHeader::destinationPort, 4791, "12b7");
        assertField(UdpHeader::new, "length", 4, "ffff", (h, v) -> h.datagramLength((int)v),
            UdpHeader::datagramLength, 0xFFF0, "fff0");
        assertField(UdpHeader::new, "checksum", 6, "ffff", (h, v) -> h.checksum((int)v), UdpHeader::checksum,
            0xACA2, "aca2");
        assertField(UdpHeader::new, "length (16 bits)", 4, "ffff", (h, v) -> h.datagramLength((int)v),
            UdpHeader::datagramLength, 0x1_0028, "0028", 0x28);
    }

    @Test
    void wholeHeaderMatchesScapysUcExample()
    {
        final UdpHeader udp = new UdpHeader().wrap(new UnsafeBuffer(new byte[8]), 0)
            .sourcePort(49152).destinationPort(UdpHeader.ROCE_V2_PORT).datagramLength(44).checksum(0xACA2);
        assertBytes(udp, "c000 12b7 002c aca2");
        assertEquals(8, udp.length());
    }
}
