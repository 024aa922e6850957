package org.roce4j.wire;

import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;
import java.util.function.Consumer;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.roce4j.wire.header.BthHeader;
import org.roce4j.wire.header.EthernetHeader;
import org.roce4j.wire.header.Ipv4Header;
import org.roce4j.wire.header.Ipv6Header;
import org.roce4j.wire.header.UdpHeader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every {@link FrameStatus} reason provoked by a crafted frame, and counted once per parse. Each crafted frame
 * starts from a valid one and breaks exactly one thing; lengths and the IPv4 checksum are fixed up where the
 * reason under test comes after them, so the frame fails for that reason and no earlier one.
 */
class FrameStatusTest
{
    private static final int ETH = EthernetHeader.LENGTH;
    private static final int IP4 = ETH;
    private static final int UDP4 = ETH + Ipv4Header.LENGTH;
    private static final int BTH4 = UDP4 + UdpHeader.LENGTH;
    private static final int UDP6 = ETH + Ipv6Header.LENGTH;

    private final RoceFrameParser parser = new RoceFrameParser();
    private final Map<FrameStatus, Integer> expectedCounts = new EnumMap<>(FrameStatus.class);
    private int parses;

    @AfterEach
    void everyParseWasCountedUnderItsStatus()
    {
        for (final FrameStatus status : FrameStatus.values())
        {
            assertEquals(expectedCounts.getOrDefault(status, 0).longValue(), parser.counters().get(status),
                status.name());
        }
        assertEquals(parses, parser.counters().total());
        assertEquals(parses - expectedCounts.getOrDefault(FrameStatus.OK, 0), parser.counters().rejected());
    }

    @Test
    void validFramesAreOk()
    {
        expect(FrameStatus.OK, frame(Opcode.RC_SEND_ONLY, 4, false, 5));
        expect(FrameStatus.OK, frame(Opcode.RC_SEND_ONLY, 6, true, 5));
        expect(FrameStatus.OK, frame(Opcode.RC_ACKNOWLEDGE, 4, true, 0));
        // Ethernet padding after the IP packet (a 58-byte frame padded to the 60-byte minimum) is ignored.
        final byte[] small = frame(Opcode.RC_SEND_ONLY, 4, false, 0);
        assertEquals(58, small.length);
        expect(FrameStatus.OK, Arrays.copyOf(small, 60));
        assertEquals(58, parser.frameLength());
        assertEquals(60, parser.capturedLength());
    }

    @Test
    void truncatedEthernet()
    {
        expect(FrameStatus.TRUNCATED_ETHERNET, new byte[0]);
        expect(FrameStatus.TRUNCATED_ETHERNET, Arrays.copyOf(frame(Opcode.RC_SEND_ONLY, 4, false, 0), 13));
        // Tagged: the TPID says 18 bytes of Ethernet header, only 17 are there.
        expect(FrameStatus.TRUNCATED_ETHERNET, Arrays.copyOf(frame(Opcode.RC_SEND_ONLY, 4, true, 0), 17));
    }

    @Test
    void notIp()
    {
        final byte[] arp = new byte[60];
        Arrays.fill(arp, 0, 6, (byte)0xFF);
        arp[12] = 0x08;
        arp[13] = 0x06;
        expect(FrameStatus.NOT_IP, arp);
        assertTrue(FrameStatus.NOT_IP.isNotRoce());
        final byte[] tagged = frame(Opcode.RC_SEND_ONLY, 4, true, 0);
        tagged[16] = (byte)0x88; // inner EtherType 0x8808 (MAC control)
        tagged[17] = 0x08;
        expect(FrameStatus.NOT_IP, tagged);
    }

    @Test
    void truncatedIp()
    {
        expect(FrameStatus.TRUNCATED_IP, Arrays.copyOf(frame(Opcode.RC_SEND_ONLY, 4, false, 0), ETH + 19));
        expect(FrameStatus.TRUNCATED_IP, Arrays.copyOf(frame(Opcode.RC_SEND_ONLY, 6, false, 0), ETH + 39));
        expect(FrameStatus.TRUNCATED_IP, Arrays.copyOf(frame(Opcode.RC_SEND_ONLY, 4, true, 0), 18 + 19));
        // IHL 15 (60 bytes) in a 40-byte IP packet.
        final byte[] ihl = Arrays.copyOf(frame(Opcode.RC_SEND_ONLY, 4, false, 0), ETH + 40);
        ihl[IP4] = 0x4F;
        expect(FrameStatus.TRUNCATED_IP, ihl);
    }

    @Test
    void badIpVersion()
    {
        final byte[] v4 = frame(Opcode.RC_SEND_ONLY, 4, false, 0);
        v4[IP4] = 0x65;
        expect(FrameStatus.BAD_IP_VERSION, v4);
        final byte[] v6 = frame(Opcode.RC_SEND_ONLY, 6, false, 0);
        v6[IP4] = 0x40;
        expect(FrameStatus.BAD_IP_VERSION, v6);
    }

