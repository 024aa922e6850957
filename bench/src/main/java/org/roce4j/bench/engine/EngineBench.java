package org.roce4j.bench.engine;

import java.util.Locale;

import org.HdrHistogram.Histogram;
import org.roce4j.bench.BenchArgs;
import org.roce4j.bench.baseline.Baselines;
import org.roce4j.ib.Mtu;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The engine's three headline benchmarks (issue 4, point 7), each beside a baseline measured in the same run, over
 * the in-memory fabric at MTU 4096 with both sides busy-polling on threads of their own (INVOKER-mode devices, one
 * thread each):
 * <ol>
 *   <li>RC WRITE throughput of 64 KiB messages, 1 QP, 16 outstanding; baseline: memcpy of 64 KiB, and beside it
 *   CRC32 over one 4 KiB frame's worth of bytes: every byte of a WRITE passes the JDK's CRC32 once on each side (the
 *   ICRC, IBA A17.3.3), the two sides in parallel, so CRC32's rate bounds the WRITE's, and CRC32 / memcpy bounds the
 *   ratio to memcpy. That bound moves with the CPU far more than memcpy does: the JDK's CRC32 intrinsic folds 512 bits
 *   at a time with AVX-512 VPCLMULQDQ and 128 bits without it;</li>
 *   <li>64-byte RC WRITE message rate, 1 QP and 16 QPs, 16 outstanding each; baseline: 64-byte-payload frames
 *   handed through the fabric's ring between two threads;</li>
 *   <li>SEND/RECV ping-pong round trip (64 B), p50/p99/p99.9; baseline: the same frame back and forth between two
 *   threads through two such rings.</li>
 * </ol>
 * Goals (issue 15), as ratios to the baselines measured in the same run: WRITE 64 KiB >= 0.25 of memcpy, WRITE 64 B
 * >= 0.3 of the ring hand-off, round trip p50 <= 4x and p99 <= 6x the ring round trip; each line says whether it
 * met its goal.
 *
 * <pre>
 * java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -cp bench/target/benchmarks.jar \
 *     org.roce4j.bench.engine.EngineBench [--measure-ms N] [--warmup-ms N] [--repeat N] [--shared-thread]
 * </pre>
 */
public final class EngineBench
{
    /** Message size of the throughput benchmark. */
    public static final int BANDWIDTH_BYTES = 64 * 1024;
    /** Message size of the rate and latency benchmarks. */
    public static final int SMALL_BYTES = 64;
    /** WRs outstanding per QP. */
    public static final int DEPTH = 16;
    /** QPs of the multi-QP rate figure. */
    public static final int RATE_QPS = 16;
    /** Frame length of a 64-byte RDMA WRITE ONLY: Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + RETH 16 + 64 + ICRC 4. */
    public static final int SMALL_FRAME_BYTES = 14 + 20 + 8 + 12 + 16 + SMALL_BYTES + 4;
    /** Issue 15's goal: 64 KiB WRITE bytes per second at least this share of memcpy's in the same run. */
    public static final double GOAL_WRITE_TO_MEMCPY = 0.25;
    /** Issue 15's goal: 64 B WRITEs per second at least this share of the ring hand-off's frames per second. */
    public static final double GOAL_RATE_TO_RING = 0.3;
    /** Issue 15's goal: SEND/RECV round trip p50 at most this many ring round trips (p50). */
    public static final double GOAL_P50_TO_RING = 4.0;
    /** Issue 15's goal: SEND/RECV round trip p99 at most this many ring round trips (p99, like for like). */
    public static final double GOAL_P99_TO_RING = 6.0;

    private EngineBench()
    {
    }

    /**
     * Figures of one run of the three benchmarks.
     *
     * @param writeBandwidth   64 KiB WRITE stream.
     * @param memcpyBytesPerSecond memcpy of 64 KiB.
     * @param crc32BytesPerSecond CRC32 over 4 KiB, the ICRC's rate and so the WRITE's ceiling.
     * @param writeRate        64 B WRITE stream on 1 QP.
     * @param writeRateMultiQp 64 B WRITE stream on {@link #RATE_QPS} QPs.
     * @param ringFramesPerSecond 64 B-payload frames through the fabric ring.
     * @param sendLatency      SEND ping-pong.
     * @param ringRoundTrips   ring ping-pong round trips (ns).
     */
    public record Figures(
        ThroughputRun.Result writeBandwidth,
        double memcpyBytesPerSecond,
        double crc32BytesPerSecond,
        ThroughputRun.Result writeRate,
        ThroughputRun.Result writeRateMultiQp,
        double ringFramesPerSecond,
        LatencyRun.Result sendLatency,
        Histogram ringRoundTrips)
    {
    }

