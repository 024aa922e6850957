package org.roce4j.cm.perftest;

/**
 * The system data perftest's sides agree on before the run (check_sys_data): each sends its page size (the cycle
 * buffer, the span over which small messages move through the buffer) and cache line size, and both use the larger
 * of each.
 *
 * @param cycleBuffer   bytes of the cycle buffer (sysconf(_SC_PAGESIZE), 4096 on x86-64 Linux).
 * @param cacheLineSize bytes of a cache line (64 on x86-64), the address step between small messages.
 */
public record PerftestSysData(int cycleBuffer, int cacheLineSize)
{
    /** What perftest reports on x86-64 Linux, and what roce4j announces. */
    public static final PerftestSysData DEFAULT = new PerftestSysData(4096, 64);

    /**
     * @throws IllegalArgumentException when a value is not positive.
     */
    public PerftestSysData
    {
        if (cycleBuffer <= 0 || cacheLineSize <= 0)
        {
            throw new IllegalArgumentException("cycle buffer and cache line size must be positive, got " +
                cycleBuffer + " and " + cacheLineSize);
        }
    }
}
