package org.roce4j.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.regex.Pattern;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.roce4j.transport.link.fault.FaultRule;
import picocli.CommandLine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code roce perf} whose peer dies mid-run (issue 13 #7; the evidence run kept going 29 s after rxe's machine was
 * killed and then failed on the closing exchange). Both sides run in this process over the memory fabric; after
 * a few hundred frames the server's port loses everything it sends, as a dead machine would. The client's QP must
 * fail with RETRY_EXC_ERR (status 12) after local ACK timeout x (retry_cnt 7 + 1), and the tool must print what
 * perftest 4.5 prints and exit with its code, long before the duration ends: no report line.
 */
class PerfDeadPeerTest
{
    /** Frames the server sends before it dies: the exchange's traffic is on TCP, so these are its ACKs. */
    private static final long FRAMES_BEFORE_DEATH = 200;

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', value = {
        "write_bw | -s 65536 -D 30 -u 8 | 1  | ' Failed to complete run_iter_bw function successfully'",
        "write_bw | -s 4096 -n 100000 -u 8 | 1 | ' Failed to complete run_iter_bw function successfully'",
        "send_bw  | -s 4096 -D 30 -u 8  | 17 | ''"})
    void clientReportsTheRetryExceededCompletionAsPerftestDoesAndExits(final String tool, final String options,
        final int exitCode, final String lastLine)
    {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final CommandLine commandLine = RoceCommand.commandLine();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        final PerfCommand perf = commandLine.getSubcommands().get("perf").getCommand();
        perf.inProcessServerPort = port -> port.faults().addRule(FaultRule.drop().skip(FRAMES_BEFORE_DEATH));
        final String[] args = (tool + " " + options).split(" ");
        final String[] full = new String[args.length + 1];
        full[0] = "perf";
        System.arraycopy(args, 0, full, 1, args.length);

        final int code = commandLine.execute(full);

        final String text = err.toString();
        assertEquals(exitCode, code, out + text);
        // NOTIFY_COMP_ERROR_SEND of perftest 4.5: status 12 is IBV_WC_RETRY_EXC_ERR; roce4j has no vendor syndrome.
        assertTrue(Pattern.compile("(?m)^ Completion with error at client\n Failed status 12: wr_id 0 syndrom 0x0\n" +
            "scnt=\\d+, ccnt=\\d+\n" + Pattern.quote(lastLine.isEmpty() ? "" : lastLine + "\n") + "\\z")
            .matcher(text).find(), text);
        assertFalse(PerfCommandTest.BW_LINE.matcher(out.toString()).find(), "no report: the run ended early\n" + out);
        assertFalse(text.contains("roce perf:"), text);
    }
}
