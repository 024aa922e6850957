package org.roce4j.transport.engine;

import java.util.concurrent.atomic.AtomicLong;

import org.agrona.BitUtil;
import org.roce4j.transport.provider.RqOps;
import org.roce4j.transport.provider.WrView;

/**
 * A receive queue (a QP's own, or a shared receive queue): a ring of preallocated {@link RecvWqe} slots filled by
 * one posting thread and consumed in order by the engine's responder.
 *
 * <p>For an SRQ, a limit may be armed (ibv_modify_srq with IBV_SRQ_LIMIT): when the number of posted WQEs drops
 * below it, the engine raises one SRQ_LIMIT_REACHED event and disarms it (IBA 10.2.9.3).
 */
final class ReceiveQueue implements RqOps
{
    private final RecvWqe[] slots;
    private final int mask;
    private final int depth;
    private final int handle;
    private long producer;
    private final AtomicLong published = new AtomicLong();
    private final AtomicLong consumedPublished = new AtomicLong();
    long consumer;
    private volatile int limit;

    /**
     * @param handle identifier (SRQ number, or the QPN for a QP's own queue).
     * @param depth  number of WRs that may be posted (max_recv_wr).
     * @param maxSge SGEs per WR.
     */
    ReceiveQueue(final int handle, final int depth, final int maxSge)
    {
        this.handle = handle;
        this.depth = depth;
        final int capacity = BitUtil.findNextPositivePowerOfTwo(Math.max(1, depth));
        this.slots = new RecvWqe[capacity];
        this.mask = capacity - 1;
        for (int i = 0; i < capacity; i++)
        {
            slots[i] = new RecvWqe(maxSge);
        }
    }

    /**
     * @return identifier given at creation.
     */
    public int handle()
    {
        return handle;
    }

    /**
     * @return max_recv_wr.
     */
    public int depth()
    {
        return depth;
    }

    /**
     * @return the most SGEs a WQE of this queue holds (its slots' capacity).
     */
    public int maxSge()
    {
        return slots[0].sgl.capacity();
    }

    /**
     * Producer: take the next free slot, cleared.
     *
     * @param wrId the work request id to store.
     * @return the slot, or null when the queue is full.
     */
    public RecvWqe claim(final long wrId)
    {
        if (producer - consumedPublished.getAcquire() >= depth)
        {
            return null;
        }
        return slots[(int)producer & mask].reset(wrId);
    }

    /**
     * Producer: make the claimed slot visible to the engine.
     */
    public void publish()
    {
        producer++;
        published.setRelease(producer);
    }

    /**
     * Producer: copy a receive WR into the next free slot and publish it.
     *
     * @param wr the request, checked by the caller.
     * @throws IllegalStateException when the queue is full.
     */
    public void postRecv(final WrView wr)
    {
        final RecvWqe wqe = claim(wr.wrId());
        if (null == wqe)
        {
            throw new IllegalStateException("receive queue " + handle + " is full (" + depth + " WRs posted); the " +
                "caller checks for room before posting");
        }
        for (int i = 0, n = wr.numSge(); i < n; i++)
        {
            wqe.sgl.add(wr.sgeAddress(i), wr.sgeLength(i), wr.sgeLkey(i));
        }
        publish();
    }

    /**
     * @return posted WQEs not yet consumed.
     */
    public int available()
    {
        return (int)(published.getAcquire() - consumedPublished.getAcquire());
    }

    /**
     * Arm (or with 0 disarm) the SRQ limit event.
     *
     * @param limit raise SRQ_LIMIT_REACHED when fewer than this many WQEs remain.
     */
    public void armLimit(final int limit)
    {
        this.limit = limit;
    }

    /**
     * @return the armed limit, 0 when disarmed.
     */
    public int limit()
    {
        return limit;
    }

    /**
     * Engine: the oldest unconsumed WQE.
     *
     * @return it, or null when none is posted.
     */
    RecvWqe peek()
    {
        if (consumer >= published.getAcquire())
        {
            return null;
        }
        return slots[(int)consumer & mask];
    }

    /**
     * Engine: consume the WQE returned by {@link #peek()}.
     *
     * @return true when this consumption crossed an armed limit (the caller raises the event; the limit is now
     *     disarmed).
     */
    boolean consume()
    {
        consumer++;
        consumedPublished.setRelease(consumer);
        final int armed = limit;
        if (armed > 0 && published.getAcquire() - consumer < armed)
        {
            limit = 0;
            return true;
        }
        return false;
    }
}
