package org.roce4j.bench.suite;

import java.util.ArrayList;
import java.util.List;

import org.roce4j.bench.engine.Op;

/**
 * Everything one suite run measured, in the order the report shows it.
 */
public final class SuiteResults
{
    /**
     * Where and how the run happened.
     *
     * @param date        ISO date and time the run started.
     * @param jdk         java.vm.name, vendor and version.
     * @param cpu         CPU model name (lscpu's "Model name" / /proc/cpuinfo's "model name").
     * @param cores       available processors.
     * @param loadAtStart /proc/loadavg at the start.
     * @param loadAtEnd   /proc/loadavg at the end.
     * @param plan        matrix name (smoke, quick, full).
     * @param threading   how the endpoints were driven (a thread per endpoint, or one thread for both).
     * @param command     the command line that made it.
     * @param elapsedS    wall time of the whole run in seconds.
     */
    public record Environment(
        String date, String jdk, String cpu, int cores, String loadAtStart, String loadAtEnd, String plan,
        String threading, String command, double elapsedS)
    {
    }

    /**
     * The engine's headline figures (issue 4) beside their baselines.
     *
     * @param writeGbPerS          64 KiB WRITE, GB/s.
     * @param memcpyGbPerS         memcpy of 64 KiB, GB/s.
     * @param writeCpuNsPerMsg     CPU ns per 64 KiB WRITE, both sides.
     * @param rateMPerS            64 B WRITE on 1 QP, M msgs/s.
     * @param rateMultiQpMPerS     64 B WRITE on 16 QPs, M msgs/s.
     * @param rateCpuNsPerMsg      CPU ns per 64 B WRITE (1 QP), both sides.
     * @param ringMFramesPerS      ring hand-off of a 64 B WRITE frame, M frames/s.
     * @param sendP50Us            SEND/RECV ping-pong p50, µs.
     * @param sendP99Us            p99, µs.
     * @param sendP999Us           p99.9, µs.
     * @param ringP50Us            ring ping-pong p50, µs.
     * @param ringP99Us            ring ping-pong p99, µs.
     * @param sharedThreadWriteGbPerS 64 KiB WRITE with one thread driving both sides, GB/s.
     * @param sharedThreadRateMPerS   64 B WRITE with one thread driving both sides, M msgs/s.
     * @param load1 {@code /proc/loadavg}'s 1-minute load average read right after the measurement.
     */
    public record Engine(
        double writeGbPerS,
        double memcpyGbPerS,
        double writeCpuNsPerMsg,
        double rateMPerS,
        double rateMultiQpMPerS,
        double rateCpuNsPerMsg,
        double ringMFramesPerS,
        double sendP50Us,
        double sendP99Us,
        double sendP999Us,
        double ringP50Us,
        double ringP99Us,
        double sharedThreadWriteGbPerS,
        double sharedThreadRateMPerS,
        double load1)
    {
    }

    /**
     * One streaming cell.
     *
     * @param link              memory, udp or tunnel.
     * @param op                operation label.
     * @param sizeBytes         message size.
     * @param qps               QPs streaming.
     * @param depth             WRs outstanding per QP.
     * @param messagesPerSecond completed messages per second.
     * @param bytesPerSecond    payload bytes per second.
     * @param cpuNsPerMessage   CPU ns per message (client and server threads; link threads excluded).
     * @param retransmitted     packets resent.
     * @param linkDrops         frames the links refused or lost.
     * @param load1 {@code /proc/loadavg}'s 1-minute load average read right after the measurement.
     */
    public record Throughput(
        String link, String op, int sizeBytes, int qps, int depth, double messagesPerSecond, double bytesPerSecond,
        double cpuNsPerMessage, long retransmitted, long linkDrops, double load1)
    {
    }

    /**
     * One latency cell.
     *
     * @param link      memory, udp or tunnel.
     * @param op        operation label.
     * @param sizeBytes message size.
     * @param p50Us     median round trip, µs.
     * @param p99Us     99th percentile, µs.
     * @param p999Us    99.9th percentile, µs.
     * @param samples   round trips measured.
     * @param load1 {@code /proc/loadavg}'s 1-minute load average read right after the measurement.
     */
    public record Latency(
        String link, String op, int sizeBytes, double p50Us, double p99Us, double p999Us, long samples, double load1)
    {
    }

    /**
     * The baselines at one message size.
     *
     * @param sizeBytes            message size.
     * @param memcpyBytesPerSecond one copy of the message.
     * @param crc32BytesPerSecond  CRC32 over the message.
     * @param udpBytesPerSecond    raw UDP stream goodput.
     * @param udpP50Us             raw UDP ping-pong p50.
     * @param udpP99Us             raw UDP ping-pong p99.
     * @param udpP999Us            raw UDP ping-pong p99.9.
     * @param load1 {@code /proc/loadavg}'s 1-minute load average read right after the measurement.
     */
    public record Baseline(
        int sizeBytes, double memcpyBytesPerSecond, double crc32BytesPerSecond, double udpBytesPerSecond,
        double udpP50Us, double udpP99Us, double udpP999Us, double load1)
    {
    }