    @Test
    void badIpHeaderLength()
    {
        for (int ihl = 0; ihl < 5; ihl++)
        {
            final byte[] frame = frame(Opcode.RC_SEND_ONLY, 4, false, 0);
            frame[IP4] = (byte)(0x40 | ihl);
            expect(FrameStatus.BAD_IP_HEADER_LENGTH, frame);
        }
    }

    @Test
    void ipLengthLies()
    {
        expect(FrameStatus.IP_LENGTH_MISMATCH,
            ipv4(Opcode.RC_SEND_ONLY, 8, ip -> ip.totalLength(ip.totalLength() + 1)));
        expect(FrameStatus.IP_LENGTH_MISMATCH, ipv4(Opcode.RC_SEND_ONLY, 8, ip -> ip.totalLength(19)));
        expect(FrameStatus.IP_LENGTH_MISMATCH, ipv4(Opcode.RC_SEND_ONLY, 8, ip -> ip.totalLength(0xFFFF)));
        final byte[] v6 = frame(Opcode.RC_SEND_ONLY, 6, false, 8);
        final Ipv6Header ip6 = new Ipv6Header().wrap(new UnsafeBuffer(v6), IP4);
        ip6.payloadLength(ip6.payloadLength() + 1);
        expect(FrameStatus.IP_LENGTH_MISMATCH, v6);
    }

    @Test
    void badIpChecksum()
    {
        final byte[] frame = frame(Opcode.RC_SEND_ONLY, 4, false, 0);
        frame[IP4 + Ipv4Header.CHECKSUM_OFFSET] ^= 0x01;
        expect(FrameStatus.BAD_IP_CHECKSUM, frame);
        final byte[] id = frame(Opcode.RC_SEND_ONLY, 4, false, 0);
        id[IP4 + Ipv4Header.IDENTIFICATION_OFFSET] ^= 0x40;
        expect(FrameStatus.BAD_IP_CHECKSUM, id);
    }

    @Test
    void ipFragments()
    {
        expect(FrameStatus.IP_FRAGMENT,
            ipv4(Opcode.RC_SEND_ONLY, 8, ip -> ip.flagsAndFragmentOffset(Ipv4Header.FLAG_MORE_FRAGMENTS)));
        expect(FrameStatus.IP_FRAGMENT, ipv4(Opcode.RC_SEND_ONLY, 8, ip -> ip.flagsAndFragmentOffset(1)));
        expect(FrameStatus.IP_FRAGMENT, ipv4(Opcode.RC_SEND_ONLY, 8, ip -> ip.flagsAndFragmentOffset(0x1FFF)));
        // DF alone, or the reserved flag bit, is not a fragment.
        expect(FrameStatus.OK, ipv4WithIcrc(ip -> ip.flagsAndFragmentOffset(0)));
        expect(FrameStatus.OK, ipv4WithIcrc(ip -> ip.flagsAndFragmentOffset(0x8000 | Ipv4Header.FLAG_DONT_FRAGMENT)));
    }

    @Test
    void notUdp()
    {
        expect(FrameStatus.NOT_UDP, ipv4(Opcode.RC_SEND_ONLY, 8, ip -> ip.protocol(6)));
        final byte[] v6 = frame(Opcode.RC_SEND_ONLY, 6, false, 8);
        new Ipv6Header().wrap(new UnsafeBuffer(v6), IP4).nextHeader(6);
        expect(FrameStatus.NOT_UDP, v6);
        assertTrue(FrameStatus.NOT_UDP.isNotRoce());
    }

    @Test
    void truncatedUdp()
    {
        final byte[] frame = ipv4(Opcode.RC_SEND_ONLY, 8, ip -> ip.totalLength(Ipv4Header.LENGTH + 7));
        expect(FrameStatus.TRUNCATED_UDP, frame);
        final byte[] v6 = frame(Opcode.RC_SEND_ONLY, 6, false, 8);
        new Ipv6Header().wrap(new UnsafeBuffer(v6), IP4).payloadLength(0);
        expect(FrameStatus.TRUNCATED_UDP, v6);
    }

    @Test
    void notRocePort()
    {
        final byte[] frame = frame(Opcode.RC_SEND_ONLY, 4, false, 8);
        new UdpHeader().wrap(new UnsafeBuffer(frame), UDP4).destinationPort(4790);
        expect(FrameStatus.NOT_ROCE_PORT, frame);
        assertTrue(FrameStatus.NOT_ROCE_PORT.isNotRoce());
        // The source port may be anything, 4791 included.
        final byte[] source = frame(Opcode.RC_SEND_ONLY, 4, false, 8);
        new UdpHeader().wrap(new UnsafeBuffer(source), UDP4).sourcePort(4791);
        fixIcrc(source, 4);
        expect(FrameStatus.OK, source);
    }

