package org.roce4j.bench.suite;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import org.roce4j.bench.engine.LinkKind;
import org.roce4j.bench.engine.Op;
import org.roce4j.bench.engine.RcPair;
import org.roce4j.bench.engine.ThroughputRun;

/**
 * Many connected RC QPs between two endpoints on the memory fabric (issue 7, point 5):
 * <ul>
 *   <li>QP create + connect rate: both sides create a QP and take it through INIT, RTR and RTS, as many times as
 *   there are pairs;</li>
 *   <li>heap per idle QP: the heap after a full GC with N pairs connected, less the heap with 1 pair, over the
 *   2(N-1) extra QPs (each QP: send and receive queues of 16 WRs with one SGE, 16 receives posted);</li>
 *   <li>aggregate throughput with every QP active against the single-QP figure: 4 KiB WRITEs (one packet each at
 *   MTU 4096), 1 QP with 16 outstanding against N QPs with 8192/N (at least 1) outstanding each;</li>
 *   <li>per-packet cost against the QP count: CPU time of both engine threads per 64-byte WRITE.</li>
 * </ul>
 */
final class ScaleBench
{
    /** Message size of the aggregate comparison: one full packet. */
    static final int AGGREGATE_BYTES = 4096;
    /** Message size of the cost curve: per-packet overhead dominates. */
    static final int COST_BYTES = 64;
    /** Outstanding WRs over all QPs, so the CQs (32767 deep at most) never overflow. */
    static final int MAX_OUTSTANDING = 8192;
    private static final int GC_ROUNDS = 3;

    private ScaleBench()
    {
    }

    /**
     * @param qps       QPs to spread over.
     * @return WRs outstanding per QP.
     */
    static int depthFor(final int qps)
    {
        return Math.max(1, Math.min(16, MAX_OUTSTANDING / qps));
    }

    static SuiteResults.Scale run(
        final int qps, final List<Integer> costQps, final long warmupNs, final long measureNs,
        final Consumer<String> progress)
    {
        if (qps < 2)
        {
            throw new IllegalArgumentException("the scale run needs at least 2 QPs, got " + qps);
        }
        progress.accept("scale: heap of 1 QP pair");
        final long baseOne = usedHeapAfterGc();
        final long heapOne;
        try (RcPair one = RcPair.open(LinkKind.MEMORY, SuiteMain.optionsFor(LinkKind.MEMORY, 1)))
        {
            heapOne = usedHeapAfterGc() - baseOne;
            if (1 != one.client().qpCount())
            {
                throw new IllegalStateException("expected 1 QP pair, got " + one.client().qpCount());
            }
        }
        progress.accept("scale: create+connect " + qps + " QP pairs");
        final long baseMany = usedHeapAfterGc();
        try (RcPair many = RcPair.open(LinkKind.MEMORY, SuiteMain.optionsFor(LinkKind.MEMORY, qps)))
        {
            final long heapMany = usedHeapAfterGc() - baseMany;
            final double perQp = (double)(heapMany - heapOne) / (2.0 * (qps - 1));
            final double connectPerSecond = qps * 1e9 / many.connectNs();
            final ThroughputRun stream = new ThroughputRun(many);
            progress.accept("scale: 1 QP, 4 KiB WRITE");
            final ThroughputRun.Result single = stream.run(Op.WRITE, AGGREGATE_BYTES, 1, 16, warmupNs, measureNs);
            progress.accept("scale: " + qps + " QPs, 4 KiB WRITE");
            final int depth = depthFor(qps);
            final ThroughputRun.Result all = stream.run(Op.WRITE, AGGREGATE_BYTES, qps, depth, warmupNs, measureNs);
            final List<SuiteResults.CostPoint> costs = new ArrayList<>();
            for (final int count : costQps)
            {
                progress.accept("scale: cost, " + count + " QPs, 64 B WRITE");
                final ThroughputRun.Result cost =
                    stream.run(Op.WRITE, COST_BYTES, count, depthFor(count), warmupNs, measureNs);
                costs.add(new SuiteResults.CostPoint(count, cost.depth(), cost.messagesPerSecond(),
                    cost.cpuNsPerMessage(), SuiteMain.load1()));
            }
            return new SuiteResults.Scale(LinkKind.MEMORY.label(), qps, connectPerSecond, perQp, AGGREGATE_BYTES,
                single.messagesPerSecond(), single.cpuNsPerMessage(), all.messagesPerSecond(), depth,
                all.cpuNsPerMessage(), COST_BYTES, costs, SuiteMain.load1());
        }
    }

    private static long usedHeapAfterGc()
    {
        final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        for (int i = 0; i < GC_ROUNDS; i++)
        {
            System.gc();
        }
        return memory.getHeapMemoryUsage().getUsed();
    }
}
