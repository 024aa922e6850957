package org.roce4j.transport.link.memory;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The sending port's store for frames held back to be reordered: each waits until a given number of later frames
 * have left the port, or until a deadline on the fabric clock passes (so a frame held at the end of a burst still
 * goes out), then follows them. Owned by the thread driving the port: no locks. Slots are allocated on the first
 * held frame; afterwards nothing allocates.
 */
final class ReorderBuffer
{
    private final int capacity;
    private final int slotLength;
    private final MemoryLink[] destinations;
    private final int[] lengths;
    private final int[] remaining;
    private final int[] copies;
    private final long[] deadlineNs;
    private final boolean[] delayed;
    private final long[] dueNs;
    private final int[] order;
    private final int[] free;
    private UnsafeBuffer slots;
    private int size;
    private int freeCount;

    /**
     * @param capacity   most frames held at once.
     * @param slotLength longest frame the port can send.
     */
    ReorderBuffer(final int capacity, final int slotLength)
    {
        this.capacity = capacity;
        this.slotLength = slotLength;
        this.destinations = new MemoryLink[capacity];
        this.lengths = new int[capacity];
        this.remaining = new int[capacity];
        this.copies = new int[capacity];
        this.deadlineNs = new long[capacity];
        this.delayed = new boolean[capacity];
        this.dueNs = new long[capacity];
        this.order = new int[capacity];
        this.free = new int[capacity];
        for (int i = 0; i < capacity; i++)
        {
            free[i] = capacity - 1 - i;
        }
        this.freeCount = capacity;
    }

    /**
     * @return frames held.
     */
    int size()
    {
        return size;
    }

    /**
     * Hold a frame back.
     *
     * @param destination  port the frame goes to.
     * @param buffer       holding the frame.
     * @param offset       of the frame.
     * @param length       of the frame.
     * @param laterFrames  frames that must leave first, at least 1.
     * @param frameCopies  times to deliver the frame when released (1 plus injected duplicates).
     * @param deadline     fabric clock time after which it is released anyway.
     * @param isDelayed    true when it also carries a delivery time.
     * @param due          delivery time when {@code isDelayed}.
     * @return false when every slot is busy.
     */
    boolean hold(
        final MemoryLink destination,
        final DirectBuffer buffer,
        final int offset,
        final int length,
        final int laterFrames,
        final int frameCopies,
        final long deadline,
        final boolean isDelayed,
        final long due)
    {
        if (0 == freeCount || length > slotLength)
        {
            return false;
        }
        if (null == slots)
        {
            slots = new UnsafeBuffer(new byte[capacity * slotLength]);
        }
        final int slot = free[--freeCount];
        slots.putBytes(slot * slotLength, buffer, offset, length);
        destinations[slot] = destination;
        lengths[slot] = length;
        remaining[slot] = laterFrames;
        copies[slot] = frameCopies;
        deadlineNs[slot] = deadline;
        delayed[slot] = isDelayed;
        dueNs[slot] = due;
        order[size++] = slot;
        return true;
    }

    /**
     * A frame left the port: count it against every held frame and release, oldest first, those that have
     * waited for enough later frames.
     *
     * @param port sending the released frames.
     * @return frames released.
     */
    int onFrameSent(final MemoryLink port)
    {
        int released = 0;
        for (int i = 0; i < size; )
        {
            final int slot = order[i];
            if (--remaining[slot] <= 0)
            {
                release(port, i);
                released++;
            }
            else
            {
                i++;
            }
        }
        return released;
    }

    /**
     * Release, oldest first, the frames whose deadline has passed.
     *
     * @param port  sending the released frames.
     * @param nowNs fabric clock time.
     * @return frames released.
     */
    int releaseExpired(final MemoryLink port, final long nowNs)
    {
        int released = 0;
        for (int i = 0; i < size; )
        {
            if (deadlineNs[order[i]] - nowNs <= 0)
            {
                release(port, i);
                released++;
            }
            else
            {
                i++;
            }
        }
        return released;
    }

    /**
     * Release every held frame, oldest first.
     *
     * @param port sending the released frames.
     * @return frames released.
     */
    int releaseAll(final MemoryLink port)
    {
        int released = 0;
        while (size > 0)
        {
            release(port, 0);
            released++;
        }
        return released;
    }

    /**
     * Forget every held frame.
     */
    void clear()
    {
        while (size > 0)
        {
            final int slot = order[--size];
            destinations[slot] = null;
            free[freeCount++] = slot;
        }
    }

    private void release(final MemoryLink port, final int position)
    {
        final int slot = order[position];
        System.arraycopy(order, position + 1, order, position, size - position - 1);
        size--;
        final MemoryLink destination = destinations[slot];
        destinations[slot] = null;
        for (int c = 0; c < copies[slot]; c++)
        {
            port.forward(destination, slots, slot * slotLength, lengths[slot], delayed[slot], dueNs[slot]);
        }
        free[freeCount++] = slot;
    }
}
