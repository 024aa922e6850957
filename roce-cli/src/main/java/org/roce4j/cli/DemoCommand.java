package org.roce4j.cli;

import java.io.PrintWriter;
import java.util.concurrent.Callable;

import org.roce4j.cli.demo.OpcodeShowcase;
import org.roce4j.wire.decode.FrameDecoder;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code roce demo}: build one frame of every opcode family with roce-wire ({@link OpcodeShowcase}) and print each
 * decoded. No network, no privileges. Exit code 0 when every frame parsed as well-formed RoCEv2 with a good ICRC.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = "Build one RoCEv2 frame of every opcode (RC, UC, UD, CM to QP1, CNP; IPv4, IPv6, VLAN) in " +
        "memory and print each decoded. Touches no network.")
public final class DemoCommand implements Callable<Integer>
{
    @Spec
    private CommandSpec spec;

    @Option(names = "--summary", description = "one line per frame instead of every field")
    private boolean summary;

    @Option(names = "--hex", description = "follow each frame with a hex dump")
    private boolean hex;

    /**
     * @return the exit code.
     */
    public Integer call()
    {
        final PrintWriter out = spec.commandLine().getOut();
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
