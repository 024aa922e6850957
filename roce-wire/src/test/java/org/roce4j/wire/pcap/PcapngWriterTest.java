package org.roce4j.wire.pcap;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roce4j.wire.test.Tools;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * pcapng as the capture decorator writes it: frames, nanosecond timestamps and each frame's direction read back by
 * {@link PcapReader}, and by tshark (Wireshark's reader) where it is installed.
 */
class PcapngWriterTest
{
    private static final long EPOCH_NS = 1_764_000_000_123_456_789L;

    @Test
    void roundTripsFramesTimestampsAndDirections() throws IOException
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final List<byte[]> frames = new ArrayList<>();
        try (PcapngWriter writer = new PcapngWriter(bytes, "roce4j", "tunnel:127.0.0.1:5000"))
        {
            for (int i = 0; i < 5; i++)
            {
                final byte[] frame = new byte[60 + i];
                for (int j = 0; j < frame.length; j++)
                {
                    frame[j] = (byte)(i * 31 + j);
                }
                frames.add(frame);
                writer.write(new UnsafeBuffer(frame), 0, frame.length, EPOCH_NS + i,
                    0 == i % 2 ? PcapngWriter.OUTBOUND : PcapngWriter.INBOUND);
            }
        }
        try (PcapReader reader = PcapReader.open("mem", new ByteArrayInputStream(bytes.toByteArray())))
        {
            assertTrue(reader.isPcapng());
            for (int i = 0; i < 5; i++)
            {
                assertTrue(reader.next(), "record " + i);
                assertArrayEquals(frames.get(i), reader.copyRecord(), "bytes of record " + i);
                assertEquals(frames.get(i).length, reader.originalLength());
                assertEquals(EPOCH_NS + i, reader.timestampNs(), "nanosecond timestamp of record " + i);
                assertEquals(LinkType.ETHERNET, reader.linkType());
                assertEquals(0 == i % 2 ? PcapReader.DIRECTION_OUTBOUND : PcapReader.DIRECTION_INBOUND,
                    reader.direction(), "direction of record " + i);
            }
            assertFalse(reader.next());
        }
    }

    @Test
    void wiresharkReadsTheDirections(@TempDir final Path dir) throws Exception
    {
        final Path tshark = Tools.require("tshark");
        final Path file = dir.resolve("d.pcapng");
        try (PcapngWriter writer = new PcapngWriter(file, "roce4j", "test"))
        {
            final UnsafeBuffer frame = new UnsafeBuffer(new byte[60]);
            writer.write(frame, 0, 60, EPOCH_NS, PcapngWriter.OUTBOUND);
            writer.write(frame, 0, 60, EPOCH_NS + 1000, PcapngWriter.INBOUND);
        }
        final Process process = new ProcessBuilder(tshark.toString(), "-n", "-r", file.toString(), "-T", "fields",
            "-e", "frame.packet_flags_direction", "-e", "frame.time_epoch")
            .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        final String output = new String(process.getInputStream().readAllBytes()).trim();
        assertEquals(0, process.waitFor(), output);
        final String[] lines = output.split("\n");
        assertEquals(2, lines.length, output);
        assertTrue(lines[0].startsWith("2\t") || lines[0].startsWith("0x2\t") || lines[0].startsWith("0x00000002\t"),
            "outbound: " + lines[0]);
        assertTrue(lines[1].startsWith("1\t") || lines[1].startsWith("0x1\t") || lines[1].startsWith("0x00000001\t"),
            "inbound: " + lines[1]);
        assertTrue(lines[0].contains("1764000000.123456789"), "nanosecond time: " + lines[0]);
    }
}
