package org.roce4j.bench.suite;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

import org.roce4j.bench.engine.EngineBench;
import org.roce4j.bench.engine.LinkKind;
import org.roce4j.bench.engine.Op;

/**
 * Writes a suite run as {@code RESULTS.md}, {@code results/results.json} and PNG plots under one directory.
 */
final class ReportWriter
{
    /** The report's file name. */
    static final String RESULTS_MD = "RESULTS.md";
    /** Folder of the JSON file and the plots, next to the report. */
    static final String RESULTS_DIR = "results";
    /** JSON file name. */
    static final String JSON = "results.json";
    /** Plot of bandwidth against message size. */
    static final String BANDWIDTH_PNG = "bandwidth-vs-size.png";
    /** Plot of latency percentiles against message size. */
    static final String LATENCY_PNG = "latency-percentiles.png";
    /** Plot of throughput against the QP count. */
    static final String QPS_PNG = "throughput-vs-qps.png";
    /** Every plot the writer draws. */
    static final List<String> PLOTS = List.of(BANDWIDTH_PNG, LATENCY_PNG, QPS_PNG);
    /** Scale goal: aggregate throughput over all QPs against one QP. */
    static final double SCALE_GOAL = 0.8;

    private final SuiteResults results;
    private final SuitePlan plan;

    ReportWriter(final SuiteResults results, final SuitePlan plan)
    {
        this.results = results;
        this.plan = plan;
    }

    void write(final Path outDir) throws IOException
    {
        final Path dir = outDir.resolve(RESULTS_DIR);
        Files.createDirectories(dir);
        Files.writeString(dir.resolve(JSON), json(), StandardCharsets.UTF_8);
        final ReportPlots plots = new ReportPlots(results, plan);
        plots.bandwidthChart().write(dir.resolve(BANDWIDTH_PNG));
        plots.latencyChart().write(dir.resolve(LATENCY_PNG));
        plots.qpChart().write(dir.resolve(QPS_PNG));
        Files.writeString(outDir.resolve(RESULTS_MD), markdown(), StandardCharsets.UTF_8);
    }

    // ---- formatting helpers ------------------------------------------------------------------------------------

    static String size(final double bytes)
    {
        final long b = (long)bytes;
        if (b >= 1 << 20 && 0 == b % (1 << 20))
        {
            return (b >> 20) + " MiB";
        }
        if (b >= 1024 && 0 == b % 1024)
        {
            return (b >> 10) + " KiB";
        }
        return b + " B";
    }

    static String shortSize(final double bytes)
    {
        return size(bytes).replace(" MiB", "M").replace(" KiB", "K").replace(" B", "");
    }

    private static String f(final double value, final int decimals)
    {
        return Double.isFinite(value) ? String.format(Locale.ROOT, "%." + decimals + "f", value) : "n/a";
    }

    private static String sig(final double value)
    {
        if (!Double.isFinite(value))
        {
            return "n/a";
        }
        final double abs = Math.abs(value);
        return abs >= 100 ? f(value, 0) : abs >= 10 ? f(value, 1) : abs >= 1 ? f(value, 2) : f(value, 3);
    }

    private static String ratio(final double a, final double b)
    {
        return Double.isFinite(a) && Double.isFinite(b) && b > 0 ? f(a / b, 2) : "n/a";
    }

    private static String met(final boolean met)
    {
        return met ? "yes" : "no";
    }

    /**
     * @param loads 1-minute load averages of the cells of one row (NaN where a cell is missing).
     * @return "a" or "a-b": the lowest and highest of them.
     */
    private static String loads(final double... loads)
    {
        double low = Double.POSITIVE_INFINITY;
        double high = Double.NEGATIVE_INFINITY;
        for (final double load : loads)
        {
            if (Double.isFinite(load))
            {
                low = Math.min(low, load);
                high = Math.max(high, load);
            }
        }
        if (!Double.isFinite(low))
        {
            return "n/a";
        }
        return low == high ? f(low, 2) : f(low, 2) + "-" + f(high, 2);
    }

