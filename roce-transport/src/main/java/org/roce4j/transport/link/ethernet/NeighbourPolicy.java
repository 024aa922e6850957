package org.roce4j.transport.link.ethernet;

/**
 * How a link resolves its neighbours' MACs by ARP (IPv4) and Neighbor Discovery (IPv6): how many requests it sends
 * and how far apart, how many frames wait while it does, and how many neighbours it keeps. One policy for every link
 * with a layer 2 of its own (pcap, tunnel), set through the link spec options {@code arp-retries},
 * {@code arp-interval-ms}, {@code arp-queue} and {@code neighbours}, which apply to ARP and Neighbor Discovery alike.
 *
 * <p>The defaults are patient: an emulated guest (QEMU without KVM) can take a few hundred milliseconds to answer
 * while it boots its NIC, so 10 requests 500 ms apart give it 5 s, where the kernel's own defaults (ip-sysctl:
 * mcast_solicit 3, retrans_time_ms 1000) give up after 3 s. Held frames: Linux keeps the newest (unres_qlen_bytes
 * drops the oldest); 256 hold a whole 64-packet message several times over, which matters for UC, which cannot
 * resend.
 *
 * @param requests        requests (or solicitations) sent for one address before its held frames are dropped and
 *                        it is FAILED, 1..100.
 * @param intervalMs      time between them, 1..60000 ms.
 * @param heldFrames      frames held in all while their destinations are resolved, 0..4096 (0: drop at once).
 * @param neighbours      entries of the neighbour table, 1..4096.
 */
public record NeighbourPolicy(int requests, int intervalMs, int heldFrames, int neighbours)
{
    /** Default requests per resolution. */
    public static final int DEFAULT_REQUESTS = 10;
    /** Default time between requests. */
    public static final int DEFAULT_INTERVAL_MS = 500;
    /** Default frames held while resolving. */
    public static final int DEFAULT_HELD_FRAMES = 256;
    /** Default neighbour table entries: a switch's worth of peers. */
    public static final int DEFAULT_NEIGHBOURS = 64;
    /** The default policy. */
    public static final NeighbourPolicy DEFAULT = new NeighbourPolicy(DEFAULT_REQUESTS, DEFAULT_INTERVAL_MS,
        DEFAULT_HELD_FRAMES, DEFAULT_NEIGHBOURS);

    /**
     * Validate every field.
     *
     * @throws IllegalArgumentException naming the first bad one by its spec option.
     */
    public NeighbourPolicy
    {
        requireRange("arp-retries", requests, 1, 100);
        requireRange("arp-interval-ms", intervalMs, 1, 60_000);
        requireRange("arp-queue", heldFrames, 0, 4096);
        requireRange("neighbours", neighbours, 1, 4096);
    }

    /**
     * @return the interval in nanoseconds.
     */
    public long intervalNs()
    {
        return intervalMs * 1_000_000L;
    }

    /**
     * @param newRequests requests per resolution.
     * @param newInterval time between them in milliseconds.
     * @return a copy with those.
     */
    public NeighbourPolicy withRequests(final int newRequests, final int newInterval)
    {
        return new NeighbourPolicy(newRequests, newInterval, heldFrames, neighbours);
    }

    /**
     * @param newHeldFrames frames held while resolving.
     * @return a copy with that.
     */
    public NeighbourPolicy withHeldFrames(final int newHeldFrames)
    {
        return new NeighbourPolicy(requests, intervalMs, newHeldFrames, neighbours);
    }

    /**
     * @param newNeighbours neighbour table entries.
     * @return a copy with that.
     */
    public NeighbourPolicy withNeighbours(final int newNeighbours)
    {
        return new NeighbourPolicy(requests, intervalMs, heldFrames, newNeighbours);
    }

    private static void requireRange(final String name, final int value, final int min, final int max)
    {
        if (value < min || value > max)
        {
            throw new IllegalArgumentException(name + " " + value + " is out of range " + min + ".." + max);
        }
    }
}
