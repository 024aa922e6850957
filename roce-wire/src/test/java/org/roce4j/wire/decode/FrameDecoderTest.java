package org.roce4j.wire.decode;

import java.util.Arrays;
import java.util.List;
import java.util.Random;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.roce4j.wire.FrameSeal;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RoceFrameBuilder;
import org.roce4j.wire.RoceFrameParser;
import org.roce4j.wire.Vectors;
import org.roce4j.wire.header.BthHeader;
import org.roce4j.wire.header.Ipv4Header;
import org.roce4j.wire.mad.CmAttribute;
import org.roce4j.wire.mad.CmSidrRepMessage;
import org.roce4j.wire.mad.CmSidrReqMessage;
import org.roce4j.wire.mad.CmaHeader;
import org.roce4j.wire.mad.MadHeader;
import org.roce4j.wire.mad.RdmaCmServiceId;
import org.roce4j.wire.pcap.LinkType;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The decoder's output for real rxe frames (values cross-checked with {@code tshark -V} on the same captures),
 * for frames broken on purpose, for non-RoCE frames, and its counts for every vector capture.
 */
class FrameDecoderTest
{
    private static final int USERSPACE_PEER = Ipv4Header.parseAddress("10.77.0.1");

    @Test
    void ackShowsEveryBthFieldAndTheAethSyndromeAndMsn()
    {
        final String out = verbose(Vectors.RXE_PAIR, 19);
        assertLines(out,
            "Frame 19: 62 bytes on wire, 62 bytes captured",
            "Ethernet II, Src: 52:54:00:00:00:03, Dst: 52:54:00:00:00:02",
            "    Type: IPv4 (0x0800)",
            "Internet Protocol Version 4, Src: 10.77.0.3, Dst: 10.77.0.2",
            "    Identification: 0xe3d7 (58327)",
            "    Flags: 0x2 (Don't fragment)",
            "    Time to Live: 64",
            "    Header Checksum: 0x4247 [correct]",
            "User Datagram Protocol, Src Port: 49441, Dst Port: 4791",
            "    Checksum: 0x0000 (none; RoCEv2 relies on the ICRC)",
            "Base Transport Header (BTH)",
            "    Opcode: 0x11 RC_ACKNOWLEDGE",
            "    Solicited Event: 0",
            "    MigReq: 0",
            "    Pad Count: 0",
            "    Transport Header Version: 0",
            "    Partition Key: 0xffff (default, full membership)",
            "    FECN: 0",
            "    BECN: 0",
            "    Reserved (6 bits): 0x00",
            "    Destination QP: 0x000011 (17)",
            "    Acknowledge Request: 0",
            "    Reserved (7 bits): 0x00",
            "    Packet Sequence Number: 5081692 (0x4d8a5c)",
            "ACK Extended Transport Header (AETH)",
            "    Syndrome: 0x1f ACK (credits: unlimited)",
            "        Type: 0 (ACK)",
            "        Value: 31",
            "    Message Sequence Number: 1 (0x000001)",
            "Invariant CRC: 0x95a2e927 (wire bytes 27 e9 a2 95) [correct]");
        assertFalse(out.contains("Status:"), "a good frame has no status line");
    }

    @Test
    void connectRequestShowsMadHeaderCmFieldsAndCmaHeader()
    {
        final String out = verbose(Vectors.RXE_PAIR, 50);
        assertLines(out,
            "    Opcode: 0x64 UD_SEND_ONLY",
            "    Destination QP: 0x000001 (1) GSI",
            "Datagram Extended Transport Header (DETH)",
            "    Queue Key: 0x80010000 (GSI QP1 Q_Key)",
            "    Source QP: 0x000001 (1)",
            "Payload: 256 bytes, pad 0",
            "MAD Header (Management Datagram)",
            "    Base Version: 1",
            "    Management Class: CM (0x07)",
            "    Class Version: 2",
            "    Method: Send() (0x03)",
            "    Status: 0x0000 (success)",
            "    Transaction ID: 0x000000022d6fbc0e",
            "    Attribute ID: ConnectRequest (0x0010)",
            "CM ConnectRequest (REQ)",
            "    Local Communication ID: 0x0ebc6f2d",
            "    Service ID: 0x0000000001064653 (RDMA CM TCP port 18003)",
            "    Local CA GUID: 0x505400fffe000002",
            "    Local QPN: 0x000014",
            "    Starting PSN: 0x5879c5 (5798341)",
            "    Transport Service Type: 0 (RC)",
            "    Path MTU: 3 (1024 bytes)",
            "    Primary Path",
            "        Local Port LID: 0xffff",
            "        Local Port GID: ::ffff:10.77.0.2",
            "        Remote Port GID: ::ffff:10.77.0.3",
            "        Flow Label: 0x7a173",
            "        Hop Limit: 64",
            "        Local ACK Timeout: 19 (2.15 s)",
            "    Alternate Path: none (all zero)",
            "RDMA CM Header (cma_hdr, first 36 bytes of the private data)",
            "    IP Version: 4",
            "    Source Port: 49376",
            "    Source Address: 10.77.0.2",
            "    Destination Address: 10.77.0.3",
            "Invariant CRC: 0x038c711b (wire bytes 1b 71 8c 03) [correct]");
    }