    // ---- markdown ----------------------------------------------------------------------------------------------

    private String markdown()
    {
        final SuiteResults.Environment env = results.environment();
        final StringBuilder md = new StringBuilder(16384);
        md.append("# roce4j bench suite results\n\n");
        md.append("Produced by `").append(env.command()).append("` (plan `").append(env.plan()).append("`, ")
            .append(env.threading()).append(", ")
            .append(f(env.elapsedS() / 60, 1)).append(" min), which builds `bench/target/benchmarks.jar` first " +
            "(`SKIP_BUILD=1` reuses it). How the figures are made: `bench/README.md`.\n\n");
        md.append("| | |\n|---|---|\n");
        md.append("| date | ").append(env.date()).append(" |\n");
        md.append("| JDK | ").append(env.jdk()).append(" |\n");
        md.append("| CPU | ").append(env.cpu()).append(", ").append(env.cores()).append(" cores available |\n");
        md.append("| load average at start | ").append(env.loadAtStart()).append(" |\n");
        md.append("| load average at end | ").append(env.loadAtEnd()).append(" |\n");
        md.append("| per cell | ").append(plan.warmupMs()).append(" ms warm-up, ").append(plan.measureMs())
            .append(" ms measured |\n\n");
        md.append("Every figure stands beside a baseline measured in the same run. Both endpoints run in this JVM, " +
            "each INVOKER-mode device driven by a busy-polling thread of its own (2 threads; the udp link adds " +
            "Netty's event-loop threads). *CPU ns/msg* is the CPU time of those two threads per message, which does " +
            "not grow while other processes hold the cores, unlike wall-clock rates. A load average well above the " +
            "core count means the wall-clock figures are far below what an idle machine gives. The *load* columns " +
            "give the 1-minute load average read right after each cell (a range where a row joins several cells); " +
            "compare figures by their ratio to the same run's baseline rather than across runs.\n\n");
        engineSection(md);
        baselineSection(md);
        for (final LinkKind kind : plan.links())
        {
            linkSection(md, kind.label());
        }
        atomicSection(md);
        qpSection(md);
        scaleSection(md);
        md.append("## Plots\n\n");
        md.append("![bandwidth vs message size](").append(RESULTS_DIR).append('/').append(BANDWIDTH_PNG)
            .append(")\n\n");
        md.append("![latency percentiles](").append(RESULTS_DIR).append('/').append(LATENCY_PNG).append(")\n\n");
        md.append("![throughput vs QP count](").append(RESULTS_DIR).append('/').append(QPS_PNG).append(")\n\n");
        md.append("Raw data: [").append(RESULTS_DIR).append('/').append(JSON).append("](").append(RESULTS_DIR)
            .append('/').append(JSON).append(").\n\n");
        md.append("## Notes\n\n");
        if (results.notes().isEmpty())
        {
            md.append("Every cell ran.\n");
        }
        for (final String note : results.notes())
        {
            md.append("- ").append(note.replace('\n', ' ')).append('\n');
        }
        long resent = 0;
        for (final SuiteResults.Throughput t : results.throughputs())
        {
            resent += t.retransmitted();
        }
        for (final SuiteResults.Throughput t : results.qpAxis())
        {
            resent += t.retransmitted();
        }
        md.append("- Packets retransmitted over all streaming cells: ").append(resent)
            .append(" (see `retransmitted` and `linkDrops` per cell in the JSON).\n");
        return md.toString();
    }

