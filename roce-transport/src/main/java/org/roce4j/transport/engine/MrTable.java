package org.roce4j.transport.engine;

import java.security.SecureRandom;

import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Registered memory regions of a device, found by lkey (local SGEs) and by rkey (RETH / AtomicETH from peers).
 *
 * <p>Keys are drawn from a {@link SecureRandom} so a peer cannot guess an rkey it was not given (rxe uses an index
 * plus 8 random bits; roce4j makes the whole 32 bits random and checks uniqueness). Key 0 is never used. Lookups
 * allocate nothing. Only the engine's thread touches the table.
 */
final class MrTable
{
    private final Int2ObjectHashMap<MemoryRegionEntry> byLkey = new Int2ObjectHashMap<>();
    private final Int2ObjectHashMap<MemoryRegionEntry> byRkey = new Int2ObjectHashMap<>();
    private final SecureRandom random;
    /** The device's memory windows, whose rkey indexes region rkeys avoid (set by {@link MwTable}), or null. */
    MwTable windows;

    /**
     * @param random key source.
     */
    MrTable(final SecureRandom random)
    {
        this.random = random;
    }

    /**
     * Register a region with fresh random keys.
     *
     * @param iova     address of the first byte as peers see it.
     * @param access   access flags.
     * @param pdHandle protection domain.
     * @param memory   the bytes.
     * @return the new region.
     */
    public MemoryRegionEntry register(final long iova, final int access, final int pdHandle, final UnsafeBuffer memory)
    {
        final int lkey = freshKey(byLkey);
        int rkey;
        do
        {
            rkey = freshKey(byRkey);
        }
        while (windowIndex(rkey));
        final MemoryRegionEntry entry = new MemoryRegionEntry(lkey, rkey, iova, access, pdHandle, memory);
        byLkey.put(lkey, entry);
        byRkey.put(rkey, entry);
        return entry;
    }

    /**
     * Register a region under keys the caller chooses: for replaying captures and for peers that must misbehave
     * on purpose (a test NIC answering with a known rkey).
     *
     * @param iova     address of the first byte as peers see it.
     * @param access   access flags.
     * @param pdHandle protection domain.
     * @param memory   the bytes.
     * @param lkey     local key (non-zero, unused).
     * @param rkey     remote key (non-zero, unused).
     * @return the new region.
     * @throws IllegalArgumentException when a key is 0 or already used, or the rkey's upper 24 bits are a memory
     *     window's index.
     */
    public MemoryRegionEntry registerWithKeys(
        final long iova, final int access, final int pdHandle, final UnsafeBuffer memory, final int lkey,
            final int rkey)
    {
        if (0 == lkey || 0 == rkey || byLkey.containsKey(lkey) || byRkey.containsKey(rkey) || windowIndex(rkey))
        {
            throw new IllegalArgumentException("keys must be non-zero and unused: lkey=0x" +
                Integer.toHexString(lkey) + " rkey=0x" + Integer.toHexString(rkey));
        }
        final MemoryRegionEntry entry = new MemoryRegionEntry(lkey, rkey, iova, access, pdHandle, memory);
        byLkey.put(lkey, entry);
        byRkey.put(rkey, entry);
        return entry;
    }

    /**
     * Remove a region; later lookups of its keys fail.
     *
     * @param entry to remove.
     * @throws IllegalStateException while memory windows are bound to it (rxe_dereg_mr: "Attempt to deregister an MR
     *     while bound to MWs", -EINVAL); the region stays registered.
     */
    public void deregister(final MemoryRegionEntry entry)
    {
        if (entry.boundWindows() > 0)
        {
            throw new IllegalStateException("memory region lkey=0x" + Integer.toHexString(entry.lkey()) + " has " +
                entry.boundWindows() + " memory window(s) bound: invalidate or deallocate them first (rxe_dereg_mr " +
                "refuses with EINVAL)");
        }
        entry.invalidate();
        byLkey.remove(entry.lkey());
        byRkey.remove(entry.rkey());
    }

    /**
     * @param lkey local key.
     * @return the region, or null.
     */
    public MemoryRegionEntry byLkey(final int lkey)
    {
        return byLkey.get(lkey);
    }

    /**
     * @param rkey remote key.
     * @return the region, or null.
     */
    public MemoryRegionEntry byRkey(final int rkey)
    {
        return byRkey.get(rkey);
    }

    /**
     * @return number of registered regions.
     */
    public int size()
    {
        return byLkey.size();
    }

    private boolean windowIndex(final int rkey)
    {
        return null != windows && windows.usesIndexOf(rkey);
    }

    private int freshKey(final Int2ObjectHashMap<MemoryRegionEntry> used)
    {
        int key;
        do
        {
            key = random.nextInt();
        }
        while (0 == key || used.containsKey(key));
        return key;
    }
}
