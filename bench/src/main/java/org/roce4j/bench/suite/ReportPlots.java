package org.roce4j.bench.suite;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.roce4j.bench.engine.LinkKind;
import org.roce4j.bench.engine.Op;

/**
 * The suite report's plots ({@link ReportWriter#PLOTS}): bandwidth against message size, SEND/RECV latency
 * percentiles against message size, throughput against the QP count; each beside its same-run baselines.
 */
final class ReportPlots
{
    private final SuiteResults results;
    private final SuitePlan plan;

    ReportPlots(final SuiteResults results, final SuitePlan plan)
    {
        this.results = results;
        this.plan = plan;
    }

    LineChart bandwidthChart()
    {
        final LineChart chart = new LineChart("Bandwidth vs message size (1 QP)", "message size (bytes)", "GB/s",
            true, true, ReportWriter::shortSize);
        for (final LinkKind kind : plan.links())
        {
            for (final Op op : List.of(Op.WRITE, Op.READ, Op.SEND))
            {
                final List<double[]> points = new ArrayList<>();
                for (final int size : plan.streamSizes())
                {
                    final SuiteResults.Throughput t = results.throughput(kind.label(), op, size);
                    if (null != t)
                    {
                        points.add(new double[] {size, t.bytesPerSecond() / 1e9});
                    }
                }
                addSeries(chart, kind.label() + " " + op.label(), points, false);
            }
        }
        final List<double[]> memcpy = new ArrayList<>();
        final List<double[]> udp = new ArrayList<>();
        for (final SuiteResults.Baseline b : results.baselines())
        {
            memcpy.add(new double[] {b.sizeBytes(), b.memcpyBytesPerSecond() / 1e9});
            udp.add(new double[] {b.sizeBytes(), b.udpBytesPerSecond() / 1e9});
        }
        addSeries(chart, "baseline memcpy", memcpy, true);
        addSeries(chart, "baseline raw UDP", udp, true);
        return chart;
    }

    LineChart latencyChart()
    {
        final LineChart chart = new LineChart("SEND/RECV round-trip latency percentiles (1 QP)",
            "message size (bytes)", "µs", true, true, ReportWriter::shortSize);
        for (final LinkKind kind : plan.links())
        {
            final List<double[]> p50 = new ArrayList<>();
            final List<double[]> p99 = new ArrayList<>();
            final List<double[]> p999 = new ArrayList<>();
            for (final int size : plan.latencySizes())
            {
                final SuiteResults.Latency l = results.latency(kind.label(), Op.SEND, size);
                if (null != l)
                {
                    p50.add(new double[] {size, l.p50Us()});
                    p99.add(new double[] {size, l.p99Us()});
                    p999.add(new double[] {size, l.p999Us()});
                }
            }
            addSeries(chart, kind.label() + " p50", p50, false);
            addSeries(chart, kind.label() + " p99", p99, false);
            addSeries(chart, kind.label() + " p99.9", p999, false);
        }
        final List<double[]> udp50 = new ArrayList<>();
        final List<double[]> udp99 = new ArrayList<>();
        for (final SuiteResults.Baseline b : results.baselines())
        {
            if (plan.latencySizes().contains(b.sizeBytes()))
            {
                udp50.add(new double[] {b.sizeBytes(), b.udpP50Us()});
                udp99.add(new double[] {b.sizeBytes(), b.udpP99Us()});
            }
        }
        addSeries(chart, "raw UDP p50", udp50, true);
        addSeries(chart, "raw UDP p99", udp99, true);
        return chart;
    }

    LineChart qpChart()
    {
        final LineChart chart = new LineChart("Throughput vs QP count", "QPs", "M messages/s", true, true,
            v -> String.valueOf((long)v));
        final Map<String, List<double[]>> bySeries = new TreeMap<>();
        for (final SuiteResults.Throughput t : results.qpAxis())
        {
            bySeries.computeIfAbsent(t.link() + " " + t.op() + " " + ReportWriter.size(t.sizeBytes()),
                k -> new ArrayList<>())
                .add(new double[] {t.qps(), t.messagesPerSecond() / 1e6});
        }
        final SuiteResults.Scale s = results.scale();
        if (null != s)
        {
            final List<double[]> cost = new ArrayList<>();
            for (final SuiteResults.CostPoint c : s.costs())
            {
                cost.add(new double[] {c.qps(), c.messagesPerSecond() / 1e6});
            }
            bySeries.put("scale " + s.link() + " write " + ReportWriter.size(s.costSizeBytes()), cost);
        }
        for (final Map.Entry<String, List<double[]>> e : bySeries.entrySet())
        {
            addSeries(chart, e.getKey(), e.getValue(), e.getKey().startsWith("scale"));
        }
        return chart;
    }

    private static void addSeries(
        final LineChart chart, final String name, final List<double[]> points, final boolean dashed)
    {
        if (points.isEmpty())
        {
            return;
        }
        final double[] xs = new double[points.size()];
        final double[] ys = new double[points.size()];
        for (int i = 0; i < xs.length; i++)
        {
            xs[i] = points.get(i)[0];
            ys[i] = points.get(i)[1];
        }
        chart.add(name, xs, ys, dashed);
    }
}
