package org.roce4j.transport.link.fault;

import org.agrona.DirectBuffer;
import org.roce4j.transport.link.FrameHandler;
import org.roce4j.transport.link.LinkCounter;
import org.roce4j.transport.link.LinkCounters;

/**
 * A hold area for delayed frames until they are due: a fixed pool of frame-sized slots and a binary min-heap ordered
 * by due time, then arrival order, so frames with equal due times keep their order. The memory fabric's receiving
 * port keeps one for delayed frames not due yet when it read them from its ring; a {@link FaultyLink} keeps one per
 * direction. Owned by one thread: no locks. The slots are allocated on the first delayed frame, so users that never
 * see one cost nothing; afterwards nothing allocates.
 */
public final class DelayLine
{
    private final int capacity;
    private final FrameSlots slots;
    private final long[] dueNs;
    private final long[] arrival;
    private final int[] heap;
    private int size;
    private long arrivals;

    /**
     * @param capacity   most frames held at once.
     * @param slotLength longest frame the port can receive.
     */
    public DelayLine(final int capacity, final int slotLength)
    {
        this.capacity = capacity;
        this.slots = new FrameSlots(capacity, slotLength);
        this.dueNs = new long[capacity];
        this.arrival = new long[capacity];
        this.heap = new int[capacity];
    }

    /**
     * @return most frames held at once.
     */
    public int capacity()
    {
        return capacity;
    }

    /**
     * @return frames held.
     */
    public int size()
    {
        return size;
    }

    /**
     * Copy a frame in until it is due.
     *
     * @param buffer holding the frame.
     * @param offset of the frame.
     * @param length of the frame, at most the slot length.
     * @param due    clock time at which to deliver it.
     * @return false when every slot is busy (the caller counts the drop).
     */
    public boolean hold(final DirectBuffer buffer, final int offset, final int length, final long due)
    {
        final int slot = slots.claim(buffer, offset, length);
        if (slot < 0)
        {
            return false;
        }
        dueNs[slot] = due;
        arrival[slot] = arrivals++;
        int child = size++;
        while (child > 0)
        {
            final int parent = (child - 1) >>> 1;
            if (!before(slot, heap[parent]))
            {
                break;
            }
            heap[child] = heap[parent];
            child = parent;
        }
        heap[child] = slot;
        return true;
    }

    /**
     * Hand over the frames due at {@code nowNs}, earliest first.
     *
     * @param nowNs     clock time.
     * @param handler   receiving the frames.
     * @param maxFrames the most frames to hand over.
     * @param counters  whose FRAMES_RECEIVED and BYTES_RECEIVED count them, or null to count nothing.
     * @return frames handed over.
     */
    public int deliverDue(final long nowNs, final FrameHandler handler, final int maxFrames,
        final LinkCounters counters)
    {
        int delivered = 0;
        while (size > 0 && delivered < maxFrames && dueNs[heap[0]] - nowNs <= 0)
        {
            final int slot = removeFirst();
            if (null != counters)
            {
                counters.increment(LinkCounter.FRAMES_RECEIVED);
                counters.add(LinkCounter.BYTES_RECEIVED, slots.length(slot));
            }
            try
            {
                handler.onFrame(slots.buffer(), slots.offset(slot), slots.length(slot));
            }
            finally
            {
                slots.release(slot);
            }
            delivered++;
        }
        return delivered;
    }

    /**
     * Forget every held frame.
     */
    public void clear()
    {
        while (size > 0)
        {
            slots.release(removeFirst());
        }
    }

    private int removeFirst()
    {
        final int first = heap[0];
        final int last = heap[--size];
        int parent = 0;
        while (true)
        {
            int child = 2 * parent + 1;
            if (child >= size)
            {
                break;
            }
            if (child + 1 < size && before(heap[child + 1], heap[child]))
            {
                child++;
            }
            if (!before(heap[child], last))
            {
                break;
            }
            heap[parent] = heap[child];
            parent = child;
        }
        heap[parent] = last;
        return first;
    }

    private boolean before(final int a, final int b)
    {
        final long difference = dueNs[a] - dueNs[b];
        return difference < 0 || (0 == difference && arrival[a] < arrival[b]);
    }
}
