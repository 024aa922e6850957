package org.roce4j.conform;

/**
 * One conclusion of a checker over the capture.
 *
 * @param violation true when the DUT broke the rule.
 * @param text      what was checked and seen.
 */
public record Finding(boolean violation, String text)
{
    /**
     * @param text what was checked.
     * @return a finding that holds.
     */
    public static Finding ok(final String text)
    {
        return new Finding(false, text);
    }

    /**
     * @param text what the DUT did wrong.
     * @return a violation.
     */
    public static Finding violation(final String text)
    {
        return new Finding(true, text);
    }
}
