package org.roce4j.cli;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.roce4j.wire.Opcode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code roce demo} run in process: every opcode appears decoded, no ICRC fails, and it ends with the summary.
 */
class DemoCommandTest
{
    @Test
    void demoShowsEveryOpcodeWithGoodIcrcs()
    {
        final Cli.Result result = Cli.run("demo");
        assertEquals(0, result.exitCode(), result.err());
        assertEquals("", result.err());
        for (final Opcode opcode : Opcode.values())
        {
            assertTrue(result.out().contains(String.format("    Opcode: 0x%02x %s\n", opcode.code(), opcode.name())),
                "demo lacks " + opcode);
        }
        assertFalse(result.out().contains("[incorrect"), "an ICRC or IP checksum failed");
        final List<String> lines = result.outLines();
        assertFalse(lines.stream().anyMatch(line -> line.startsWith("Status: ")), "a frame did not parse cleanly");
        final String last = result.lastOutLine();
        assertTrue(last.matches("summary: frames=(\\d+) roce=\\1 icrc_ok=\\1 icrc_bad=0"), last);
        for (final String expected : List.of(
            "    802.1Q Tag: PCP 3, DEI 0, VID 100 (TPID 0x8100, TCI 0x6064)",
            "Internet Protocol Version 6, Src: 2001:db8::1, Dst: 2001:db8::2",
            "CM ConnectRequest (REQ)",
            "    Service ID: 0x0000000001061c06 (RDMA CM TCP port 7174)",
            "RDMA CM Header (cma_hdr, first 36 bytes of the private data)",
            "    Syndrome: 0x60 NAK (PSN_SEQUENCE_ERROR)",
            "    Syndrome: 0x2e RNR NAK (timer 14: 1.28 ms)",
            "    BECN: 1"))
        {
            assertTrue(lines.contains(expected), "missing: " + expected);
        }
    }

    @Test
    void demoSummaryIsOneLinePerFrame()
    {
        final Cli.Result result = Cli.run("demo", "--summary");
        assertEquals(0, result.exitCode(), result.err());
        final List<String> lines = result.outLines();
        final String last = result.lastOutLine();
        final int frames = Integer.parseInt(last.replaceAll("summary: frames=(\\d+) .*", "$1"));
        assertEquals(frames + 1, lines.size(), "one line per frame plus the summary");
        assertEquals(frames, lines.stream().filter(line -> line.endsWith(" icrc=ok")).count());
    }
}
