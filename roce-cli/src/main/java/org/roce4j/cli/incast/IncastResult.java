package org.roce4j.cli.incast;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;

/**
 * What an incast run measured, and the figures derived from it: per-flow goodput and throughput over time, Jain's
 * fairness index, how long the flows took to share the line fairly after each join or leave, the bottleneck queue's
 * percentiles, the CNP and drop counters. Renders as text (the command's table) and JSON.
 */
public final class IncastResult
{
    /** Jain's index a bin must reach to count as fair. */
    static final double FAIR_JAIN = 0.95;

    /**
     * One flow.
     *
     * @param flow           index.
     * @param sender         its IPv4 address.
     * @param startMs        when it joined (simulated ms from the start).
     * @param endMs          when it left.
     * @param goodputGbps    WRITE bytes completed while active, over the active time.
     * @param throughputGbps per bin: bytes the bottleneck sent from this sender (retransmissions included), Gb/s.
     * @param rateGbps       per bin, at its end: the QP's DCQCN current rate (the line rate when not limited).
     */
    public record FlowResult(int flow, String sender, double startMs, double endMs, double goodputGbps,
        double[] throughputGbps, double[] rateGbps)
    {
    }

    /**
     * Counters of the run.
     *
     * @param ceMarked          CE-marked packets the receiver got (np_ecn_marked_roce_packets).
     * @param cnpsSent          CNPs the receiver sent (np_cnp_sent).
     * @param cnpsHandled       CNPs the senders acted on (rp_cnp_handled).
     * @param cnpsIgnored       CNPs the senders ignored (rp_cnp_ignored).
     * @param switchMarked      frames the switch marked CE.
     * @param drops             frames the switch dropped at a full queue, all ports.
     * @param bottleneckDrops   of which at the receiver's port.
     * @param retransmitted     packets the senders sent again.
     * @param failedWrites      WRITEs that completed with an error.
     */
    public record Counters(long ceMarked, long cnpsSent, long cnpsHandled, long cnpsIgnored, long switchMarked,
        long drops, long bottleneckDrops, long retransmitted, long failedWrites)
    {
    }

    /**
     * How fast the flows shared the line after one change of the schedule.
     *
     * @param fromMs        start of the phase (a join or leave).
     * @param toMs          its end.
     * @param flows         flows active in it.
     * @param convergedMs   time from the phase's start to the first bin from which every bin of the phase has Jain's
     *                      index of at least {@link #FAIR_JAIN}; -1 when never.
     * @param meanJain      mean per-bin Jain's index over the phase.
     */
    public record Phase(double fromMs, double toMs, int flows, double convergedMs, double meanJain)
    {
    }

    private final IncastSettings settings;
    private final long kminBytes;
    private final long kmaxBytes;
    private final double pmax;
    private final long bufferBytes;
    private final FlowResult[] flows;
    private final int[] queueSamples;
    private final long queueSampleNs;
    private final Counters counters;
    private final double wallMs;

    IncastResult(final IncastSettings settings, final long kminBytes, final long kmaxBytes, final double pmax,
        final long bufferBytes, final FlowResult[] flows, final int[] queueSamples, final long queueSampleNs,
        final Counters counters, final double wallMs)
    {
        this.settings = settings;
        this.kminBytes = kminBytes;
        this.kmaxBytes = kmaxBytes;
        this.pmax = pmax;
        this.bufferBytes = bufferBytes;
        this.flows = flows;
        this.queueSamples = queueSamples;
        this.queueSampleNs = queueSampleNs;
        this.counters = counters;
        this.wallMs = wallMs;
    }

    /**
     * @return per-flow results.
     */
    public List<FlowResult> flows()
    {
        return List.of(flows);
    }

    /**
     * @return the counters.
     */
    public Counters counters()
    {
        return counters;
    }

    /**
     * @return the receiver's switch-port queue, bytes, every {@link #queueSampleNs()}.
     */
    public int[] queueSamples()
    {
        return queueSamples.clone();
    }

    /**
     * @return simulated ns between queue samples.
     */
    public long queueSampleNs()
    {
        return queueSampleNs;
    }

    /**
     * @return the width of a throughput bin, ns.
     */
    public long binNs()
    {
        return settings.binNs;
    }

    /**
     * @return RED's Kmin at the bottleneck, bytes.
     */
    public long kminBytes()
    {
        return kminBytes;
    }