    /**
     * One point of the per-packet cost curve.
     *
     * @param qps               QPs streaming.
     * @param depth             WRs outstanding per QP.
     * @param messagesPerSecond aggregate messages per second.
     * @param cpuNsPerMessage   CPU ns per message, both sides.
     * @param load1 {@code /proc/loadavg}'s 1-minute load average read right after the measurement.
     */
    public record CostPoint(int qps, int depth, double messagesPerSecond, double cpuNsPerMessage, double load1)
    {
    }

    /**
     * The scale run.
     *
     * @param link                    medium.
     * @param qps                     connected QP pairs.
     * @param connectPerSecond        QP pairs created and connected (both sides, INIT/RTR/RTS) per second.
     * @param heapBytesPerIdleQp      heap per idle QP.
     * @param sizeBytes               message size of the aggregate comparison.
     * @param singleQpMessagesPerSecond one QP, 16 outstanding.
     * @param singleQpCpuNsPerMessage CPU ns per message with one QP.
     * @param aggregateMessagesPerSecond all QPs, each with WRs outstanding.
     * @param aggregateDepth          WRs outstanding per QP in the aggregate run.
     * @param aggregateCpuNsPerMessage CPU ns per message with all QPs.
     * @param costSizeBytes           message size of the cost curve.
     * @param costs                   cost per message against the QP count.
     * @param load1 {@code /proc/loadavg}'s 1-minute load average read right after the measurement.
     */
    public record Scale(
        String link, int qps, double connectPerSecond, double heapBytesPerIdleQp, int sizeBytes,
        double singleQpMessagesPerSecond, double singleQpCpuNsPerMessage, double aggregateMessagesPerSecond,
        int aggregateDepth, double aggregateCpuNsPerMessage, int costSizeBytes, List<CostPoint> costs,
        double load1)
    {
    }

    private Environment environment;
    private Engine engine;
    private Scale scale;
    private final List<Baseline> baselines = new ArrayList<>();
    private final List<Throughput> throughputs = new ArrayList<>();
    private final List<Throughput> qpAxis = new ArrayList<>();
    private final List<Latency> latencies = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();

    /**
     * @return run description.
     */
    public Environment environment()
    {
        return environment;
    }

    /**
     * @param value run description.
     */
    public void environment(final Environment value)
    {
        environment = value;
    }

    /**
     * @return headline engine figures, or null when not run.
     */
    public Engine engine()
    {
        return engine;
    }

    /**
     * @param value headline engine figures.
     */
    public void engine(final Engine value)
    {
        engine = value;
    }

    /**
     * @return the scale run, or null when not run.
     */
    public Scale scale()
    {
        return scale;
    }

    /**
     * @param value the scale run.
     */
    public void scale(final Scale value)
    {
        scale = value;
    }

    /**
     * @return baselines by size (mutable).
     */
    public List<Baseline> baselines()
    {
        return baselines;
    }

    /**
     * @return single-QP streaming cells (mutable).
     */
    public List<Throughput> throughputs()
    {
        return throughputs;
    }

    /**
     * @return streaming cells over the QP-count axis (mutable).
     */
    public List<Throughput> qpAxis()
    {
        return qpAxis;
    }

    /**
     * @return latency cells (mutable).
     */
    public List<Latency> latencies()
    {
        return latencies;
    }

    /**
     * @param link      the link's label.
     * @param op        the operation.
     * @param sizeBytes the message size.
     * @return the single-QP streaming cell, or null.
     */
    public Throughput throughput(final String link, final Op op, final int sizeBytes)
    {
        for (final Throughput t : throughputs)
        {
            if (t.link().equals(link) && t.op().equals(op.label()) && t.sizeBytes() == sizeBytes)
            {
                return t;
            }
        }
        return null;
    }

    /**
     * @param link      the link's label.
     * @param op        the operation.
     * @param sizeBytes the message size.
     * @return the latency cell, or null.
     */
    public Latency latency(final String link, final Op op, final int sizeBytes)
    {
        for (final Latency l : latencies)
        {
            if (l.link().equals(link) && l.op().equals(op.label()) && l.sizeBytes() == sizeBytes)
            {
                return l;
            }
        }
        return null;
    }

    /**
     * @return remarks for the report: skipped links, anomalies (mutable).
     */
    public List<String> notes()
    {
        return notes;
    }

    /**
     * @param sizeBytes a message size.
     * @return the baselines measured at that size, or null.
     */
    public Baseline baseline(final int sizeBytes)
    {
        for (final Baseline baseline : baselines)
        {
            if (baseline.sizeBytes() == sizeBytes)
            {
                return baseline;
            }
        }
        return null;
    }
}