    private void engineSection(final StringBuilder md)
    {
        final SuiteResults.Engine e = results.engine();
        if (null == e)
        {
            return;
        }
        md.append("## Engine headline figures (memory fabric, MTU 4096)\n\n");
        md.append("1-minute load average right after these figures: ").append(f(e.load1(), 2)).append(".\n\n");
        md.append("| benchmark | measured | baseline (same run) | ratio | goal | met |\n|---|---|---|---|---|---|\n");
        md.append("| RC WRITE 64 KiB, 1 QP, 16 outstanding | ").append(f(e.writeGbPerS(), 2)).append(" GB/s (")
            .append(f(e.writeCpuNsPerMsg(), 0)).append(" CPU ns/msg) | memcpy 64 KiB ").append(f(e.memcpyGbPerS(), 2))
            .append(" GB/s | ").append(ratio(e.writeGbPerS(), e.memcpyGbPerS())).append(" | >= ")
            .append(f(EngineBench.GOAL_WRITE_TO_MEMCPY, 2)).append(" | ")
            .append(met(e.writeGbPerS() >= EngineBench.GOAL_WRITE_TO_MEMCPY * e.memcpyGbPerS())).append(" |\n");
        md.append("| RC WRITE 64 B, 1 QP, 16 outstanding | ").append(f(e.rateMPerS(), 2)).append(" M msgs/s (")
            .append(f(e.rateCpuNsPerMsg(), 0)).append(" CPU ns/msg) | ring hand-off ").append(f(e.ringMFramesPerS(), 2))
            .append(" M frames/s | ").append(ratio(e.rateMPerS(), e.ringMFramesPerS())).append(" | >= ")
            .append(f(EngineBench.GOAL_RATE_TO_RING, 2)).append(" | ")
            .append(met(e.rateMPerS() >= EngineBench.GOAL_RATE_TO_RING * e.ringMFramesPerS())).append(" |\n");
        md.append("| RC WRITE 64 B, 16 QPs, 16 outstanding each | ").append(f(e.rateMultiQpMPerS(), 2))
            .append(" M msgs/s | ring hand-off ").append(f(e.ringMFramesPerS(), 2)).append(" M frames/s | ")
            .append(ratio(e.rateMultiQpMPerS(), e.ringMFramesPerS())).append(" | >= ")
            .append(f(EngineBench.GOAL_RATE_TO_RING, 2)).append(" | ")
            .append(met(e.rateMultiQpMPerS() >= EngineBench.GOAL_RATE_TO_RING * e.ringMFramesPerS())).append(" |\n");
        md.append("| SEND/RECV 64 B ping-pong round trip | p50 ").append(f(e.sendP50Us(), 2)).append(" / p99 ")
            .append(f(e.sendP99Us(), 2)).append(" / p99.9 ").append(f(e.sendP999Us(), 2))
            .append(" µs | ring ping-pong p50 ").append(f(e.ringP50Us(), 2)).append(" / p99 ")
            .append(f(e.ringP99Us(), 2)).append(" µs | p50 ").append(ratio(e.sendP50Us(), e.ringP50Us()))
            .append(", p99 ").append(ratio(e.sendP99Us(), e.ringP99Us())).append(" | p50 <= ")
            .append(f(EngineBench.GOAL_P50_TO_RING, 0)).append("x, p99 <= ").append(f(EngineBench.GOAL_P99_TO_RING, 0))
            .append("x | ").append(met(e.sendP50Us() <= EngineBench.GOAL_P50_TO_RING * e.ringP50Us() &&
                e.sendP99Us() <= EngineBench.GOAL_P99_TO_RING * e.ringP99Us())).append(" |\n");
        md.append("| same two streams, one thread driving both endpoints | WRITE 64 KiB ")
            .append(f(e.sharedThreadWriteGbPerS(), 2)).append(" GB/s, WRITE 64 B ")
            .append(f(e.sharedThreadRateMPerS(), 2)).append(" M msgs/s | | | | |\n\n");
    }

