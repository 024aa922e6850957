package org.roce4j.wire.header;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.roce4j.wire.header.FieldAssert.assertBytes;
import static org.roce4j.wire.header.FieldAssert.assertField;

/**
 * IPv6 fixed-header fields (RFC 8200) and RFC 5952 address text.
 */
class Ipv6HeaderTest
{
    @Test
    void everyFieldIsAtItsBitsAndLeavesTheOthersAlone()
    {
        // version 6 | traffic class AB | flow label CDEF1 -> 6abcdef1
        assertField(Ipv6Header::new, "version/class/flow", 0, "ffffffff",
            (h, v) -> h.versionClassFlow((int)(v >>> 20), (int)v & 0xFFFFF), h -> (long)h.trafficClass() << 20 |
            h.flowLabel(), 0xABCDEF1L, "6abcdef1");
        assertField(Ipv6Header::new, "payload length", 4, "ffff", (h, v) -> h.payloadLength((int)v),
            Ipv6Header::payloadLength, 0xFEDC, "fedc");
        assertField(Ipv6Header::new, "next header", 6, "ff", (h, v) -> h.nextHeader((int)v),
            Ipv6Header::nextHeader, 17, "11");
        assertField(Ipv6Header::new, "hop limit", 7, "ff", (h, v) -> h.hopLimit((int)v), Ipv6Header::hopLimit,
            0xFE, "fe");
        // The address setters write all 16 bytes; the getters read their own half.
        assertField(Ipv6Header::new, "source", 8, "ff".repeat(16), (h, v) -> h.source(v, ~v),
            Ipv6Header::sourceHigh, 0xFE80_0000_0000_0000L, "fe80000000000000" + "017fffffffffffff");
        assertField(Ipv6Header::new, "source", 8, "ff".repeat(16), (h, v) -> h.source(~v, v),
            Ipv6Header::sourceLow, 0x5054_00FF_FE12_3456L, "afabff0001edcba9" + "505400fffe123456");
        assertField(Ipv6Header::new, "destination", 24, "ff".repeat(16), (h, v) -> h.destination(v, ~v),
            Ipv6Header::destinationHigh, 0x2001_0DB8_0000_0001L, "20010db800000001" + "dffef247fffffffe");
        assertField(Ipv6Header::new, "destination", 24, "ff".repeat(16), (h, v) -> h.destination(~v, v),
            Ipv6Header::destinationLow, -2L, "0000000000000001" + "fffffffffffffffe");
    }

    @Test
    void versionClassFlowMasksOversizedValues()
    {
        final Ipv6Header ip = new Ipv6Header().wrap(new UnsafeBuffer(new byte[40]), 0);
        ip.versionClassFlow(0x1AB, 0xFFCDEF1);
        assertEquals(6, ip.version());
        assertEquals(0xAB, ip.trafficClass());
        assertEquals(0xCDEF1, ip.flowLabel());
        ip.versionClassFlow(0xFF, 0xFFFFF);
        assertEquals(6, ip.version());
        assertEquals(0xFF, ip.trafficClass());
        assertEquals(0xFFFFF, ip.flowLabel());
        assertEquals(40, ip.length());
    }

    @Test
    void wholeHeaderMatchesAHandAssembledOne()
    {
        final Ipv6Header ip = new Ipv6Header().wrap(new UnsafeBuffer(new byte[40]), 0)
            .versionClassFlow(0x02, 0)
            .payloadLength(0x28)
            .nextHeader(17)
            .hopLimit(64)
            .source(0xFE80_0000_0000_0000L, 0x0000_0000_0000_0001L)
            .destination(0x0000_0000_0000_0000L, 0x0000_FFFF_0A4D_0001L);
        assertBytes(ip, "6020 0000  0028 11 40  fe80 0000 0000 0000 0000 0000 0000 0001" +
            "  0000 0000 0000 0000 0000 ffff 0a4d 0001");
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        // RFC 5952 4.1: leading zeros suppressed; 4.2.1: the longest run compressed with '::'.
        "2001:0db8:0000:0000:0000:0000:0000:0001, 2001:db8::1",
        "2001:0db8:0000:0000:0000:0000:0002:0001, 2001:db8::2:1",
        // 4.2.2: a single 16-bit 0 field is not shortened.
        "2001:0db8:0000:0001:0001:0001:0001:0001, 2001:db8:0:1:1:1:1:1",
        // 4.2.3: the longest run wins; on a tie the first run.
        "2001:0000:0000:0001:0000:0000:0000:0001, 2001:0:0:1::1",
        "2001:0db8:0000:0000:0001:0000:0000:0001, 2001:db8::1:0:0:1",
        // 4.3: lower case.
        "2001:0DB8:0000:0000:0000:0000:AAAA:BBBB, 2001:db8::aaaa:bbbb",
        "0000:0000:0000:0000:0000:0000:0000:0000, ::",
        "0000:0000:0000:0000:0000:0000:0000:0001, ::1",
        "0001:0000:0000:0000:0000:0000:0000:0000, 1::",
        "fe80:0000:0000:0000:5054:00ff:fe12:3456, fe80::5054:ff:fe12:3456",
        "0001:0000:0001:0000:0001:0000:0001:0000, 1:0:1:0:1:0:1:0",
        "2001:0db8:0001:0002:0003:0004:0005:0006, 2001:db8:1:2:3:4:5:6",
        "0000:0001:0000:0000:0001:0000:0000:0000, 0:1:0:0:1::",
        "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff, ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
    })
    void addressTextFollowsRfc5952(final String full, final String expected)
    {
        final String[] groups = full.split(":");
        long high = 0;
        long low = 0;
        for (int i = 0; i < 4; i++)
        {
            high = high << 16 | Integer.parseInt(groups[i], 16);
            low = low << 16 | Integer.parseInt(groups[4 + i], 16);
        }
        assertEquals(expected, Ipv6Header.addressToString(high, low));
    }
}
