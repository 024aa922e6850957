package org.roce4j.verbs;

import org.agrona.collections.Int2ObjectHashMap;

/**
 * A device's memory regions by lkey, for the posting paths that check a scatter/gather element against its region
 * ({@link WrReader}, {@link QueuePair}). Copy on write: registering and deregistering (control calls, rare) publish
 * a new map, so a post reads it with no lock.
 */
final class RegionIndex
{
    private final Object lock = new Object();
    private volatile Int2ObjectHashMap<MemoryRegion> regionsByLkey = new Int2ObjectHashMap<>();

    /**
     * @param lkey a local key.
     * @return its region, or null.
     */
    MemoryRegion get(final int lkey)
    {
        return regionsByLkey.get(lkey);
    }

    /**
     * @param region a region to add (true) or remove (false).
     * @param add    whether to add it.
     */
    void update(final MemoryRegion region, final boolean add)
    {
        synchronized (lock)
        {
            final Int2ObjectHashMap<MemoryRegion> copy = new Int2ObjectHashMap<>();
            copy.putAll(regionsByLkey);
            if (add)
            {
                copy.put(region.lkey(), region);
            }
            else
            {
                copy.remove(region.lkey());
            }
            regionsByLkey = copy;
        }
    }
}