    private void baselineSection(final StringBuilder md)
    {
        md.append("## Baselines\n\n");
        md.append("memcpy: one `UnsafeBuffer.putBytes` of the message between direct buffers. CRC32: `java.util.zip" +
            ".CRC32` over the message (the ICRC's intrinsic). Raw UDP: JDK `DatagramChannel`s on 127.0.0.1, one " +
            "busy-polling thread each, messages cut into datagrams of at most 4096 bytes (stream goodput; ping-pong " +
            "round trip).\n\n");
        md.append("| size | memcpy GB/s | CRC32 GB/s | raw UDP GB/s | raw UDP p50 µs | p99 µs | p99.9 µs | " +
            "load |\n" +
            "|---|---|---|---|---|---|---|---|\n");
        for (final SuiteResults.Baseline b : results.baselines())
        {
            md.append("| ").append(size(b.sizeBytes())).append(" | ").append(sig(b.memcpyBytesPerSecond() / 1e9))
                .append(" | ").append(sig(b.crc32BytesPerSecond() / 1e9)).append(" | ")
                .append(sig(b.udpBytesPerSecond() / 1e9)).append(" | ").append(sig(b.udpP50Us())).append(" | ")
                .append(sig(b.udpP99Us())).append(" | ").append(sig(b.udpP999Us())).append(" | ")
                .append(loads(b.load1())).append(" |\n");
        }
        md.append('\n');
    }

    private void linkSection(final StringBuilder md, final String link)
    {
        final List<Op> ops = List.of(Op.WRITE, Op.READ, Op.SEND);
        md.append("## ").append(link).append(" link\n\n");
        md.append("Bandwidth and message rate on 1 QP (outstanding WRs per cell in the JSON), with the same run's " +
            "memcpy and raw UDP at that size.\n\n");
        md.append("| size | WRITE GB/s | READ GB/s | SEND GB/s | WRITE M msg/s | READ M msg/s | SEND M msg/s | " +
            "WRITE CPU ns/msg | WRITE / memcpy | WRITE / raw UDP | load |\n" +
            "|---|---|---|---|---|---|---|---|---|---|---|\n");
        boolean any = false;
        for (final int size : plan.streamSizes())
        {
            final StringBuilder row = new StringBuilder("| ").append(size(size));
            boolean found = false;
            for (final Op op : ops)
            {
                final SuiteResults.Throughput t = results.throughput(link, op, size);
                found |= null != t;
                row.append(" | ").append(null == t ? "n/a" : sig(t.bytesPerSecond() / 1e9));
            }
            for (final Op op : ops)
            {
                final SuiteResults.Throughput t = results.throughput(link, op, size);
                row.append(" | ").append(null == t ? "n/a" : sig(t.messagesPerSecond() / 1e6));
            }
            final SuiteResults.Throughput w = results.throughput(link, Op.WRITE, size);
            final SuiteResults.Baseline b = results.baseline(size);
            row.append(" | ").append(null == w ? "n/a" : f(w.cpuNsPerMessage(), 0));
            row.append(" | ").append(null == w || null == b ? "n/a" :
                ratio(w.bytesPerSecond(), b.memcpyBytesPerSecond()));
            row.append(" | ").append(null == w || null == b ? "n/a" :
                ratio(w.bytesPerSecond(), b.udpBytesPerSecond()));
            final double[] rowLoads = new double[ops.size()];
            for (int i = 0; i < rowLoads.length; i++)
            {
                final SuiteResults.Throughput t = results.throughput(link, ops.get(i), size);
                rowLoads[i] = null == t ? Double.NaN : t.load1();
            }
            row.append(" | ").append(loads(rowLoads));
            if (found)
            {
                md.append(row).append(" |\n");
                any = true;
            }
        }
        if (!any)
        {
            md.append("| no data (see notes) | | | | | | | | | | |\n");
        }
        md.append("\nRound-trip latency on 1 QP, one message in flight (WRITE: ping-pong through memory; READ: one " +
            "READ; SEND: ping-pong), with the same run's raw UDP ping-pong.\n\n");
        md.append("| size | WRITE p50 / p99 / p99.9 µs | READ p50 / p99 / p99.9 µs | SEND p50 / p99 / p99.9 µs | " +
            "raw UDP p50 / p99 / p99.9 µs | load |\n|---|---|---|---|---|---|\n");
        for (final int size : plan.latencySizes())
        {
            final StringBuilder row = new StringBuilder("| ").append(size(size));
            boolean found = false;
            for (final Op op : ops)
            {
                final SuiteResults.Latency l = results.latency(link, op, size);
                found |= null != l;
                row.append(" | ").append(null == l ? "n/a" :
                    sig(l.p50Us()) + " / " + sig(l.p99Us()) + " / " + sig(l.p999Us()));
            }
            final SuiteResults.Baseline b = results.baseline(size);
            row.append(" | ").append(null == b ? "n/a" :
                sig(b.udpP50Us()) + " / " + sig(b.udpP99Us()) + " / " + sig(b.udpP999Us()));
            final double[] rowLoads = new double[ops.size()];
            for (int i = 0; i < rowLoads.length; i++)
            {
                final SuiteResults.Latency l = results.latency(link, ops.get(i), size);
                rowLoads[i] = null == l ? Double.NaN : l.load1();
            }
            row.append(" | ").append(loads(rowLoads));
            if (found)
            {
                md.append(row).append(" |\n");
            }
        }
        md.append('\n');
    }

