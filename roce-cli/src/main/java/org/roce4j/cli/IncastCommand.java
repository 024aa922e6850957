package org.roce4j.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;

import org.roce4j.cli.incast.IncastPlots;
import org.roce4j.cli.incast.IncastResult;
import org.roce4j.cli.incast.IncastSettings;
import org.roce4j.cli.incast.IncastSimulation;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code roce incast}: N roce4j senders write into one receiver through a simulated switch (a bottleneck of one
 * output queue), with DCQCN or without, and the command reports what congestion control did: each flow's goodput,
 * Jain's fairness index, how fast the flows shared the line, the queue's percentiles, CNPs and drops; optionally as
 * JSON and as PNG plots. Simulated time: the run is deterministic for its options and seed.
 */
@Command(
    name = "incast",
    mixinStandardHelpOptions = true,
    exitCodeOnInvalidInput = IncastCommand.EXIT_USAGE,
    exitCodeOnExecutionException = IncastCommand.EXIT_FAILURE,
    description = {
        "Simulate N senders writing into one receiver through a switch, with DCQCN (--cc dcqcn) or without.",
        "Every endpoint is a roce4j device on the simulated switch of the in-memory fabric (line rate, propagation " +
            "delay, an output queue per port with a buffer, RED/ECN marking with Kmin, Kmax and Pmax, tail drop); " +
            "all run on one thread on a simulated clock, so a run is deterministic for its options and seed and " +
            "simulates line rates faster than this machine.",
        "Each sender keeps --depth RDMA WRITEs of --size bytes posted on one RC QP while its flow is active. " +
            "Prints per-flow goodput, Jain's fairness index, when the flows shared the line fairly, the queue at the " +
            "receiver's port (p50, p99, max), CNPs sent and handled, drops.",
        "Exit code 0, 1 on a failed run (a WRITE completed with an error), 2 on bad options."})
public final class IncastCommand implements Callable<Integer>
{
    /** Bad options. */
    static final int EXIT_USAGE = 2;
    /** The run failed. */
    static final int EXIT_FAILURE = 1;

    @Spec
    private CommandSpec spec;

    @Mixin
    private CcOptions cc;

    @Option(names = {"-n", "--senders"}, paramLabel = "N", description = "senders, 1 to 16 (default 4)")
    private int senders = 4;

    @Option(names = "--rate", paramLabel = "GBPS", description = "line rate of every link, Gb/s (default 25)")
    private double rateGbps = 25;

    @Option(names = "--duration", paramLabel = "MS", description = "simulated time, ms (default 50)")
    private double durationMs = 50;

    @Option(names = "--schedule", paramLabel = "together|staggered", description = "together: every flow from " +
        "start to end (default); staggered: flow i joins at i * stagger and leaves at duration - i * stagger")
    private String schedule = "together";

    @Option(names = "--stagger", paramLabel = "MS", description = "time between joins (and leaves) of a staggered " +
        "schedule, ms (default duration / (2 * senders))")
    private Double staggerMs;

    @Option(names = "--buffer", paramLabel = "KB", description = "output buffer of each switch port, KB of 1000 " +
        "bytes (default 4 x Kmax)")
    private Double bufferKb;

    @Option(names = "--kmin", paramLabel = "KB", description = "RED Kmin, KB (default 100 per 25 Gb/s of line " +
        "rate, as HPCC's simulator)")
    private double kminKb = -1;

    @Option(names = "--kmax", paramLabel = "KB", description = "RED Kmax, KB (default 400 per 25 Gb/s)")
    private double kmaxKb = -1;

    @Option(names = "--pmax", paramLabel = "P", description = "RED marking probability at Kmax (default 0.2)")
    private double pmax = -1;

    @Option(names = "--delay", paramLabel = "US", description = "one-way propagation delay of each link, µs " +
        "(default 1)")
    private double delayUs = 1;

    @Option(names = {"-m", "--mtu"}, paramLabel = "BYTES", description = "path MTU of the QPs (default 4096; links " +
        "carry 9000-byte frames)")
    private int mtu = 4096;

    @Option(names = {"-s", "--size"}, paramLabel = "BYTES", description = "size of each RDMA WRITE (default 16384)")
    private int size = 16 * 1024;

    @Option(names = {"-d", "--depth"}, paramLabel = "N", description = "WRITEs each sender keeps posted (default 64)")
    private int depth = 64;

    @Option(names = "--bin", paramLabel = "US", description = "width of a throughput bin for the fairness figures " +
        "and plots, µs (default 500)")
    private double binUs = 500;

    @Option(names = "--seed", paramLabel = "N", description = "seed of the switch's RED draws and the QPs' PSNs " +
        "(default 1)")
    private long seed = 1;

    @Option(names = "--json", description = "print the results (with every series) as one JSON object")
    private boolean json;

    @Option(names = "--plot", paramLabel = "DIR", description = "write PNG plots into DIR: throughput.png (each " +
        "flow at the bottleneck), rate.png (each sender's DCQCN rate), queue.png (the receiver's port)")
    private Path plotDir;

    /**
     * @return the exit code.
     */
    public Integer call()
    {
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        final IncastSettings settings;
        try
        {
            settings = new IncastSettings().senders(senders).congestionControl(cc.congestionControl())
                .trafficClass(cc.trafficClass()).lineRateGbps(rateGbps).durationMs(durationMs).schedule(schedule)
                .propagationDelayUs(delayUs).pathMtu(mtu).messages(size, depth).binUs(binUs).seed(seed)
                .red(kminKb, kmaxKb, pmax);
            if (null != staggerMs)
            {
                settings.staggerMs(staggerMs);
            }
            if (null != bufferKb)
            {
                settings.bufferKb(bufferKb);
            }
        }
        catch (final IllegalArgumentException ex)
        {
            err.println("roce incast: " + ex.getMessage());
            err.flush();
            return EXIT_USAGE;
        }
        try
        {
            final IncastResult result = new IncastSimulation(settings).run();
            if (json)
            {
                out.println(result.toJson());
            }
            else
            {
                result.print(out);
            }
            if (null != plotDir)
            {
                for (final Path file : IncastPlots.write(result, plotDir, settings.senders() + " senders, --cc " +
                    cc.congestionControl()))
                {
                    err.println("wrote " + file);
                }
            }
            out.flush();
            err.flush();
            return 0 == result.counters().failedWrites() ? 0 : EXIT_FAILURE;
        }
        catch (final IllegalArgumentException ex)
        {
            err.println("roce incast: " + ex.getMessage());
            err.flush();
            return EXIT_USAGE;
        }
        catch (final IOException | IllegalStateException ex)
        {
            err.println("roce incast: " + ex.getMessage());
            err.flush();
            return EXIT_FAILURE;
        }
    }
}
