package org.roce4j.conform;

/**
 * Assertions for scenario steps: each throws {@link ConformFailure} with a message saying what the rule wanted and
 * what the DUT did.
 */
public final class Checks
{
    private Checks()
    {
    }

    /**
     * @param condition must hold.
     * @param message   what the DUT did wrong.
     */
    public static void that(final boolean condition, final String message)
    {
        if (!condition)
        {
            throw new ConformFailure(message);
        }
    }

    /**
     * @param what     the field, e.g. {@code "NAK PSN"}.
     * @param expected what the rule wants.
     * @param actual   what the DUT sent.
     */
    public static void equal(final String what, final long expected, final long actual)
    {
        if (expected != actual)
        {
            throw new ConformFailure(what + " is 0x" + Long.toHexString(actual) + ", the rule wants 0x" +
                Long.toHexString(expected));
        }
    }
}
