package org.roce4j.wire.pcap;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.function.Executable;
import org.roce4j.wire.Vectors;
import org.roce4j.wire.test.Hex;
import org.roce4j.wire.test.Seeded;
import org.roce4j.wire.test.SeededRandom;
import org.roce4j.wire.test.Tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Classic pcap write/read round trips, pcapng reading (a file made by editcap and hand-built files with several
 * interfaces and timestamp resolutions), big-endian files, and broken files that must fail with a
 * {@link PcapFormatException} naming the file.
 */
@Seeded
class PcapIoTest
{
    /** The rxe pair capture converted with {@code editcap -F pcapng} (Wireshark 4.0.17); see pcap/README.md. */
    private static final String PCAPNG_COPY = "/pcap/rxe-pair-ibverbs-perftest-rping.pcapng";

    /** One record as read back; the data as hex so that records compare by content. */
    private record Record(String data, long timestampNs, int originalLength, int linkType)
    {
        Record(final byte[] data, final long timestampNs, final int originalLength, final int linkType)
        {
            this(Hex.of(data), timestampNs, originalLength, linkType);
        }

        byte[] bytes()
        {
            return Hex.bytes(data);
        }
    }

    @Test
    void classicRoundTripKeepsFramesAndNanosecondTimestamps(final SeededRandom random, @TempDir final Path dir)
        throws IOException
    {
        final Path file = dir.resolve("ns.pcap");
        final List<Record> written = randomRecords(random, 300);
        try (PcapWriter writer = new PcapWriter(file))
        {
            for (final Record record : written)
            {
                writer.write(new UnsafeBuffer(record.bytes()), 0, record.bytes().length, record.timestampNs());
            }
        }
        final byte[] bytes = Files.readAllBytes(file);
        assertEquals(0xA1B23C4D, ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getInt(0), "nanosecond magic");
        final List<Record> read = readAll(PcapReader.open(file));
        assertEquals(written, read);
    }

