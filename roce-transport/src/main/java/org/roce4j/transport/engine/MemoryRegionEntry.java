package org.roce4j.transport.engine;

import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.ib.AccessFlags;
import org.roce4j.transport.provider.MrOps;

/**
 * The engine's view of a registered memory region: keys, the IOVA range peers address, access flags, and the
 * memory itself as an Agrona buffer.
 *
 * <p>An address {@code va} in [iova, iova + length) maps to buffer index {@code va - iova}. Regions are limited to
 * 2 GiB - 1 bytes (the index range of an Agrona buffer).
 */
final class MemoryRegionEntry implements MrOps
{
    private final int lkey;
    private final int rkey;
    private final long iova;
    private final int length;
    private final int access;
    private final int pdHandle;
    private final UnsafeBuffer memory;
    private volatile boolean valid = true;
    /** Memory windows bound to the region (rxe mr->num_mw); engine thread only. */
    private int boundWindows;

    /**
     * @param lkey     local key.
     * @param rkey     remote key.
     * @param iova     I/O virtual address of the first byte.
     * @param access   {@link AccessFlags}.
     * @param pdHandle protection domain the region belongs to.
     * @param memory   the bytes (its capacity is the region's length).
     */
    MemoryRegionEntry(
        final int lkey, final int rkey, final long iova, final int access, final int pdHandle,
            final UnsafeBuffer memory)
    {
        this.lkey = lkey;
        this.rkey = rkey;
        this.iova = iova;
        this.length = memory.capacity();
        this.access = access;
        this.pdHandle = pdHandle;
        this.memory = memory;
    }

    /**
     * @return local key.
     */
    public int lkey()
    {
        return lkey;
    }

    /**
     * @return remote key.
     */
    public int rkey()
    {
        return rkey;
    }

    /**
     * @return I/O virtual address of the first byte.
     */
    public long iova()
    {
        return iova;
    }

    /**
     * @return length in bytes.
     */
    public int length()
    {
        return length;
    }

    /**
     * @return access flags.
     */
    public int access()
    {
        return access;
    }

    /**
     * @return protection domain handle.
     */
    public int pdHandle()
    {
        return pdHandle;
    }

    /**
     * @return the memory; index 0 is {@link #iova()}.
     */
    public UnsafeBuffer memory()
    {
        return memory;
    }

    /**
     * @return false once deregistered or invalidated (SEND_WITH_INVALIDATE).
     */
    public boolean isValid()
    {
        return valid;
    }

    /**
     * Mark the region unusable for remote and local access.
     */
    public void invalidate()
    {
        valid = false;
    }

    /**
     * @return memory windows bound to the region now (rxe mr->num_mw).
     */
    int boundWindows()
    {
        return boundWindows;
    }

    /**
     * A memory window was bound to the region.
     */
    void windowBound()
    {
        boundWindows++;
    }

    /**
     * A memory window bound to the region was unbound, invalidated or deallocated.
     */
    void windowUnbound()
    {
        boundWindows--;
    }

    /**
     * Bounds check by offsets, never by end addresses: a region may end exactly at 2^64 (its last byte at
     * 0xFFFF_FFFF_FFFF_FFFF), where {@code va + bytes} wraps to 0 although the access is inside it.
     *
     * @param va     first address.
     * @param bytes  length of the access.
     * @return true when the {@code bytes} bytes from {@code va} lie inside the region.
     */
    public boolean contains(final long va, final long bytes)
    {
        return contains(iova, length, va, bytes);
    }

    /**
     * The bounds check of regions and memory windows, by offsets (see {@link #contains(long, long)}).
     *
     * @param base   first address of the range.
     * @param length bytes in the range (at most 2^31 - 1).
     * @param va     first address of the access.
     * @param bytes  length of the access.
     * @return true when [va, va + bytes) lies inside [base, base + length).
     */
    static boolean contains(final long base, final long length, final long va, final long bytes)
    {
        // Unsigned: a va below base gives an offset of 2^63 or more, far beyond any range (at most 2^31 - 1 bytes).
        final long offset = va - base;
        return bytes >= 0 && Long.compareUnsigned(offset, length) <= 0 && bytes <= length - offset;
    }

    /**
     * @param va an address inside the region.
     * @return the buffer index of that address.
     */
    public int indexOf(final long va)
    {
        return (int)(va - iova);
    }

    /**
     * @return e.g. {@code MR lkey=0x.. rkey=0x.. iova=0x.. len=.. access=..}.
     */
    public String toString()
    {
        return "MR lkey=0x" + Integer.toHexString(lkey) + " rkey=0x" + Integer.toHexString(rkey) + " iova=0x" +
            Long.toHexString(iova) + " len=" + length + " access=" + AccessFlags.toString(access);
    }
}