    private void atomicSection(final StringBuilder md)
    {
        md.append("## Atomics (8 B, 1 QP)\n\n");
        md.append("| link | operation | M ops/s (16 outstanding) | CPU ns/op | round trip p50 / p99 / p99.9 µs | " +
            "load |\n" +
            "|---|---|---|---|---|---|\n");
        for (final LinkKind kind : plan.links())
        {
            for (final Op op : List.of(Op.FETCH_ADD, Op.CMP_SWAP))
            {
                final SuiteResults.Throughput t = results.throughput(kind.label(), op, 8);
                final SuiteResults.Latency l = results.latency(kind.label(), op, 8);
                if (null == t && null == l)
                {
                    continue;
                }
                md.append("| ").append(kind.label()).append(" | ").append(op.label()).append(" | ")
                    .append(null == t ? "n/a" : sig(t.messagesPerSecond() / 1e6)).append(" | ")
                    .append(null == t ? "n/a" : f(t.cpuNsPerMessage(), 0)).append(" | ")
                    .append(null == l ? "n/a" : sig(l.p50Us()) + " / " + sig(l.p99Us()) + " / " + sig(l.p999Us()))
                    .append(" | ").append(loads(null == t ? Double.NaN : t.load1(), null == l ? Double.NaN : l.load1()))
                    .append(" |\n");
            }
        }
        md.append('\n');
    }

    private void qpSection(final StringBuilder md)
    {
        md.append("## Throughput against the QP count\n\n");
        md.append("Subset of the QP axis: ").append(plan.qpAxisOps()).append(" at ").append(plan.qpAxisSizes())
            .append(" bytes on ").append(plan.qpCounts()).append(" QPs (the whole size axis times 4 QP counts " +
            "would not fit the run's time, and 4096 QPs with large messages in flight would not fit the fabric's " +
            "rings). Outstanding WRs per QP shrink as QPs grow so the total stays within the CQs and the medium's " +
            "buffers.\n\n");
        md.append("| link | op | size | QPs | outstanding/QP | M msg/s | GB/s | CPU ns/msg | packets resent | " +
            "load |\n" +
            "|---|---|---|---|---|---|---|---|---|---|\n");
        for (final SuiteResults.Throughput t : results.qpAxis())
        {
            md.append("| ").append(t.link()).append(" | ").append(t.op()).append(" | ").append(size(t.sizeBytes()))
                .append(" | ").append(t.qps()).append(" | ").append(t.depth()).append(" | ")
                .append(sig(t.messagesPerSecond() / 1e6)).append(" | ").append(sig(t.bytesPerSecond() / 1e9))
                .append(" | ").append(f(t.cpuNsPerMessage(), 0)).append(" | ").append(t.retransmitted())
                .append(" | ").append(loads(t.load1())).append(" |\n");
        }
        md.append('\n');
    }

