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
 * Goals on a 2-core machine: 4 GB/s, 3 M msgs/s, 3 µs p50 round trip.
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
    /** Goal: bytes per second of 64 KiB WRITEs. */
    public static final double GOAL_BYTES_PER_SECOND = 4e9;
    /** Goal: 64-byte WRITEs per second. */
    public static final double GOAL_MESSAGES_PER_SECOND = 3e6;
    /** Goal: p50 SEND/RECV round trip in microseconds. */
    public static final double GOAL_P50_US = 3.0;

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
        out.append(String.format(Locale.ROOT,
            "WRITE 64 KiB, 1 QP x %d: %.2f GB/s (goal %.1f); memcpy 64 KiB %.2f GB/s " +
            "(ratio %.2f); CRC32 4 KiB %.2f GB/s (ratio %.2f; the ICRC's ceiling on the memcpy ratio: %.2f); " +
            "%.0f ns/msg, %.0f CPU ns/msg, peak %.2f GB/s; retransmitted %d, link drops %d%n", DEPTH,
            bw.bytesPerSecond() / 1e9, GOAL_BYTES_PER_SECOND / 1e9, figures.memcpyBytesPerSecond() / 1e9,
            bw.bytesPerSecond() / figures.memcpyBytesPerSecond(), figures.crc32BytesPerSecond() / 1e9,
            bw.bytesPerSecond() / figures.crc32BytesPerSecond(),
            figures.crc32BytesPerSecond() / figures.memcpyBytesPerSecond(), bw.nsPerMessage(), bw.cpuNsPerMessage(),
            bw.peakMessagesPerSecond() * BANDWIDTH_BYTES / 1e9, bw.retransmitted(), bw.linkDrops()));
        for (final ThroughputRun.Result rate : new ThroughputRun.Result[] {figures.writeRate(),
            figures.writeRateMultiQp()})
        {
            out.append(String.format(Locale.ROOT,
                "WRITE 64 B, %d QP x %d: %.2f M msgs/s (goal %.1f); ring hand-off %.2f " +
                "M frames/s (ratio %.2f); %.0f ns/msg, %.0f CPU ns/msg, peak %.2f M msgs/s%n", rate.qps(), DEPTH,
                rate.messagesPerSecond() / 1e6, GOAL_MESSAGES_PER_SECOND / 1e6, figures.ringFramesPerSecond() / 1e6,
                rate.messagesPerSecond() / figures.ringFramesPerSecond(), rate.nsPerMessage(),
                rate.cpuNsPerMessage(), rate.peakMessagesPerSecond() / 1e6));
        }
        final LatencyRun.Result lat = figures.sendLatency();
        final Histogram ring = figures.ringRoundTrips();
        out.append(String.format(Locale.ROOT,
            "SEND/RECV 64 B round trip: p50 %.2f us p99 %.2f us p99.9 %.2f us (goal p50 " +
            "%.1f), %d samples; ring round trip p50 %.2f us p99 %.2f us%n", lat.percentileUs(50),
            lat.percentileUs(99), lat.percentileUs(99.9), GOAL_P50_US, lat.samples(),
            ring.getValueAtPercentile(50) / 1e3, ring.getValueAtPercentile(99) / 1e3));
        out.append("load average after these figures: ").append(loadAverage()).append('\n');
        return out.toString();
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
