package org.roce4j.wire;

import java.util.Arrays;
import java.util.Random;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.roce4j.wire.header.BthHeader;
import org.roce4j.wire.header.EthernetHeader;
import org.roce4j.wire.header.Ipv4Header;
import org.roce4j.wire.header.UdpHeader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The builder writes the Ethernet, IPv4, UDP and BTH headers as whole words: every field must still read back as
 * given, into a buffer whose old bytes are all ones (so a byte the word stores miss shows), and the frame must parse.
 */
class BuilderHeaderWordsTest
{
    private static final int ITERATIONS = 200;

    @Test
    void everyHeaderFieldReadsBackOverStaleBytes()
    {
        final long seed = System.nanoTime();
        final Random random = new Random(seed);
        final byte[] bytes = new byte[256];
        final UnsafeBuffer buffer = new UnsafeBuffer(bytes);
        final RoceFrameBuilder builder = new RoceFrameBuilder();
        final RoceFrameParser parser = new RoceFrameParser();
        for (int i = 0; i < ITERATIONS; i++)
        {
            Arrays.fill(bytes, (byte)0xFF);
            final long destinationMac = random.nextLong() & 0xFFFF_FFFF_FFFFL;
            final long sourceMac = random.nextLong() & 0xFFFF_FFFF_FFFFL;
            final int sourceIp = random.nextInt();
            final int destinationIp = random.nextInt();
            final int tos = random.nextInt(256);
            final int ttl = 1 + random.nextInt(255);
            final int port = random.nextInt(65_536);
            final int destQp = random.nextInt(1 << 24);
            final int psn = random.nextInt(1 << 24);
            final int payload = random.nextInt(64);
            final String where = "seed " + seed + ", iteration " + i;

            builder.wrap(buffer, 0).ethernet(destinationMac, sourceMac).ipv4(sourceIp, destinationIp, tos, ttl)
                .udp(port).bth(Opcode.RC_SEND_ONLY, destQp, psn);
            for (int b = 0; b < payload; b++)
            {
                buffer.putByte(builder.payloadOffset() + b, (byte)b);
            }
            final int length = builder.payloadLength(payload).finish();

            final EthernetHeader ethernet = new EthernetHeader().wrap(buffer, 0);
            assertEquals(destinationMac, ethernet.destination(), where);
            assertEquals(sourceMac, ethernet.source(), where);
            assertEquals(EthernetHeader.ETHERTYPE_IPV4, ethernet.etherType(), where);

            final Ipv4Header ip = new Ipv4Header().wrap(buffer, EthernetHeader.LENGTH);
            assertEquals(4, ip.version(), where);
            assertEquals(5, ip.headerLengthWords(), where);
            assertEquals(tos, ip.tos(), where);
            assertEquals(length - EthernetHeader.LENGTH, ip.totalLength(), where);
            assertEquals(0, ip.identification(), where);
            assertEquals(Ipv4Header.FLAG_DONT_FRAGMENT, ip.flagsAndFragmentOffset(), where);
            assertEquals(ttl, ip.ttl(), where);
            assertEquals(Ipv4Header.PROTOCOL_UDP, ip.protocol(), where);
            assertEquals(sourceIp, ip.source(), where);
            assertEquals(destinationIp, ip.destination(), where);
            assertTrue(ip.isChecksumValid(), where);

            final UdpHeader udp = new UdpHeader().wrap(buffer, EthernetHeader.LENGTH + Ipv4Header.LENGTH);
            assertEquals(port, udp.sourcePort(), where);
            assertEquals(UdpHeader.ROCE_V2_PORT, udp.destinationPort(), where);
            assertEquals(length - EthernetHeader.LENGTH - Ipv4Header.LENGTH, udp.datagramLength(), where);
            assertEquals(0, udp.checksum(), where);

            final BthHeader bth = new BthHeader().wrap(buffer, builder.bthOffset());
            assertEquals(Opcode.RC_SEND_ONLY.code(), bth.opcode(), where);
            assertEquals((-payload) & 3, bth.padCount(), where);
            assertEquals(0, bth.flags() & ~0x30, where);
            assertEquals(BthHeader.DEFAULT_PKEY, bth.pkey(), where);
            assertEquals(destQp, bth.destQp(), where);
            assertEquals(0, bth.resv6a(), where);
            assertEquals(psn, bth.psn(), where);
            assertEquals(FrameStatus.OK, parser.parse(buffer, 0, length), where);
        }
    }
}
