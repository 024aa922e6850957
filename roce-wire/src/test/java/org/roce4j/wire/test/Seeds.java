package org.roce4j.wire.test;

import java.security.SecureRandom;
import java.util.Locale;

/**
 * Where the seeds of randomized tests come from: the system property {@value #SEED_PROPERTY} when it is set (so a
 * failing run can be repeated exactly), otherwise a fresh random seed per test.
 */
public final class Seeds
{
    /** System property that fixes the seed of every randomized test, e.g. {@code -Droce4j.seed=0x1234abcd}. */
    public static final String SEED_PROPERTY = "roce4j.seed";

    private static final SecureRandom SOURCE = new SecureRandom();

    private Seeds()
    {
    }

    /**
     * @return the seed given with {@value #SEED_PROPERTY}, or a new random one.
     * @throws IllegalArgumentException naming the property value when it is not a number.
     */
    public static long fromPropertyOrRandom()
    {
        final String text = System.getProperty(SEED_PROPERTY);
        if (null == text || text.isBlank())
        {
            return SOURCE.nextLong();
        }
        return parse(text);
    }

    /**
     * @param text a seed as printed by {@link #format(long)} ({@code 0x} followed by up to 16 hex digits), or a
     *             signed decimal number.
     * @return the seed.
     * @throws IllegalArgumentException naming the text when it is not a number.
     */
    public static long parse(final String text)
    {
        final String trimmed = text.trim().toLowerCase(Locale.ROOT);
        try
        {
            if (trimmed.startsWith("0x"))
            {
                return Long.parseUnsignedLong(trimmed.substring(2), 16);
            }
            return Long.parseLong(trimmed);
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException(
                "-D" + SEED_PROPERTY + " must be 0x<hex> or a decimal number, got '" + text + "'", ex);
        }
    }

    /**
     * @param seed a seed.
     * @return {@code 0x} and 16 lower-case hex digits.
     */
    public static String format(final long seed)
    {
        return String.format(Locale.ROOT, "0x%016x", seed);
    }

    /**
     * @param seed the seed of a failed test.
     * @return the line printed on failure: {@code seed=0x... (rerun with -Droce4j.seed=0x...)}.
     */
    public static String rerunHint(final long seed)
    {
        final String text = format(seed);
        return "seed=" + text + " (rerun with -D" + SEED_PROPERTY + "=" + text + ")";
    }
}
