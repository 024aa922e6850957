package org.roce4j.bench;

import org.HdrHistogram.Histogram;

/**
 * One measured figure: operations (frames, WRITEs, round trips) per second over the measurement window, the load
 * average when it ended, and for latency tests the histogram of round-trip times in nanoseconds.
 *
 * @param opsPerSecond operations completed per second.
 * @param load1        one-minute load average at the end of the window.
 * @param histogram    round-trip times (ns), or null for throughput tests.
 */
public record Measurement(double opsPerSecond, double load1, Histogram histogram)
{
    /**
     * @param rtt the round-trip time histogram.
     * @return a copy carrying it.
     */
    public Measurement withHistogram(final Histogram rtt)
    {
        return new Measurement(opsPerSecond, load1, rtt);
    }

    /**
     * @return mean round-trip time in microseconds (from the histogram, or from the rate for one-at-a-time tests).
     */
    public double meanRttUs()
    {
        return null != histogram && histogram.getTotalCount() > 0 ? histogram.getMean() / 1e3 : 1e6 / opsPerSecond;
    }

    /**
     * @param percentile 0..100.
     * @return that percentile of the round-trip time in microseconds, NaN without a histogram.
     */
    public double rttUs(final double percentile)
    {
        return null != histogram && histogram.getTotalCount() > 0 ?
            histogram.getValueAtPercentile(percentile) / 1e3 : Double.NaN;
    }
}
