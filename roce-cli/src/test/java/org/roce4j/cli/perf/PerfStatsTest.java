package org.roce4j.cli.perf;

import org.junit.jupiter.api.Test;
import org.roce4j.cm.perftest.PerftestReport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * perftest's report arithmetic on timestamps worked out by hand.
 */
class PerfStatsTest
{
    private static final double MIB = 1024 * 1024;

    @Test
    void bandwidthAverageRateAndPeakAsPrintReportBw()
    {
        // 10 messages of 1000 bytes posted every 100 ns; completion moderation 5: completions stamped after the 5th
        // (at 600 ns) and the 10th (at 2000 ns).
        final long[] posted = {0, 100, 200, 300, 400, 500, 600, 700, 800, 900};
        final long[] completed = new long[10];
        completed[4] = 600;
        completed[9] = 2000;
        final PerftestReport report = PerfStats.bandwidth(1000, 10, 1, posted, completed, 5, false, false, false);
        assertEquals(1000, report.size());
        assertEquals(10, report.iterations());
        // 10,000 bytes in 2 us.
        assertEquals(10_000 * 1e9 / (2000 * MIB), report.bwAvg(), 1e-9);
        assertEquals(10 * 1e9 / (2000 * 1e6), report.msgRate(), 1e-12);
        // Best: from the first post to the 5th completion, 600 ns for 5 messages = 120 ns per message.
        assertEquals(1000 * 1e9 / (120 * MIB), report.bwPeak(), 1e-9);

        final PerftestReport gbits = PerfStats.bandwidth(1000, 10, 1, posted, completed, 5, false, false, true);
        assertEquals(40.0, gbits.bwAvg(), 1e-12);
    }

    @Test
    void withoutPeakTheFirstAndLastStampsAreTheWindow()
    {
        final PerftestReport report = PerfStats.bandwidth(4096, 1000, 2, new long[] {1_000},
            new long[] {1_001_000}, 100, true, false, false);
        assertEquals(2000, report.iterations());
        assertEquals(0.0, report.bwPeak());
        assertEquals(4096 * 2000 * 1e9 / (1_000_000 * MIB), report.bwAvg(), 1e-9);
        // Duration mode: iterations are already the total over all QPs.
        assertEquals(777, PerfStats.bandwidth(2, 777, 4, new long[] {0}, new long[] {1_000_000_000}, 1, true,
            true, false).iterations());
    }

    @Test
    void bidirectionalLinesAddBothSides()
    {
        final PerftestReport sum = PerfStats.sum(new PerftestReport(64, 100, 1, 2, 3),
            new PerftestReport(64, 100, 10, 20, 30));
        assertEquals(new PerftestReport(64, 100, 11, 22, 33), sum);
    }

    @Test
    void latencyAsPrintReportLat()
    {
        // Round trips of 10, 20, ... 60, 1000 and 2000 us (READ: the round trip is the latency).
        final long[] deltasUs = {20, 10, 2000, 40, 30, 60, 1000, 50};
        final long[] posted = new long[deltasUs.length + 1];
        for (int i = 0; i < deltasUs.length; i++)
        {
            posted[i + 1] = posted[i] + deltasUs[i] * 1000;
        }
        final PerfStats.Latency lat = PerfStats.latency(2, posted, posted.length, 1);
        // The two largest are dropped: 10 .. 60 remain; the median of 6 is the mean of the 3rd and 4th.
        assertEquals(10.0, lat.min());
        assertEquals(35.0, lat.typical());
        assertEquals(35.0, lat.avg());
        // t_max, 99% and 99.9% are the first dropped sample (perftest indexes one past the kept ones).
        assertEquals(1000.0, lat.max());
        assertEquals(1000.0, lat.p99());
        assertEquals(1000.0, lat.p999());
        // (25^2 + 15^2 + 5^2) x 2 / 6, whole microseconds.
        assertEquals(Math.sqrt(1750.0 / 6), lat.stdev(), 1e-12);
        assertEquals(9, lat.iters());

        // SEND/WRITE: half the round trip.
        assertEquals(17.5, PerfStats.latency(2, posted, posted.length, 2).typical());
        assertThrows(IllegalArgumentException.class, () -> PerfStats.latency(2, posted, 4, 1));
    }

    @Test
    void latencyOfADurationRun()
    {
        final PerfStats.LatencyDuration lat = PerfStats.latencyDuration(2, 2_000_000_000L, 1000, 2);
        assertEquals(1000.0, lat.avg(), 1e-9);
        assertEquals(500.0, lat.tps(), 1e-9);
    }
}
