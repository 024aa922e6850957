package org.roce4j.wire.header;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.roce4j.wire.header.FieldAssert.assertBytes;
import static org.roce4j.wire.header.FieldAssert.assertField;
import static org.roce4j.wire.header.FieldAssert.bufferAt3;

/**
 * IPv4 fields (RFC 791), the header checksum (RFC 1071) and dotted-quad text.
 */
class Ipv4HeaderTest
{
    @Test
    void everyFieldIsAtItsBitsAndLeavesTheOthersAlone()
    {
        assertField(Ipv4Header::new, "version/IHL", 0, "ff", (h, v) -> h.versionAndHeaderLength((int)v),
            Ipv4Header::headerLengthWords, 6, "46");
        assertField(Ipv4Header::new, "version/IHL (IHL is 4 bits)", 0, "ff",
            (h, v) -> h.versionAndHeaderLength((int)v), Ipv4Header::version, 0x1F, "4f", 4);
        assertField(Ipv4Header::new, "TOS", 1, "ff", (h, v) -> h.tos((int)v), Ipv4Header::tos, 0xC2, "c2");
        assertField(Ipv4Header::new, "total length", 2, "ffff", (h, v) -> h.totalLength((int)v),
            Ipv4Header::totalLength, 0xABCD, "abcd");
        assertField(Ipv4Header::new, "identification", 4, "ffff", (h, v) -> h.identification((int)v),
            Ipv4Header::identification, 0x718C, "718c");
        assertField(Ipv4Header::new, "flags/fragment", 6, "ffff", (h, v) -> h.flagsAndFragmentOffset((int)v),
            Ipv4Header::flagsAndFragmentOffset, 0x4000, "4000");
        assertField(Ipv4Header::new, "TTL", 8, "ff", (h, v) -> h.ttl((int)v), Ipv4Header::ttl, 0x40, "40");
        assertField(Ipv4Header::new, "protocol", 9, "ff", (h, v) -> h.protocol((int)v), Ipv4Header::protocol,
            17, "11");
        assertField(Ipv4Header::new, "checksum", 10, "ffff", (h, v) -> h.checksum((int)v), Ipv4Header::checksum,
            0xB861, "b861");
        assertField(Ipv4Header::new, "source", 12, "ffffffff", (h, v) -> h.source((int)v),
            h -> h.source() & 0xFFFF_FFFFL, 0xC0A80001L, "c0a80001");
        assertField(Ipv4Header::new, "destination", 16, "ffffffff", (h, v) -> h.destination((int)v),
            h -> h.destination() & 0xFFFF_FFFFL, 0xFFFFFFFEL, "fffffffe");
    }

    @Test
    void derivedGettersReadTheirBits()
    {
        final Ipv4Header ip = new Ipv4Header().wrap(
            bufferAt3("4f b7 0000 0000 bfff 00 00 0000 00000000 00000000"), 3);
        assertEquals(4, ip.version());
        assertEquals(15, ip.headerLengthWords());
        assertEquals(60, ip.length());
        assertEquals(0x2D, ip.dscp());
        assertEquals(3, ip.ecn());
        // 0xBFFF: reserved bit 1, DF 0, MF 1, offset 0x1FFF
        assertFalse(ip.dontFragment());
        assertTrue(ip.moreFragments());
        assertEquals(0x1FFF, ip.fragmentOffset());
        final Ipv4Header df = new Ipv4Header().wrap(bufferAt3("45 00 0000 0000 4000 00 00 0000 00000000 00000000"), 3);
        assertTrue(df.dontFragment());
        assertFalse(df.moreFragments());
        assertEquals(0, df.fragmentOffset());
    }

    @Test
    void checksumOfTheRfc1071ExampleWordsWithEndAroundCarry()
    {
        // RFC 1071 section 3 sums the words 0001 f203 f4f5 f6f7 to ddf2 (with end-around carries). Placed in the
        // address fields of a header 4500 0014 0000 0000 0000 ....: 4514 + ddf2 = 12306 -> 2307 -> ~ = dcf8.
        final Ipv4Header ip = new Ipv4Header().wrap(bufferAt3("4500 0014 0000 0000 0000 0000 0001f203 f4f5f6f7"), 3);
        assertEquals(0xDCF8, ip.computeChecksum());
        ip.updateChecksum();
        assertEquals(0xDCF8, ip.checksum());
        assertTrue(ip.isChecksumValid());
        assertBytes(ip, "4500 0014 0000 0000 0000 dcf8 0001f203 f4f5f6f7");
    }

