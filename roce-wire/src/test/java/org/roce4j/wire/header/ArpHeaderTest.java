package org.roce4j.wire.header;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.roce4j.wire.header.FieldAssert.assertBytes;
import static org.roce4j.wire.header.FieldAssert.assertField;

/**
 * ARP for IPv4 over Ethernet (RFC 826), which the pcap and tunnel links answer and send.
 */
class ArpHeaderTest
{
    @Test
    void everyFieldIsAtItsBitsAndLeavesTheOthersAlone()
    {
        assertField(ArpHeader::new, "sender MAC", ArpHeader.SENDER_MAC_OFFSET, "ffffffffffff",
            (h, v) -> h.senderMac(v), ArpHeader::senderMac, 0x0002_C0A8_4D01L, "0002c0a84d01");
        assertField(ArpHeader::new, "sender IP", ArpHeader.SENDER_IP_OFFSET, "ffffffff",
            (h, v) -> h.senderIp((int)v), h -> h.senderIp() & 0xFFFF_FFFFL, 0xC0A8_4D01L, "c0a84d01");
        assertField(ArpHeader::new, "target MAC", ArpHeader.TARGET_MAC_OFFSET, "ffffffffffff",
            (h, v) -> h.targetMac(v), ArpHeader::targetMac, 0xFEED_FACE_CAFEL, "feedfacecafe");
        assertField(ArpHeader::new, "target IP", ArpHeader.TARGET_IP_OFFSET, "ffffffff",
            (h, v) -> h.targetIp((int)v), h -> h.targetIp() & 0xFFFF_FFFFL, 0x0A4D_0002L, "0a4d0002");
    }

    @Test
    void wholeRequestMatchesWhatTheKernelSends()
    {
        // Who has 10.77.0.2? Tell 10.77.0.1 (as tcpdump -xx shows a Linux request: target MAC zero).
        final ArpHeader arp = new ArpHeader().wrap(new UnsafeBuffer(new byte[ArpHeader.LENGTH]), 0)
            .ethernetIpv4(ArpHeader.OPERATION_REQUEST).senderMac(0x5254_0012_3456L).senderIp(0x0A4D_0001)
            .targetMac(0).targetIp(0x0A4D_0002);
        assertBytes(arp, "0001 0800 06 04 0001 525400123456 0a4d0001 000000000000 0a4d0002");
        assertEquals(28, arp.length());
        assertTrue(arp.isEthernetIpv4());
        assertEquals(ArpHeader.OPERATION_REQUEST, arp.operation());
    }

    @Test
    void otherHardwareOrProtocolIsNotEthernetIpv4()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[ArpHeader.LENGTH]);
        final ArpHeader arp = new ArpHeader().wrap(buffer, 0).ethernetIpv4(ArpHeader.OPERATION_REPLY);
        assertTrue(arp.isEthernetIpv4());
        buffer.putByte(ArpHeader.PROTOCOL_LENGTH_OFFSET, (byte)16);
        assertFalse(arp.isEthernetIpv4(), "IPv6-length protocol addresses");
        arp.ethernetIpv4(ArpHeader.OPERATION_REPLY);
        buffer.putByte(ArpHeader.HARDWARE_TYPE_OFFSET + 1, (byte)6);
        assertFalse(arp.isEthernetIpv4(), "IEEE 802 hardware type 6");
    }
}
