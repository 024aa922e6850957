package org.roce4j.transport.link.fault;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A fixed pool of frame-sized slots with a free list, where {@link DelayLine} and {@link ReorderBuffer} keep the
 * frames they hold back. The memory is allocated on the first frame, so users that never hold one cost nothing;
 * afterwards nothing allocates. Owned by one thread: no locks.
 */
final class FrameSlots
{
    private final int capacity;
    private final int slotLength;
    private final int[] lengths;
    private final int[] free;
    private UnsafeBuffer slots;
    private int freeCount;

    /**
     * @param capacity   most frames held at once.
     * @param slotLength longest frame a slot holds.
     */
    FrameSlots(final int capacity, final int slotLength)
    {
        this.capacity = capacity;
        this.slotLength = slotLength;
        this.lengths = new int[capacity];
        this.free = new int[capacity];
        for (int i = 0; i < capacity; i++)
        {
            free[i] = capacity - 1 - i;
        }
        this.freeCount = capacity;
    }

    /**
     * Copy a frame into a free slot.
     *
     * @param buffer holding the frame.
     * @param offset of the frame.
     * @param length of the frame.
     * @return the slot, 0 to capacity - 1; -1 when every slot is busy or the frame is longer than a slot.
     */
    int claim(final DirectBuffer buffer, final int offset, final int length)
    {
        if (0 == freeCount || length > slotLength)
        {
            return -1;
        }
        if (null == slots)
        {
            slots = new UnsafeBuffer(new byte[capacity * slotLength]);
        }
        final int slot = free[--freeCount];
        slots.putBytes(slot * slotLength, buffer, offset, length);
        lengths[slot] = length;
        return slot;
    }

    /**
     * @param slot a claimed slot, free again now.
     */
    void release(final int slot)
    {
        free[freeCount++] = slot;
    }

    /**
     * @return the memory of every slot (null before the first claim).
     */
    UnsafeBuffer buffer()
    {
        return slots;
    }

    /**
     * @param slot a claimed slot.
     * @return where its frame starts in {@link #buffer()}.
     */
    int offset(final int slot)
    {
        return slot * slotLength;
    }

    /**
     * @param slot a claimed slot.
     * @return its frame's length.
     */
    int length(final int slot)
    {
        return lengths[slot];
    }
}