    @Test
    void udpLengthLies()
    {
        for (final int delta : new int[] {-1, 1, -4, 4})
        {
            final byte[] frame = frame(Opcode.RC_SEND_ONLY, 4, false, 8);
            final UdpHeader udp = new UdpHeader().wrap(new UnsafeBuffer(frame), UDP4);
            udp.datagramLength(udp.datagramLength() + delta);
            expect(FrameStatus.UDP_LENGTH_MISMATCH, frame);
        }
        final byte[] v6 = frame(Opcode.RC_SEND_ONLY, 6, false, 8);
        final UdpHeader udp6 = new UdpHeader().wrap(new UnsafeBuffer(v6), UDP6);
        udp6.datagramLength(0);
        expect(FrameStatus.UDP_LENGTH_MISMATCH, v6);
    }

    @Test
    void truncatedBth()
    {
        // UDP carries 15 bytes: less than BTH + ICRC.
        for (final int roceBytes : new int[] {0, 1, 12, 15})
        {
            expect(FrameStatus.TRUNCATED_BTH, shortened(Opcode.RC_SEND_ONLY, roceBytes));
        }
    }

    @Test
    void unknownOpcodes()
    {
        int tested = 0;
        for (int code = 0; code < 256; code++)
        {
            if (null == Opcode.of(code))
            {
                final byte[] frame = frame(Opcode.RC_SEND_ONLY, 4, false, 8);
                frame[BTH4] = (byte)code;
                expect(FrameStatus.UNKNOWN_OPCODE, frame);
                assertNull(parser.opcode());
                tested++;
            }
        }
        assertEquals(216, tested);
    }

    @Test
    void nonZeroTransportVersion()
    {
        for (int tver = 1; tver < 16; tver++)
        {
            final byte[] frame = frame(Opcode.UD_SEND_ONLY, 4, false, 8);
            new BthHeader().wrap(new UnsafeBuffer(frame), BTH4).transportVersion(tver);
            fixIcrc(frame, 4);
            expect(FrameStatus.BAD_TRANSPORT_VERSION, frame);
            assertEquals(Opcode.UD_SEND_ONLY, parser.opcode());
        }
    }

    @Test
    void truncatedExtensionHeaders()
    {
        for (final Opcode opcode : Opcode.values())
        {
            if (opcode.headerLength() > BthHeader.LENGTH)
            {
                // One byte short of BTH + extension headers + ICRC.
                expect(FrameStatus.TRUNCATED_HEADERS,
                    shortened(opcode, opcode.headerLength() + Icrc.LENGTH - 1));
                expect(FrameStatus.TRUNCATED_HEADERS, shortened(opcode, BthHeader.LENGTH + Icrc.LENGTH));
            }
        }
    }

    @Test
    void payloadOnAnOpcodeWithout()
    {
        for (final Opcode opcode : Opcode.values())
        {
            if (!opcode.hasPayload())
            {
                for (final int extra : new int[] {1, 4, 8})
                {
                    expect(FrameStatus.UNEXPECTED_PAYLOAD, lengthened(opcode, extra));
                }
            }
        }
    }

    @Test
    void padInconsistent()
    {
        // A no-payload opcode with PadCnt != 0.
        final byte[] ack = frame(Opcode.RC_ACKNOWLEDGE, 4, false, 0);
        new BthHeader().wrap(new UnsafeBuffer(ack), BTH4).padCount(1);
        expect(FrameStatus.PAD_INCONSISTENT, ack);
        // PadCnt larger than data + pad: zero-length SEND_ONLY claiming 3 pad bytes.
        final byte[] send = frame(Opcode.RC_SEND_ONLY, 4, false, 0);
        new BthHeader().wrap(new UnsafeBuffer(send), BTH4).padCount(3);
        expect(FrameStatus.PAD_INCONSISTENT, send);
        // Data plus pad not a multiple of 4: one byte more in the packet than the builder padded for.
        for (final int extra : new int[] {1, 2, 3, 5})
        {
            expect(FrameStatus.PAD_INCONSISTENT, lengthened(Opcode.RC_SEND_ONLY, extra));
        }
    }

