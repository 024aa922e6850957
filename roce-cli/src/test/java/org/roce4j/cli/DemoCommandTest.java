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
    void liveDemoRunsEveryOperationThenRecoversFromLoss()
    {
        final Cli.Result result = Cli.run("demo");
        assertEquals(0, result.exitCode(), result.err() + result.out());
        final String out = result.out();
        for (final String operation : List.of("SEND 64 B", "RDMA_WRITE 3000 B", "RDMA_WRITE_WITH_IMM 100 B",
            "RDMA_READ 2500 B", "ATOMIC_CMP_AND_SWP", "ATOMIC_FETCH_AND_ADD"))
        {
            assertTrue(out.contains("A post " + operation), "demo lacks " + operation);
        }
        for (final String packet : List.of("RC_SEND_ONLY", "RC_RDMA_WRITE_FIRST", "RC_RDMA_WRITE_MIDDLE",
            "RC_RDMA_WRITE_LAST", "RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE", "RC_RDMA_READ_REQUEST",
            "RC_RDMA_READ_RESPONSE_FIRST", "RC_RDMA_READ_RESPONSE_LAST", "RC_COMPARE_SWAP", "RC_FETCH_ADD",
            "RC_ATOMIC_ACKNOWLEDGE", "RC_ACKNOWLEDGE"))
        {
            assertTrue(out.contains(" " + packet + " "), "no " + packet + " packet printed");
        }
        assertTrue(out.contains(" LOST "), "the lossy round lost nothing");
        assertTrue(out.contains("transport.retries"), "no retry counted");
        assertFalse(out.contains("icrc=bad"), "an ICRC failed");
        assertFalse(out.contains("!! "), "a check failed");
        final List<String> lines = result.outLines();
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("demo: all operations completed with the right data")),
            out);
        // Issue 16: the round-1 timestamps of 0.000 us are explained, the lossy round's passes have sub-headings,
        // each endpoint's GID is printed once, and the demo ends with three commands to try next.
        assertTrue(out.contains("That time is simulated") && out.contains("every timestamp stays at 0.000 us"), out);
        for (int pass = 1; pass <= 3; pass++)
        {
            assertTrue(out.contains("\n--- pass " + pass + " of 3: SEND, RDMA WRITE"),
                "no sub-heading for pass " + pass);
        }
        final String endpoints = lines.stream().filter(l -> l.startsWith("A: LID ")).findFirst().orElseThrow();
        assertEquals(1, endpoints.split("::ffff:192.168.77.1", -1).length - 1, endpoints);
        assertEquals(1, endpoints.split("::ffff:192.168.77.2", -1).length - 1, endpoints);
        assertEquals("Try next (each runs both sides in this process, no root, no network):",
            lines.get(lines.size() - 1 - DemoCommand.NEXT.length));
        for (int i = 0; i < DemoCommand.NEXT.length; i++)
        {
            final String line = lines.get(lines.size() - DemoCommand.NEXT.length + i);
            assertTrue(line.startsWith("  ./roce ") && line.contains(DemoCommand.NEXT[i][0]), line);
        }
        assertEquals(3, DemoCommand.NEXT.length);
    }

    /**
     * The three commands the demo suggests must run as printed (here in process, short).
     */
    @Test
    void theSuggestedCommandsRun()
    {
        for (final String[] next : DemoCommand.NEXT)
        {
            // Fewer iterations than printed, to keep the test short.
            final List<String> args = new java.util.ArrayList<>(List.of(next[0].substring("./roce ".length())
                .replace("-n 1000", "-n 20").split(" ")));
            if ("perf".equals(args.get(0)))
            {
                args.addAll(List.of("-n", "20"));
            }
            final Cli.Result result = Cli.run(args.toArray(new String[0]));
            assertEquals(0, result.exitCode(), next[0] + ":\n" + result.out() + result.err());
        }
    }

    @Test
    void demoShowsEveryOpcodeWithGoodIcrcs()
    {
        final Cli.Result result = Cli.run("demo", "--showcase");
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
        final Cli.Result result = Cli.run("demo", "--showcase", "--summary");
        assertEquals(0, result.exitCode(), result.err());
        final List<String> lines = result.outLines();
        final String last = result.lastOutLine();
        final int frames = Integer.parseInt(last.replaceAll("summary: frames=(\\d+) .*", "$1"));
        assertEquals(frames + 1, lines.size(), "one line per frame plus the summary");
        assertEquals(frames, lines.stream().filter(line -> line.endsWith(" icrc=ok")).count());
    }
}
