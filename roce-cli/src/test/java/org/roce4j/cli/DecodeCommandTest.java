package org.roce4j.cli;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.roce4j.wire.RoceFrameParser;
import org.roce4j.wire.Vectors;
import org.roce4j.wire.decode.FrameDecoder;
import org.roce4j.wire.header.Ipv4Header;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code roce decode} run in process: the summary-line contract for every vector capture in every output style,
 * pcapng input, and clear failures for files that cannot be decoded.
 */
class DecodeCommandTest
{
    /** The summary line of a file nothing could be read from. */
    private static final String NOTHING_READ = "summary: frames=0 roce=0 icrc_ok=0 icrc_bad=0";

    private static final int USERSPACE_PEER = Ipv4Header.parseAddress("10.77.0.1");

    @TempDir
    Path temp;

    @ParameterizedTest
    @CsvSource({
        Vectors.RXE_PAIR + ",518,222,222,0",
        Vectors.RXE_VS_PEER + ",6,4,4,0",
        Vectors.RPING_REQ + ",10,3,3,0",
        Vectors.NEGATIVE_IPID + ",916,881,440,441"})
    void lastLineIsTheSummaryForEveryVectorInEveryStyle(
        final String capture, final int frames, final int roce, final int icrcOk, final int icrcBad)
    {
        final Path file = Cli.copyResource("/vectors/" + capture, temp);
        final String expected = "summary: frames=" + frames + " roce=" + roce + " icrc_ok=" + icrcOk +
            " icrc_bad=" + icrcBad;
        for (final String[] style : List.of(new String[0], new String[]{"--summary"}, new String[]{"--hex"},
            new String[]{"--summary", "--hex"}))
        {
            final String[] args = new String[style.length + 2];
            args[0] = "decode";
            args[1] = file.toString();
            System.arraycopy(style, 0, args, 2, style.length);
            final Cli.Result result = Cli.run(args);
            assertEquals(0, result.exitCode(), Arrays.toString(args) + ": " + result.err());
            assertEquals("", result.err());
            assertEquals(expected, result.lastOutLine(), Arrays.toString(args));
            assertEquals(1, result.outLines().stream().filter(line -> line.startsWith("summary:")).count());
        }
    }

    @Test
    void negativeCaptureFailsExactlyTheFramesOfTheUserspacePeer()
    {
        long fromPeer = 0;
        final RoceFrameParser parser = new RoceFrameParser();
        for (final byte[] frame : Vectors.frames(Vectors.NEGATIVE_IPID))
        {
            if (FrameDecoder.reachedBth(parser.parse(new UnsafeBuffer(frame), 0, frame.length)) &&
                USERSPACE_PEER == parser.ipv4().source())
            {
                fromPeer++;
            }
        }
        final Cli.Result result = Cli.run("decode", "--summary",
            Cli.copyResource("/vectors/" + Vectors.NEGATIVE_IPID, temp).toString());
        assertTrue(result.lastOutLine().endsWith(" icrc_bad=" + fromPeer), result.lastOutLine());
        final long badLines = result.outLines().stream().filter(line -> line.contains(" icrc=BAD(")).count();
        final long peerBadLines = result.outLines().stream()
            .filter(line -> line.contains(" 10.77.0.1:") && line.contains(" icrc=BAD(")).count();
        assertEquals(fromPeer, badLines);
        assertEquals(fromPeer, peerBadLines, "every bad ICRC comes from 10.77.0.1");
    }

    @Test
    void pcapngInputDecodesExactlyLikeThePcapItWasConvertedFrom()
    {
        // Made with: editcap -F pcapng rxe-pair-ibverbs-perftest-rping.pcap rxe-pair-ibverbs-perftest-rping.pcapng
        final Path pcapng = Cli.copyResource("/pcapng/rxe-pair-ibverbs-perftest-rping.pcapng", temp);
        final Path pcap = Cli.copyResource("/vectors/" + Vectors.RXE_PAIR, temp);
        final Cli.Result fromPcapng = Cli.run("decode", pcapng.toString());
        final Cli.Result fromPcap = Cli.run("decode", pcap.toString());
        assertEquals(0, fromPcapng.exitCode(), fromPcapng.err());
        assertEquals("summary: frames=518 roce=222 icrc_ok=222 icrc_bad=0", fromPcapng.lastOutLine());
        assertEquals(fromPcap.out(), fromPcapng.out(), "same frames, same timestamps, same text");
    }

    @Test
    void verboseOutputHasTheKeyLinesOfRealFrames()
    {
        final Cli.Result result = Cli.run("decode", Cli.copyResource("/vectors/" + Vectors.RXE_PAIR, temp).toString());
        final List<String> lines = result.outLines();
        for (final String expected : List.of(
            "Frame 19: 62 bytes on wire, 62 bytes captured, 2026-11-21 10:17:42.144437000 UTC (+0.730311 s)",
            "    Syndrome: 0x1f ACK (credits: unlimited)",
            "    Attribute ID: ConnectRequest (0x0010)",
            "    Service ID: 0x0000000001064653 (RDMA CM TCP port 18003)",
            "    Reason: 8 (invalid service ID)",
            "Frame 2 (42 bytes, +0.532405 s): ARP who-has 10.77.0.3 tell 10.77.0.2"))
        {
            assertTrue(lines.contains(expected), "missing: " + expected);
        }
    }

    @Test
    void missingFileFailsWithAMessage()
    {
        final Cli.Result result = Cli.run("decode", temp.resolve("nonexistent.pcap").toString());
        assertEquals(DecodeCommand.EXIT_UNREADABLE, result.exitCode());
        assertEquals(NOTHING_READ + "\n", result.out(), "the summary line ends the output even then");
        assertEquals("roce decode: " + temp.resolve("nonexistent.pcap") + ": no such file", result.err().strip());
    }