    @Test
    void badIcrc()
    {
        final byte[] payload = frame(Opcode.RC_RDMA_WRITE_ONLY, 4, false, 33);
        payload[payload.length - 10] ^= 0x01;
        expect(FrameStatus.BAD_ICRC, payload);
        assertTrue(parser.icrcVerified());
        final byte[] trailer = frame(Opcode.RC_ACKNOWLEDGE, 6, true, 0);
        trailer[trailer.length - 1] ^= (byte)0x80;
        expect(FrameStatus.BAD_ICRC, trailer);
        // The parser verifies only when asked: the same frame is OK without ICRC verification.
        expectUnverified(FrameStatus.OK, trailer);
        assertFalse(parser.icrcVerified());
        // A router changing masked fields (TTL, TOS with the checksum fixed) does not break the ICRC.
        expect(FrameStatus.OK, ipv4(Opcode.RC_SEND_ONLY, 8, ip -> ip.ttl(1).tos(0x03)));
    }

    // ---- helpers --------------------------------------------------------------------------------------------

    private void expect(final FrameStatus status, final byte[] frame)
    {
        assertEquals(status, parser.parse(new UnsafeBuffer(frame), 0, frame.length, true));
        assertEquals(status, parser.status());
        count(status);
    }

    private void expectUnverified(final FrameStatus status, final byte[] frame)
    {
        assertEquals(status, parser.parse(new UnsafeBuffer(frame), 0, frame.length, false));
        count(status);
    }

    private void count(final FrameStatus status)
    {
        expectedCounts.merge(status, 1, Integer::sum);
        parses++;
    }

    static byte[] frame(final Opcode opcode, final int ipVersion, final boolean vlan, final int payloadLength)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[256]);
        final RoceFrameBuilder builder = new RoceFrameBuilder().wrap(buffer, 0);
        if (vlan)
        {
            builder.ethernet(0x020000000002L, 0x020000000001L, 3, 100);
        }
        else
        {
            builder.ethernet(0x020000000002L, 0x020000000001L);
        }
        if (4 == ipVersion)
        {
            builder.ipv4(0x0A4D0001, 0x0A4D0002);
        }
        else
        {
            builder.ipv6(0xFE80_0000_0000_0000L, 1, 0xFE80_0000_0000_0000L, 2);
        }
        builder.udp(0xC001).bth(opcode, 0x11, 0x123456);
        if (payloadLength > 0)
        {
            buffer.setMemory(builder.payloadOffset(), payloadLength, (byte)0xA5);
        }
        builder.payloadLength(payloadLength);
        final int length = builder.finish();
        return Arrays.copyOf(buffer.byteArray(), length);
    }

    /** An IPv4 frame whose IP header was changed, with the IP checksum (not the ICRC) recomputed. */
    private static byte[] ipv4(final Opcode opcode, final int payloadLength, final Consumer<Ipv4Header> change)
    {
        final byte[] frame = frame(opcode, 4, false, payloadLength);
        final Ipv4Header ip = new Ipv4Header().wrap(new UnsafeBuffer(frame), IP4);
        change.accept(ip);
        ip.updateChecksum();
        return frame;
    }

    /** As {@link #ipv4} on a SEND_ONLY with 8 bytes, then with the ICRC recomputed too. */
    private static byte[] ipv4WithIcrc(final Consumer<Ipv4Header> change)
    {
        final byte[] frame = ipv4(Opcode.RC_SEND_ONLY, 8, change);
        fixIcrc(frame, 4);
        return frame;
    }

    private static void fixIcrc(final byte[] frame, final int ipVersion)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(frame);
        final int icrcOffset = frame.length - Icrc.LENGTH;
        new Icrc().seal(buffer, IP4, ipVersion, 4 == ipVersion ? 20 : 40, icrcOffset);
    }

    /** An IPv4 frame of the opcode cut so that UDP carries only roceBytes, with consistent IP and UDP lengths. */
    private static byte[] shortened(final Opcode opcode, final int roceBytes)
    {
        return resized(frame(opcode, 4, false, 0), roceBytes);
    }

    /** An IPv4 frame of the opcode with extra bytes (and no pad) before the ICRC, lengths consistent. */
    private static byte[] lengthened(final Opcode opcode, final int extra)
    {
        final byte[] frame = frame(opcode, 4, false, 0);
        final byte[] longer = new byte[frame.length + extra];
        System.arraycopy(frame, 0, longer, 0, frame.length - Icrc.LENGTH);
        final byte[] resized = resized(longer, frame.length - BTH4 + extra);
        fixIcrc(resized, 4);
        return resized;
    }

    private static byte[] resized(final byte[] frame, final int roceBytes)
    {
        final byte[] result = Arrays.copyOf(frame, BTH4 + roceBytes);
        final UnsafeBuffer buffer = new UnsafeBuffer(result);
        new UdpHeader().wrap(buffer, UDP4).datagramLength(UdpHeader.LENGTH + roceBytes);
        new Ipv4Header().wrap(buffer, IP4).totalLength(Ipv4Header.LENGTH + UdpHeader.LENGTH + roceBytes)
            .updateChecksum();
        return result;
    }
}
