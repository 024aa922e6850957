package org.roce4j.conform.dut;

import org.roce4j.transport.link.Link;

/**
 * One scenario's world: the DUT, the raw link the conform peer reaches it by, and the clock both run on. Every
 * scenario gets a fresh testbed so no state leaks from one to the next.
 */
public interface Testbed extends AutoCloseable
{
    /**
     * @return the device under test.
     */
    Dut dut();

    /**
     * @return the conform peer's raw link to the DUT (the runner decorates it with a ConformLink).
     */
    Link peerLink();

    /**
     * @return the current time on the clock the DUT's timers use, nanoseconds.
     */
    long nowNs();

    /**
     * Let time pass: an injected clock moves at once; a real DUT's clock would be waited for.
     *
     * @param ns how long.
     */
    void advanceNs(long ns);

    /**
     * @return the shortest wait for a DUT's answer, and the shortest silence watched for, nanoseconds: 0 for a DUT on
     *     the runner's clock; a real DUT answers in its own time, so a remote testbed stretches the catalogue's short
     *     waits to this.
     */
    default long waitFloorNs()
    {
        return 0;
    }

    /**
     * @return how much earlier than a DUT timer's due time a timed frame may be measured and still be taken as on time,
     *     nanoseconds: 0 for a DUT on the runner's clock (measured exactly).
     */
    default long timingToleranceNs()
    {
        return 0;
    }

    /**
     * Release the DUT and the links.
     */
    @Override
    void close();
}
