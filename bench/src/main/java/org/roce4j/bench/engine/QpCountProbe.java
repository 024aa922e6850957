package org.roce4j.bench.engine;

import java.util.Locale;

import org.roce4j.bench.BenchArgs;
import org.roce4j.transport.TransportCounter;
import org.roce4j.verbs.DeviceCounters;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Diagnostic for the scale run (bench/README.md, "Scale"): streams 64-byte WRITEs over the memory fabric on several
 * QP counts, keeping the same total number of WRs outstanding where it can, and prints beside each rate the frames
 * the server sent per message (its ACKs) and the ACK requests it coalesced per message, to show whether the cost
 * per message that grows with the QP count is per-QP state or extra ACK frames.
 *
 * <pre>
 * java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -cp bench/target/benchmarks.jar \
 *     org.roce4j.bench.engine.QpCountProbe [--measure-ms N] [--warmup-ms N] [--qps 4096] [--shared-thread]
 * </pre>
 */
public final class QpCountProbe
{
    /** Message size: one small packet per message. */
    private static final int SIZE_BYTES = 64;
    /** WRs outstanding over all QPs, as ScaleBench keeps them. */
    private static final int TOTAL_OUTSTANDING = 8192;
    /** Most WRs per QP (the QPs' send depth). */
    private static final int MAX_DEPTH = 16;

    private QpCountProbe()
    {
    }

    /**
     * Run from the command line.
     *
     * @param args {@code [--measure-ms N] [--warmup-ms N] [--qps N] [--shared-thread]}.
     */
    public static void main(final String[] args)
    {
        final Args a = BenchArgs.parse(new Args(), args);
        final int maxQps = a.maxQps;
        final boolean shared = a.shared.on();
        final int cqDepth = Math.min(32767, Math.max(1024, maxQps * MAX_DEPTH));
        final RcPair.Options options = new RcPair.Options(maxQps, MAX_DEPTH, MAX_DEPTH, cqDepth,
            4 * 1024 * 1024, 64 * 1024 * 1024, shared);
        try (RcPair pair = RcPair.open(LinkKind.MEMORY, options))
        {
            final ThroughputRun stream = new ThroughputRun(pair);
            final DeviceCounters server = pair.server().device().counters();
            for (int qps = 1; qps <= maxQps; qps *= 4)
            {
                for (final int depth : new int[] {Math.min(MAX_DEPTH, Math.max(1, TOTAL_OUTSTANDING / qps)), 2})
                {
                    if (depth > MAX_DEPTH || qps * depth > TOTAL_OUTSTANDING)
                    {
                        continue;
                    }
                    final long acksBefore = server.get(TransportCounter.ACKS_SENT);
                    final long coalescedBefore = server.get(TransportCounter.ACKS_COALESCED);
                    final long receivedBefore = server.get(TransportCounter.PACKETS_RECEIVED);
                    final ThroughputRun.Result r = stream.run(Op.WRITE, SIZE_BYTES, qps, depth,
                        a.times.warmupNs(), a.times.measureNs());
                    // Counters cover warm-up, measurement and drain: divide by the packets the server received.
                    final double received = server.get(TransportCounter.PACKETS_RECEIVED) - receivedBefore;
                    System.out.printf(Locale.ROOT, "%5d QPs x %2d: %.2f M msgs/s, %5.0f CPU ns/msg, " +
                        "ACKs per request %.3f, coalesced per request %.3f; load %s%n", qps, depth,
                        r.messagesPerSecond() / 1e6, r.cpuNsPerMessage(),
                        (server.get(TransportCounter.ACKS_SENT) - acksBefore) / received,
                        (server.get(TransportCounter.ACKS_COALESCED) - coalescedBefore) / received,
                        EngineBench.loadAverage());
                }
            }
        }
    }

    @Command(name = "QpCountProbe", description = "WRITE message rate from 1 QP to --qps QPs, with the ACK counters.")
    private static final class Args
    {
        @Mixin
        private final BenchArgs.Times times = new BenchArgs.Times(500, 2000);
        @Option(names = "--qps", paramLabel = "N", description = "Most QPs (from 1, times 4).")
        private int maxQps = 4096;
        @Mixin
        private final BenchArgs.SharedThread shared = new BenchArgs.SharedThread();
    }
}
