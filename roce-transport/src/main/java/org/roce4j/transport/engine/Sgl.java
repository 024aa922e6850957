package org.roce4j.transport.engine;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * A scatter/gather list (address, length, lkey triples) with the memory regions its lkeys resolved to, and the
 * copies between it and packet buffers at a byte offset into the message.
 *
 * <p>Preallocated with a fixed SGE capacity; reused for every WQE of a queue slot.
 */
final class Sgl
{
    private final long[] address;
    private final int[] length;
    private final int[] lkey;
    private final MemoryRegionEntry[] region;
    private int count;
    private long totalLength;

    /**
     * @param capacity the most SGEs a WQE may have.
     */
    Sgl(final int capacity)
    {
        address = new long[capacity];
        length = new int[capacity];
        lkey = new int[capacity];
        region = new MemoryRegionEntry[capacity];
    }

    /**
     * @return the most SGEs this list holds.
     */
    public int capacity()
    {
        return address.length;
    }

    /**
     * Empty the list.
     */
    public void clear()
    {
        count = 0;
        totalLength = 0;
    }

    /**
     * Append an SGE.
     *
     * @param addr   start address in a region registered under lkey.
     * @param bytes  length.
     * @param key    the region's lkey.
     */
    public void add(final long addr, final int bytes, final int key)
    {
        address[count] = addr;
        length[count] = bytes;
        lkey[count] = key;
        region[count] = null;
        count++;
        totalLength += bytes;
    }

    /**
     * Copy another list's SGEs (not its resolved regions).
     *
     * @param other to copy.
     */
    public void copyFrom(final Sgl other)
    {
        clear();
        for (int i = 0; i < other.count; i++)
        {
            add(other.address[i], other.length[i], other.lkey[i]);
        }
    }

    /**
     * @return number of SGEs.
     */
    public int count()
    {
        return count;
    }

    /**
     * @return sum of the SGE lengths.
     */
    public long totalLength()
    {
        return totalLength;
    }

    /**
     * @param i SGE index.
     * @return its address.
     */
    public long address(final int i)
    {
        return address[i];
    }

    /**
     * @param i SGE index.
     * @return its length.
     */
    public int length(final int i)
    {
        return length[i];
    }

    /**
     * @param i SGE index.
     * @return its lkey.
     */
    public int lkey(final int i)
    {
        return lkey[i];
    }

    /**
     * Resolve every lkey and check bounds and access (IBA 10.6.3.3 "local access"): the region must exist, be
     * valid, belong to the QP's PD, hold the whole SGE and allow the access.
     *
     * @param table          the device's regions.
     * @param pdHandle       the QP's protection domain.
     * @param requiredAccess access the SGEs need (LOCAL_WRITE for buffers the engine writes, 0 to read).
     * @return true when every SGE is usable; false means a local protection error.
     */
    public boolean resolve(final MrTable table, final int pdHandle, final int requiredAccess)
    {
        for (int i = 0; i < count; i++)
        {
            if (0 == length[i])
            {
                continue;
            }
            final MemoryRegionEntry mr = table.byLkey(lkey[i]);
            if (null == mr || !mr.isValid() || mr.pdHandle() != pdHandle || !mr.contains(address[i], length[i]) ||
                (mr.access() & requiredAccess) != requiredAccess)
            {
                return false;
            }
            region[i] = mr;
        }
        return true;
    }

    /**
     * Check that every region {@link #resolve} found is still valid: memory deregistered (or invalidated by a
     * peer's SEND with Invalidate) after the WQE started must not be read or written by its later packets. rxe
     * looks each SGE's key up again on every copy (copy_data); a volatile read per SGE does the same here without
     * a lookup or an allocation.
     *
     * @return false when a region of the list was deregistered or invalidated since it was resolved.
     */
    public boolean regionsValid()
    {
        for (int i = 0; i < count; i++)
        {
            final MemoryRegionEntry mr = region[i];
            // Zero-length SGEs are not resolved (null): they touch no memory.
            if (null != mr && !mr.isValid())
            {
                return false;
            }
        }
        return true;
    }

    /**
     * Copy message bytes [offset, offset + bytes) out of the SGEs into a buffer (gather).
     *
     * @param offset      into the message.
     * @param target      buffer.
     * @param targetIndex where to write.
     * @param bytes       how many.
     */
    public void gather(final long offset, final MutableDirectBuffer target, final int targetIndex, final int bytes)
    {
        int i = 0;
        long skip = offset;
        while (skip >= length[i] && i < count - 1)
        {
            skip -= length[i];
            i++;
        }
        int done = 0;
        while (done < bytes)
        {
            final int available = (int)(length[i] - skip);
            final int n = Math.min(available, bytes - done);
            if (n > 0)
            {
                final MemoryRegionEntry mr = region[i];
                target.putBytes(targetIndex + done, mr.memory(), mr.indexOf(address[i] + skip), n);
                done += n;
            }
            i++;
            skip = 0;
        }
    }

    /**
     * Copy bytes from a buffer into the SGEs at a message offset (scatter).
     *
     * @param offset      into the message.
     * @param source      buffer.
     * @param sourceIndex where to read.
     * @param bytes       how many.
     */
    public void scatter(final long offset, final DirectBuffer source, final int sourceIndex, final int bytes)
    {
        int i = 0;
        long skip = offset;
        while (skip >= length[i] && i < count - 1)
        {
            skip -= length[i];
            i++;
        }
        int done = 0;
        while (done < bytes)
        {
            final int available = (int)(length[i] - skip);
            final int n = Math.min(available, bytes - done);
            if (n > 0)
            {
                final MemoryRegionEntry mr = region[i];
                mr.memory().putBytes(mr.indexOf(address[i] + skip), source, sourceIndex + done, n);
                done += n;
            }
            i++;
            skip = 0;
        }
    }

    /**
     * @return the region of the first SGE with bytes (the 8-byte target of an atomic result).
     */
    public MemoryRegionEntry firstRegion()
    {
        return region[0];
    }
}
