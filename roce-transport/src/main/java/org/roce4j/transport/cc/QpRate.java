package org.roce4j.transport.cc;

/**
 * The congestion-control state of one QP at one moment: whether a DCQCN rate limiter holds it, its current rate (Rc,
 * what the pacer holds it to) and target rate (Rt), alpha and the increase stages.
 *
 * @param limited        true while a rate limiter holds the QP (from its first CNP until it is back at full rate).
 * @param currentRateBps current rate, bits per second (the line rate when not limited).
 * @param targetRateBps  target rate, bits per second (the line rate when not limited).
 * @param alpha          alpha, 0..1023 in 1/1024 units (0 when not limited).
 * @param timeStage      timer increases since the last decrease (T).
 * @param byteStage      byte-counter increases since the last decrease (BC).
 */
public record QpRate(
    boolean limited, long currentRateBps, long targetRateBps, int alpha, int timeStage, int byteStage)
{
    /**
     * @return e.g. {@code limited Rc=12.500 Gb/s Rt=25.000 Gb/s alpha=1023/1024 T=0 BC=3}.
     */
    public String toString()
    {
        return (limited ? "limited" : "unlimited") + String.format(java.util.Locale.ROOT,
            " Rc=%.3f Gb/s Rt=%.3f Gb/s alpha=%d/1024 T=%d BC=%d", currentRateBps / 1e9, targetRateBps / 1e9, alpha,
            timeStage, byteStage);
    }
}
