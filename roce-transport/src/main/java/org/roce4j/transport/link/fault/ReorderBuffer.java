package org.roce4j.transport.link.fault;

import org.agrona.DirectBuffer;

/**
 * A store for frames held back to be reordered: each waits until a given number of later frames have passed, or
 * until a deadline passes (so a frame held at the end of a burst still goes out), then follows them. The memory
 * fabric's sending port keeps one; a {@link FaultyLink} keeps one per direction. Owned by one thread: no locks.
 * Slots are allocated on the first held frame; afterwards nothing allocates.
 *
 * @param <D> where a released frame goes (the fabric's destination port; nothing for a FaultyLink).
 */
public final class ReorderBuffer<D>
{
    /**
     * Takes released frames.
     *
     * @param <D> where a released frame goes.
     */
    @FunctionalInterface
    public interface Release<D>
    {
        /**
         * One copy of a released frame.
         *
         * @param destination given when it was held.
         * @param buffer      holding the frame (valid during the call).
         * @param offset      of the frame.
         * @param length      of the frame.
         * @param delayed     true when it also carries a due time.
         * @param dueNs       its due time when delayed.
         */
        void release(D destination, DirectBuffer buffer, int offset, int length, boolean delayed, long dueNs);
    }

    private final FrameSlots slots;
    private final Object[] destinations;
    private final int[] remaining;
    private final int[] copies;
    private final long[] deadlineNs;
    private final boolean[] delayed;
    private final long[] dueNs;
    private final int[] order;
    private int size;

    /**
     * @param capacity   most frames held at once.
     * @param slotLength longest frame the port can send.
     */
    public ReorderBuffer(final int capacity, final int slotLength)
    {
        this.slots = new FrameSlots(capacity, slotLength);
        this.destinations = new Object[capacity];
        this.remaining = new int[capacity];
        this.copies = new int[capacity];
        this.deadlineNs = new long[capacity];
        this.delayed = new boolean[capacity];
        this.dueNs = new long[capacity];
        this.order = new int[capacity];
    }

    /**
     * @return frames held.
     */
    public int size()
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
     * @param deadline     clock time after which it is released anyway.
     * @param isDelayed    true when it also carries a delivery time.
     * @param due          delivery time when {@code isDelayed}.
     * @return false when every slot is busy.
     */
    public boolean hold(
        final D destination,
        final DirectBuffer buffer,
        final int offset,
        final int length,
        final int laterFrames,
        final int frameCopies,
        final long deadline,
        final boolean isDelayed,
        final long due)
    {
        final int slot = slots.claim(buffer, offset, length);
        if (slot < 0)
        {
            return false;
        }
        destinations[slot] = destination;
        remaining[slot] = laterFrames;
        copies[slot] = frameCopies;
        deadlineNs[slot] = deadline;
        delayed[slot] = isDelayed;
        dueNs[slot] = due;
        order[size++] = slot;
        return true;
    }

    /**
     * A frame went on: count it against every held frame and release, oldest first, those that have waited for
     * enough later frames.
     *
     * @param port takes the released frames.
     * @return frames released.
     */
    public int onFrameSent(final Release<D> port)
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
     * @param port  takes the released frames.
     * @param nowNs clock time.
     * @return frames released.
     */
    public int releaseExpired(final Release<D> port, final long nowNs)
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
     * @param port takes the released frames.
     * @return frames released.
     */
    public int releaseAll(final Release<D> port)
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
    public void clear()
    {
        while (size > 0)
        {
            final int slot = order[--size];
            destinations[slot] = null;
            slots.release(slot);
        }
    }

    private void release(final Release<D> port, final int position)
    {
        final int slot = order[position];
        System.arraycopy(order, position + 1, order, position, size - position - 1);
        size--;
        @SuppressWarnings("unchecked")
        final D destination = (D)destinations[slot];
        destinations[slot] = null;
        for (int c = 0; c < copies[slot]; c++)
        {
            port.release(destination, slots.buffer(), slots.offset(slot), slots.length(slot), delayed[slot],
                dueNs[slot]);
        }
        slots.release(slot);
    }
}
