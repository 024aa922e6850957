package org.roce4j.bench.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import io.aeron.AeronVersion;
import org.roce4j.bench.BenchArgs;
import org.roce4j.bench.baseline.AeronPeer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * roce4j beside Aeron in one run (issue 15, point 5: "goal: roce4j's round trip no worse than Aeron's on the same
 * medium"): per medium pair, roce4j's RC SEND/RECV round trip of a 64 B message against Aeron's ping-pong of a 64 B
 * message, and roce4j's RC WRITE of 4 KiB messages (1 QP, {@link EngineBench#DEPTH} outstanding) against Aeron's
 * 4 KiB stream, each as a ratio roce4j / Aeron. The pairs:
 * <ul>
 *   <li>{@code ipc}: roce4j's memory fabric ({@link LinkKind#MEMORY}) against Aeron IPC;</li>
 *   <li>{@code udp}: roce4j's udp link on loopback ({@link LinkKind#UDP}) against Aeron UDP unicast on 127.0.0.1.</li>
 * </ul>
 * roce4j runs as in {@link EngineBench} (INVOKER devices, one busy-polling thread per side); Aeron as
 * {@link AeronPeer} runs it (one busy-polling thread per side, plus the embedded driver's threads). The two
 * alternate per figure, so both see the same load.
 *
 * <pre>
 * java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -cp bench/target/benchmarks.jar \
 *     org.roce4j.bench.engine.AeronBench [--media ipc,udp] [--threading dedicated|shared-network|shared|invoker]
 *     [--measure-ms N] [--warmup-ms N] [--repeat N]
 * </pre>
 */
public final class AeronBench
{
    /** Message size of the round trips. */
    public static final int RTT_BYTES = EngineBench.SMALL_BYTES;
    /** Message size of the throughput figures. */
    public static final int STREAM_BYTES = 4096;

    private AeronBench()
    {
    }

    /**
     * What to run.
     *
     * @param media     Aeron media, each against its roce4j counterpart.
     * @param threading the Aeron driver's threading mode.
     * @param busySpin  true: Aeron's data-path agents busy-spin (benchmarks); false: they back off (tests).
     * @param warmupNs  warm-up per figure.
     * @param measureNs measured time per figure.
     */
    public record Settings(
        List<AeronPeer.Medium> media, AeronPeer.Threading threading, boolean busySpin, long warmupNs, long measureNs)
    {
    }

    /**
     * One medium pair's figures.
     *
     * @param medium      Aeron's medium.
     * @param roceLink    roce4j's counterpart.
     * @param roceRtt     roce4j's SEND/RECV round trips.
     * @param aeronRtt    Aeron's ping-pong round trips.
     * @param roceStream  roce4j's WRITE stream.
     * @param aeronStream Aeron's stream.
     */
    public record Row(
        AeronPeer.Medium medium, LinkKind roceLink, LatencyRun.Result roceRtt, AeronPeer.RoundTrips aeronRtt,
        ThroughputRun.Result roceStream, AeronPeer.Throughput aeronStream)
    {
    }

    /**
     * @param medium an Aeron medium.
     * @return roce4j's link of the same kind: the memory fabric for IPC, the udp link for UDP.
     */
    public static LinkKind counterpart(final AeronPeer.Medium medium)
    {
        return AeronPeer.Medium.IPC == medium ? LinkKind.MEMORY : LinkKind.UDP;
    }

    /**
     * Measure every medium pair once.
     *
     * @param settings what to run.
     * @return a row per medium.
     */
    public static List<Row> run(final Settings settings)
    {
        final List<Row> rows = new ArrayList<>();
        try (AeronPeer aeron = new AeronPeer(settings.threading(), settings.busySpin()))
        {
            for (final AeronPeer.Medium medium : settings.media())
            {
                final LinkKind kind = counterpart(medium);
                try (RcPair pair = RcPair.open(kind, EngineBench.options().withQps(1)))
                {
                    final long warmupNs = settings.warmupNs();
                    final long measureNs = settings.measureNs();
                    final LatencyRun.Result roceRtt = new LatencyRun(pair).run(Op.SEND, RTT_BYTES, warmupNs,
                        measureNs);
                    final AeronPeer.RoundTrips aeronRtt = aeron.roundTrips(medium, RTT_BYTES, warmupNs, measureNs);
                    final ThroughputRun.Result roceStream = new ThroughputRun(pair).run(Op.WRITE, STREAM_BYTES, 1,
                        EngineBench.DEPTH, warmupNs, measureNs);
                    final AeronPeer.Throughput aeronStream =
                        aeron.throughput(medium, STREAM_BYTES, warmupNs, measureNs);
                    rows.add(new Row(medium, kind, roceRtt, aeronRtt, roceStream, aeronStream));
                }
            }
        }
        return rows;
    }

    /**
     * @param settings what ran.
     * @param rows     its figures.
     * @return a plain-text table of them.
     */
    public static String describe(final Settings settings, final List<Row> rows)
    {
        final StringBuilder out = new StringBuilder();
        final AeronPeer.Threading threading = settings.threading();
        out.append(String.format(Locale.ROOT, "Aeron %s, driver threading %s (%d driver thread(s)%s), MTU %d; " +
            "roce4j and Aeron: one busy-polling thread per side%n", AeronVersion.VERSION, threading.label(),
            threading.driverThreads(), 0 == threading.driverThreads() ? ", run by the pinging/publishing side" :
            settings.busySpin() ? ", data path busy-spinning" : ", data path backing off", AeronPeer.MTU_BYTES));
        for (final Row row : rows)
        {
            final String pair = row.roceLink().label() + " / Aeron " + row.medium().label();
            final LatencyRun.Result roce = row.roceRtt();
            final AeronPeer.RoundTrips aeron = row.aeronRtt();
            final double aeronP50Us = aeron.histogram().getValueAtPercentile(50) / 1e3;
            final double aeronP99Us = aeron.histogram().getValueAtPercentile(99) / 1e3;
            out.append(String.format(Locale.ROOT, "%-20s %d B round trip: roce4j SEND/RECV p50 %.2f us p99 %.2f us " +
                "(%d samples); Aeron p50 %.2f us p99 %.2f us (%d samples, %d mismatched); roce4j/Aeron p50 %.2f " +
                "p99 %.2f (goal <= 1)%n", pair, RTT_BYTES, roce.percentileUs(50), roce.percentileUs(99),
                roce.samples(), aeronP50Us, aeronP99Us, aeron.histogram().getTotalCount(), aeron.mismatches(),
                roce.percentileUs(50) / aeronP50Us, roce.percentileUs(99) / aeronP99Us));
            final ThroughputRun.Result stream = row.roceStream();
            final AeronPeer.Throughput aeronStream = row.aeronStream();
            out.append(String.format(Locale.ROOT, "%-20s %d B stream: roce4j WRITE 1 QP x %d %.3f M msgs/s " +
                "%.2f GB/s (retransmitted %d); Aeron %.3f M msgs/s %.2f GB/s (back-pressured offers %d, " +
                "sequence errors %d); roce4j/Aeron %.2f%n", pair, STREAM_BYTES, EngineBench.DEPTH,
                stream.messagesPerSecond() / 1e6, stream.bytesPerSecond() / 1e9, stream.retransmitted(),
                aeronStream.messagesPerSecond() / 1e6, aeronStream.bytesPerSecond() / 1e9,
                aeronStream.backPressured(), aeronStream.sequenceErrors(),
                stream.messagesPerSecond() / aeronStream.messagesPerSecond()));
        }
        out.append("load average after these figures: ").append(EngineBench.loadAverage()).append('\n');
        return out.toString();
    }

    /**
     * Run from the command line.
     *
     * @param args {@code [--media ipc,udp] [--threading MODE] [--measure-ms N] [--warmup-ms N] [--repeat N]}.
     */
    public static void main(final String[] args)
    {
        final Args a = BenchArgs.parse(new Args(), args);
        final List<AeronPeer.Medium> media = null == a.media ? List.of(AeronPeer.Medium.values()) :
            AeronPeer.Medium.listOf(a.media);
        final AeronPeer.Threading threading = AeronPeer.Threading.of(a.threading);
        final int repeat = a.repeat;
        final Settings settings = new Settings(media, threading, true, a.times.warmupNs(), a.times.measureNs());
        for (int r = 0; r < repeat; r++)
        {
            System.out.print(describe(settings, run(settings)));
        }
    }

    @Command(name = "AeronBench", description = "roce4j beside Aeron: round trip and 4 KiB stream, IPC and UDP.")
    private static final class Args
    {
        @Mixin
        private final BenchArgs.Times times = new BenchArgs.Times(1000, 3000);
        @Option(names = "--repeat", paramLabel = "N", description = "Run everything N times.")
        private int repeat = 1;
        @Option(names = "--media", paramLabel = "ipc,udp", description = "Aeron's media (default: all).")
        private String media;
        @Option(names = "--threading", paramLabel = "MODE",
            description = "Aeron's threading: dedicated|shared-network|shared|invoker.")
        private String threading = "shared-network";
    }
}
