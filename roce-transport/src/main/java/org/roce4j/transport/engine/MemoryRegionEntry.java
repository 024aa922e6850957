package org.roce4j.transport.engine;

import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.transport.AccessFlags;

/**
 * The engine's view of a registered memory region: keys, the IOVA range peers address, access flags, and the
 * memory itself as an Agrona buffer.
 *
 * <p>An address {@code va} in [iova, iova + length) maps to buffer index {@code va - iova}. Regions are limited to
 * 2 GiB - 1 bytes (the index range of an Agrona buffer).
 */
public final class MemoryRegionEntry
{
    private final int lkey;
    private final int rkey;
    private final long iova;
    private final int length;
    private final int access;
    private final int pdHandle;
    private final UnsafeBuffer memory;
    private volatile boolean valid = true;

    /**
     * @param lkey     local key.
     * @param rkey     remote key.
     * @param iova     I/O virtual address of the first byte.
     * @param access   {@link AccessFlags}.
     * @param pdHandle protection domain the region belongs to.
     * @param memory   the bytes (its capacity is the region's length).
     */
    public MemoryRegionEntry(
        final int lkey, final int rkey, final long iova, final int access, final int pdHandle, final UnsafeBuffer memory)
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
     * @param va     first address.
     * @param bytes  length of the access.
     * @return true when [va, va + bytes) lies inside the region (no wrap-around).
     */
    public boolean contains(final long va, final long bytes)
    {
        if (bytes < 0)
        {
            return false;
        }
        final long offset = va - iova;
        // Unsigned compare: a va below iova gives a huge offset.
        return Long.compareUnsigned(offset, length) <= 0 && Long.compareUnsigned(offset + bytes, length) <= 0 &&
            Long.compareUnsigned(va, va + bytes) <= 0;
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
