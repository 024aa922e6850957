package org.roce4j.wire.oracle;

import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RoceFrameParser;
import org.roce4j.wire.Vectors;
import org.roce4j.wire.test.FrameFields;
import org.roce4j.wire.test.OracleCapture;
import org.roce4j.wire.test.Seeded;
import org.roce4j.wire.test.SeededRandom;
import org.roce4j.wire.test.Tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * roce-wire's ICRC against two independent computations in src/test/python/icrc_oracle.py, run with the Debian
 * interpreter where python3-scapy is importable:
 * <ul>
 *   <li>scapy.contrib.roce (IPv4 only: scapy 2.5 writes 0 for IPv6) on 1,000+ random IPv4 frames of every opcode;
 *   </li>
 *   <li>a zlib.crc32 implementation written from the masking rules of protocol-facts.md A.9, sharing no code with
 *   roce-wire or scapy. It is first validated where the truth is known: it must agree with scapy on the random
 *   IPv4 frames, and with rxe itself on the real captures (good ICRCs from rxe, bad ones from the peer in the
 *   NEGATIVE capture). Then it checks roce-wire's IPv6 ICRCs, which scapy cannot.</li>
 * </ul>
 */
@Seeded
class IcrcOracleTest
{
    private static final Path SCRIPT = moduleDirectory().resolve("src/test/python/icrc_oracle.py");

    @Test
    void scapyAndTheIndependentCrcAgreeOnRandomIpv4Frames(final SeededRandom random, @TempDir final Path dir)
        throws Exception
    {
        final Path python = Tools.requirePythonModule("scapy.contrib.roce");
        final Path pcap = dir.resolve("ipv4.pcap");
        final List<FrameFields> frames = OracleCapture.write(random, pcap, 30, new int[] {4}, 256);
        final Oracle oracle = run(python, false, pcap);

        assertEquals(frames.size(), oracle.lines.size());
        for (int i = 0; i < frames.size(); i++)
        {
            final Map<String, String> line = oracle.line(0, i + 1);
            final String what = "frame " + (i + 1) + " " + frames.get(i).opcode;
            assertEquals("1", line.get("roce"), what);
            assertEquals(String.format("0x%02x", frames.get(i).opcode.code()), line.get("opcode"), what);
            final String expected = wireHex(frames.get(i).icrc);
            assertEquals(expected, line.get("carried"), what + ": the pcap holds what the builder wrote");
            assertEquals(expected, line.get("scapy"), what + ": scapy's ICRC");
            assertEquals(expected, line.get("zlib"), what + ": independent ICRC");
        }
        assertTrue(oracle.summary("scapy_checked") >= 1000, "scapy checked " + oracle.summary("scapy_checked"));
        assertEquals(frames.size(), oracle.summary("scapy_match"));
        assertEquals(frames.size(), oracle.summary("zlib_match"));
        System.out.println("scapy and the independent CRC agreed with roce-wire on " + frames.size() +
            " IPv4 frames of " + Opcode.values().length + " opcodes");
    }

    @Test
    void theIndependentCrcAgreesWithRxeOnTheRealCaptures() throws Exception
    {
        final Path python = Tools.requirePythonModule("scapy.contrib.roce");
        final Path[] captures = new Path[Vectors.ALL.length];
        for (int i = 0; i < captures.length; i++)
        {
            captures[i] = resource("/vectors/" + Vectors.ALL[i]);
        }
        final Oracle oracle = run(python, false, captures);

        int good = 0;
        int bad = 0;
        final RoceFrameParser parser = new RoceFrameParser();
        for (int file = 0; file < captures.length; file++)
        {
            final List<byte[]> frames = Vectors.frames(Vectors.ALL[file]);
            for (int n = 0; n < frames.size(); n++)
            {
                final byte[] frame = frames.get(n);
                final FrameStatus status = parser.parse(new UnsafeBuffer(frame), 0, frame.length, true);
                final Map<String, String> line = oracle.line(file, n + 1);
                final String what = Vectors.ALL[file] + " frame " + (n + 1);
                if (status.isNotRoce())
                {
                    assertEquals("0", line.get("roce"), what);
                    continue;
                }
                assertEquals("1", line.get("roce"), what);
                // rxe's verdict (its frames are good, the peer's in the NEGATIVE capture are not) is the truth;
                // roce-wire, the independent CRC and scapy must all reach it.
                final boolean icrcGood = FrameStatus.OK == status;
                assertTrue(icrcGood || FrameStatus.BAD_ICRC == status, what + ": " + status);
                assertEquals(icrcGood, line.get("carried").equals(line.get("zlib")), what + ": independent CRC");
                assertEquals(line.get("zlib"), line.get("scapy"), what + ": scapy and the independent CRC");
                assertEquals(wireHex(parser.computedIcrc()), line.get("zlib"), what + ": roce-wire's value");
                if (icrcGood)
                {
                    good++;
                }
                else
                {
                    bad++;
                }
            }
        }
        assertTrue(good >= 222, "good rxe frames: " + good);
        assertTrue(bad > 0, "the NEGATIVE capture's bad ICRCs were not seen");
        assertEquals(good, oracle.summary("zlib_match"));
        System.out.println("independent CRC matched rxe's verdict on " + (good + bad) + " captured frames (" +
            good + " good, " + bad + " bad)");
    }

