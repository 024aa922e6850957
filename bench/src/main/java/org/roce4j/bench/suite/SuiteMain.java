package org.roce4j.bench.suite;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.HdrHistogram.Histogram;
import org.roce4j.bench.BenchArgs;
import org.roce4j.bench.baseline.Baselines;
import org.roce4j.bench.baseline.RawUdpBusyPoll;
import org.roce4j.bench.engine.EngineBench;
import org.roce4j.bench.engine.LatencyRun;
import org.roce4j.bench.engine.LinkKind;
import org.roce4j.bench.engine.Op;
import org.roce4j.bench.engine.RcPair;
import org.roce4j.bench.engine.ThroughputRun;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The bench suite: runs a {@link SuitePlan}'s matrix (links x operations x message sizes x QP counts, the engine's
 * headline benchmarks and the scale run) with a progress bar on stderr, and writes {@code RESULTS.md}, {@code
 * results/results.json} and three PNG plots under the output directory (by default
 * {@code bench/results/suite-<UTC time>/}).
 *
 * <pre>
 * bench/run.sh suite [--quick | --smoke | --full] [--links memory,udp,tunnel] [--shared-thread] [--out DIR]
 * </pre>
 * {@code --shared-thread} drives both endpoints of every pair from one thread (both engines in one progress group):
 * each figure is then the CPU cost of both sides on one core, which an oversubscribed machine distorts less than
 * two busy-polling threads that make progress only while both are scheduled.
 */
public final class SuiteMain
{
    /** Each side's registered buffer: room for 1 MiB messages (half the buffer) and ping-pong areas. */
    static final int MEMORY_BYTES = 4 * 1024 * 1024;
    /** Inbound ring of each memory fabric port: room for every frame the plan keeps in flight. */
    static final int MEMORY_RING_BYTES = 64 * 1024 * 1024;
    /** Send and receive queue depth of every QP. */
    static final int QP_DEPTH = 16;
    /** Deepest CQ a device offers (DeviceAttributes.MAX_CQE). */
    static final int MAX_CQ_DEPTH = 32767;
    /** Bytes a streaming cell keeps in flight on the memory fabric (its rings hold 64 MiB). */
    static final long MEMORY_INFLIGHT_BYTES = 8L << 20;
    /** Bytes a streaming cell keeps in flight over a kernel socket (its buffers hold a few MiB). */
    static final long SOCKET_INFLIGHT_BYTES = 2L << 20;
    /** WRs a streaming cell keeps in flight over a kernel socket at most (small datagrams cost ~1 KiB each there). */
    static final int SOCKET_MAX_OUTSTANDING = 1024;

    private static boolean sharedThread;

    private final SuitePlan plan;
    private final Path outDir;
    private final PrintStream progressOut;
    private final SuiteResults results = new SuiteResults();
    private final List<Step> steps = new ArrayList<>();
    private RcPair pair;
    private LinkKind pairKind;
    private String pairFailure;

    private record Step(String label, Runnable action)
    {
    }

    SuiteMain(final SuitePlan plan, final Path outDir, final PrintStream progressOut)
    {
        this.plan = plan;
        this.outDir = outDir;
        this.progressOut = progressOut;
    }

    /**
     * @param kind medium.
     * @param qps  QP pairs.
     * @return the endpoint sizes the suite uses.
     */
    static RcPair.Options optionsFor(final LinkKind kind, final int qps)
    {
        final int cqDepth = (int)Math.min(MAX_CQ_DEPTH, Math.max(1024L, (long)qps * QP_DEPTH));
        return new RcPair.Options(qps, QP_DEPTH, QP_DEPTH, cqDepth, MEMORY_BYTES, MEMORY_RING_BYTES,
            sharedThread);
    }

    /**
     * WRs outstanding per QP for a streaming cell: as many as fit the medium's in-flight budget, 1 to 16.
     *
     * @param kind      medium.
     * @param sizeBytes message size.
     * @param qps       QPs streaming.
     * @return the depth.
     */
    static int depthFor(final LinkKind kind, final int sizeBytes, final int qps)
    {
        final boolean memory = LinkKind.MEMORY == kind;
        final long budget = memory ? MEMORY_INFLIGHT_BYTES : SOCKET_INFLIGHT_BYTES;
        final int maxOutstanding = memory ? ScaleBench.MAX_OUTSTANDING : SOCKET_MAX_OUTSTANDING;
        final long bySize = budget / ((long)sizeBytes * qps);
        return (int)Math.max(1, Math.min(QP_DEPTH, Math.min(maxOutstanding / qps, bySize)));
    }

