package org.roce4j.wire;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.roce4j.wire.header.Ipv4Header;
import org.roce4j.wire.header.Ipv6Header;
import org.roce4j.wire.test.Hex;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.roce4j.wire.Opcode.CNP_NOTIFICATION;
import static org.roce4j.wire.Opcode.RC_SEND_ONLY;
import static org.roce4j.wire.Opcode.UC_SEND_ONLY;

/**
 * The ICRC against the verified vectors of protocol-facts.md A.9, rebuilt byte by byte with the builder, an IPv6
 * vector from the independent Python implementation, and the masking rules bit by bit.
 */
class IcrcTest
{
    /** ConnectX-4 Lx CNP, captured; from scapy test/contrib/roce.uts (protocol-facts.md A.9 vector 1). */
    private static final String CONNECTX4_CNP =
        "e41d2dab2bc2 7cfe90643b32 0800" +
        "45c2 003c 718c 4000 4011 9161 0a001101 0a001201" +
        "0000 12b7 0028 0000" +
        "81 00 ffff 40 000118 00 000000" +
        "0000000000000000 0000000000000000" +
        "82fd002a";

    /**
     * scapy roce.uts UC SEND_ONLY example (vector 2): MigReq 1, PadCnt 2 (flags 0x60), DestQP 211 (0xd3), PSN
     * 13571856 (0xcf1710), 18 payload bytes and 2 pad bytes; scapy computed IP checksum b4d5 and UDP checksum aca2.
     */
    private static final String SCAPY_UC =
        "248a07a8fa22 248a07a8fa22 0800" +
        "4501 0040 0478 4000 4011 b4d5 c0a80007 c0a80007" +
        "c000 12b7 002c aca2" +
        "24 60 ffff 00 0000d3 00 cf1710" +
        "4630818be28935d90e9a955054 01be885e50 0000" +
        "78f353f3";

    /**
     * IPv6 RC SEND_ONLY, traffic class 0x02, flow label 0x12345, 2001:db8::1 -> 2001:db8::2, UDP 0xc0de -> 4791,
     * AckReq, DestQP 0x11, PSN 0x100, payload "roce4j" + 2 pad. Its ICRC 5ecb3619 was computed by the zlib
     * implementation in src/test/python/icrc_oracle.py, written from the A.9 masking rules and validated against
     * scapy and the rxe captures (IcrcOracleTest repeats that on every run).
     */
    private static final String IPV6_SEND =
        "020000000002 020000000001 86dd" +
        "60212345 0020 11 40 20010db8000000000000000000000001 20010db8000000000000000000000002" +
        "c0de 12b7 0020 0000" +
        "04 20 ffff 00 000011 80 000100" +
        "726f6365346a 0000" +
        "5ecb3619";