    @Test
    void theIndependentCrcAgreesWithRoceWireOnIpv6Frames(final SeededRandom random, @TempDir final Path dir)
        throws Exception
    {
        // Only the interpreter is needed: this part of the script does not use scapy.
        final Path python = Tools.require(Tools.SYSTEM_PYTHON);
        final Path pcap = dir.resolve("ipv6.pcap");
        final List<FrameFields> frames = OracleCapture.write(random, pcap, 25, new int[] {6}, 1024);
        final Oracle oracle = run(python, true, pcap);

        for (int i = 0; i < frames.size(); i++)
        {
            final Map<String, String> line = oracle.line(0, i + 1);
            final String what = "frame " + (i + 1) + " " + frames.get(i).opcode;
            assertEquals("6", line.get("ip"), what);
            assertEquals(wireHex(frames.get(i).icrc), line.get("carried"), what);
            assertEquals(line.get("carried"), line.get("zlib"), what + ": independent ICRC over IPv6");
        }
        assertTrue(frames.size() >= 1000, "IPv6 frames: " + frames.size());
        assertEquals(frames.size(), oracle.summary("zlib_match"));
        System.out.println("independent CRC agreed with roce-wire on " + frames.size() + " IPv6 frames");
    }

    /** The four wire bytes of an ICRC value (as {@link org.roce4j.wire.Icrc#read} returns it) in hex. */
    private static String wireHex(final int icrc)
    {
        return String.format("%08x", Integer.reverseBytes(icrc));
    }

    private static Oracle run(final Path python, final boolean noScapy, final Path... pcaps)
    {
        final List<String> command = new ArrayList<>(List.of(python.toString(), SCRIPT.toString()));
        if (noScapy)
        {
            command.add("--no-scapy");
        }
        for (final Path pcap : pcaps)
        {
            command.add(pcap.toString());
        }
        final Tools.Result result = Tools.run(command, 600);
        assertEquals(0, result.exitCode(), () -> "icrc_oracle.py failed: " + result.stderr());
        return new Oracle(result.stdout());
    }

    private static Path resource(final String name) throws URISyntaxException
    {
        final URL url = IcrcOracleTest.class.getResource(name);
        assertNotNull(url, "missing test resource " + name);
        return Path.of(url.toURI());
    }

    private static Path moduleDirectory()
    {
        // Surefire runs tests in the module directory and also passes it as "basedir".
        return Path.of(System.getProperty("basedir", System.getProperty("user.dir")));
    }

    /** The parsed output of icrc_oracle.py. */
    private static final class Oracle
    {
        final Map<String, Map<String, String>> lines = new HashMap<>();
        final Map<String, String> summary = new HashMap<>();

        Oracle(final String output)
        {
            for (final String text : output.split("\n"))
            {
                if (text.isBlank())
                {
                    continue;
                }
                final Map<String, String> fields = new HashMap<>();
                for (final String pair : text.trim().split(" "))
                {
                    final int eq = pair.indexOf('=');
                    if (eq > 0)
                    {
                        fields.put(pair.substring(0, eq), pair.substring(eq + 1));
                    }
                }
                if (text.startsWith("summary "))
                {
                    summary.putAll(fields);
                }
                else
                {
                    lines.put(fields.get("file") + ":" + fields.get("frame"), fields);
                }
            }
            assertTrue(summary.containsKey("roce"), "icrc_oracle.py printed no summary");
        }

        Map<String, String> line(final int file, final int frame)
        {
            final Map<String, String> line = lines.get(file + ":" + frame);
            assertNotNull(line, "icrc_oracle.py printed nothing for file " + file + " frame " + frame);
            return line;
        }

        int summary(final String key)
        {
            return Integer.parseInt(summary.get(key));
        }
    }
}