    @Test
    void rejectRepRtuDreqDrepAreNamedWithTheirKeyFields()
    {
        assertLines(verbose(Vectors.RXE_PAIR, 51),
            "    Attribute ID: ConnectReject (0x0012)",
            "CM ConnectReject (REJ)",
            "    Remote Communication ID: 0x0ebc6f2d",
            "    Reason: 8 (invalid service ID)");
        assertLines(verbose(Vectors.RXE_PAIR, 55),
            "CM ConnectReply (REP)",
            "    Local QPN: 0x000013",
            "    Starting PSN: 0x1dbb70 (1948528)",
            "    Target ACK Delay: 15 (134.22 ms)",
            "    Local CA GUID: 0x505400fffe000003");
        assertLines(verbose(Vectors.RXE_PAIR, 56), "CM ReadyToUse (RTU)", "    Local Communication ID: 0x0fbc6f2d");
        assertLines(verbose(Vectors.RXE_PAIR, 81), "CM DisconnectRequest (DREQ)", "    Remote QPN/EECN: 0x000013");
        assertLines(verbose(Vectors.RXE_PAIR, 82), "CM DisconnectReply (DREP)",
            "    Remote Communication ID: 0x0fbc6f2d");

        final String summary = summary(Vectors.RXE_PAIR, 50);
        assertTrue(summary.contains(" UD_SEND_ONLY qp=0x000001 psn=0 ackreq qkey=0x80010000 srcqp=0x000001 len=256 " +
            "CM ConnectRequest tid=0x000000022d6fbc0e lcid=0x0ebc6f2d sid=0x0000000001064653 " +
            "(RDMA CM TCP port 18003) qpn=0x000014 start_psn=0x5879c5 icrc=ok"), summary);
        assertTrue(summary(Vectors.RXE_PAIR, 51).contains("CM ConnectReject tid=0x000000022d6fbc0e " +
            "lcid=0x00000000 rcid=0x0ebc6f2d reason=8 (invalid service ID) icrc=ok"));
    }

    @Test
    void atomicsAndReadsShowTheirExtensionHeaders()
    {
        assertLines(verbose(Vectors.RXE_PAIR, 488),
            "    Opcode: 0x13 RC_COMPARE_SWAP",
            "Atomic Extended Transport Header (AtomicETH)",
            "    Virtual Address: 0x0000558b3c71c000",
            "    Remote Key: 0x000010dc",
            "    Swap Data: 0x0000000000000000",
            "    Compare Data: 0x0000000000000000");
        assertLines(verbose(Vectors.RXE_PAIR, 59),
            "    Opcode: 0x0c RC_RDMA_READ_REQUEST",
            "RDMA Extended Transport Header (RETH)",
            "    Virtual Address: 0x0000561a4758f370",
            "    Remote Key: 0x00000c09",
            "    DMA Length: 64");
        assertEquals(
            "    59           -  10.77.0.3:62467 -> 10.77.0.2 RC_RDMA_READ_REQUEST qp=0x000015 psn=12688039 ackreq " +
            "va=0x0000561a4758f370 rkey=0x00000c09 dmalen=64 icrc=ok\n", summary(Vectors.RXE_PAIR, 59));
        assertEquals(
            "    60           -  10.77.0.2:62467 -> 10.77.0.3 RC_RDMA_READ_RESPONSE_ONLY qp=0x000013 psn=12688039 " +
            "ACK credits=unlimited msn=1 len=64 icrc=ok\n", summary(Vectors.RXE_PAIR, 60));
    }

