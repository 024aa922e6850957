package org.roce4j.conform;

/**
 * Thrown by a step when the DUT did not do what the rule requires: the scenario's verdict is FAIL (or DEVIATION when
 * the peer profile documents it).
 */
public final class ConformFailure extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    /**
     * @param message what the DUT did and what the rule wanted.
     */
    public ConformFailure(final String message)
    {
        super(message, null, false, false);
    }
}
