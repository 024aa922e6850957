package org.roce4j.conform;

/**
 * Thrown by a step when the scenario cannot be judged against this DUT (it lacks a capability the scenario needs):
 * the verdict is SKIP with this reason.
 */
public final class ConformSkip extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    /**
     * @param reason why the scenario cannot run here.
     */
    public ConformSkip(final String reason)
    {
        super(reason, null, false, false);
    }
}