    @Test
    void checksumOfKnownHeaders()
    {
        // The classic worked example 4500 0073 0000 4000 4011 b861 c0a8 0001 c0a8 00c7.
        assertChecksum("4500 0073 0000 4000 4011 0000 c0a80001 c0a800c7", 0xB861);
        // scapy roce.uts UC example, which scapy asserts has chksum 0xb4d5.
        assertChecksum("4501 0040 0478 4000 4011 0000 c0a80007 c0a80007", 0xB4D5);
        // The ConnectX-4 Lx CNP capture in scapy roce.uts carries 9161.
        assertChecksum("45c2 003c 718c 4000 4011 0000 0a001101 0a001201", 0x9161);
    }

    @Test
    void checksumCoversOptions()
    {
        // IHL 6: the option word 01010101 (four NOPs) is summed; with IHL 5 the same bytes minus it give 26d3.
        final Ipv4Header ip = new Ipv4Header().wrap(
            bufferAt3("4600 0018 0000 4000 4011 0000 0a000001 0a000002 01010101"), 3);
        assertEquals(24, ip.length());
        assertEquals(0x23D1, ip.computeChecksum());
        ip.versionAndHeaderLength(5);
        ip.totalLength(0x18);
        assertEquals(0x26D3, ip.computeChecksum());
    }

    @Test
    void eitherZeroOfOnesComplementVerifies()
    {
        // The words of this header sum to ffff, so its checksum is 0000; RFC 1071 verification (sum everything,
        // expect ffff) also accepts ffff, the other representation of zero, as Linux ip_fast_csum does.
        final Ipv4Header ip = new Ipv4Header().wrap(bufferAt3("4500 0014 66d7 0000 4011 0000 0a000001 0a000002"), 3);
        assertEquals(0x0000, ip.computeChecksum());
        assertTrue(ip.isChecksumValid());
        ip.checksum(0xFFFF);
        assertTrue(ip.isChecksumValid(), "0xffff is a valid checksum when the sum is ffff");
        ip.checksum(0x0001);
        assertFalse(ip.isChecksumValid());
    }

    @Test
    void anyFlippedBitBreaksTheChecksum()
    {
        final UnsafeBuffer buffer = bufferAt3("4500 0073 0000 4000 4011 b861 c0a80001 c0a800c7");
        final Ipv4Header ip = new Ipv4Header().wrap(buffer, 3);
        assertTrue(ip.isChecksumValid());
        for (int bit = 0; bit < 160; bit++)
        {
            final int index = 3 + bit / 8;
            final byte mask = (byte)(0x80 >>> (bit % 8));
            if (3 == index)
            {
                continue; // the IHL nibble changes the header length itself
            }
            buffer.putByte(index, (byte)(buffer.getByte(index) ^ mask));
            assertFalse(ip.isChecksumValid(), "bit " + bit);
            buffer.putByte(index, (byte)(buffer.getByte(index) ^ mask));
        }
    }

    @Test
    void addressTextRoundTrips()
    {
        assertEquals(0x0A4D0001, Ipv4Header.parseAddress("10.77.0.1"));
        assertEquals(0xFFFFFFFF, Ipv4Header.parseAddress("255.255.255.255"));
        assertEquals(0, Ipv4Header.parseAddress(" 0.0.0.0 "));
        assertEquals("10.77.0.1", Ipv4Header.addressToString(0x0A4D0001));
        assertEquals("255.255.255.255", Ipv4Header.addressToString(0xFFFFFFFF));
        assertEquals("192.168.0.7", Ipv4Header.addressToString(0xC0A80007));
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "", "10.77.0", "10.77.0.1.2", "10.77.0.256", "10.77..1", "10.77.0.x", "1.2.3.-4", "+1.2.3.4", "-0.1.2.3",
        "10.77.0.0001", "10,77,0,1", "10.77.0.1.", "10.77.0.\u0661", "\uff11.2.3.4"})
    void badAddressTextIsRejectedNamingTheInput(final String text)
    {
        final IllegalArgumentException ex =
            assertThrows(IllegalArgumentException.class, () -> Ipv4Header.parseAddress(text));
        assertTrue(ex.getMessage().contains("'" + text + "'"), ex.getMessage());
    }

    private static void assertChecksum(final String headerWithZeroChecksum, final int expected)
    {
        final Ipv4Header ip = new Ipv4Header().wrap(bufferAt3(headerWithZeroChecksum), 3);
        assertEquals(expected, ip.computeChecksum(), headerWithZeroChecksum);
        assertFalse(ip.isChecksumValid());
        ip.updateChecksum();
        assertTrue(ip.isChecksumValid());
        // The field itself is not part of the computation: a stale value gives the same result.
        ip.checksum(0x1234);
        assertEquals(expected, ip.computeChecksum());
    }
}
