package org.roce4j.conform;

/**
 * What a scenario concluded about the device under test.
 */
public enum Verdict
{
    /** The DUT behaved as the IBA rule says. */
    PASS,
    /** The DUT broke the rule, and the chosen peer profile does not document it. */
    FAIL,
    /** The DUT broke the rule in a way the chosen peer profile documents (e.g. rxe's known behaviours). */
    DEVIATION,
    /** The scenario could not be judged (the DUT lacks what it needs); the result carries the reason. */
    SKIP
}
