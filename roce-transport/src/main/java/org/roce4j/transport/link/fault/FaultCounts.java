package org.roce4j.transport.link.fault;

import org.roce4j.transport.link.LinkCounter;
import org.roce4j.transport.link.LinkCounters;

/**
 * What a {@link FaultInjector} injected into one direction, by kind: an immutable snapshot, taken when asked for
 * (never on the frame path). Its text, {@code drop=D dup=U reorder=R delay=L corrupt=C ecn=E}, is the half of a
 * {@link FaultReport} line for one direction; {@link #parse} reads it back.
 *
 * @param drops       frames dropped (INJECTED_DROPS).
 * @param duplicates  extra copies delivered (INJECTED_DUPLICATES).
 * @param reorders    frames held back behind later frames.
 * @param delays      frames held back until a due time, reorders not included.
 * @param corruptions frames corrupted (INJECTED_CORRUPTIONS).
 * @param ecnMarks    frames marked Congestion Experienced (INJECTED_ECN_MARKS).
 */
public record FaultCounts(long drops, long duplicates, long reorders, long delays, long corruptions, long ecnMarks)
{
    /** Nothing injected. */
    public static final FaultCounts NONE = new FaultCounts(0, 0, 0, 0, 0, 0);

    /** The names of the six kinds in the text, in the order {@link #toString()} writes them. */
    private static final String[] KEYS = {"drop", "dup", "reorder", "delay", "corrupt", "ecn"};

    /**
     * @param injected what an injector counted (its INJECTED_* counters; a reorder counts as a delay there).
     * @param reorders of those delays, the frames held back behind later frames.
     * @return the snapshot.
     */
    static FaultCounts of(final LinkCounters injected, final long reorders)
    {
        return new FaultCounts(
            injected.get(LinkCounter.INJECTED_DROPS),
            injected.get(LinkCounter.INJECTED_DUPLICATES),
            reorders,
            injected.get(LinkCounter.INJECTED_DELAYS) - reorders,
            injected.get(LinkCounter.INJECTED_CORRUPTIONS),
            injected.get(LinkCounter.INJECTED_ECN_MARKS));
    }

    /**
     * @param other another snapshot, e.g. the other direction's.
     * @return both added kind by kind.
     */
    public FaultCounts plus(final FaultCounts other)
    {
        return new FaultCounts(drops + other.drops, duplicates + other.duplicates, reorders + other.reorders,
            delays + other.delays, corruptions + other.corruptions, ecnMarks + other.ecnMarks);
    }

    /**
     * Read back what {@link #toString()} wrote.
     *
     * @param text e.g. {@code drop=3 dup=0 reorder=1 delay=0 corrupt=2 ecn=0}.
     * @return the counts.
     * @throws IllegalArgumentException when a kind is missing, out of order, not a count, or the text has more.
     */
    public static FaultCounts parse(final String text)
    {
        final String[] tokens = text.trim().split(" ");
        if (KEYS.length != tokens.length)
        {
            throw new IllegalArgumentException("not fault counts (" + String.join("=N ", KEYS) + "=N): '" + text +
                "'");
        }
        final long[] values = new long[KEYS.length];
        for (int i = 0; i < KEYS.length; i++)
        {
            final String prefix = KEYS[i] + "=";
            if (!tokens[i].startsWith(prefix))
            {
                throw new IllegalArgumentException("expected " + prefix + "N at '" + tokens[i] + "' in '" + text +
                    "'");
            }
            try
            {
                values[i] = Long.parseLong(tokens[i].substring(prefix.length()));
            }
            catch (final NumberFormatException ex)
            {
                throw new IllegalArgumentException("not a count: '" + tokens[i] + "' in '" + text + "'", ex);
            }
        }
        return new FaultCounts(values[0], values[1], values[2], values[3], values[4], values[5]);
    }

    /**
     * @return e.g. {@code drop=3 dup=0 reorder=1 delay=0 corrupt=2 ecn=0}.
     */
    public String toString()
    {
        return KEYS[0] + "=" + drops + " " + KEYS[1] + "=" + duplicates + " " + KEYS[2] + "=" + reorders + " " +
            KEYS[3] + "=" + delays + " " + KEYS[4] + "=" + corruptions + " " + KEYS[5] + "=" + ecnMarks;
    }
}
