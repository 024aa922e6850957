package org.roce4j.wire;

import java.util.Locale;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A counter per constant of an enum, for anomaly and traffic counters that users read and tests assert.
 *
 * <p>Each instance has a single writer (the thread that owns the path being counted), which updates with opaque
 * stores: no locks, no allocation, no read-modify-write atomics. Any thread may read at any time.
 *
 * @param <E> the enum naming the counters.
 */
public class EnumCounters<E extends Enum<E>>
{
    private final E[] keys;
    private final AtomicLongArray counts;

    /**
     * @param type of the enum naming the counters.
     */
    public EnumCounters(final Class<E> type)
    {
        this.keys = type.getEnumConstants();
        this.counts = new AtomicLongArray(keys.length);
    }

    /**
     * Add one. Single writer only.
     *
     * @param key counter.
     */
    public final void increment(final E key)
    {
        final int i = key.ordinal();
        counts.setOpaque(i, counts.getPlain(i) + 1);
    }

    /**
     * Add a delta. Single writer only.
     *
     * @param key   counter.
     * @param delta to add.
     */
    public final void add(final E key, final long delta)
    {
        final int i = key.ordinal();
        counts.setOpaque(i, counts.getPlain(i) + delta);
    }

    /**
     * @param key counter.
     * @return its value.
     */
    public final long get(final E key)
    {
        return counts.getOpaque(key.ordinal());
    }

    /**
     * @return the sum of all counters.
     */
    public final long total()
    {
        long total = 0;
        for (int i = 0; i < keys.length; i++)
        {
            total += counts.getOpaque(i);
        }
        return total;
    }

    /**
     * @return the enum constants, in counter order.
     */
    public final E[] keys()
    {
        return keys.clone();
    }

    /**
     * @return e.g. {@code ok=10 bad_icrc=1}: non-zero counters only, lower-case names; "none" when all are zero.
     */
    public String toString()
    {
        final StringBuilder sb = new StringBuilder();
        for (final E key : keys)
        {
            final long value = get(key);
            if (0 != value)
            {
                if (sb.length() > 0)
                {
                    sb.append(' ');
                }
                sb.append(key.name().toLowerCase(Locale.ROOT)).append('=').append(value);
            }
        }
        return sb.length() == 0 ? "none" : sb.toString();
    }
}
