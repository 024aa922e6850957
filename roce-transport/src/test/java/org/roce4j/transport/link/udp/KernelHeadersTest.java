package org.roce4j.transport.link.udp;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.Icrc;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RoceFrameBuilder;
import org.roce4j.wire.RoceFrameParser;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.header.EthernetHeader;
import org.roce4j.wire.header.Ipv4Header;
import org.roce4j.wire.header.UdpHeader;

import static java.nio.ByteOrder.BIG_ENDIAN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class KernelHeadersTest
{
    private static final int BOUND_IP = Ipv4Header.parseAddress("10.1.2.3");
    private static final int PEER_IP = Ipv4Header.parseAddress("10.1.2.4");
    private static final int OFFSET = 24;

    private final UnsafeBuffer buffer = new UnsafeBuffer(new byte[9000]);
    private final RoceFrameBuilder builder = new RoceFrameBuilder();
    private final KernelHeaders headers = new KernelHeaders(Gid.ofIpv4(BOUND_IP), UdpHeader.ROCE_V2_PORT);

    private int buildFrame(final int sourceIp, final int sourcePort, final int identification)
    {
        builder.wrap(buffer, OFFSET).ethernet(0x02_00_00_00_00_01L, 0x02_00_00_00_00_02L)
            .ipv4(sourceIp, PEER_IP).udp(sourcePort).bth(Opcode.RC_SEND_ONLY, 0x12, 0x345);
        builder.ipv4Header().identification(identification).flagsAndFragmentOffset(0).tos(0x8A).ttl(3);
        for (int i = 0; i < 33; i++)
        {
            buffer.putByte(builder.payloadOffset() + i, (byte)i);
        }
        return builder.payloadLength(33).finish();
    }

    private static int ipOffset()
    {
        return OFFSET + EthernetHeader.LENGTH;
    }

    @Test
    void rewritesToWhatTheKernelSendsAndFixesTheIcrc()
    {
        final int length = buildFrame(Ipv4Header.parseAddress("192.168.9.9"), 0xC123, 0x4242);
        final int icrcOffset = OFFSET + length - Icrc.LENGTH;
        final int before = Icrc.read(buffer, icrcOffset);

        assertEquals(KernelHeaders.OK, headers.prepareOutgoing(buffer, OFFSET, length));
        assertTrue(headers.icrcRecomputed());

        final Ipv4Header ipv4 = new Ipv4Header().wrap(buffer, ipOffset());
        assertEquals(BOUND_IP, ipv4.source(), "source address");
        assertEquals(0, ipv4.identification(), "identification");
        assertEquals(Ipv4Header.FLAG_DONT_FRAGMENT, ipv4.flagsAndFragmentOffset(), "DF, no fragment offset");
        final UdpHeader udp = new UdpHeader().wrap(buffer, ipOffset() + Ipv4Header.LENGTH);
        assertEquals(UdpHeader.ROCE_V2_PORT, udp.sourcePort(), "source port");
        assertNotEquals(before, Icrc.read(buffer, icrcOffset), "ICRC changed with the covered fields");

        // What the peer sees: the kernel's own header (other TOS, TTL and checksums are masked by the ICRC).
        ipv4.tos(0).ttl(64).updateChecksum();
        udp.checksum(0x1234);
        final RoceFrameParser parser = new RoceFrameParser();
        assertEquals(FrameStatus.OK, parser.parse(buffer, OFFSET, length, true));

        assertEquals(ipOffset() + Ipv4Header.LENGTH + UdpHeader.LENGTH, headers.payloadOffset());
        assertEquals(length - EthernetHeader.LENGTH - Ipv4Header.LENGTH - UdpHeader.LENGTH, headers.payloadLength());
        assertEquals(PEER_IP, headers.destinationIpv4());
        assertEquals(UdpHeader.ROCE_V2_PORT, headers.destinationPort());
    }

    @Test
    void keepsADeliberatelyCorruptedIcrcCorrupted()
    {
        final int length = buildFrame(Ipv4Header.parseAddress("192.168.9.9"), 0xC123, 7);
        final int icrcOffset = OFFSET + length - Icrc.LENGTH;
        final int corruption = 0x0100_0001;
        Icrc.write(buffer, icrcOffset, Icrc.read(buffer, icrcOffset) ^ corruption);

        assertEquals(KernelHeaders.OK, headers.prepareOutgoing(buffer, OFFSET, length));
        final int correct = new Icrc().compute(buffer, ipOffset(), 4, Ipv4Header.LENGTH, icrcOffset);
        assertEquals(corruption, Icrc.read(buffer, icrcOffset) ^ correct, "the same error after the rewrite");
    }

    @Test
    void icrcUpdateMatchesAFullRecomputationForRandomFrames()
    {
        final long seed = Long.getLong("roce4j.seed", 0x1C2C_DE17AL);
        final java.util.Random random = new java.util.Random(seed);
        final Icrc icrc = new Icrc();
        for (int i = 0; i < 2_000; i++)
        {
            final int payload = 0 == i % 4 ? random.nextInt(8_900) : random.nextInt(300);
            builder.wrap(buffer, OFFSET).ethernet(0L, 0L).ipv4(random.nextInt(), PEER_IP)
                .udp(random.nextInt(0x10000)).bth(Opcode.RC_RDMA_WRITE_ONLY, 0x12, random.nextInt(0x100_0000));
            builder.reth().va(random.nextLong()).rkey(random.nextInt()).dmaLength(payload);
            builder.ipv4Header().identification(random.nextInt(0x10000))
                .flagsAndFragmentOffset(random.nextInt(0x10000)).tos(random.nextInt(0x100)).ttl(random.nextInt(0x100));
            for (int k = 0; k < payload; k += 97)
            {
                buffer.putByte(builder.payloadOffset() + k, (byte)random.nextInt());
            }
            final int length = builder.payloadLength(payload).finish();
            final int icrcOffset = OFFSET + length - Icrc.LENGTH;

            assertEquals(KernelHeaders.OK, headers.prepareOutgoing(buffer, OFFSET, length), "seed " + seed);
            assertEquals(icrc.compute(buffer, ipOffset(), 4, Ipv4Header.LENGTH, icrcOffset),
                Icrc.read(buffer, icrcOffset), "frame " + i + " of " + length + " bytes, seed " + seed +
                " (-Droce4j.seed=" + seed + " reruns it)");
        }
    }

    @Test
    void leavesAFrameAlreadyAsTheKernelSendsIt()
    {
        final int length = buildFrame(BOUND_IP, UdpHeader.ROCE_V2_PORT, 0);
        new Ipv4Header().wrap(buffer, ipOffset()).flagsAndFragmentOffset(Ipv4Header.FLAG_DONT_FRAGMENT);
        final int icrcOffset = OFFSET + length - Icrc.LENGTH;
        new Icrc().seal(buffer, ipOffset(), 4, Ipv4Header.LENGTH, icrcOffset);
        final int before = Icrc.read(buffer, icrcOffset);

        assertEquals(KernelHeaders.OK, headers.prepareOutgoing(buffer, OFFSET, length));
        assertFalse(headers.icrcRecomputed(), "nothing to rewrite");
        assertEquals(before, Icrc.read(buffer, icrcOffset));
    }

    @Test
    void refusesWhatAKernelSocketCannotSend()
    {
        final int length = buildFrame(BOUND_IP, 0xC000, 0);
        buffer.putShort(OFFSET + EthernetHeader.TYPE_OFFSET, (short)EthernetHeader.ETHERTYPE_IPV6,
            BIG_ENDIAN);
        assertEquals(KernelHeaders.WRONG_FAMILY, headers.prepareOutgoing(buffer, OFFSET, length));

        buildFrame(BOUND_IP, 0xC000, 0);
        buffer.putByte(ipOffset(), (byte)0x46);
        assertEquals(KernelHeaders.UNSENDABLE_IP_HEADER, headers.prepareOutgoing(buffer, OFFSET, length));

        buildFrame(BOUND_IP, 0xC000, 0);
        assertEquals(KernelHeaders.BAD_LENGTH, headers.prepareOutgoing(buffer, OFFSET, length - 10),
            "IP total length beyond the frame");
        assertEquals(KernelHeaders.BAD_LENGTH, headers.prepareOutgoing(buffer, OFFSET, 40), "runt");
    }

    @Test
    void writesASyntheticHeaderTheParserAccepts()
    {
        final int payload = 12 + 4 + 4; // BTH, AETH, ICRC
        final int peerPort = 0xC0DE;
        headers.writeIncomingHeaders(buffer, OFFSET, 0L, PEER_IP, peerPort, BOUND_IP, payload);
        final int bth = OFFSET + KernelHeaders.INCOMING_HEADER_LENGTH;
        buffer.setMemory(bth, payload, (byte)0);
        buffer.putByte(bth, (byte)Opcode.RC_ACKNOWLEDGE.code());
        final RoceFrameParser parser = new RoceFrameParser();
        assertEquals(FrameStatus.OK, parser.parse(buffer, OFFSET, KernelHeaders.INCOMING_HEADER_LENGTH + payload,
            false));
        assertEquals(PEER_IP, parser.ipv4().source());
        assertEquals(BOUND_IP, parser.ipv4().destination());
        assertEquals(peerPort, parser.udp().sourcePort());
        assertEquals(UdpHeader.ROCE_V2_PORT, parser.udp().destinationPort());
        assertEquals(0, parser.ipv4().identification());
        assertTrue(parser.ipv4().dontFragment());
        assertFalse(parser.icrcVerified(), "the ICRC is not checked on this path");
    }
}