    @Test
    void nonRoceFramesGetOneLine()
    {
        assertEquals("Frame 2 (42 bytes): ARP who-has 10.77.0.3 tell 10.77.0.2\n", verbose(Vectors.RXE_PAIR, 2));
        assertEquals("Frame 3 (42 bytes): ARP 10.77.0.3 is-at 52:54:00:00:00:03\n", verbose(Vectors.RXE_PAIR, 3));
        assertEquals("Frame 4 (98 bytes): IPv4 10.77.0.2 -> 10.77.0.3 ICMP echo request\n",
            verbose(Vectors.RXE_PAIR, 4));
        assertEquals("Frame 6 (74 bytes): IPv4 10.77.0.2 -> 10.77.0.3 TCP 45164 -> 18001 [SYN]\n",
            verbose(Vectors.RXE_PAIR, 6));
        assertEquals("     6           -  IPv4 10.77.0.2 -> 10.77.0.3 TCP 45164 -> 18001 [SYN]\n",
            summary(Vectors.RXE_PAIR, 6));

        final byte[] frame = Vectors.frames(Vectors.RXE_PAIR).get(18).clone();
        // UDP destination port (Ethernet 14 + IPv4 20 + 2) moved to 4792: no longer RoCEv2.
        frame[14 + 20 + 3]++;
        final StringBuilder out = new StringBuilder();
        final FrameDecoder decoder = new FrameDecoder(out);
        assertEquals(FrameStatus.NOT_ROCE_PORT, decode(decoder, 19, frame));
        assertEquals("Frame 19 (62 bytes): IPv4 10.77.0.3 -> 10.77.0.2 UDP 49441 -> 4792, UDP port 4792 " +
            "(not RoCEv2)\n", out.toString());
        assertEquals(0, decoder.roceFrames());
    }

    @Test
    void badIcrcIsFlaggedWithTheExpectedValue()
    {
        final byte[] frame = Vectors.frames(Vectors.RXE_PAIR).get(18).clone();
        frame[frame.length - 1] ^= 0x01;
        final StringBuilder out = new StringBuilder();
        final FrameDecoder decoder = new FrameDecoder(out);
        assertEquals(FrameStatus.BAD_ICRC, decode(decoder, 19, frame));
        assertLines(out.toString(),
            "    Syndrome: 0x1f ACK (credits: unlimited)",
            "Invariant CRC: 0x94a2e927 (wire bytes 27 e9 a2 94) [incorrect, should be 0x95a2e927]",
            "Status: BAD_ICRC (bad ICRC)");
        assertEquals("summary: frames=1 roce=1 icrc_ok=0 icrc_bad=1", decoder.summaryLine());
    }

    @Test
    void brokenFramesPrintWhatParsedAndTheReason()
    {
        final byte[] ack = Vectors.frames(Vectors.RXE_PAIR).get(18);
        final int bth = 14 + 20 + 8;

        final byte[] badChecksum = ack.clone();
        badChecksum[14 + 10] ^= 0x10;
        String out = decodeOne(badChecksum);
        assertLines(out, "    Header Checksum: 0x5247 [incorrect, should be 0x4247]",
            "Status: BAD_IP_CHECKSUM (bad IPv4 header checksum)");
        assertFalse(out.contains("Base Transport Header"), "parsing stopped at IP");

        final byte[] tver = ack.clone();
        tver[bth + 1] = 0x01;
        out = decodeOne(tver);
        assertLines(out, "    Transport Header Version: 1",
            "Status: BAD_TRANSPORT_VERSION (BTH transport version is not 0)");
        assertTrue(out.contains("Invariant CRC: 0x95a2e927 (wire bytes 27 e9 a2 95) [incorrect, should be "),
            "the ICRC covers the changed byte, so it no longer matches");

        final byte[] unknown = ack.clone();
        unknown[bth] = 0x15;
        out = decodeOne(unknown);
        assertLines(out, "    Opcode: 0x15 unknown opcode", "Status: UNKNOWN_OPCODE (unknown opcode)");

        final byte[] truncated = truncateRoce(ack, 2);
        out = decodeOne(truncated);
        assertTrue(out.contains("Extension headers: truncated (RC_ACKNOWLEDGE needs 4 bytes after the BTH, " +
            "the packet has 2)"), out);
        assertLines(out, "Status: TRUNCATED_HEADERS (truncated extension headers)");

        final StringBuilder sb = new StringBuilder();
        final FrameDecoder decoder = new FrameDecoder(sb);
        decode(decoder, 1, Arrays.copyOf(ack, 10));
        assertEquals("Frame 1 (10 bytes): truncated Ethernet frame (10 bytes)\n", sb.toString());
        decode(decoder, 2, Arrays.copyOf(ack, 30));
        assertLines(sb.toString(), "Status: TRUNCATED_IP (truncated IP header)");
        assertEquals("summary: frames=2 roce=0 icrc_ok=0 icrc_bad=0", decoder.summaryLine());
    }