    /**
     * @return RED's Kmax at the bottleneck, bytes.
     */
    public long kmaxBytes()
    {
        return kmaxBytes;
    }

    /**
     * @return the bottleneck's buffer, bytes.
     */
    public long bufferBytes()
    {
        return bufferBytes;
    }

    /**
     * @return the settings' description.
     */
    public String description()
    {
        return settings.describe();
    }

    /**
     * @param values non-negative numbers.
     * @return Jain's fairness index (sum x)^2 / (n * sum x^2); 1 for no or all-zero values.
     */
    static double jain(final double[] values)
    {
        double sum = 0;
        double squares = 0;
        for (final double v : values)
        {
            sum += v;
            squares += v * v;
        }
        return 0 == squares ? 1 : sum * sum / (values.length * squares);
    }

    /**
     * @return Jain's index of the flows' goodputs (each over its own active time).
     */
    public double jainOfGoodputs()
    {
        final double[] goodputs = new double[flows.length];
        for (int i = 0; i < flows.length; i++)
        {
            goodputs[i] = flows[i].goodputGbps;
        }
        return jain(goodputs);
    }

    /**
     * @return sum of the flows' goodputs weighted by their active time, over the run: the bottleneck's goodput.
     */
    public double meanGoodputGbps()
    {
        double bits = 0;
        for (final FlowResult f : flows)
        {
            bits += f.goodputGbps * (f.endMs - f.startMs);
        }
        return bits / (settings.durationNs / 1e6);
    }

    /**
     * @return the phases of the schedule (intervals between joins and leaves) with two or more flows.
     */
    public List<Phase> phases()
    {
        final TreeSet<Double> edges = new TreeSet<>();
        for (final FlowResult f : flows)
        {
            edges.add(f.startMs);
            edges.add(f.endMs);
        }
        final double binMs = settings.binNs / 1e6;
        final List<Phase> phases = new ArrayList<>();
        final Double[] cuts = edges.toArray(new Double[0]);
        for (int p = 0; p + 1 < cuts.length; p++)
        {
            final double from = cuts[p];
            final double to = cuts[p + 1];
            final List<Integer> active = new ArrayList<>();
            for (final FlowResult f : flows)
            {
                if (f.startMs <= from && f.endMs >= to)
                {
                    active.add(f.flow);
                }
            }
            final int firstBin = (int)Math.ceil(from / binMs - 1e-9);
            final int endBin = (int)Math.floor(to / binMs + 1e-9);
            if (active.size() < 2 || endBin <= firstBin)
            {
                continue;
            }
            final double[] jains = new double[endBin - firstBin];
            final double[] rates = new double[active.size()];
            for (int b = firstBin; b < endBin; b++)
            {
                for (int k = 0; k < active.size(); k++)
                {
                    rates[k] = flows[active.get(k)].throughputGbps[b];
                }
                jains[b - firstBin] = jain(rates);
            }
            int converged = jains.length;
            while (converged > 0 && jains[converged - 1] >= FAIR_JAIN)
            {
                converged--;
            }
            final double convergedMs = converged == jains.length ? -1 : (firstBin + converged) * binMs - from;
            phases.add(new Phase(from, to, active.size(), convergedMs, Arrays.stream(jains).average().orElse(1)));
        }
        return phases;
    }

