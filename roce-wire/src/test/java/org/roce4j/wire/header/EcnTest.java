package org.roce4j.wire.header;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RoceFrameBuilder;
import org.roce4j.wire.RoceFrameParser;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link Ecn}: every codepoint reads back from the IPv4 TOS byte and the IPv6 traffic class; marking CE keeps the
 * rest of the byte, fixes the IPv4 checksum and leaves the ICRC valid (IBA A17.3.3 masks both fields).
 */
class EcnTest
{
    private static final int IP = EthernetHeader.LENGTH;

    @Test
    void everyCodepointReadsBackAndMarkingSetsCeKeepingDscpAndTheIcrc()
    {
        final Ipv4Header ipv4 = new Ipv4Header();
        final RoceFrameParser parser = new RoceFrameParser();
        for (final int ipVersion : new int[] {4, 6})
        {
            for (int ecn = 0; ecn < 4; ecn++)
            {
                final int trafficClass = (46 << 2) | ecn;
                final UnsafeBuffer buffer = frame(ipVersion, trafficClass);
                final String what = "IPv" + ipVersion + " ECN " + ecn;
                assertEquals(ecn, Ecn.read(buffer, IP, ipVersion), what);

                assertTrue(Ecn.markCe(buffer, IP, ipVersion, ipv4), what);

                assertEquals(Ecn.CE, Ecn.read(buffer, IP, ipVersion), what);
                assertEquals(FrameStatus.OK, parser.parse(buffer, 0, buffer.capacity()), what);
                final int after = 4 == ipVersion ? parser.ipv4().tos() : parser.ipv6().trafficClass();
                assertEquals((46 << 2) | Ecn.CE, after, what);
                if (4 == ipVersion)
                {
                    assertTrue(parser.ipv4().isChecksumValid(), what);
                }
            }
        }
    }

    @Test
    void otherIpVersionsHaveNoEcnBitsAndAreNotMarked()
    {
        final UnsafeBuffer buffer = frame(4, Ecn.CE);
        final byte[] before = buffer.byteArray().clone();

        assertEquals(Ecn.NOT_ECT, Ecn.read(buffer, IP, 0));
        assertFalse(Ecn.markCe(buffer, IP, 0, new Ipv4Header()));

        assertArrayEquals(before, buffer.byteArray());
    }

    private static UnsafeBuffer frame(final int ipVersion, final int trafficClass)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[128]);
        final RoceFrameBuilder builder = new RoceFrameBuilder().wrap(buffer, 0)
            .ethernet(0x020000000002L, 0x020000000001L);
        if (4 == ipVersion)
        {
            builder.ipv4(0x0A4D0001, 0x0A4D0002, trafficClass, RoceFrameBuilder.DEFAULT_TTL);
        }
        else
        {
            builder.ipv6(0xFE80_0000_0000_0000L, 1, 0xFE80_0000_0000_0000L, 2);
            // The builder writes traffic class 0; set it before the ICRC is computed (it is masked anyway).
            new Ipv6Header().wrap(buffer, IP).versionClassFlow(trafficClass, 0);
        }
        builder.udp(0xC001).bth(Opcode.RC_SEND_ONLY, 0x11, 0x123456).payloadLength(0);
        final int length = builder.finish();
        return new UnsafeBuffer(buffer.byteArray(), 0, length);
    }
}