    @ParameterizedTest
    @CsvSource({
        Vectors.RXE_PAIR + ",518,222",
        Vectors.RXE_VS_PEER + ",6,4",
        Vectors.RPING_REQ + ",10,3",
        Vectors.NEGATIVE_IPID + ",916,881"})
    void countsOfEveryVectorCapture(final String capture, final long frames, final long roce)
    {
        final List<byte[]> records = Vectors.frames(capture);
        long fromPeer = 0;
        final RoceFrameParser parser = new RoceFrameParser();
        for (final byte[] frame : records)
        {
            if (FrameDecoder.reachedBth(parser.parse(new UnsafeBuffer(frame), 0, frame.length)) &&
                USERSPACE_PEER == parser.ipv4().source() && !Vectors.RXE_VS_PEER.equals(capture))
            {
                fromPeer++;
            }
        }
        for (final boolean summary : new boolean[]{false, true})
        {
            final StringBuilder out = new StringBuilder();
            final FrameDecoder decoder = new FrameDecoder(out).summary(summary);
            long number = 0;
            for (final byte[] frame : records)
            {
                decode(decoder, ++number, frame);
            }
            assertEquals(frames, decoder.frames());
            assertEquals(roce, decoder.roceFrames());
            assertEquals(fromPeer, decoder.icrcBad(), "only the NEGATIVE peer's frames fail the ICRC");
            assertEquals(roce - fromPeer, decoder.icrcOk());
            assertEquals("summary: frames=" + frames + " roce=" + roce + " icrc_ok=" + (roce - fromPeer) +
                " icrc_bad=" + fromPeer, decoder.summaryLine());
            final long frameLines = out.toString().lines()
                .filter(line -> summary ? line.matches("^ *\\d+ .*") : line.startsWith("Frame ")).count();
            assertEquals(frames, frameLines, "one frame line per record");
        }
        if (Vectors.NEGATIVE_IPID.equals(capture))
        {
            assertEquals(441, fromPeer);
        }
    }

