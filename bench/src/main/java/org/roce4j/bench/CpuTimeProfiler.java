package org.roce4j.bench;

import java.lang.management.ManagementFactory;
import java.util.Collection;
import java.util.List;

import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * JMH profiler that reports the CPU time the benchmark JVM used per operation ({@code cpu.time.norm}, ns/op), next
 * to JMH's wall-clock score.
 *
 * <p>Why: the bench machine has 2 cores shared with other builds. When another process takes the core, wall-clock
 * throughput drops but the CPU time the benchmark spends per operation barely moves, so ratios computed from
 * {@code cpu.time.norm} are steadier than ratios of ops/s. It is process CPU time (user + system, every thread)
 * over the whole iteration divided by every operation run in it, so JIT and GC threads count too: compare it
 * between benchmarks of one run, after warm-up, with {@code -prof gc} showing ~0 B/op. Its resolution is the
 * kernel's accounting tick (10 ms on Debian), about 1% of a 1 s iteration.
 *
 * <p>Use: {@code java -jar bench/target/benchmarks.jar ... -prof org.roce4j.bench.CpuTimeProfiler}.
 */
public final class CpuTimeProfiler implements InternalProfiler
{
    /** Name of the secondary result. */
    public static final String RESULT_NAME = "cpu.time.norm";

    private final com.sun.management.OperatingSystemMXBean os =
        (com.sun.management.OperatingSystemMXBean)ManagementFactory.getOperatingSystemMXBean();
    private long startCpuNs;

    /**
     * {@inheritDoc}
     */
    @Override
    public String getDescription()
    {
        return "Process CPU time per operation (ns/op), steadier than wall-clock on a shared machine";
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void beforeIteration(final BenchmarkParams benchmarkParams, final IterationParams iterationParams)
    {
        startCpuNs = os.getProcessCpuTime();
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public Collection<? extends Result<?>> afterIteration(
        final BenchmarkParams benchmarkParams, final IterationParams iterationParams, final IterationResult result)
    {
        final long cpuNs = os.getProcessCpuTime() - startCpuNs;
        final long ops = result.getMetadata().getAllOps();
        if (ops <= 0 || cpuNs < 0)
        {
            return List.of();
        }
        return List.of(new ScalarResult(RESULT_NAME, (double)cpuNs / ops, "ns/op", AggregationPolicy.AVG));
    }
}