    /**
     * @param fraction 0..1.
     * @return that percentile of the queue samples, bytes (nearest rank).
     */
    public long queuePercentile(final double fraction)
    {
        if (0 == queueSamples.length)
        {
            return 0;
        }
        final int[] sorted = queueSamples.clone();
        Arrays.sort(sorted);
        final int rank = (int)Math.ceil(fraction * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank))];
    }

    private double fractionOfSamples(final long above, final long atMost)
    {
        if (0 == queueSamples.length)
        {
            return 0;
        }
        int count = 0;
        for (final int q : queueSamples)
        {
            if (q > above && q <= atMost)
            {
                count++;
            }
        }
        return (double)count / queueSamples.length;
    }

    /**
     * @return the share of time the queue was above Kmin and at most Kmax.
     */
    public double fractionBetweenKminAndKmax()
    {
        return fractionOfSamples(kminBytes, kmaxBytes);
    }

    /**
     * @return the share of time the queue was above Kmax.
     */
    public double fractionAboveKmax()
    {
        return fractionOfSamples(kmaxBytes, Long.MAX_VALUE);
    }

    /**
     * @return the share of time the queue was within one jumbo frame of its buffer (full).
     */
    public double fractionAtBuffer()
    {
        return fractionOfSamples(bufferBytes - IncastSimulation.LINK_MTU - 18L, Long.MAX_VALUE);
    }

    /**
     * @return the largest queue sampled, bytes.
     */
    public long queueMaxBytes()
    {
        return queuePercentile(1.0);
    }

    /**
     * @return wall-clock time of the run, ms.
     */
    public double wallMs()
    {
        return wallMs;
    }

    /**
     * Print the command's report.
     *
     * @param out where.
     */
    public void print(final PrintWriter out)
    {
        final IncastSettings s = settings;
        final double lineGbps = s.lineRateBps / 1e9;
        out.println("roce incast: " + s.describe());
        out.printf(Locale.ROOT, "switch: %.0f Gb/s links, %.1f us propagation, buffer %d KB, RED Kmin %d KB Kmax %d " +
                "KB Pmax %.2f; path MTU %d, %d-byte WRITEs x %d per sender%n", lineGbps, s.propagationDelayNs / 1e3,
            bufferBytes / 1000, kminBytes / 1000, kmaxBytes / 1000, pmax, s.pathMtu, s.messageBytes, s.depth);
        out.println("flow  sender       active (ms)     goodput Gb/s  share of line");
        for (final FlowResult f : flows)
        {
            out.printf(Locale.ROOT, "%4d  %-11s %6.1f - %-6.1f %12.2f %12.1f %%%n", f.flow, f.sender, f.startMs,
                f.endMs, f.goodputGbps, 100 * f.goodputGbps / lineGbps);
        }
        out.printf(Locale.ROOT, "all: goodput %.2f Gb/s (%.1f %% of the line rate); Jain's fairness index %.4f " +
                "(flows' goodputs)%n", meanGoodputGbps(), 100 * meanGoodputGbps() / lineGbps, jainOfGoodputs());
        for (final Phase p : phases())
        {
            out.printf(Locale.ROOT, "phase %.1f-%.1f ms, %d flows: mean Jain per %.1f ms bin %.4f; %s%n", p.fromMs,
                p.toMs, p.flows, s.binNs / 1e6, p.meanJain, p.convergedMs < 0 ? "never fair (Jain >= 0.95) to " +
                    "its end" : String.format(Locale.ROOT, "fair (Jain >= 0.95 in every bin) %.1f ms after its " +
                    "start", p.convergedMs));
        }
        out.printf(Locale.ROOT, "queue at the receiver's port: p50 %d KB, p99 %d KB, max %d KB; %.1f %% of the " +
                "time between Kmin and Kmax, %.1f %% above Kmax, %.1f %% at the buffer%n",
            queuePercentile(0.5) / 1000, queuePercentile(0.99) / 1000, queueMaxBytes() / 1000,
            100 * fractionBetweenKminAndKmax(), 100 * fractionAboveKmax(), 100 * fractionAtBuffer());
        final Counters c = counters;
        out.printf(Locale.ROOT, "CNPs: %d sent (np_cnp_sent), %d handled (rp_cnp_handled), %d ignored; %d " +
                "CE-marked packets received (np_ecn_marked_roce_packets), %d marked by the switch%n", c.cnpsSent,
            c.cnpsHandled, c.cnpsIgnored, c.ceMarked, c.switchMarked);
        out.printf(Locale.ROOT, "drops: %d at the bottleneck (%d in all); %d packets retransmitted; %d WRITEs " +
            "failed%n", c.bottleneckDrops, c.drops, c.retransmitted, c.failedWrites);
        out.printf(Locale.ROOT, "simulated %.1f ms in %.2f s of wall-clock time%n", s.durationNs / 1e6,
            wallMs / 1000);
    }

    /**
     * @return the whole result as one JSON object.
     */
    public String toJson()
    {
        final IncastSettings s = settings;
        final StringBuilder j = new StringBuilder(4096);
        j.append("{\"senders\":").append(s.senders)
            .append(",\"cc\":\"").append(s.congestionControl).append('"')
            .append(",\"schedule\":\"").append(s.schedule.name().toLowerCase(Locale.ROOT)).append('"')
            .append(",\"durationMs\":").append(num(s.durationNs / 1e6))
            .append(",\"seed\":").append(s.seed)
            .append(",\"lineRateGbps\":").append(num(s.lineRateBps / 1e9))
            .append(",\"propagationDelayUs\":").append(num(s.propagationDelayNs / 1e3))
            .append(",\"bufferBytes\":").append(bufferBytes)
            .append(",\"kminBytes\":").append(kminBytes)
            .append(",\"kmaxBytes\":").append(kmaxBytes)
            .append(",\"pmax\":").append(num(pmax))
            .append(",\"pathMtu\":").append(s.pathMtu)
            .append(",\"messageBytes\":").append(s.messageBytes)
            .append(",\"depth\":").append(s.depth)
            .append(",\"binUs\":").append(num(s.binNs / 1e3))
            .append(",\"flows\":[");
        for (int i = 0; i < flows.length; i++)
        {
            final FlowResult f = flows[i];
            j.append(0 == i ? "" : ",").append("{\"flow\":").append(f.flow)
                .append(",\"sender\":\"").append(f.sender).append('"')
                .append(",\"startMs\":").append(num(f.startMs))
                .append(",\"endMs\":").append(num(f.endMs))
                .append(",\"goodputGbps\":").append(num(f.goodputGbps))
                .append(",\"throughputGbps\":").append(array(f.throughputGbps))
                .append(",\"rateGbps\":").append(array(f.rateGbps)).append('}');
        }
        j.append("],\"goodputGbps\":").append(num(meanGoodputGbps()))
            .append(",\"jain\":").append(num(jainOfGoodputs()))
            .append(",\"phases\":[");
        final List<Phase> phases = phases();
        for (int i = 0; i < phases.size(); i++)
        {
            final Phase p = phases.get(i);
            j.append(0 == i ? "" : ",").append("{\"fromMs\":").append(num(p.fromMs))
                .append(",\"toMs\":").append(num(p.toMs))
                .append(",\"flows\":").append(p.flows)
                .append(",\"meanJain\":").append(num(p.meanJain))
                .append(",\"fairAfterMs\":").append(p.convergedMs < 0 ? "null" : num(p.convergedMs)).append('}');
        }
        final Counters c = counters;
        j.append("],\"queue\":{\"p50Bytes\":").append(queuePercentile(0.5))
            .append(",\"p99Bytes\":").append(queuePercentile(0.99))
            .append(",\"maxBytes\":").append(queueMaxBytes())
            .append(",\"fractionBetweenKminKmax\":").append(num(fractionBetweenKminAndKmax()))
            .append(",\"fractionAboveKmax\":").append(num(fractionAboveKmax()))
            .append(",\"fractionAtBuffer\":").append(num(fractionAtBuffer()))
            .append(",\"sampleUs\":").append(num(queueSampleNs / 1e3))
            .append(",\"samplesBytes\":").append(Arrays.toString(queueSamples).replace(" ", ""))
            .append("},\"counters\":{\"np_ecn_marked_roce_packets\":").append(c.ceMarked)
            .append(",\"np_cnp_sent\":").append(c.cnpsSent)
            .append(",\"rp_cnp_handled\":").append(c.cnpsHandled)
            .append(",\"rp_cnp_ignored\":").append(c.cnpsIgnored)
            .append(",\"switchEcnMarked\":").append(c.switchMarked)
            .append(",\"drops\":").append(c.drops)
            .append(",\"bottleneckDrops\":").append(c.bottleneckDrops)
            .append(",\"packetsRetransmitted\":").append(c.retransmitted)
            .append(",\"failedWrites\":").append(c.failedWrites)
            .append("},\"wallMs\":").append(num(wallMs)).append('}');
        return j.toString();
    }

    private static String num(final double value)
    {
        return Double.isFinite(value) ? String.format(Locale.ROOT, "%.6g", value).replaceAll("(\\.\\d*?)0+(e|$)",
            "$1$2").replace(".e", "e").replaceAll("\\.$", "") : "null";
    }

    private static String array(final double[] values)
    {
        final StringBuilder b = new StringBuilder(values.length * 6).append('[');
        for (int i = 0; i < values.length; i++)
        {
            b.append(0 == i ? "" : ",").append(num(values[i]));
        }
        return b.append(']').toString();
    }
}