    @Test
    void vlanAndIpv6FramesAndHexDump()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[256]);
        final RoceFrameBuilder builder = new RoceFrameBuilder();
        final int length = builder.wrap(buffer, 0)
            .ethernet(0x0200_0000_0002L, 0x0200_0000_0001L, 3, 100)
            .ipv6(0xfe80_0000_0000_0000L, 1, 0xfe80_0000_0000_0000L, 2)
            .udp(0xC123)
            .bth(Opcode.RC_SEND_ONLY_WITH_IMMEDIATE, 0x12, 7)
            .payload(new UnsafeBuffer("hello".getBytes(java.nio.charset.StandardCharsets.US_ASCII)), 0, 5)
            .finish();
        final StringBuilder out = new StringBuilder();
        final FrameDecoder decoder = new FrameDecoder(out).hexDump(true);
        assertEquals(FrameStatus.OK, decoder.decode(1, FrameDecoder.NO_TIMESTAMP, buffer, 0, length, length));
        assertLines(out.toString(),
            "    802.1Q Tag: PCP 3, DEI 0, VID 100 (TPID 0x8100, TCI 0x6064)",
            "    Type: IPv6 (0x86dd)",
            "Internet Protocol Version 6, Src: fe80::1, Dst: fe80::2",
            "    Flow Label: 0x00000",
            "    Next Header: UDP (17)",
            "    Opcode: 0x05 RC_SEND_ONLY_WITH_IMMEDIATE",
            "Immediate Data (ImmDt)",
            "Payload: 5 bytes, pad 3",
            "    Data: 68 65 6c 6c 6f  \"hello\"",
            "0000  02 00 00 00 00 02 02 00  00 00 00 01 81 00 60 64   ..............`d");
        assertTrue(out.toString().contains("[correct]"));

        final StringBuilder line = new StringBuilder();
        new FrameDecoder(line).summary(true).decode(1, FrameDecoder.NO_TIMESTAMP, buffer, 0, length, length);
        assertEquals("     1           -  [vlan 100] [fe80::1]:49443 -> [fe80::2] " +
            "RC_SEND_ONLY_WITH_IMMEDIATE qp=0x000012 psn=7 imm=0x00000000 len=5 icrc=ok\n", line.toString());
    }

    @Test
    void otherLinkTypesAreReportedAndCounted()
    {
        final StringBuilder out = new StringBuilder();
        final FrameDecoder decoder = new FrameDecoder(out);
        decoder.unsupportedLinkType(7, FrameDecoder.NO_TIMESTAMP, LinkType.LINUX_SLL, 60);
        decoder.printSummaryLine();
        assertEquals("Frame 7 (60 bytes): link type 113 (Linux cooked capture, tcpdump -i any) not decoded " +
            "(only Ethernet, link type 1, is)\nsummary: frames=1 roce=0 icrc_ok=0 icrc_bad=0\n", out.toString());
    }

    @Test
    void mutatedFramesNeverThrow()
    {
        final long seed = 0x5EED_DEC0DEL;
        final Random random = new Random(seed);
        final List<byte[]> frames = Vectors.frames(Vectors.RXE_PAIR);
        final FrameDecoder verbose = new FrameDecoder(new StringBuilder());
        final StringBuilder summaryOut = new StringBuilder();
        final FrameDecoder summary = new FrameDecoder(summaryOut).summary(true).hexDump(true);
        final int rounds = 20_000;
        for (int i = 0; i < rounds; i++)
        {
            final byte[] original = frames.get(random.nextInt(frames.size()));
            final byte[] frame = Arrays.copyOf(original, random.nextInt(original.length + 1));
            final int flips = random.nextInt(4);
            for (int f = 0; f < flips && frame.length > 0; f++)
            {
                frame[random.nextInt(frame.length)] = (byte)random.nextInt(256);
            }
            try
            {
                decode(verbose, i + 1, frame);
                decode(summary, i + 1, frame);
            }
            catch (final RuntimeException ex)
            {
                fail("seed " + Long.toHexString(seed) + " round " + i + " frame " + hex(frame) + ": " + ex, ex);
            }
            if (summaryOut.length() > 1 << 20)
            {
                summaryOut.setLength(0);
            }
        }
        assertEquals(rounds, verbose.frames());
        assertEquals(verbose.roceFrames(), verbose.icrcOk() + verbose.icrcBad());
        assertTrue(verbose.icrcBad() > 0 && verbose.icrcOk() > 0, "mutations hit both verdicts");
    }

    private static String hex(final byte[] bytes)
    {
        final StringBuilder sb = new StringBuilder();
        for (final byte b : bytes)
        {
            sb.append(String.format("%02x", b));
        }
        return sb.toString();
    }

    /** Cut {@code cut} bytes off the end of a RoCE frame and fix the IP and UDP lengths and IP checksum. */
    private static byte[] truncateRoce(final byte[] frame, final int cut)
    {
        final byte[] shorter = Arrays.copyOf(frame, frame.length - cut);
        final UnsafeBuffer buffer = new UnsafeBuffer(shorter);
        final Ipv4Header ip = new Ipv4Header().wrap(buffer, 14);
        ip.totalLength(ip.totalLength() - cut).updateChecksum();
        final int udpLength = 14 + 20 + 4;
        buffer.putShort(udpLength, (short)(buffer.getShort(udpLength, java.nio.ByteOrder.BIG_ENDIAN) - cut),
            java.nio.ByteOrder.BIG_ENDIAN);
        assertEquals(0, new BthHeader().wrap(buffer, 42).transportVersion());
        return shorter;
    }

    @Test
    void sidrReqAndRepShowTheirFieldsAndTheCmaHeader()
    {
        // rxe's REQ (frame 50) turned into a SIDR_REQ and then a SIDR_REP, resealed: same MAD header and transport.
        final byte[] req = Vectors.frames(Vectors.RXE_PAIR).get(49).clone();
        final RoceFrameParser parser = new RoceFrameParser();
        assertEquals(FrameStatus.OK, parser.parse(new UnsafeBuffer(req), 0, req.length));
        final int madOffset = parser.payloadOffset();
        final UnsafeBuffer buffer = new UnsafeBuffer(req);
        new MadHeader().wrap(buffer, madOffset).attributeId(CmAttribute.SERVICE_ID_RES_REQ.id());
        final CmSidrReqMessage sidrReq = new CmSidrReqMessage().wrapMad(buffer, madOffset).clear();
        sidrReq.requestId(0x0ebc6f2d).pkey(0xFFFF).serviceId(RdmaCmServiceId.serviceId(RdmaCmServiceId.PS_UDP, 7174));
        new CmaHeader().wrap(buffer, sidrReq.privateDataBufferOffset())
            .ipv4(0xd40f, Ipv4Header.parseAddress("10.77.0.2"), Ipv4Header.parseAddress("10.77.0.3"));
        FrameSeal.reseal(req);
        assertLines(decodeOne(req),
            "CM ServiceIDResReq (SIDR_REQ)",
            "    Request ID: 0x0ebc6f2d",
            "    Partition Key: 0xffff",
            "    Service ID: 0x0000000001111c06 (RDMA CM UDP port 7174)",
            "RDMA CM Header (cma_hdr, first 36 bytes of the private data)");
        assertTrue(summary(req, 1).contains("CM ServiceIDResReq tid=0x000000022d6fbc0e rid=0x0ebc6f2d " +
            "sid=0x0000000001111c06 (RDMA CM UDP port 7174) icrc=ok"), summary(req, 1));

        new MadHeader().wrap(buffer, madOffset).attributeId(CmAttribute.SERVICE_ID_RES_REQ_RESP.id());
        new CmSidrRepMessage().wrapMad(buffer, madOffset).clear().requestId(0x0ebc6f2d)
            .status(CmSidrRepMessage.STATUS_SUCCESS).qpn(0x13).serviceId(0x01111c06L).qkey(0x0123_4567);
        FrameSeal.reseal(req);
        assertLines(decodeOne(req),
            "CM ServiceIDResReqResp (SIDR_REP)",
            "    Status: 0 (IB_SIDR_SUCCESS)",
            "    QPN: 0x000013",
            "    Q_Key: 0x01234567");
        assertTrue(summary(req, 1).contains("CM ServiceIDResReqResp tid=0x000000022d6fbc0e rid=0x0ebc6f2d status=0 " +
            "(IB_SIDR_SUCCESS) qpn=0x000013 qkey=0x01234567 icrc=ok"), summary(req, 1));
    }

    private static String summary(final byte[] frame, final long number)
    {
        final StringBuilder out = new StringBuilder();
        decode(new FrameDecoder(out).summary(true), number, frame);
        return out.toString();
    }

    private static FrameStatus decode(final FrameDecoder decoder, final long number, final byte[] frame)
    {
        return decoder.decode(number, FrameDecoder.NO_TIMESTAMP, new UnsafeBuffer(frame), 0, frame.length,
            frame.length);
    }

    private static String decodeOne(final byte[] frame)
    {
        final StringBuilder out = new StringBuilder();
        decode(new FrameDecoder(out), 1, frame);
        return out.toString();
    }

    private static String verbose(final String capture, final int frameNumber)
    {
        final StringBuilder out = new StringBuilder();
        decode(new FrameDecoder(out), frameNumber, Vectors.frames(capture).get(frameNumber - 1));
        return out.toString();
    }

    private static String summary(final String capture, final int frameNumber)
    {
        return summary(Vectors.frames(capture).get(frameNumber - 1), frameNumber);
    }

    private static void assertLines(final String output, final String... lines)
    {
        final List<String> actual = output.lines().toList();
        for (final String line : lines)
        {
            if (!actual.contains(line) && actual.stream().noneMatch(a -> a.startsWith(line)))
            {
                fail("missing line '" + line + "' in:\n" + output);
            }
        }
    }
}