    /**
     * Run the three benchmarks and their baselines.
     *
     * @param warmupNs     warm-up per measurement.
     * @param measureNs    measured time per figure.
     * @param sharedThread true to drive both endpoints from one thread (CPU cost of both sides on one core).
     * @return the figures.
     */
    public static Figures run(final long warmupNs, final long measureNs, final boolean sharedThread)
    {
        final double memcpy = Baselines.memcpyBytesPerSecond(BANDWIDTH_BYTES, measureNs);
        final double crc32 = Baselines.crc32BytesPerSecond(Mtu.MTU_4096.bytes(), measureNs);
        final double ring = Baselines.ringFramesPerSecond(SMALL_FRAME_BYTES, measureNs);
        final Histogram ringRtt = Baselines.ringRoundTrips(SMALL_FRAME_BYTES, warmupNs, measureNs);
        try (RcPair pair = RcPair.open(LinkKind.MEMORY, options().withSharedThread(sharedThread)))
        {
            final ThroughputRun stream = new ThroughputRun(pair);
            final ThroughputRun.Result bandwidth = stream.run(Op.WRITE, BANDWIDTH_BYTES, 1, DEPTH, warmupNs, measureNs);
            final ThroughputRun.Result rate = stream.run(Op.WRITE, SMALL_BYTES, 1, DEPTH, warmupNs, measureNs);
            final ThroughputRun.Result rateMulti =
                stream.run(Op.WRITE, SMALL_BYTES, RATE_QPS, DEPTH, warmupNs, measureNs);
            final LatencyRun.Result latency = new LatencyRun(pair).run(Op.SEND, SMALL_BYTES, warmupNs, measureNs);
            return new Figures(bandwidth, memcpy, crc32, rate, rateMulti, ring, latency, ringRtt);
        }
    }

    /**
     * @return the endpoint sizes the engine benchmarks use.
     */
    public static RcPair.Options options()
    {
        return new RcPair.Options(RATE_QPS, DEPTH, DEPTH, 1024, 4 * 1024 * 1024, 16 * 1024 * 1024, false);
    }

    /**
     * @param figures a run's figures.
     * @return a plain-text table of them.
     */
    public static String describe(final Figures figures)
    {
        final StringBuilder out = new StringBuilder();
        final ThroughputRun.Result bw = figures.writeBandwidth();
        final double bwRatio = bw.bytesPerSecond() / figures.memcpyBytesPerSecond();
        out.append(String.format(Locale.ROOT,
            "WRITE 64 KiB, 1 QP x %d: %.2f GB/s = %.2f of memcpy 64 KiB (%.2f GB/s; goal >= %.2f: %s); " +
            "CRC32 4 KiB %.2f GB/s (WRITE / CRC32 %.2f; CRC32 / memcpy %.2f, the ICRC's ceiling on that ratio); " +
            "%.0f ns/msg, %.0f CPU ns/msg, peak %.2f GB/s; retransmitted %d, link drops %d%n", DEPTH,
            bw.bytesPerSecond() / 1e9, bwRatio, figures.memcpyBytesPerSecond() / 1e9, GOAL_WRITE_TO_MEMCPY,
            verdict(bwRatio >= GOAL_WRITE_TO_MEMCPY), figures.crc32BytesPerSecond() / 1e9,
            bw.bytesPerSecond() / figures.crc32BytesPerSecond(),
            figures.crc32BytesPerSecond() / figures.memcpyBytesPerSecond(), bw.nsPerMessage(), bw.cpuNsPerMessage(),
            bw.peakMessagesPerSecond() * BANDWIDTH_BYTES / 1e9, bw.retransmitted(), bw.linkDrops()));
        for (final ThroughputRun.Result rate : new ThroughputRun.Result[] {figures.writeRate(),
            figures.writeRateMultiQp()})
        {
            final double rateRatio = rate.messagesPerSecond() / figures.ringFramesPerSecond();
            out.append(String.format(Locale.ROOT,
                "WRITE 64 B, %d QP x %d: %.2f M msgs/s = %.2f of the ring hand-off (%.2f M frames/s; " +
                "goal >= %.2f: %s); %.0f ns/msg, %.0f CPU ns/msg, peak %.2f M msgs/s%n", rate.qps(), DEPTH,
                rate.messagesPerSecond() / 1e6, rateRatio, figures.ringFramesPerSecond() / 1e6, GOAL_RATE_TO_RING,
                verdict(rateRatio >= GOAL_RATE_TO_RING), rate.nsPerMessage(), rate.cpuNsPerMessage(),
                rate.peakMessagesPerSecond() / 1e6));
        }
        final LatencyRun.Result lat = figures.sendLatency();
        final Histogram ring = figures.ringRoundTrips();
        final double ringP50Us = ring.getValueAtPercentile(50) / 1e3;
        final double ringP99Us = ring.getValueAtPercentile(99) / 1e3;
        final double p50Factor = lat.percentileUs(50) / ringP50Us;
        final double p99Factor = lat.percentileUs(99) / ringP99Us;
        out.append(String.format(Locale.ROOT,
            "SEND/RECV 64 B round trip: p50 %.2f us = %.1fx the ring round trip (p50 %.2f us; goal <= %.0fx: %s), " +
            "p99 %.2f us = %.1fx (p99 %.2f us; goal <= %.0fx: %s), p99.9 %.2f us, %d samples%n",
            lat.percentileUs(50), p50Factor, ringP50Us, GOAL_P50_TO_RING, verdict(p50Factor <= GOAL_P50_TO_RING),
            lat.percentileUs(99), p99Factor, ringP99Us, GOAL_P99_TO_RING, verdict(p99Factor <= GOAL_P99_TO_RING),
            lat.percentileUs(99.9), lat.samples()));
        out.append("load average after these figures: ").append(loadAverage()).append('\n');
        return out.toString();
    }

