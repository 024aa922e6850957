package org.roce4j.conform;

/**
 * The role of the device under test in a scenario; {@code roce conform --suite} selects by it.
 */
public enum Side
{
    /** The DUT answers requests the conform peer crafts. */
    RESPONDER,
    /** The DUT sends requests; the conform peer answers as a (misbehaving) responder. */
    REQUESTER,
    /** ECN marks and CNPs. */
    CONGESTION;

    /**
     * @return the suite name used on the command line: {@code responder}, {@code requester}, {@code congestion}.
     */
    public String suiteName()
    {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
