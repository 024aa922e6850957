package org.roce4j.verbs;

import org.roce4j.transport.provider.RqOps;

/**
 * A shared receive queue (struct ibv_srq): receive WRs any QP created with it consumes, in order. Post from one
 * thread at a time.
 *
 * <p>{@link #modify(int)} arms the limit (ibv_modify_srq with IBV_SRQ_LIMIT): once fewer than {@code limit} WRs
 * remain posted, the device raises one SRQ_LIMIT_REACHED asynchronous event whose element is {@link #handle()}, and
 * the limit disarms (IBA 10.2.9.3).
 */
public final class SharedReceiveQueue
{
    private final ProtectionDomain pd;
    private final RqOps queue;
    private final int maxSge;
    private final WrReader reader;
    private int uses;
    private volatile boolean destroyed;

    SharedReceiveQueue(final ProtectionDomain pd, final RqOps queue, final int maxSge)
    {
        this.pd = pd;
        this.queue = queue;
        this.maxSge = maxSge;
        this.reader = new WrReader(pd.device());
    }

    /**
     * @return the protection domain.
     */
    public ProtectionDomain pd()
    {
        return pd;
    }

    /**
     * @return the SRQ's handle (the element of its SRQ_LIMIT_REACHED events).
     */
    public int handle()
    {
        return queue.handle();
    }

    /**
     * @return receive WRs posted and not yet consumed.
     */
    public int available()
    {
        return queue.available();
    }

    /**
     * Post a chain of receive WRs (ibv_post_srq_recv). All-or-nothing: on error nothing is queued.
     *
     * @param wr the first WR of the chain.
     * @throws BadWorkRequestException naming the bad WR and its index in the chain.
     */
    public void postRecv(final RecvWorkRequest wr)
    {
        if (destroyed)
        {
            throw new IllegalStateException("SRQ " + handle() + " was destroyed");
        }
        pd.device().checkOpen();
        Posting.postRecv(queue, maxSge, wr, "SRQ " + handle(), reader);
    }

    /**
     * Arm (or with 0 disarm) the SRQ limit event (ibv_modify_srq, IBV_SRQ_LIMIT).
     *
     * @param limit 0 .. max_wr.
     */
    public void modify(final int limit)
    {
        ProtectionDomain.checkRange(limit, 0, queue.depth(), "srq_limit");
        if (destroyed)
        {
            throw new IllegalStateException("SRQ " + handle() + " was destroyed");
        }
        queue.armLimit(limit);
    }

    /**
     * @return max_wr, max_sge and the armed limit (ibv_query_srq).
     */
    public SrqAttributes query()
    {
        return new SrqAttributes(queue.depth(), maxSge, queue.limit());
    }

    /**
     * Destroy the SRQ (ibv_destroy_srq).
     *
     * @throws IllegalStateException while a QP still uses it, or when already destroyed.
     */
    public void destroy()
    {
        synchronized (this)
        {
            if (destroyed)
            {
                throw new IllegalStateException("SRQ " + handle() + " is already destroyed");
            }
            if (0 != uses)
            {
                throw new IllegalStateException("SRQ " + handle() + " is still used by " + uses + " queue pair" +
                    (1 == uses ? "" : "s") + "; destroy them first");
            }
            destroyed = true;
        }
        pd.releaseSrq();
    }

    /**
     * @return true once destroyed.
     */
    public boolean isDestroyed()
    {
        return destroyed;
    }

    RqOps ops()
    {
        return queue;
    }

    void addUse()
    {
        synchronized (this)
        {
            uses++;
        }
    }

    void releaseUse()
    {
        synchronized (this)
        {
            uses--;
        }
    }

    /**
     * @return e.g. {@code SRQ 5 (max_wr=64, 10 posted, limit 4)}.
     */
    public String toString()
    {
        return "SRQ " + handle() + " (max_wr=" + queue.depth() + ", " + available() + " posted, limit " +
            queue.limit() + ")";
    }
}
