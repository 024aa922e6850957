package org.roce4j.verbs;

/**
 * What send and receive work requests share (struct ibv_send_wr and struct ibv_recv_wr both open with
 * {@code wr_id}, {@code next}, {@code sg_list} and {@code num_sge}): the caller's identifier, the scatter/gather list
 * and the link to the next WR of a chain. Mutable and reusable; the setters return the concrete type so calls
 * chain.
 *
 * @param <W> the concrete work request type.
 */
public abstract sealed class WorkRequest<W extends WorkRequest<W>> permits SendWorkRequest, RecvWorkRequest
{
    private long wrId;
    private final ScatterGatherElement[] sgList;
    private int numSge;
    private W next;

    /**
     * @param sgeCapacity most SGEs this object will carry.
     * @throws IllegalArgumentException when negative.
     */
    WorkRequest(final int sgeCapacity)
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
     * @return this object as its concrete type.
     */
    abstract W self();

    /**
     * Clear the shared fields: wr_id 0, no SGEs, no next.
     */
    void resetCommon()
    {
        wrId = 0;
        numSge = 0;
        next = null;
    }

    /**
     * @param wrId returned in the completion.
     * @return this.
     */
    public W wrId(final long wrId)
    {
        this.wrId = wrId;
        return self();
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
    public W addSge(final long addr, final int length, final int lkey)
    {
        if (numSge == sgList.length)
        {
            throw new IllegalStateException("this " + getClass().getSimpleName() + " holds at most " +
                sgList.length + " SGEs");
        }
        sgList[numSge++].set(addr, length, lkey);
        return self();
    }

    /**
     * Append an SGE over registered memory.
     *
     * @param region the region.
     * @param offset byte offset into it.
     * @param length bytes.
     * @return this.
     */
    public W addSge(final MemoryRegion region, final long offset, final int length)
    {
        return addSge(region.address(offset), length, region.lkey());
    }

    /**
     * @param count number of SGEs in use (after filling {@link #sge(int)} directly).
     * @return this.
     * @throws IllegalArgumentException when outside 0 .. capacity.
     */
    public W numSge(final int count)
    {
        if (count < 0 || count > sgList.length)
        {
            throw new IllegalArgumentException("num_sge must be 0.." + sgList.length + ", got " + count);
        }
        this.numSge = count;
        return self();
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
     * @param next the WR to post after this one, or null to end the chain.
     * @return this.
     */
    public W next(final W next)
    {
        this.next = next;
        return self();
    }

    /**
     * @return next WR of the chain, or null.
     */
    public W next()
    {
        return next;
    }
}
