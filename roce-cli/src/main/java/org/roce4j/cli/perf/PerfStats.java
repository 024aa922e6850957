package org.roce4j.cli.perf;

import java.util.Arrays;

import org.roce4j.cm.perftest.PerftestReport;

/**
 * perftest's arithmetic on its timestamps (print_report_bw, print_report_lat, print_report_lat_duration in
 * perftest_parameters.c), on nanosecond timestamps instead of CPU cycles, so {@code roce perf} figures mean what
 * perftest's mean.
 */
public final class PerfStats
{
    /** Bytes per MiB: perftest's "MB/sec" is MiB/s (format_factor 0x100000). */
    static final double MIB = 0x100000;
    /** Bits per Gb in bytes: --report_gbits divides by 125,000,000 bytes (10^9 bits). */
    static final double GBIT_BYTES = 125_000_000;
    /** Largest samples dropped before the latency statistics (LAT_MEASURE_TAIL). */
    static final int LAT_MEASURE_TAIL = 2;
    private static final double NS_PER_SEC = 1e9;
    private static final double NS_PER_USEC = 1e3;

    private PerfStats()
    {
    }

    /**
     * Bandwidth as print_report_bw computes it.
     * <ul>
     *   <li>average: bytes of all messages over the time from the first post to the last completion;</li>
     *   <li>message rate: messages over that time, in millions per second;</li>
     *   <li>peak: the best per-message time between any post and any later completion, over the messages between
     *   them (only at completions that were signaled, every cqMod-th), unless noPeak.</li>
     * </ul>
     *
     * @param size        message size.
     * @param iters       messages per QP (in duration mode: all messages counted in the sample window).
     * @param qps         QPs.
     * @param posted      post times: one per message, or [0] = start with noPeak / duration.
     * @param completed   completion times: at index k-1 when k messages were complete, or [0] = end with noPeak.
     * @param cqMod       completion moderation.
     * @param noPeak      true to skip the peak (it prints 0).
     * @param duration    true in duration mode (iters is already the total).
     * @param gbits       true for Gb/s, false for MiB/s.
     * @return the figures, in perftest's report structure.
     */
    public static PerftestReport bandwidth(
        final long size, final long iters, final int qps, final long[] posted, final long[] completed, final int cqMod,
        final boolean noPeak, final boolean duration, final boolean gbits)
    {
        final double factor = gbits ? GBIT_BYTES : MIB;
        final long total = duration ? iters : iters * qps;
        // perftest starts from tcompleted[0] - tposted[0] in unsigned cycles: unset (0) unless every WR completes,
        // so in effect "no minimum yet".
        double optDeltaNs = Double.POSITIVE_INFINITY;
        if (!noPeak)
        {
            for (long i = 0; i < total; i++)
            {
                for (long j = roundUp(i + 1, cqMod) - 1; j < total; j += cqMod)
                {
                    optDeltaNs = Math.min(optDeltaNs, (double)(completed[(int)j] - posted[(int)i]) / (j - i + 1));
                }
                if (0 != total % cqMod)
                {
                    final long j = total - 1;
                    optDeltaNs = Math.min(optDeltaNs, (double)(completed[(int)j] - posted[(int)i]) / (j - i + 1));
                }
            }
        }
        final int last = noPeak ? 0 : (int)total - 1;
        final double sumNs = Math.max(1, completed[last] - posted[0]);
        final double bwAvg = size * (double)total * NS_PER_SEC / (sumNs * factor);
        final double msgRate = total * NS_PER_SEC / (sumNs * 1e6);
        final double bwPeak = noPeak ? 0 : size * NS_PER_SEC / (Math.max(1, optDeltaNs) * factor);
        return new PerftestReport(size, total, bwPeak, bwAvg, msgRate);
    }

    /**
     * The line of print_full_bw_report for a bidirectional run: this side's figures plus the peer's.
     *
     * @param mine   this side's report.
     * @param theirs the peer's.
     * @return the sum (size and iterations are this side's).
     */
    public static PerftestReport sum(final PerftestReport mine, final PerftestReport theirs)
    {
        return new PerftestReport(mine.size(), mine.iterations(), mine.bwPeak() + theirs.bwPeak(),
            mine.bwAvg() + theirs.bwAvg(), mine.msgRate() + theirs.msgRate());
    }

