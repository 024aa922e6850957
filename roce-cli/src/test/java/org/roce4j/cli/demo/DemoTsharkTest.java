package org.roce4j.cli.demo;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roce4j.wire.RoceFrameParser;
import org.roce4j.wire.pcap.PcapWriter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * An independent reading of the demo frames: Wireshark's InfiniBand dissector (tshark) must see the same opcode,
 * destination QP and PSN in every frame, and the CM ConnectRequest attribute in the MAD. Needs tshark: skipped
 * without it, failed without it when ROCE4J_REQUIRE_TOOLS=1.
 */
class DemoTsharkTest
{
    @TempDir
    Path temp;

    @Test
    void tsharkSeesTheSameOpcodesQpnsAndPsns() throws IOException, InterruptedException
    {
        final Path tshark = onPath("tshark");
        if (null == tshark)
        {
            if ("1".equals(System.getenv("ROCE4J_REQUIRE_TOOLS")))
            {
                fail("tshark is not installed and ROCE4J_REQUIRE_TOOLS=1");
            }
            Assumptions.abort("tshark is not installed; skipping the Wireshark cross-check");
        }
        final Path pcap = temp.resolve("demo.pcap");
        final List<String> expected = new ArrayList<>();
        final RoceFrameParser parser = new RoceFrameParser();
        try (PcapWriter writer = new PcapWriter(pcap))
        {
            new OpcodeShowcase().build((description, buffer, offset, length) ->
            {
                final byte[] copy = new byte[length];
                buffer.getBytes(offset, copy);
                parser.parse(new UnsafeBuffer(copy), 0, length);
                expected.add((expected.size() + 1) + "\t" + parser.opcode().code() + "\t" +
                    String.format("0x%06x", parser.bth().destQp()) + "\t" + parser.bth().psn() + "\t" +
                    (1 == parser.bth().destQp() ? "0x0010" : ""));
                try
                {
                    writer.write(copy, 1_700_000_000_000_000_000L + 1000L * expected.size());
                }
                catch (final IOException ex)
                {
                    throw new UncheckedIOException(ex);
                }
            });
        }
        final Process process = new ProcessBuilder(tshark.toString(), "-r", pcap.toString(), "-T", "fields",
            "-e", "frame.number", "-e", "infiniband.bth.opcode", "-e", "infiniband.bth.destqp",
            "-e", "infiniband.bth.psn", "-e", "infiniband.mad.attributeid")
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
        final String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(120, TimeUnit.SECONDS), "tshark did not finish");
        assertEquals(0, process.exitValue(), "tshark failed");
        assertEquals(expected, out.lines().toList());
    }

    private static Path onPath(final String program)
    {
        final String path = System.getenv("PATH");
        if (null == path)
        {
            return null;
        }
        for (final String directory : path.split(File.pathSeparator))
        {
            final Path candidate = Path.of(directory, program);
            if (Files.isExecutable(candidate))
            {
                return candidate;
            }
        }
        return null;
    }
}
