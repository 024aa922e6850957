package org.roce4j.transport.engine;

import java.util.concurrent.atomic.AtomicLong;

import org.agrona.BitUtil;

/**
 * A QP's send queue: a ring of preallocated {@link SendWqe} slots shared by one posting thread and the engine.
 *
 * <p>Three running indices, as in rxe's send queue with its requester and completer cursors:
 * <pre>
 *   completer &lt;= requester &lt;= producer
 *   [completer, requester)  started by the requester, waiting for ACKs (the completer owns them)
 *   [requester, producer)   posted, not started
 *   [producer, completer + capacity)  free: the poster may fill them
 * </pre>
 * The producer index is published with a release store after the slot is filled, and the completer index after a
 * slot is retired, so each side sees the other's writes without locks. Posting is single-producer: post to one QP
 * from one thread at a time.
 */
final class SendQueue
{
    private final SendWqe[] slots;
    private final int mask;
    private final int depth;
    private long producer;
    private final AtomicLong published = new AtomicLong();
    private final AtomicLong retired = new AtomicLong();
    long requester;
    long completer;

    /**
     * @param depth     number of WRs that may be outstanding (max_send_wr).
     * @param maxSge    SGEs per WR.
     * @param maxInline inline bytes per WR.
     */
    SendQueue(final int depth, final int maxSge, final int maxInline)
    {
        this.depth = depth;
        final int capacity = BitUtil.findNextPositivePowerOfTwo(Math.max(1, depth));
        this.slots = new SendWqe[capacity];
        this.mask = capacity - 1;
        for (int i = 0; i < capacity; i++)
        {
            slots[i] = new SendWqe(maxSge, maxInline);
        }
    }

    /**
     * @return the depth asked for (max_send_wr).
     */
    public int depth()
    {
        return depth;
    }

    /**
     * Producer: take the next free slot, cleared.
     *
     * @return the slot, or null when {@link #depth()} WRs are outstanding.
     */
    public SendWqe claim()
    {
        if (producer - retired.getAcquire() >= depth)
        {
            return null;
        }
        return slots[(int)producer & mask].clear();
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
     * @return WRs outstanding (posted and not yet completed), as the producer sees it.
     */
    public int outstanding()
    {
        return (int)(published.getAcquire() - retired.getAcquire());
    }

    /**
     * Engine: index one past the last published WQE.
     *
     * @return the published producer index.
     */
    long publishedIndex()
    {
        return published.getAcquire();
    }

    /**
     * Engine: the WQE at a running index.
     *
     * @param index running index.
     * @return its slot.
     */
    SendWqe at(final long index)
    {
        return slots[(int)index & mask];
    }

    /**
     * Engine: retire the WQE at the completer index and advance it, freeing the slot for the producer.
     */
    void retireOne()
    {
        completer++;
        retired.setRelease(completer);
    }
}