    /**
     * A latency line of print_report_lat.
     *
     * @param size    message size.
     * @param iters   iterations.
     * @param min     t_min in microseconds.
     * @param max     t_max (the largest sample kept after dropping the tail).
     * @param typical the median.
     * @param avg     the mean.
     * @param stdev   the standard deviation, computed as perftest does.
     * @param p99     the 99th percentile.
     * @param p999    the 99.9th percentile.
     */
    public record Latency(long size, long iters, double min, double max, double typical, double avg, double stdev,
        double p99, double p999)
    {
    }

    /**
     * A line of print_report_lat_duration.
     *
     * @param size  message size.
     * @param iters iterations counted in the sample window.
     * @param avg   mean latency in microseconds.
     * @param tps   transactions per second.
     */
    public record LatencyDuration(long size, long iters, double avg, double tps)
    {
    }

    /**
     * Latency as print_report_lat computes it: the differences between consecutive post times (one round trip
     * each), divided by 2 for SEND and WRITE (half the round trip) and 1 for READ and atomics; sorted; the two
     * largest dropped; then minimum, median ("typical"), mean, standard deviation and percentiles. The deviation
     * truncates each difference from the mean to whole microseconds before squaring, as perftest's int arithmetic
     * does (it is then 0 for sub-microsecond spreads); roce4j squares in 64 bits where perftest's int would overflow.
     *
     * @param size      message size.
     * @param posted    the post time of each iteration, in nanoseconds.
     * @param iters     iterations (at least 5).
     * @param rttFactor 2 for SEND/WRITE, 1 for READ/atomics.
     * @return the figures.
     */
    public static Latency latency(final long size, final long[] posted, final int iters, final int rttFactor)
    {
        if (iters < PerfSettings.MIN_ITERS)
        {
            throw new IllegalArgumentException("latency needs at least " + PerfSettings.MIN_ITERS + " iterations, " +
                "got " + iters);
        }
        final long[] delta = new long[iters - 1];
        for (int i = 0; i < delta.length; i++)
        {
            delta[i] = posted[i + 1] - posted[i];
        }
        Arrays.sort(delta);
        final int measured = delta.length - LAT_MEASURE_TAIL;
        final double quotient = NS_PER_USEC * rttFactor;
        final long median = 0 != (measured - 1) % 2 ? (delta[measured / 2] + delta[measured / 2 - 1]) / 2 :
            delta[measured / 2];
        double sum = 0;
        for (int i = 0; i < measured; i++)
        {
            sum += delta[i] / quotient;
        }
        final double avg = sum / measured;
        long squares = 0;
        for (int i = 0; i < measured; i++)
        {
            final long diff = (long)(avg - delta[i] / quotient);
            squares += diff * diff;
        }
        final double stdev = Math.sqrt((double)squares / measured);
        final int i99 = (int)Math.ceil(measured * 0.99);
        final int i999 = (int)Math.ceil(measured * 0.999);
        return new Latency(size, iters, delta[0] / quotient, delta[measured] / quotient, median / quotient, avg,
            stdev, delta[i99] / quotient, delta[i999] / quotient);
    }

    /**
     * Latency in duration mode (print_report_lat_duration).
     *
     * @param size      message size.
     * @param sampleNs  length of the sample window.
     * @param iters     iterations in it.
     * @param rttFactor 2 for SEND/WRITE, 1 for READ.
     * @return the figures.
     */
    public static LatencyDuration latencyDuration(final long size, final long sampleNs, final long iters,
        final int rttFactor)
    {
        final long count = Math.max(1, iters);
        final double avg = sampleNs / NS_PER_USEC / rttFactor / count;
        final double tps = iters / (Math.max(1, sampleNs) / NS_PER_SEC);
        return new LatencyDuration(size, iters, avg, tps);
    }

    static long roundUp(final long value, final long alignment)
    {
        return 0 == value % alignment ? value : value + alignment - value % alignment;
    }
}
