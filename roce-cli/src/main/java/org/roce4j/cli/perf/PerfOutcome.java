package org.roce4j.cli.perf;

import java.util.List;
import java.util.Locale;

import org.roce4j.cm.perftest.PerftestReport;

/**
 * What one side of a {@code roce perf} run measured, and its rendering for {@code --json}.
 *
 * @param settings        the resolved parameters.
 * @param peerVersion     the perftest version the peer announced.
 * @param mtuBytes        the agreed MTU.
 * @param gidIndex        the GID index used.
 * @param bandwidth       BW lines, in the order printed (a one-way server's is the client's report).
 * @param latency         latency lines.
 * @param latencyDuration latency lines of a duration run.
 */
public record PerfOutcome(PerfSettings.Resolved settings, String peerVersion, int mtuBytes, int gidIndex,
    List<PerftestReport> bandwidth, List<PerfStats.Latency> latency, List<PerfStats.LatencyDuration> latencyDuration)
{
    /**
     * @return one JSON object: the test, the side's role and parameters, and every result line with named fields.
     */
    public String toJson()
    {
        final PerfSettings.Resolved r = settings;
        final StringBuilder sb = new StringBuilder();
        sb.append("{\n");
        field(sb, "test", quote(r.test.toolName()));
        field(sb, "role", quote(r.client ? "client" : "server"));
        field(sb, "peer_version", quote(peerVersion));
        field(sb, "connection", quote(r.connection.name()));
        field(sb, "qps", Integer.toString(r.qps));
        field(sb, "mtu", Integer.toString(mtuBytes));
        field(sb, "gid_index", Integer.toString(gidIndex));
        field(sb, "bidirectional", Boolean.toString(r.duplex));
        if (r.duration)
        {
            field(sb, "duration_sec", Integer.toString(r.durationSec));
        }
        else
        {
            field(sb, "iterations", Integer.toString(r.iters));
        }
        if (!r.test.isLatency())
        {
            field(sb, "tx_depth", Integer.toString(r.txDepth));
            field(sb, "cq_moderation", Integer.toString(r.cqMod));
            field(sb, "bw_unit", quote(r.reportGbits ? "Gb/sec" : "MB/sec"));
        }
        sb.append("  \"results\": [");
        String separator = "\n";
        for (final PerftestReport bw : bandwidth)
        {
            sb.append(separator).append(String.format(Locale.ROOT, "    {\"bytes\": %d, \"iterations\": %d, " +
                "\"bw_peak\": %s, \"bw_average\": %s, \"msg_rate_mpps\": %s}", bw.size(), bw.iterations(),
                number(bw.bwPeak()), number(bw.bwAvg()), number(bw.msgRate())));
            separator = ",\n";
        }
        for (final PerfStats.Latency lat : latency)
        {
            sb.append(separator).append(String.format(Locale.ROOT, "    {\"bytes\": %d, \"iterations\": %d, " +
                "\"t_min_usec\": %s, \"t_max_usec\": %s, \"t_typical_usec\": %s, \"t_avg_usec\": %s, " +
                "\"t_stdev_usec\": %s, \"p99_usec\": %s, \"p99_9_usec\": %s}", lat.size(), lat.iters(),
                number(lat.min()), number(lat.max()), number(lat.typical()), number(lat.avg()), number(lat.stdev()),
                number(lat.p99()), number(lat.p999())));
            separator = ",\n";
        }
        for (final PerfStats.LatencyDuration lat : latencyDuration)
        {
            sb.append(separator).append(String.format(Locale.ROOT, "    {\"bytes\": %d, \"iterations\": %d, " +
                "\"t_avg_usec\": %s, \"tps_average\": %s}", lat.size(), lat.iters(), number(lat.avg()),
                number(lat.tps())));
            separator = ",\n";
        }
        sb.append("\n  ]\n}");
        return sb.toString();
    }

    private static void field(final StringBuilder sb, final String name, final String value)
    {
        sb.append("  ").append(quote(name)).append(": ").append(value).append(",\n");
    }

    private static String quote(final String text)
    {
        final StringBuilder sb = new StringBuilder("\"");
        for (int i = 0; i < text.length(); i++)
        {
            final char c = text.charAt(i);
            if ('"' == c || '\\' == c)
            {
                sb.append('\\').append(c);
            }
            else if (c < 0x20)
            {
                sb.append(String.format(Locale.ROOT, "\\u%04x", (int)c));
            }
            else
            {
                sb.append(c);
            }
        }
        return sb.append('"').toString();
    }

    /**
     * JSON has no NaN or infinity: those (a report of garbage from a peer) become null.
     */
    private static String number(final double value)
    {
        return Double.isFinite(value) ? Double.toString(value) : "null";
    }
}