    private static String verdict(final boolean met)
    {
        return met ? "met" : "not met";
    }

    /**
     * @return {@code /proc/loadavg} (1, 5 and 15-minute load averages, runnable/total tasks, last pid).
     */
    static String loadAverage()
    {
        try
        {
            return java.nio.file.Files.readString(java.nio.file.Paths.get("/proc/loadavg"),
                java.nio.charset.StandardCharsets.US_ASCII).trim();
        }
        catch (final java.io.IOException ex)
        {
            return "unknown (" + ex.getMessage() + ")";
        }
    }

    /**
     * Run one benchmark alone, repeatedly, without baselines: for profilers.
     */
    private static void profileOne(
        final String which, final long warmupNs, final long measureNs, final boolean shared, final int repeat)
    {
        try (RcPair pair = RcPair.open(LinkKind.MEMORY, options().withSharedThread(shared)))
        {
            for (int r = 0; r < repeat; r++)
            {
                switch (which)
                {
                    case "bandwidth":
                    {
                        final ThroughputRun.Result result =
                            new ThroughputRun(pair).run(Op.WRITE, BANDWIDTH_BYTES, 1, DEPTH, warmupNs, measureNs);
                        System.out.printf(Locale.ROOT, "WRITE 64 KiB: %.2f GB/s, %.0f ns/msg, %.0f CPU ns/msg, " +
                            "peak %.2f GB/s; load %s%n", result.bytesPerSecond() / 1e9, result.nsPerMessage(),
                            result.cpuNsPerMessage(), result.peakMessagesPerSecond() * BANDWIDTH_BYTES / 1e9,
                            loadAverage());
                        break;
                    }
                    case "rate":
                    {
                        final ThroughputRun.Result result =
                            new ThroughputRun(pair).run(Op.WRITE, SMALL_BYTES, 1, DEPTH, warmupNs, measureNs);
                        System.out.printf(Locale.ROOT, "WRITE 64 B: %.2f M msgs/s, %.0f ns/msg, %.0f CPU ns/msg, " +
                            "peak %.2f M msgs/s; load %s%n", result.messagesPerSecond() / 1e6, result.nsPerMessage(),
                            result.cpuNsPerMessage(), result.peakMessagesPerSecond() / 1e6, loadAverage());
                        break;
                    }
                    default:
                    {
                        final LatencyRun.Result result = new LatencyRun(pair).run(Op.SEND, SMALL_BYTES, warmupNs,
                            measureNs);
                        System.out.printf(Locale.ROOT, "SEND 64 B round trip: p50 %.2f us, p99 %.2f us, p99.9 %.2f " +
                            "us; load %s%n", result.percentileUs(50), result.percentileUs(99),
                            result.percentileUs(99.9), loadAverage());
                        break;
                    }
                }
            }
        }
    }

    /**
     * Run from the command line.
     *
     * @param args {@code [--measure-ms N] [--warmup-ms N] [--repeat N] [--shared-thread]}.
     */
    public static void main(final String[] args)
    {
        final Args a = BenchArgs.parse(new Args(), args);
        final long warmupNs = a.times.warmupNs();
        final long measureNs = a.times.measureNs();
        final boolean shared = a.shared.on();
        final int repeat = a.repeat;
        final String only = a.only;
        if (null != only)
        {
            profileOne(only, warmupNs, measureNs, shared,
                repeat);
            return;
        }
        for (int r = 0; r < repeat; r++)
        {
            System.out.print(describe(run(warmupNs, measureNs, shared)));
        }
    }

    @Command(name = "EngineBench", description = "The engine over the memory fabric beside memcpy, CRC32 and the ring.")
    private static final class Args
    {
        @Mixin
        private final BenchArgs.Times times = new BenchArgs.Times(1000, 3000);
        @Option(names = "--repeat", paramLabel = "N", description = "Run everything N times.")
        private int repeat = 1;
        @Mixin
        private final BenchArgs.SharedThread shared = new BenchArgs.SharedThread();
        @Option(names = "--only", paramLabel = "bandwidth|rate|latency", description = "Profile one measurement.")
        private String only;
    }
}