    /**
     * Run the whole plan and write the report.
     *
     * @param command the command line, for the report.
     * @return the results.
     * @throws IOException when the report cannot be written.
     */
    SuiteResults run(final String command) throws IOException
    {
        final String date = ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME);
        final String loadAtStart = loadAverage();
        final long startNs = System.nanoTime();
        planSteps();
        final ProgressBar bar = new ProgressBar(progressOut, steps.size());
        for (final Step step : steps)
        {
            bar.start(step.label());
            step.action().run();
            bar.step();
        }
        bar.finish();
        closePair();
        results.environment(new SuiteResults.Environment(date, jdk(), cpuModel(),
            Runtime.getRuntime().availableProcessors(), loadAtStart, loadAverage(),
            plan.name(), sharedThread ? "one thread drives both endpoints" : "a thread per endpoint", command,
            (System.nanoTime() - startNs) / 1e9));
        new ReportWriter(results, plan).write(outDir);
        return results;
    }

    private void planSteps()
    {
        final long warmupNs = TimeUnit.MILLISECONDS.toNanos(plan.warmupMs());
        final long measureNs = TimeUnit.MILLISECONDS.toNanos(plan.measureMs());
        for (final int size : plan.allSizes())
        {
            steps.add(new Step("baselines " + ReportWriter.size(size), () -> baselines(size, warmupNs, measureNs)));
        }
        if (plan.engineHeadline())
        {
            steps.add(new Step("engine headline benchmarks", () -> engineHeadline(warmupNs, measureNs)));
        }
        for (final LinkKind kind : plan.links())
        {
            steps.add(new Step(kind.label() + ": open " + plan.maxQps() + " QP pairs", () -> openPair(kind)));
            for (final Op op : plan.streamOps())
            {
                for (final int size : op.isAtomic() ? List.of(8) : plan.streamSizes())
                {
                    steps.add(new Step(kind.label() + " " + op.label() + " " + ReportWriter.size(size) + " stream",
                        () -> stream(kind, op, size, 1, results.throughputs(), warmupNs, measureNs)));
                }
            }
            for (final Op op : plan.latencyOps())
            {
                for (final int size : op.isAtomic() ? List.of(8) : plan.latencySizes())
                {
                    steps.add(new Step(kind.label() + " " + op.label() + " " + ReportWriter.size(size) + " latency",
                        () -> latency(kind, op, size, warmupNs, measureNs)));
                }
            }
            for (final Op op : plan.qpAxisOps())
            {
                for (final int size : plan.qpAxisSizes())
                {
                    for (final int qps : plan.qpCounts())
                    {
                        steps.add(new Step(kind.label() + " " + op.label() + " " + ReportWriter.size(size) + " " +
                            qps + " QPs", () -> stream(kind, op, size, qps, results.qpAxis(), warmupNs, measureNs)));
                    }
                }
            }
            steps.add(new Step(kind.label() + ": close", this::closePair));
        }
        if (plan.scaleQps() > 0)
        {
            steps.add(new Step("scale: " + plan.scaleQps() + " QPs", () -> scale(warmupNs, measureNs)));
        }
    }

    private void baselines(final int size, final long warmupNs, final long measureNs)
    {
        final double memcpy = Baselines.memcpyBytesPerSecond(size, measureNs / 2);
        final double crc = Baselines.crc32BytesPerSecond(size, measureNs / 2);
        double udp = Double.NaN;
        Histogram udpRtt = null;
        try (RawUdpBusyPoll raw = new RawUdpBusyPoll())
        {
            udp = raw.streamBytesPerSecond(size, warmupNs, measureNs / 2);
            udpRtt = raw.roundTrips(size, warmupNs, measureNs / 2);
        }
        catch (final RuntimeException ex)
        {
            results.notes().add("raw UDP baseline at " + ReportWriter.size(size) + " failed: " + ex);
        }
        results.baselines().add(new SuiteResults.Baseline(size, memcpy, crc, udp,
            percentileUs(udpRtt, 50), percentileUs(udpRtt, 99), percentileUs(udpRtt, 99.9), load1()));
    }

    private static double percentileUs(final Histogram histogram, final double percentile)
    {
        return null == histogram || 0 == histogram.getTotalCount() ? Double.NaN :
            histogram.getValueAtPercentile(percentile) / 1e3;
    }

    private void engineHeadline(final long warmupNs, final long measureNs)
    {
        try
        {
            final EngineBench.Figures two = EngineBench.run(warmupNs, measureNs, false);
            final EngineBench.Figures one = EngineBench.run(warmupNs, measureNs, true);
            results.engine(new SuiteResults.Engine(
                two.writeBandwidth().bytesPerSecond() / 1e9, two.memcpyBytesPerSecond() / 1e9,
                two.writeBandwidth().cpuNsPerMessage(),
                two.writeRate().messagesPerSecond() / 1e6, two.writeRateMultiQp().messagesPerSecond() / 1e6,
                two.writeRate().cpuNsPerMessage(), two.ringFramesPerSecond() / 1e6,
                two.sendLatency().percentileUs(50), two.sendLatency().percentileUs(99),
                two.sendLatency().percentileUs(99.9),
                two.ringRoundTrips().getValueAtPercentile(50) / 1e3,
                two.ringRoundTrips().getValueAtPercentile(99) / 1e3,
                one.writeBandwidth().bytesPerSecond() / 1e9, one.writeRate().messagesPerSecond() / 1e6, load1()));
        }
        catch (final RuntimeException ex)
        {
            results.notes().add("engine headline benchmarks failed: " + ex);
        }
    }

    private void openPair(final LinkKind kind)
    {
        closePair();
        pairKind = kind;
        pairFailure = null;
        try
        {
            pair = RcPair.open(kind, optionsFor(kind, plan.maxQps()));
        }
        catch (final RuntimeException ex)
        {
            pairFailure = ex.toString();
            results.notes().add(kind.label() + " link skipped: could not open two endpoints with " + plan.maxQps() +
                " QP pairs: " + ex);
        }
    }

    private void closePair()
    {
        if (null != pair)
        {
            pair.close();
            pair = null;
        }
    }

    /**
     * @return the pair for this link, reopened after a failed cell left its QPs in error; null when it cannot open.
     */
    private RcPair pairFor(final LinkKind kind)
    {
        if (null == pair && kind == pairKind && null == pairFailure)
        {
            openPair(kind);
        }
        return pair;
    }

    private void cellFailed(final String what, final RuntimeException ex)
    {
        results.notes().add(what + " failed: " + ex.getMessage().lines().findFirst().orElse(ex.toString()));
        closePair();
    }

    private void stream(
        final LinkKind kind, final Op op, final int size, final int qps, final List<SuiteResults.Throughput> into,
        final long warmupNs, final long measureNs)
    {
        final RcPair endpoints = pairFor(kind);
        if (null == endpoints)
        {
            return;
        }
        final int depth = op.isAtomic() || Op.READ == op ?
            Math.min(RcPair.READ_ATOMIC_DEPTH, depthFor(kind, size, qps)) : depthFor(kind, size, qps);
        try
        {
            final ThroughputRun.Result r = new ThroughputRun(endpoints).run(op, size, qps, depth, warmupNs, measureNs);
            into.add(new SuiteResults.Throughput(kind.label(), op.label(), size, qps, depth, r.messagesPerSecond(),
                r.bytesPerSecond(), r.cpuNsPerMessage(), r.retransmitted(), r.linkDrops(), load1()));
        }
        catch (final RuntimeException ex)
        {
            cellFailed(kind.label() + " " + op.label() + " " + ReportWriter.size(size) + " on " + qps + " QPs", ex);
        }
    }

    private void latency(final LinkKind kind, final Op op, final int size, final long warmupNs, final long measureNs)
    {
        final RcPair endpoints = pairFor(kind);
        if (null == endpoints)
        {
            return;
        }
        try
        {
            final LatencyRun.Result r = new LatencyRun(endpoints).run(op, size, warmupNs, measureNs);
            results.latencies().add(new SuiteResults.Latency(kind.label(), op.label(), size, r.percentileUs(50),
                r.percentileUs(99), r.percentileUs(99.9), r.samples(), load1()));
        }
        catch (final RuntimeException ex)
        {
            cellFailed(kind.label() + " " + op.label() + " " + ReportWriter.size(size) + " latency", ex);
        }
    }

    private void scale(final long warmupNs, final long measureNs)
    {
        closePair();
        try
        {
            results.scale(ScaleBench.run(plan.scaleQps(), plan.scaleCostQps(), warmupNs, measureNs, label -> { }));
        }
        catch (final RuntimeException ex)
        {
            results.notes().add("scale run failed: " + ex.getMessage().lines().findFirst().orElse(ex.toString()));
        }
    }

    /**
     * @return the 1-minute load average ({@code /proc/loadavg}'s first field), NaN where it cannot be read.
     */
    static double load1()
    {
        final String load = loadAverage();
        final int space = load.indexOf(' ');
        try
        {
            return Double.parseDouble(space > 0 ? load.substring(0, space) : load);
        }
        catch (final NumberFormatException ex)
        {
            return Double.NaN;
        }
    }

    static String loadAverage()
    {
        try
        {
            return Files.readString(Paths.get("/proc/loadavg"), StandardCharsets.US_ASCII).trim();
        }
        catch (final IOException ex)
        {
            return "unknown (" + ex.getMessage() + ")";
        }
    }

    static String cpuModel()
    {
        try
        {
            for (final String line : Files.readAllLines(Paths.get("/proc/cpuinfo"), StandardCharsets.US_ASCII))
            {
                if (line.startsWith("model name"))
                {
                    return line.substring(line.indexOf(':') + 1).trim();
                }
            }
            return "unknown";
        }
        catch (final IOException ex)
        {
            return "unknown (" + ex.getMessage() + ")";
        }
    }

    static String jdk()
    {
        return System.getProperty("java.vm.name") + " " + System.getProperty("java.vm.vendor") + " " +
            System.getProperty("java.runtime.version");
    }

    /**
     * Run the suite.
     *
     * @param args {@code [--quick | --smoke | --plan NAME] [--links a,b] [--shared-thread] [--out DIR]}.
     */
    public static void main(final String[] args)
    {
        final Args a = BenchArgs.parse(new Args(), args);
        final String planName = a.plan;
        final Path out = null != a.out ? Paths.get(a.out) : Paths.get("bench", "results", "suite-" +
            DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").format(ZonedDateTime.now(ZoneOffset.UTC)));
        sharedThread = a.sharedThread.on();
        List<LinkKind> links = null;
        if (null != a.links)
        {
            links = new ArrayList<>();
            for (final String label : a.links.split(","))
            {
                links.add(LinkKind.of(label.trim()));
            }
        }
        SuitePlan plan = SuitePlan.named(planName);
        if (null != links)
        {
            plan = plan.withLinks(links);
        }
        // bench/run.sh passes PRIORITY on, so the report shows the command with it.
        final String priority = System.getProperty("roce4j.bench.priority", "");
        final String command = (priority.isEmpty() ? "" : "PRIORITY=" + priority + " ") + "bench/run.sh suite " +
            String.join(" ", args);
        try
        {
            final SuiteResults results = new SuiteMain(plan, out, System.err).run(command.trim());
            System.out.println("wrote " + out.resolve(ReportWriter.RESULTS_MD) + ", " +
                out.resolve(ReportWriter.RESULTS_DIR) + " (" + results.throughputs().size() + " stream cells, " +
                results.latencies().size() + " latency cells, " + results.notes().size() + " notes)");
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        // Link threads (Netty event loops) are not daemons everywhere: end the JVM explicitly.
        System.exit(0);
    }

    @Command(name = "bench/run.sh suite", description = "The benchmark suite: every plan cell, then the report.")
    private static final class Args
    {
        /** The last of --quick, --smoke, --full and --plan wins. */
        private String plan = "full";

        @Option(names = "--quick", description = "The quick plan.")
        void quick(final boolean on)
        {
            plan = "quick";
        }

        @Option(names = "--smoke", description = "The smoke plan.")
        void smoke(final boolean on)
        {
            plan = "smoke";
        }

        @Option(names = "--full", description = "The full plan (the default).")
        void full(final boolean on)
        {
            plan = "full";
        }

        @Option(names = "--plan", paramLabel = "NAME", description = "A plan by name.")
        void plan(final String name)
        {
            plan = name;
        }

        @Option(names = "--links", paramLabel = "memory,udp,tunnel", description = "Only these links.")
        private String links;
        @Mixin
        private final BenchArgs.SharedThread sharedThread = new BenchArgs.SharedThread();
        @Option(names = "--out", paramLabel = "DIR", description = "Where the results go.")
        private String out;
    }
}