    @Test
    void classicMicrosecondRoundTripTruncatesToMicroseconds(final SeededRandom random) throws IOException
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final List<Record> written = randomRecords(random, 300);
        try (PcapWriter writer = new PcapWriter(out, LinkType.ETHERNET, false))
        {
            for (final Record record : written)
            {
                writer.write(record.bytes(), record.timestampNs());
            }
        }
        assertEquals(0xA1B2C3D4, ByteBuffer.wrap(out.toByteArray()).order(ByteOrder.LITTLE_ENDIAN).getInt(0));
        final List<Record> read = readAll(PcapReader.open("us.pcap", new ByteArrayInputStream(out.toByteArray())));
        assertEquals(written.size(), read.size());
        for (int i = 0; i < read.size(); i++)
        {
            final Record w = written.get(i);
            assertEquals(w.data(), read.get(i).data());
            assertEquals(w.timestampNs() - w.timestampNs() % 1000, read.get(i).timestampNs(), "record " + i);
        }
    }

    @Test
    void writerKeepsTheLinkTypeAndExactTimestamps() throws IOException
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final byte[] packet = {0x45, 0, 0, 20};
        final long[] timestamps = {0, 1, 999_999_999, 1_000_000_000, 4_294_967_295_999_999_999L};
        try (PcapWriter writer = new PcapWriter(out, LinkType.RAW, true))
        {
            for (final long timestamp : timestamps)
            {
                writer.write(packet, timestamp);
            }
        }
        try (PcapReader reader = PcapReader.open("raw.pcap", new ByteArrayInputStream(out.toByteArray())))
        {
            assertFalse(reader.isPcapng());
            for (final long timestamp : timestamps)
            {
                assertTrue(reader.next());
                assertEquals(LinkType.RAW, reader.linkType());
                assertEquals(timestamp, reader.timestampNs());
                assertEquals(4, reader.capturedLength());
                assertEquals(4, reader.originalLength());
            }
            assertFalse(reader.next());
            assertFalse(reader.next(), "end of file stays the end");
        }
    }

    @Test
    void editcapPcapngCopyReadsAsTheOriginal() throws IOException
    {
        final List<byte[]> original = Vectors.frames(Vectors.RXE_PAIR);
        final List<Record> classic = readAll(PcapReader.open(Vectors.RXE_PAIR,
            PcapIoTest.class.getResourceAsStream("/vectors/" + Vectors.RXE_PAIR)));
        try (PcapReader reader = PcapReader.open(PCAPNG_COPY, PcapIoTest.class.getResourceAsStream(PCAPNG_COPY)))
        {
            assertTrue(reader.isPcapng());
            final List<Record> pcapng = readAll(reader);
            assertEquals(518, pcapng.size());
            assertEquals(original.size(), pcapng.size());
            assertEquals(classic, pcapng, "same bytes, lengths, link types and (microsecond) timestamps");
            assertEquals(518, reader.index());
        }
    }

    @Test
    void editcapConvertsOurNanosecondPcapToPcapngWithTheSameTimestamps(final SeededRandom random,
        @TempDir final Path dir) throws IOException
    {
        final Path editcap = Tools.require("editcap");
        final Path pcap = dir.resolve("ns.pcap");
        final Path pcapng = dir.resolve("ns.pcapng");
        final List<Record> written = randomRecords(random, 50);
        try (PcapWriter writer = new PcapWriter(pcap))
        {
            for (final Record record : written)
            {
                writer.write(record.bytes(), record.timestampNs());
            }
        }
        final Tools.Result result =
            Tools.run(List.of(editcap.toString(), "-F", "pcapng", pcap.toString(), pcapng.toString()), 120);
        assertEquals(0, result.exitCode(), result.stderr());
        try (PcapReader reader = PcapReader.open(pcapng))
        {
            assertTrue(reader.isPcapng());
            assertEquals(written, readAll(reader), "editcap writes if_tsresol=9 for a nanosecond pcap");
        }
    }

    @Test
    void handBuiltPcapngWithTwoInterfacesAndTimestampResolutions() throws IOException
    {
        final byte[] a = {1, 2, 3, 4, 5};
        final byte[] b = {6, 7, 8, 9, 10, 11, 12, 13};
        final byte[] c = {14, 15, 16};
        final byte[] d = {17, 18};
        final byte[] file = new PcapngBuilder()
            .section(ByteOrder.LITTLE_ENDIAN)
            .iface(LinkType.ETHERNET, 0, 9)              // 10^-9 s units
            .iface(LinkType.RAW, 1500, 3)                // 10^-3 s units
            .other(PcapngBuilder.NAME_RESOLUTION, 10)    // skipped
            .enhanced(0, 1_700_000_000_123_456_789L, a, 60)
            .enhanced(1, 1_700_000_000_123L, b, b.length)
            .other(0x0BAD_0000, 0)                       // an unknown block type, skipped
            .simple(c)                                   // interface 0, no timestamp
            .obsolete(1, 42L, d)
            .iface(LinkType.LINUX_SLL, 0, -1)            // interface 2, default microseconds
            .enhanced(2, 5_000_001L, a, a.length)
            .iface(LinkType.ETHERNET, 0, 0x80 | 10)      // interface 3, 2^-10 s units
            .enhanced(3, 3L * 1024 + 512, b, b.length)
            .bytes();
        final List<Record> expected = List.of(
            new Record(a, 1_700_000_000_123_456_789L, 60, LinkType.ETHERNET),
            new Record(b, 1_700_000_000_123_000_000L, b.length, LinkType.RAW),
            new Record(c, 0, c.length, LinkType.ETHERNET),
            new Record(d, 42_000_000L, d.length, LinkType.RAW),
            new Record(a, 5_000_001_000L, a.length, LinkType.LINUX_SLL),
            new Record(b, 3_500_000_000L, b.length, LinkType.ETHERNET));
        try (PcapReader reader = PcapReader.open("two-interfaces.pcapng", new ByteArrayInputStream(file)))
        {
            assertTrue(reader.isPcapng());
            assertEquals(expected, readAll(reader));
        }
    }

    @Test
    void pcapngSectionsMayChangeByteOrderAndResetInterfaces() throws IOException
    {
        final byte[] a = {1, 2, 3, 4};
        final byte[] file = concat(
            new PcapngBuilder().section(ByteOrder.LITTLE_ENDIAN).iface(LinkType.ETHERNET, 0, 6)
                .enhanced(0, 7, a, 4).bytes(),
            new PcapngBuilder().section(ByteOrder.BIG_ENDIAN).iface(LinkType.RAW, 0, 9)
                .enhanced(0, 7, a, 4).bytes());
        try (PcapReader reader = PcapReader.open("two-sections.pcapng", new ByteArrayInputStream(file)))
        {
            assertEquals(List.of(new Record(a, 7000, 4, LinkType.ETHERNET), new Record(a, 7, 4, LinkType.RAW)),
                readAll(reader));
        }
        // A big-endian first section.
        final byte[] big = new PcapngBuilder().section(ByteOrder.BIG_ENDIAN).iface(LinkType.ETHERNET, 0, -1)
            .enhanced(0, 1, a, 4).bytes();
        try (PcapReader reader = PcapReader.open("big.pcapng", new ByteArrayInputStream(big)))
        {
            assertEquals(List.of(new Record(a, 1000, 4, LinkType.ETHERNET)), readAll(reader));
        }
    }

    @Test
    void bigEndianClassicPcap() throws IOException
    {
        for (final boolean nanos : new boolean[] {false, true})
        {
            final ByteBuffer file = ByteBuffer.allocate(24 + 2 * 16 + 5 + 3).order(ByteOrder.BIG_ENDIAN);
            file.putInt(nanos ? 0xA1B23C4D : 0xA1B2C3D4).putShort((short)2).putShort((short)4).putInt(0).putInt(0)
                .putInt(65535).putInt(LinkType.ETHERNET);
            file.putInt(1_700_000_000).putInt(123_456).putInt(5).putInt(64).put(new byte[] {1, 2, 3, 4, 5});
            file.putInt(1).putInt(999_999).putInt(3).putInt(3).put(new byte[] {6, 7, 8});
            try (PcapReader reader = PcapReader.open("big-endian.pcap", new ByteArrayInputStream(file.array())))
            {
                final long unit = nanos ? 1 : 1000;
                assertEquals(List.of(
                    new Record(new byte[] {1, 2, 3, 4, 5}, 1_700_000_000_000_000_000L + 123_456 * unit, 64,
                        LinkType.ETHERNET),
                    new Record(new byte[] {6, 7, 8}, 1_000_000_000L + 999_999 * unit, 3, LinkType.ETHERNET)),
                    readAll(reader));
            }
        }
    }

    @Test
    void brokenFilesFailNamingTheFile(@TempDir final Path dir) throws IOException
    {
        final byte[] good = Files.readAllBytes(resource("/vectors/" + Vectors.RXE_VS_PEER));
        assertBroken(dir, "empty.pcap", new byte[0], "file ends inside file header");
        assertBroken(dir, "short-header.pcap", Arrays.copyOf(good, 3), "file ends inside file header");
        assertBroken(dir, "cut-header.pcap", Arrays.copyOf(good, 20), "file ends inside file header");
        assertBroken(dir, "garbage.pcap", "GET / HTTP/1.1\r\n\r\n".getBytes(), "not a pcap or pcapng file");
        assertBroken(dir, "cut-record-header.pcap", Arrays.copyOf(good, 24 + 10), "file ends inside record header 1");
        assertBroken(dir, "cut-record.pcap", Arrays.copyOf(good, 24 + 16 + 10), "file ends inside record 1");
        final byte[] huge = good.clone();
        ByteBuffer.wrap(huge).order(ByteOrder.LITTLE_ENDIAN).putInt(24 + 8, -5);
        assertBroken(dir, "negative-length.pcap", huge, "corrupt record length -5 at record 1");
        ByteBuffer.wrap(huge).order(ByteOrder.LITTLE_ENDIAN).putInt(24 + 8, 0x7FFF_FFFF);
        assertBroken(dir, "huge-length.pcap", huge, "corrupt record length 2147483647 at record 1");

        final byte[] a = {1, 2, 3, 4};
        final byte[] pcapng = new PcapngBuilder().section(ByteOrder.LITTLE_ENDIAN).iface(LinkType.ETHERNET, 0, 9)
            .enhanced(0, 1, a, 4).bytes();
        final byte[] badMagic = pcapng.clone();
        badMagic[8] = 0x55;
        assertBroken(dir, "bom.pcapng", badMagic, "bad byte-order magic");
        final byte[] oddLength = pcapng.clone();
        ByteBuffer.wrap(oddLength).order(ByteOrder.LITTLE_ENDIAN).putInt(4, 33);
        assertBroken(dir, "odd-length.pcapng", oddLength, "corrupt pcapng block length 33");
        final byte[] noInterface = new PcapngBuilder().section(ByteOrder.LITTLE_ENDIAN).enhanced(0, 1, a, 4).bytes();
        assertBroken(dir, "no-interface.pcapng", noInterface, "packet refers to undefined interface 0");
        assertBroken(dir, "cut.pcapng", Arrays.copyOf(pcapng, pcapng.length - 6), "file ends inside");
        final byte[] skipped = new PcapngBuilder().section(ByteOrder.LITTLE_ENDIAN).other(0x0BAD, 100).bytes();
        assertBroken(dir, "cut-skipped.pcapng", Arrays.copyOf(skipped, skipped.length - 50),
            "file ends inside a block");
        final byte[] shortBlock = new PcapngBuilder().section(ByteOrder.LITTLE_ENDIAN).iface(LinkType.ETHERNET, 0, 9)
            .other(PcapngBuilder.ENHANCED_PACKET, 8).bytes();
        assertBroken(dir, "short-epb.pcapng", shortBlock, "");

        final Path missing = dir.resolve("missing.pcap");
        final NoSuchFileException ex = assertThrows(NoSuchFileException.class, () -> PcapReader.open(missing));
        assertTrue(ex.getMessage().contains(missing.toString()), ex.getMessage());
    }

    private static void assertBroken(final Path dir, final String name, final byte[] bytes, final String problem)
        throws IOException
    {
        final Path file = dir.resolve(name);
        Files.write(file, bytes);
        final Executable readAll = () ->
        {
            try (PcapReader reader = PcapReader.open(file))
            {
                while (reader.next())
                {
                    reader.capturedLength();
                }
            }
        };
        final PcapFormatException ex = assertThrows(PcapFormatException.class, readAll, name);
        assertTrue(ex.getMessage().startsWith(file + ": "), ex.getMessage());
        assertTrue(ex.getMessage().contains(problem), ex.getMessage());
    }

    private static List<Record> randomRecords(final SeededRandom random, final int count)
    {
        final List<Record> records = new ArrayList<>();
        long timestampNs = (random.nextLong() & 0xFFFF_FFFFL) * 1_000_000_000L;
        for (int i = 0; i < count; i++)
        {
            final byte[] data = new byte[i < 3 ? i : random.nextInt(1, 9000)];
            random.nextBytes(data);
            timestampNs += random.nextInt(2_000_000_000);
            records.add(new Record(data, timestampNs, data.length, LinkType.ETHERNET));
        }
        return records;
    }

    private static List<Record> readAll(final PcapReader reader) throws IOException
    {
        final List<Record> records = new ArrayList<>();
        try (PcapReader r = reader)
        {
            while (r.next())
            {
                assertEquals(records.size() + 1, r.index());
                records.add(new Record(r.copyRecord(), r.timestampNs(), r.originalLength(), r.linkType()));
            }
        }
        return records;
    }

    private static Path resource(final String name)
    {
        try
        {
            return Path.of(PcapIoTest.class.getResource(name).toURI());
        }
        catch (final java.net.URISyntaxException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    private static byte[] concat(final byte[] first, final byte[] second)
    {
        final byte[] both = Arrays.copyOf(first, first.length + second.length);
        System.arraycopy(second, 0, both, first.length, second.length);
        return both;
    }
}