    @Test
    void garbageEmptyAndDirectoryFailWithAMessage() throws IOException
    {
        final Path garbage = temp.resolve("garbage.pcap");
        Files.writeString(garbage, "this is not a capture file, just some text\n");
        Cli.Result result = Cli.run("decode", garbage.toString());
        assertEquals(DecodeCommand.EXIT_UNREADABLE, result.exitCode());
        assertEquals(NOTHING_READ + "\n", result.out());
        assertEquals("roce decode: " + garbage + ": not a pcap or pcapng file (magic 0x74686973)",
            result.err().strip());

        final Path empty = Files.createFile(temp.resolve("empty.pcap"));
        result = Cli.run("decode", empty.toString());
        assertEquals(DecodeCommand.EXIT_UNREADABLE, result.exitCode());
        assertEquals(NOTHING_READ + "\n", result.out());
        assertEquals("roce decode: " + empty + ": file ends inside file header", result.err().strip());

        result = Cli.run("decode", temp.toString());
        assertEquals(DecodeCommand.EXIT_UNREADABLE, result.exitCode());
        assertEquals(NOTHING_READ + "\n", result.out());
        assertTrue(result.err().startsWith("roce decode: " + temp + ": cannot read:"), result.err());
    }

    @Test
    void captureCutShortStillEndsWithTheSummaryOfWhatWasRead() throws IOException
    {
        final Path pcap = Cli.copyResource("/vectors/" + Vectors.RXE_VS_PEER, temp);
        final byte[] bytes = Files.readAllBytes(pcap);
        final Path cut = temp.resolve("cut.pcap");
        Files.write(cut, Arrays.copyOf(bytes, bytes.length - 10));
        final Cli.Result result = Cli.run("decode", "--summary", cut.toString());
        assertEquals(DecodeCommand.EXIT_UNREADABLE, result.exitCode());
        // The capture's last record (rxe's ACK) is the one cut short: 5 records remain, 3 of them RoCEv2.
        assertEquals("summary: frames=5 roce=3 icrc_ok=3 icrc_bad=0", result.lastOutLine());
        assertTrue(result.err().contains("stopped after 5 frames: ") && result.err().contains("file ends inside"),
            result.err());
    }

    /**
     * One whole frame, then a record cut short: "1 frame", and the path once (PcapReader's message starts with it
     * too).
     */
    @Test
    void aCaptureCutInsideItsSecondRecordSaysOneFrameAndNamesThePathOnce() throws IOException
    {
        final Path pcap = Cli.copyResource("/vectors/" + Vectors.RXE_VS_PEER, temp);
        final ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(pcap));
        // Classic pcap: a 24-byte file header, then records of a 16-byte header with incl_len at +8.
        final int magic = bytes.getInt(0);
        bytes.order(0xA1B2C3D4 == magic || 0xA1B23C4D == magic ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN);
        final int secondRecord = 24 + 16 + bytes.getInt(24 + 8);
        final Path cut = temp.resolve("one-and-a-bit.pcap");
        Files.write(cut, Arrays.copyOf(bytes.array(), secondRecord + 20));
        final Cli.Result result = Cli.run("decode", "--summary", cut.toString());
        assertEquals(DecodeCommand.EXIT_UNREADABLE, result.exitCode());
        assertEquals(2, result.outLines().size(), result.out());
        assertTrue(result.lastOutLine().startsWith("summary: frames=1 "), result.lastOutLine());
        assertEquals("roce decode: " + cut + ": stopped after 1 frame: file ends inside record 2",
            result.err().strip());
    }

    @Test
    void otherLinkTypesAreReportedPerFrame() throws IOException
    {
        // A classic pcap (little-endian, microseconds) of link type 113 (Linux cooked capture) with one record.
        final ByteBuffer file = ByteBuffer.allocate(24 + 16 + 20).order(ByteOrder.LITTLE_ENDIAN);
        file.putInt(0xA1B2C3D4).putShort((short)2).putShort((short)4).putInt(0).putInt(0).putInt(65535).putInt(113);
        file.putInt(1_700_000_000).putInt(0).putInt(20).putInt(20).put(new byte[20]);
        final Path sll = temp.resolve("sll.pcap");
        Files.write(sll, file.array());
        final Cli.Result result = Cli.run("decode", sll.toString());
        assertEquals(0, result.exitCode(), result.err());
        assertEquals(List.of(
            "Frame 1 (20 bytes, +0.000000 s): link type 113 (Linux cooked capture, tcpdump -i any) not decoded " +
            "(only Ethernet, link type 1, is)",
            "summary: frames=1 roce=0 icrc_ok=0 icrc_bad=0"), result.outLines());
    }

    @Test
    void usageErrorsVersionAndHelp()
    {
        Cli.Result result = Cli.run("decode");
        assertEquals(2, result.exitCode());
        assertTrue(result.err().contains("Missing required parameter: 'FILE'"), result.err());

        result = Cli.run();
        assertEquals(2, result.exitCode());
        assertTrue(result.err().contains("missing subcommand"), result.err());
        assertTrue(result.err().contains("decode") && result.err().contains("demo"), "usage lists the subcommands");

        result = Cli.run("--version");
        assertEquals(0, result.exitCode());
        assertTrue(result.out().startsWith("roce (roce4j) "), result.out());
        assertNotEquals("roce (roce4j) unknown", result.outLines().get(0), "version.properties is filtered");

        result = Cli.run("help", "decode");
        assertEquals(0, result.exitCode());
        assertTrue(result.out().contains("--summary") && result.out().contains("--hex"), result.out());
    }
}
