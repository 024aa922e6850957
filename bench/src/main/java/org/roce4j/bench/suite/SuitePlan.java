package org.roce4j.bench.suite;

import java.util.List;

import org.roce4j.bench.engine.LinkKind;
import org.roce4j.bench.engine.Op;

/**
 * The matrix a suite run covers. Three plans:
 * <ul>
 *   <li>{@code full} (the default, about 20-30 minutes on 2 idle cores): links memory, udp and tunnel; WRITE, READ
 *   and SEND streamed at every power of two from 8 B to 1 MiB on one QP; round-trip latency at every power of four
 *   from 8 B to 1 MiB (and 1 MiB); FETCH_ADD and CMP_SWAP rate and latency; the QP axis 1/16/256/4096 for WRITE and
 *   SEND at 64 B and 4 KiB (the full QP axis for every size would take hours, and 4096 QPs x 64 KiB+ messages in
 *   flight would not fit the fabric's rings); the scale run with 4096 QPs on the memory fabric;</li>
 *   <li>{@code quick} (a few minutes): fewer sizes, shorter measurements;</li>
 *   <li>{@code smoke} (seconds, for the CI test): the memory fabric only, two sizes, 64 QPs for scale.</li>
 * </ul>
 *
 * @param name            plan name.
 * @param links           media.
 * @param streamOps       operations streamed over the size axis.
 * @param streamSizes     message sizes of the size axis.
 * @param latencyOps      operations of the latency table.
 * @param latencySizes    message sizes of the latency table.
 * @param qpAxisOps       operations of the QP axis.
 * @param qpAxisSizes     message sizes of the QP axis.
 * @param qpCounts        QP counts of the QP axis.
 * @param scaleQps        QPs of the scale run (0: none).
 * @param scaleCostQps    QP counts of the per-packet cost curve.
 * @param warmupMs        warm-up per cell.
 * @param measureMs       measured time per cell.
 * @param engineHeadline  whether to run the engine's headline benchmarks.
 */
public record SuitePlan(
    String name,
    List<LinkKind> links,
    List<Op> streamOps,
    List<Integer> streamSizes,
    List<Op> latencyOps,
    List<Integer> latencySizes,
    List<Op> qpAxisOps,
    List<Integer> qpAxisSizes,
    List<Integer> qpCounts,
    int scaleQps,
    List<Integer> scaleCostQps,
    long warmupMs,
    long measureMs,
    boolean engineHeadline)
{
    private static final List<Op> STREAM_OPS = List.of(Op.WRITE, Op.READ, Op.SEND, Op.FETCH_ADD, Op.CMP_SWAP);
    private static final List<Op> QP_OPS = List.of(Op.WRITE, Op.SEND);

    /**
     * @param name full, quick or smoke.
     * @return that plan.
     * @throws IllegalArgumentException for another name.
     */
    public static SuitePlan named(final String name)
    {
        switch (name)
        {
            case "full":
                return new SuitePlan("full", List.of(LinkKind.values()), STREAM_OPS, powers(8, 1 << 20, 2),
                    STREAM_OPS, withLast(powers(8, 1 << 20, 4), 1 << 20), QP_OPS, List.of(64, 4096),
                    List.of(1, 16, 256, 4096), 4096, List.of(1, 16, 256, 1024, 4096), 500, 2000, true);
            case "quick":
                return new SuitePlan("quick", List.of(LinkKind.values()), STREAM_OPS,
                    List.of(8, 64, 512, 4096, 32768, 262144, 1 << 20), STREAM_OPS, List.of(8, 64, 4096, 65536, 1 << 20),
                    QP_OPS, List.of(64, 4096), List.of(1, 16, 256, 4096), 4096, List.of(1, 16, 256, 4096), 200, 500,
                    true);
            case "smoke":
                return new SuitePlan("smoke", List.of(LinkKind.MEMORY), STREAM_OPS, List.of(8, 4096), STREAM_OPS,
                    List.of(8, 4096), List.of(Op.WRITE), List.of(64), List.of(1, 4, 16), 64, List.of(1, 16, 64), 20, 60,
                    true);
            default:
                throw new IllegalArgumentException("unknown plan '" + name + "' (full, quick, smoke)");
        }
    }

    /**
     * @param links media to keep.
     * @return a copy over those links only.
     */
    public SuitePlan withLinks(final List<LinkKind> links)
    {
        return new SuitePlan(name, List.copyOf(links), streamOps, streamSizes, latencyOps, latencySizes, qpAxisOps,
            qpAxisSizes, qpCounts, scaleQps, scaleCostQps, warmupMs, measureMs, engineHeadline);
    }

    /**
     * @return every message size any table uses, ascending.
     */
    public List<Integer> allSizes()
    {
        final java.util.TreeSet<Integer> sizes = new java.util.TreeSet<>(streamSizes);
        sizes.addAll(latencySizes);
        sizes.addAll(qpAxisSizes);
        return List.copyOf(sizes);
    }

    /**
     * @return the most QPs any cell of this plan uses on one link.
     */
    public int maxQps()
    {
        int max = 1;
        for (final int count : qpCounts)
        {
            max = Math.max(max, count);
        }
        return max;
    }

    private static List<Integer> powers(final int from, final int to, final int factor)
    {
        final java.util.ArrayList<Integer> sizes = new java.util.ArrayList<>();
        for (long size = from; size <= to; size *= factor)
        {
            sizes.add((int)size);
        }
        return List.copyOf(sizes);
    }

    private static List<Integer> withLast(final List<Integer> sizes, final int last)
    {
        if (sizes.contains(last))
        {
            return sizes;
        }
        final java.util.ArrayList<Integer> copy = new java.util.ArrayList<>(sizes);
        copy.add(last);
        return List.copyOf(copy);
    }
}
