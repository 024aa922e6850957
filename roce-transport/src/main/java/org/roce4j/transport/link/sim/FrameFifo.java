package org.roce4j.transport.link.sim;

import org.agrona.BitUtil;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A first-in first-out queue of frames, each with a time, in one byte ring: the store of a {@link SimSwitch} queue or
 * wire. Single-threaded; no allocation after construction.
 *
 * <pre>
 *   record (8-byte aligned): | time ns (8) | frame length (4) | tag (4) | frame ... | pad to 8 |
 * </pre>
 * A record never wraps: when the end of the ring has no room for it, a wrap marker (length -1) or, with fewer than 16
 * bytes left, nothing, sends the reader back to the start.
 *
 * <p>Frames are written in place: {@link #reserve(int)} returns where the frame goes, {@link #commit(long, int)} adds
 * its record; the head frame is read in place ({@link #headIndex()}) and {@link #pop()} drops it.
 */
final class FrameFifo
{
    /** Bytes in front of every frame. */
    static final int HEADER_LENGTH = 16;
    private static final int LENGTH_OFFSET = 8;
    private static final int TAG_OFFSET = 12;
    private static final int WRAP = -1;

    private final UnsafeBuffer buffer;
    private final int capacity;
    private long head;
    private long tail;
    private int reservedOffset = -1;
    private int reservedLength;
    private int count;
    private long frameBytes;

    /**
     * @param capacity bytes of records (frames plus 16 bytes each plus padding), a multiple of 8 of at least 64.
     */
    FrameFifo(final int capacity)
    {
        if (capacity < 64 || 0 != (capacity & 7))
        {
            throw new IllegalArgumentException("FIFO capacity must be a multiple of 8 of at least 64: " + capacity);
        }
        this.capacity = capacity;
        this.buffer = new UnsafeBuffer(BufferUtil.allocateDirectAligned(BitUtil.align(capacity, 64), 64));
    }

    /**
     * @param frameLength a frame's length.
     * @return the ring bytes its record takes.
     */
    static int recordLength(final int frameLength)
    {
        return HEADER_LENGTH + BitUtil.align(frameLength, 8);
    }

    /**
     * Reserve room for a frame of at most {@code maxLength} bytes.
     *
     * @param maxLength the most bytes the frame will have.
     * @return where the frame goes in {@link #buffer()}, or -1 when the ring has no room.
     */
    int reserve(final int maxLength)
    {
        final int record = recordLength(maxLength);
        int offset = (int)(tail % capacity);
        final int toEnd = capacity - offset;
        final long skip = toEnd < record ? toEnd : 0;
        if (tail + skip + record - head > capacity)
        {
            return -1;
        }
        if (0 != skip)
        {
            if (toEnd >= HEADER_LENGTH)
            {
                buffer.putInt(offset + LENGTH_OFFSET, WRAP);
            }
            tail += skip;
            offset = 0;
        }
        reservedOffset = offset;
        reservedLength = maxLength;
        return offset + HEADER_LENGTH;
    }

    /**
     * Add the reserved frame's record.
     *
     * @param timeNs what the frame's time means is the owner's (due, arrival, enqueue).
     * @param length the frame's length, at most the reserved length.
     * @param tag    the owner's: the number of the port the frame came from.
     */
    void commit(final long timeNs, final int length, final int tag)
    {
        if (reservedOffset < 0 || length < 1 || length > reservedLength)
        {
            throw new IllegalStateException("commit of " + length + " bytes without a reservation of that size");
        }
        buffer.putLong(reservedOffset, timeNs);
        buffer.putInt(reservedOffset + LENGTH_OFFSET, length);
        buffer.putInt(reservedOffset + TAG_OFFSET, tag);
        tail += recordLength(length);
        reservedOffset = -1;
        count++;
        frameBytes += length;
    }

    /**
     * Give up the reservation.
     */
    void abort()
    {
        reservedOffset = -1;
    }

    /**
     * Copy a frame in and add its record.
     *
     * @param timeNs its time.
     * @param source holding the frame.
     * @param index  where it starts.
     * @param length its length.
     * @param tag    the owner's.
     * @return false when the ring has no room.
     */
    boolean offer(final long timeNs, final UnsafeBuffer source, final int index, final int length, final int tag)
    {
        final int at = reserve(length);
        if (at < 0)
        {
            return false;
        }
        buffer.putBytes(at, source, index, length);
        commit(timeNs, length, tag);
        return true;
    }

    private int headOffset()
    {
        int offset = (int)(head % capacity);
        if (capacity - offset < HEADER_LENGTH || WRAP == buffer.getInt(offset + LENGTH_OFFSET))
        {
            head += capacity - offset;
            offset = 0;
        }
        return offset;
    }

    /**
     * @return true when no frame is queued.
     */
    boolean isEmpty()
    {
        return 0 == count;
    }

    /**
     * @return the head frame's time; only when not empty.
     */
    long headTime()
    {
        return buffer.getLong(headOffset());
    }

    /**
     * @return the head frame's length; only when not empty.
     */
    int headLength()
    {
        return buffer.getInt(headOffset() + LENGTH_OFFSET);
    }

    /**
     * @return the head frame's tag; only when not empty.
     */
    int headTag()
    {
        return buffer.getInt(headOffset() + TAG_OFFSET);
    }

    /**
     * @return where the head frame starts in {@link #buffer()}; only when not empty.
     */
    int headIndex()
    {
        return headOffset() + HEADER_LENGTH;
    }

    /**
     * Drop the head frame; only when not empty.
     */
    void pop()
    {
        final int offset = headOffset();
        final int length = buffer.getInt(offset + LENGTH_OFFSET);
        head += recordLength(length);
        count--;
        frameBytes -= length;
    }

    /**
     * Drop every frame.
     */
    void clear()
    {
        head = tail;
        count = 0;
        frameBytes = 0;
        reservedOffset = -1;
    }

    /**
     * @return frames queued.
     */
    int count()
    {
        return count;
    }

    /**
     * @return bytes of the frames queued (without record overhead).
     */
    long frameBytes()
    {
        return frameBytes;
    }

    /**
     * @return the ring.
     */
    UnsafeBuffer buffer()
    {
        return buffer;
    }
}