    @Test
    void connectX4CnpCaptureVerifiesAndIsRebuiltByteForByte()
    {
        final byte[] wire = Hex.bytes(CONNECTX4_CNP);
        assertParsesWithIcrc(wire, CNP_NOTIFICATION, 0x2A00FD82);

        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[128]);
        final RoceFrameBuilder builder = new RoceFrameBuilder().wrap(buffer, 0)
            .ethernet(0xE41D2DAB2BC2L, 0x7CFE90643B32L)
            .ipv4(Ipv4Header.parseAddress("10.0.17.1"), Ipv4Header.parseAddress("10.0.18.1"))
            .udp(0);
        builder.ipv4Header().tos(0xC2).identification(0x718C);
        builder.bth(CNP_NOTIFICATION, 0x118, 0);
        builder.bthHeader().becn(true);
        final int length = builder.finish();
        assertFrame(wire, buffer, length);
    }

    @Test
    void scapyUcExampleVerifiesAndIsRebuiltByteForByte()
    {
        final byte[] wire = Hex.bytes(SCAPY_UC);
        assertParsesWithIcrc(wire, UC_SEND_ONLY, 0xF353F378);

        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[128]);
        final RoceFrameBuilder builder = new RoceFrameBuilder().wrap(buffer, 0)
            .ethernet(0x248A07A8FA22L, 0x248A07A8FA22L)
            .ipv4(Ipv4Header.parseAddress("192.168.0.7"), Ipv4Header.parseAddress("192.168.0.7"))
            .udp(49152);
        builder.ipv4Header().tos(0x01).identification(1144);
        builder.udpHeader().checksum(0xACA2);
        builder.bth(UC_SEND_ONLY, 211, 13571856);
        builder.bthHeader().migReq(true);
        final byte[] payload = Hex.bytes("4630818be28935d90e9a955054 01be885e50");
        builder.payload(new UnsafeBuffer(payload), 0, payload.length);
        final int length = builder.finish();
        assertFrame(wire, buffer, length);
    }

    @Test
    void ipv6FrameMatchesTheIndependentComputation()
    {
        final byte[] wire = Hex.bytes(IPV6_SEND);
        assertParsesWithIcrc(wire, RC_SEND_ONLY, 0x1936CB5E);

        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[128]);
        final RoceFrameBuilder builder = new RoceFrameBuilder().wrap(buffer, 0)
            .ethernet(0x020000000002L, 0x020000000001L)
            .ipv6(0x20010DB800000000L, 1L, 0x20010DB800000000L, 2L)
            .udp(0xC0DE);
        builder.ipv6Header().versionClassFlow(0x02, 0x12345);
        builder.bth(RC_SEND_ONLY, 0x11, 0x100);
        builder.bthHeader().ackReq(true);
        final byte[] payload = "roce4j".getBytes(StandardCharsets.US_ASCII);
        builder.payload(new UnsafeBuffer(payload), 0, payload.length);
        assertFrame(wire, buffer, builder.finish());
    }

    @Test
    void exactlyTheMaskedIpv4BitsAreLeftOut()
    {
        // protocol-facts.md A.9: IPv4 TOS (byte 1), TTL (8), checksum (10-11); UDP checksum; BTH byte 4.
        assertMaskedBits(Hex.bytes(SCAPY_UC), 14, new int[] {1, 8, 10, 11, 20 + 6, 20 + 7, 20 + 8 + 4});
    }

    @Test
    void exactlyTheMaskedIpv6BitsAreLeftOut()
    {
        // IPv6 traffic class and flow label (the low 28 bits of word 0), hop limit (byte 7); UDP checksum; BTH
        // byte 4. The version nibble is covered.
        final byte[] frame = Hex.bytes(IPV6_SEND);
        final int ip = 14;
        final Icrc icrc = new Icrc();
        final int icrcOffset = frame.length - 4;
        final int original = icrc.compute(new UnsafeBuffer(frame), ip, 6, 40, icrcOffset);
        for (int bit = 0; bit < (icrcOffset - ip) * 8; bit++)
        {
            final int index = ip + bit / 8;
            final int mask = 0x80 >>> (bit % 8);
            final int inIp = index - ip;
            final boolean masked = (0 == inIp && mask <= 0x08) || 1 == inIp || 2 == inIp || 3 == inIp ||
                Ipv6Header.HOP_LIMIT_OFFSET == inIp || 40 + 6 == inIp || 40 + 7 == inIp || 40 + 8 + 4 == inIp;
            frame[index] ^= (byte)mask;
            final int flipped = icrc.compute(new UnsafeBuffer(frame), ip, 6, 40, icrcOffset);
            frame[index] ^= (byte)mask;
            if (masked)
            {
                assertEquals(original, flipped, "byte " + inIp + " mask " + mask + " must be masked");
            }
            else
            {
                assertNotEquals(original, flipped, "byte " + inIp + " mask " + mask + " must be covered");
            }
        }
    }

    @Test
    void sameResultOverEveryKindOfBuffer()
    {
        final byte[] wire = Hex.bytes(SCAPY_UC);
        final int expected = 0xF353F378;
        final Icrc icrc = new Icrc();
        final int icrcOffset = wire.length - 4;

        assertEquals(expected, icrc.compute(new UnsafeBuffer(wire), 14, 4, 20, icrcOffset), "byte[]");

        final byte[] shifted = new byte[wire.length + 5];
        System.arraycopy(wire, 0, shifted, 5, wire.length);
        assertEquals(expected, icrc.compute(new UnsafeBuffer(shifted, 5, wire.length), 14, 4, 20, icrcOffset),
            "byte[] with wrap adjustment");

        final ByteBuffer direct = ByteBuffer.allocateDirect(wire.length + 3);
        direct.position(3);
        direct.put(wire);
        assertEquals(expected, icrc.compute(new UnsafeBuffer(direct, 3, wire.length), 14, 4, 20, icrcOffset),
            "direct ByteBuffer");
        assertEquals(expected, icrc.compute(new UnsafeBuffer(direct, 3, wire.length), 14, 4, 20, icrcOffset),
            "direct ByteBuffer again (cached view)");

        final ByteBuffer heap = ByteBuffer.wrap(shifted);
        assertEquals(expected, icrc.compute(new UnsafeBuffer(heap, 5, wire.length), 14, 4, 20, icrcOffset),
            "heap ByteBuffer");

        final long address = BufferUtil.address(direct) + 3;
        assertEquals(expected, icrc.compute(new UnsafeBuffer(address, wire.length), 14, 4, 20, icrcOffset),
            "raw address");
    }

    @Test
    void inPlaceComputationEqualsTheCopyingOneAndLeavesEveryByte()
    {
        final long seed = 0x1C2C_4A11L;
        final java.util.Random random = new java.util.Random(seed);
        final Icrc icrc = new Icrc();
        for (final String vector : new String[] {CONNECTX4_CNP, SCAPY_UC, IPV6_SEND})
        {
            final byte[] wire = Hex.bytes(vector);
            final boolean v6 = IPV6_SEND.equals(vector);
            final int ipHeaderLength = v6 ? Ipv6Header.LENGTH : Ipv4Header.LENGTH;
            final int icrcOffset = wire.length - 4;
            for (int round = 0; round < 200; round++)
            {
                // Random values everywhere after the fixed IP version/IHL byte, masked fields included.
                final byte[] frame = wire.clone();
                for (int i = 15; i < icrcOffset; i++)
                {
                    frame[i] = (byte)random.nextInt(256);
                }
                frame[14] = (byte)((wire[14] & 0xF0) | (v6 ? random.nextInt(16) : 5));
                final byte[] before = frame.clone();
                final int copying = icrc.compute(new UnsafeBuffer(frame), 14, v6 ? 6 : 4, ipHeaderLength, icrcOffset);
                final ByteBuffer direct = ByteBuffer.allocateDirect(frame.length);
                direct.put(0, frame);
                final UnsafeBuffer directBuffer = new UnsafeBuffer(direct);
                final int inPlace = icrc.computeInPlace(new UnsafeBuffer(frame), 14, v6 ? 6 : 4, ipHeaderLength,
                    icrcOffset);
                assertEquals(copying, inPlace, "seed " + seed + " round " + round);
                assertEquals(copying, icrc.computeInPlace(directBuffer, 14, v6 ? 6 : 4, ipHeaderLength, icrcOffset),
                    "direct buffer, seed " + seed + " round " + round);
                assertEquals(Hex.of(before), Hex.of(frame), "heap bytes restored, seed " + seed);
                final byte[] after = new byte[frame.length];
                directBuffer.getBytes(0, after);
                assertEquals(Hex.of(before), Hex.of(after), "direct bytes restored, seed " + seed);
            }
        }
    }

    @Test
    void icrcIsWrittenLittleEndian()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[4]);
        Icrc.write(buffer, 0, 0x55FFED6F);
        assertEquals("6fedff55", Hex.of(buffer.byteArray()));
        assertEquals(0x55FFED6F, Icrc.read(buffer, 0));
    }

    private static void assertMaskedBits(final byte[] frame, final int ip, final int[] maskedBytes)
    {
        final Icrc icrc = new Icrc();
        final int icrcOffset = frame.length - 4;
        final int original = icrc.compute(new UnsafeBuffer(frame), ip, 4, 20, icrcOffset);
        for (int bit = 0; bit < (icrcOffset - ip) * 8; bit++)
        {
            final int index = ip + bit / 8;
            if (ip == index)
            {
                continue; // the IHL nibble moves the headers themselves
            }
            final int mask = 0x80 >>> (bit % 8);
            boolean masked = false;
            for (final int m : maskedBytes)
            {
                masked |= m == index - ip;
            }
            frame[index] ^= (byte)mask;
            final int flipped = icrc.compute(new UnsafeBuffer(frame), ip, 4, 20, icrcOffset);
            frame[index] ^= (byte)mask;
            if (masked)
            {
                assertEquals(original, flipped, "byte " + (index - ip) + " must be masked");
            }
            else
            {
                assertNotEquals(original, flipped, "byte " + (index - ip) + " mask " + mask + " must be covered");
            }
        }
    }

    private static void assertParsesWithIcrc(final byte[] wire, final Opcode opcode, final int icrc)
    {
        final RoceFrameParser parser = new RoceFrameParser();
        assertEquals(FrameStatus.OK, parser.parse(new UnsafeBuffer(wire), 0, wire.length));
        assertEquals(opcode, parser.opcode());
        assertEquals(icrc, parser.computedIcrc());
        assertEquals(icrc, parser.carriedIcrc());
        assertEquals(wire.length, parser.frameLength());
    }

    private static void assertFrame(final byte[] expected, final UnsafeBuffer buffer, final int length)
    {
        final byte[] actual = new byte[length];
        buffer.getBytes(0, actual);
        assertEquals(Hex.of(expected), Hex.of(actual));
    }
}
