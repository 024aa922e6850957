package org.roce4j.verbs;

/**
 * A receive work request (struct ibv_recv_wr): buffers an incoming SEND (or RDMA WRITE with immediate) completes
 * into. Mutable and reusable; chains are built with {@link #next(RecvWorkRequest)}.
 */
public final class RecvWorkRequest
{
    private long wrId;
    private final ScatterGatherElement[] sgList;
    private int numSge;
    private RecvWorkRequest next;

    /**
     * A WR with room for {@link DeviceAttributes#MAX_SGE} SGEs.
     */
    public RecvWorkRequest()
    {
        this(DeviceAttributes.MAX_SGE);
    }

    /**
     * @param sgeCapacity most SGEs this object will carry.
     */
    public RecvWorkRequest(final int sgeCapacity)
    {
        if (sgeCapacity < 0)
        {
            throw new IllegalArgumentException("sgeCapacity must be >= 0, got " + sgeCapacity);
        }
        sgList = new ScatterGatherElement[sgeCapacity];
        for (int i = 0; i < sgeCapacity; i++)
        {
            sgList[i] = new ScatterGatherElement();
        }
    }

    /**
     * Clear every field.
     *
     * @return this.
     */
    public RecvWorkRequest reset()
    {
        wrId = 0;
        numSge = 0;
        next = null;
        return this;
    }

    /**
     * @param wrId returned in the completion.
     * @return this.
     */
    public RecvWorkRequest wrId(final long wrId)
    {
        this.wrId = wrId;
        return this;
    }

    /**
     * @return wr_id.
     */
    public long wrId()
    {
        return wrId;
    }

    /**
     * Append an SGE.
     *
     * @param addr   I/O virtual address.
     * @param length bytes.
     * @param lkey   local key.
     * @return this.
     * @throws IllegalStateException when the object's SGE capacity is used up.
     */
    public RecvWorkRequest addSge(final long addr, final int length, final int lkey)
    {
        if (numSge == sgList.length)
        {
            throw new IllegalStateException("this RecvWorkRequest holds at most " + sgList.length + " SGEs");
        }
        sgList[numSge++].set(addr, length, lkey);
        return this;
    }

    /**
     * Append an SGE over registered memory.
     *
     * @param region the region.
     * @param offset byte offset into it.
     * @param length bytes.
     * @return this.
     */
    public RecvWorkRequest addSge(final MemoryRegion region, final long offset, final int length)
    {
        return addSge(region.address(offset), length, region.lkey());
    }

    /**
     * @param count number of SGEs in use (after filling {@link #sge(int)} directly).
     * @return this.
     */
    public RecvWorkRequest numSge(final int count)
    {
        if (count < 0 || count > sgList.length)
        {
            throw new IllegalArgumentException("num_sge must be 0.." + sgList.length + ", got " + count);
        }
        this.numSge = count;
        return this;
    }

    /**
     * @return num_sge.
     */
    public int numSge()
    {
        return numSge;
    }

    /**
     * @param index 0 .. capacity - 1.
     * @return that SGE.
     */
    public ScatterGatherElement sge(final int index)
    {
        return sgList[index];
    }

    /**
     * @return sum of the SGE lengths in use.
     */
    public long totalLength()
    {
        long total = 0;
        for (int i = 0; i < numSge; i++)
        {
            total += sgList[i].length();
        }
        return total;
    }

    /**
     * @param next the WR to post after this one, or null.
     * @return this.
     */
    public RecvWorkRequest next(final RecvWorkRequest next)
    {
        this.next = next;
        return this;
    }

    /**
     * @return next WR of the chain, or null.
     */
    public RecvWorkRequest next()
    {
        return next;
    }

    /**
     * @return e.g. {@code recv_wr{wr_id=3 sge=1 len=4096}}.
     */
    public String toString()
    {
        return "recv_wr{wr_id=" + wrId + " sge=" + numSge + " len=" + totalLength() + "}";
    }
}