    private void scaleSection(final StringBuilder md)
    {
        final SuiteResults.Scale s = results.scale();
        if (null == s)
        {
            return;
        }
        final double share = s.aggregateMessagesPerSecond() / s.singleQpMessagesPerSecond();
        md.append("## Scale: ").append(s.qps()).append(" connected RC QPs (").append(s.link()).append(" fabric)\n\n");
        md.append("1-minute load average at the end of the scale run: ").append(f(s.load1(), 2)).append(".\n\n");
        md.append("| figure | measured | goal |\n|---|---|---|\n");
        md.append("| aggregate ").append(size(s.sizeBytes())).append(" WRITE, all ").append(s.qps())
            .append(" QPs active (").append(s.aggregateDepth()).append(" outstanding each) | ")
            .append(sig(s.aggregateMessagesPerSecond() / 1e6)).append(" M msg/s, ")
            .append(f(s.aggregateCpuNsPerMessage(), 0)).append(" CPU ns/msg | |\n");
        md.append("| single QP, 16 outstanding | ").append(sig(s.singleQpMessagesPerSecond() / 1e6))
            .append(" M msg/s, ").append(f(s.singleQpCpuNsPerMessage(), 0)).append(" CPU ns/msg | |\n");
        md.append("| aggregate / single QP | ").append(f(share * 100, 0)).append(" % | >= ")
            .append(f(SCALE_GOAL * 100, 0)).append(" % (").append(share >= SCALE_GOAL ? "met" : "missed")
            .append(") |\n");
        md.append("| CPU per message, all QPs / single QP | ")
            .append(ratio(s.aggregateCpuNsPerMessage(), s.singleQpCpuNsPerMessage())).append(" | flat (~1) |\n");
        md.append("| heap per idle QP (16-deep SQ and RQ, 1 SGE, 16 receives posted) | ")
            .append(f(s.heapBytesPerIdleQp(), 0)).append(" bytes | reported |\n");
        md.append("| QP pairs created and connected (both sides, INIT+RTR+RTS) | ")
            .append(sig(s.connectPerSecond())).append(" per second | reported |\n\n");
        md.append("Per-packet cost against the QP count (").append(size(s.costSizeBytes()))
            .append(" WRITE, one packet per message):\n\n");
        md.append("| QPs | outstanding/QP | M msg/s | CPU ns/msg (both sides) | load |\n|---|---|---|---|---|\n");
        for (final SuiteResults.CostPoint c : s.costs())
        {
            md.append("| ").append(c.qps()).append(" | ").append(c.depth()).append(" | ")
                .append(sig(c.messagesPerSecond() / 1e6)).append(" | ").append(f(c.cpuNsPerMessage(), 0))
                .append(" | ").append(loads(c.load1())).append(" |\n");
        }
        md.append('\n');
    }

    // ---- JSON --------------------------------------------------------------------------------------------------

