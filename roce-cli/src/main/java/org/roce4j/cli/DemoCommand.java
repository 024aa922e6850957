package org.roce4j.cli;

import java.io.PrintWriter;
import java.util.concurrent.Callable;

import org.roce4j.cli.demo.LiveDemo;
import org.roce4j.cli.demo.OpcodeShowcase;
import org.roce4j.wire.decode.FrameDecoder;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code roce demo}: the live exchange of {@link LiveDemo} (two endpoints in one JVM over the in-memory fabric, every
 * RC operation, then the same under 5 % loss, every packet decoded), or with {@code --showcase} one frame of every
 * opcode family built with roce-wire ({@link OpcodeShowcase}). No network, no privileges. Exit code 0 on success.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = "Two roce4j endpoints in one JVM, joined by the in-memory fabric: SEND, RDMA WRITE, WRITE with " +
        "immediate, RDMA READ, compare-and-swap and fetch-and-add, then the same with 5%% of the frames lost, every " +
        "packet decoded. --showcase instead builds one frame of every opcode and prints it field by field. " +
        "Touches no network.")
public final class DemoCommand implements Callable<Integer>
{
    /** What the live demo suggests trying next: a command and what it shows. */
    static final String[][] NEXT = {
        {"./roce pingpong -n 1000 -c", "ibv_rc_pingpong's exchange and report"},
        {"./roce perf write_bw", "perftest's ib_write_bw, its report layout"},
        {"./roce rping -C 3 -v -V", "rping over roce4j's rdma_cm (REQ, REP, RTU)"}};

    @Spec
    private CommandSpec spec;

    @Option(names = "--showcase", description = "build one frame of every opcode and decode it, instead of the live " +
        "exchange")
    private boolean showcase;

    @Option(names = "--summary", description = "with --showcase: one line per frame instead of every field")
    private boolean summary;

    @Option(names = "--hex", description = "follow each frame with a hex dump")
    private boolean hex;

    /**
     * @return the exit code.
     */
    public Integer call()
    {
        final PrintWriter out = spec.commandLine().getOut();
        if (!showcase)
        {
            final LiveDemo demo = new LiveDemo(out);
            final boolean ok = demo.run();
            out.println();
            out.println("demo: " + (ok ? "all operations completed with the right data" : "FAILED") + "; " +
                demo.packets() + " packets, " + demo.lost() + " lost and recovered");
            out.println();
            out.println("Try next (each runs both sides in this process, no root, no network):");
            for (final String[] next : NEXT)
            {
                out.println(String.format(java.util.Locale.ROOT, "  %-36s %s", next[0], next[1]));
            }
            out.flush();
            return ok ? 0 : 1;
        }
        final FrameDecoder decoder = new FrameDecoder(out).summary(summary).hexDump(hex);
        final long[] number = {0};
        new OpcodeShowcase().build((description, buffer, offset, length) ->
        {
            number[0]++;
            if (!summary)
            {
                out.println("=== " + number[0] + ". " + description);
            }
            decoder.decode(number[0], FrameDecoder.NO_TIMESTAMP, buffer, offset, length, length);
        });
        decoder.printSummaryLine();
        out.flush();
        return decoder.roceFrames() == decoder.frames() && 0 == decoder.icrcBad() ? 0 : 1;
    }
}