    private String json()
    {
        final JsonWriter w = new JsonWriter().beginObject();
        final SuiteResults.Environment env = results.environment();
        w.name("environment").beginObject().field("date", env.date()).field("jdk", env.jdk()).field("cpu", env.cpu())
            .field("cores", env.cores()).field("loadAtStart", env.loadAtStart()).field("loadAtEnd", env.loadAtEnd())
            .field("plan", env.plan()).field("threading", env.threading()).field("command", env.command())
            .field("elapsedSeconds", env.elapsedS())
            .field("warmupMs", plan.warmupMs()).field("measureMs", plan.measureMs()).endObject();
        final SuiteResults.Engine e = results.engine();
        if (null != e)
        {
            w.name("engine").beginObject().field("writeGBps", e.writeGbPerS()).field("memcpyGBps", e.memcpyGbPerS())
                .field("writeCpuNsPerMsg", e.writeCpuNsPerMsg()).field("rateMmsgps", e.rateMPerS())
                .field("rateMultiQpMmsgps", e.rateMultiQpMPerS()).field("rateCpuNsPerMsg", e.rateCpuNsPerMsg())
                .field("ringMframesps", e.ringMFramesPerS()).field("sendP50Us", e.sendP50Us())
                .field("sendP99Us", e.sendP99Us()).field("sendP999Us", e.sendP999Us())
                .field("ringP50Us", e.ringP50Us()).field("ringP99Us", e.ringP99Us())
                .field("sharedThreadWriteGBps", e.sharedThreadWriteGbPerS())
                .field("sharedThreadRateMmsgps", e.sharedThreadRateMPerS()).field("load1", e.load1()).endObject();
        }
        w.name("baselines").beginArray();
        for (final SuiteResults.Baseline b : results.baselines())
        {
            w.beginObject().field("sizeBytes", b.sizeBytes()).field("memcpyBytesPerSecond", b.memcpyBytesPerSecond())
                .field("crc32BytesPerSecond", b.crc32BytesPerSecond()).field("udpBytesPerSecond", b.udpBytesPerSecond())
                .field("udpP50Us", b.udpP50Us()).field("udpP99Us", b.udpP99Us()).field("udpP999Us", b.udpP999Us())
                .field("load1", b.load1()).endObject();
        }
        w.endArray();
        throughputArray(w, "throughput", results.throughputs());
        throughputArray(w, "qpAxis", results.qpAxis());
        w.name("latency").beginArray();
        for (final SuiteResults.Latency l : results.latencies())
        {
            w.beginObject().field("link", l.link()).field("op", l.op()).field("sizeBytes", l.sizeBytes())
                .field("p50Us", l.p50Us()).field("p99Us", l.p99Us()).field("p999Us", l.p999Us())
                .field("samples", l.samples()).field("load1", l.load1()).endObject();
        }
        w.endArray();
        final SuiteResults.Scale s = results.scale();
        if (null != s)
        {
            w.name("scale").beginObject().field("link", s.link()).field("qps", s.qps())
                .field("connectPerSecond", s.connectPerSecond()).field("heapBytesPerIdleQp", s.heapBytesPerIdleQp())
                .field("sizeBytes", s.sizeBytes()).field("singleQpMessagesPerSecond", s.singleQpMessagesPerSecond())
                .field("singleQpCpuNsPerMessage", s.singleQpCpuNsPerMessage())
                .field("aggregateMessagesPerSecond", s.aggregateMessagesPerSecond())
                .field("aggregateDepth", s.aggregateDepth())
                .field("aggregateCpuNsPerMessage", s.aggregateCpuNsPerMessage())
                .field("costSizeBytes", s.costSizeBytes()).field("load1", s.load1()).name("costs").beginArray();
            for (final SuiteResults.CostPoint c : s.costs())
            {
                w.beginObject().field("qps", c.qps()).field("depth", c.depth())
                    .field("messagesPerSecond", c.messagesPerSecond()).field("cpuNsPerMessage", c.cpuNsPerMessage())
                    .field("load1", c.load1()).endObject();
            }
            w.endArray().endObject();
        }
        w.name("notes").beginArray();
        for (final String note : results.notes())
        {
            w.value(note);
        }
        return w.endArray().endObject().toString();
    }

    private static void throughputArray(
        final JsonWriter w, final String name, final List<SuiteResults.Throughput> rows)
    {
        w.name(name).beginArray();
        for (final SuiteResults.Throughput t : rows)
        {
            w.beginObject().field("link", t.link()).field("op", t.op()).field("sizeBytes", t.sizeBytes())
                .field("qps", t.qps()).field("depth", t.depth()).field("messagesPerSecond", t.messagesPerSecond())
                .field("bytesPerSecond", t.bytesPerSecond()).field("cpuNsPerMessage", t.cpuNsPerMessage())
                .field("retransmitted", t.retransmitted()).field("linkDrops", t.linkDrops()).field("load1", t.load1())
                .endObject();
        }
        w.endArray();
    }
}
