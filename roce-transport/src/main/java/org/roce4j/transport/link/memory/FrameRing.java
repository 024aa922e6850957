package org.roce4j.transport.link.memory;

import org.agrona.BitUtil;
import org.agrona.BufferUtil;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The inbound ring of a {@link MemoryLink}: many producers (the ports sending to it) claim, fill and commit records;
 * one consumer (the port's own thread) reads them in place. Lock-free, allocation-free.
 *
 * <p>Why not Agrona's ManyToOneRingBuffer: its reader zeroes every byte it consumed, because its committed flag is
 * a record length that stale bytes of an earlier lap could imitate. For full-size frames that memset was a tenth
 * of the fabric's CPU time (profiled with a 64 KiB RDMA WRITE stream). Here records start on 64-byte blocks, a
 * record's first 8 bytes (its tag) are written last, with release semantics, and are the only thing the reader
 * checks; the reader zeroes just the first 8 bytes of every 64-byte block it consumed (one store per cache line
 * instead of eight), so every block start ahead of the writers is zero until a record committed there.
 *
 * <pre>
 *   record: | tag (8: position + 1 once committed, 0 before) | length (4) | type (4) | payload ... | pad to 64 |
 * </pre>
 * A record that would cross the end of the buffer is preceded by a padding record filling the rest of it.
 */
final class FrameRing
{
    /** Bytes in front of every payload: tag, length and type. */
    static final int HEADER_LENGTH = 16;
    /** Records start on cache-line boundaries, so only one 8-byte word per 64-byte block needs zeroing. */
    static final int ALIGNMENT = 64;
    /** Type of the records that fill the end of the buffer before a wrap. */
    static final int PADDING_TYPE = -1;
    private static final int LENGTH_OFFSET = 8;
    private static final int TYPE_OFFSET = 12;
    /** Producer and consumer positions live after the data, each on a 128-byte line of its own (no false sharing
     * with each other or the data, also with adjacent-line prefetch). */
    private static final int TAIL_OFFSET = 128;
    private static final int HEAD_OFFSET = 256;
    /** The producers' copy of the head (Agrona's ManyToOneRingBuffer keeps one too: headCachePosition), on a line
     * the consumer never writes: a claim reads it instead of the head, whose line the consumer dirties after every
     * read, and refreshes it from the head only when the copy says the record does not fit. */
    private static final int HEAD_CACHE_OFFSET = 384;
    private static final int TRAILER_LENGTH = 512;

    /**
     * Called for each committed record.
     */
    @FunctionalInterface
    interface RecordHandler
    {
        /**
         * @param type   the record's type.
         * @param buffer the ring's memory.
         * @param index  where the payload starts.
         * @param length payload length.
         * @return true to go on with the next record; false to stop after this one.
         */
        boolean onRecord(int type, MutableDirectBuffer buffer, int index, int length);
    }

    private final UnsafeBuffer buffer;
    private final int capacity;
    private final int mask;
    private final int maxPayloadLength;
    private final int tailIndex;
    private final int headIndex;
    private final int headCacheIndex;

    /**
     * @param capacity data bytes, a power of two of at least 1024.
     */
    FrameRing(final int capacity)
    {
        if (capacity < 1024 || !BitUtil.isPowerOfTwo(capacity))
        {
            throw new IllegalArgumentException("ring capacity must be a power of two of at least 1024: " + capacity);
        }
        this.capacity = capacity;
        this.mask = capacity - 1;
        // As Agrona's rings: a record may take up to an eighth of the buffer, so a full ring still holds several.
        this.maxPayloadLength = capacity / 8 - HEADER_LENGTH;
        this.buffer = new UnsafeBuffer(BufferUtil.allocateDirectAligned(capacity + TRAILER_LENGTH, ALIGNMENT));
        this.tailIndex = capacity + TAIL_OFFSET;
        this.headIndex = capacity + HEAD_OFFSET;
        this.headCacheIndex = capacity + HEAD_CACHE_OFFSET;
    }

    /**
     * @return the memory records live in (payload indexes refer to it).
     */
    MutableDirectBuffer buffer()
    {
        return buffer;
    }

    /**
     * @return largest payload a record may have.
     */
    int maxPayloadLength()
    {
        return maxPayloadLength;
    }

    /**
     * Claim room for a record (any thread).
     *
     * @param type   a non-negative record type.
     * @param length payload length.
     * @return index of the payload in {@link #buffer()}, or -1 when the ring is full.
     */
    int tryClaim(final int type, final int length)
    {
        if (length < 0 || length > maxPayloadLength)
        {
            throw new IllegalArgumentException("record of " + length + " bytes, at most " + maxPayloadLength);
        }
        final UnsafeBuffer buffer = this.buffer;
        final int recordLength = BitUtil.align(HEADER_LENGTH + length, ALIGNMENT);
        long tail;
        int padding;
        do
        {
            tail = buffer.getLongVolatile(tailIndex);
            final int index = (int)tail & mask;
            final int toEnd = capacity - index;
            padding = recordLength > toEnd ? toEnd : 0;
            final long required = tail + padding + recordLength - capacity;
            if (required > buffer.getLongVolatile(headCacheIndex))
            {
                // The copy is stale (it only ever lags the head): read the head and keep it for the next claims.
                // Racing producers may store heads out of order: the copy can lag, never pass the head.
                final long head = buffer.getLongVolatile(headIndex);
                if (required > head)
                {
                    return -1;
                }
                buffer.putLongOrdered(headCacheIndex, head);
            }
        }
        while (!buffer.compareAndSetLong(tailIndex, tail, tail + padding + recordLength));
        if (padding > 0)
        {
            final int padIndex = (int)tail & mask;
            buffer.putInt(padIndex + LENGTH_OFFSET, padding - HEADER_LENGTH);
            buffer.putInt(padIndex + TYPE_OFFSET, PADDING_TYPE);
            buffer.putLongOrdered(padIndex, tail + 1);
        }
        final long position = tail + padding;
        final int recordIndex = (int)position & mask;
        buffer.putInt(recordIndex + LENGTH_OFFSET, length);
        buffer.putInt(recordIndex + TYPE_OFFSET, type);
        return recordIndex + HEADER_LENGTH;
    }

    /**
     * Publish a claimed record (the thread that claimed it): its tag becomes its position + 1.
     *
     * @param index returned by {@link #tryClaim}.
     */
    void commit(final int index)
    {
        final int recordIndex = index - HEADER_LENGTH;
        // The position of a record at this index: the one in the lap the writers are in, or the lap before when the
        // tail has wrapped past it since (at most capacity behind the tail).
        final long tail = buffer.getLongVolatile(tailIndex);
        long position = (tail & ~(long)mask) | recordIndex;
        if (position >= tail)
        {
            position -= capacity;
        }
        buffer.putLongOrdered(recordIndex, position + 1);
    }

    /**
     * Hand committed records to a handler in order, in place (the consumer thread only).
     *
     * @param handler    called once per record (padding records are skipped).
     * @param maxRecords most records to hand over.
     * @return records handed over.
     */
    int read(final RecordHandler handler, final int maxRecords)
    {
        final UnsafeBuffer buffer = this.buffer;
        final long head = buffer.getLong(headIndex);
        long position = head;
        int records = 0;
        try
        {
            while (records < maxRecords)
            {
                final int index = (int)position & mask;
                if (buffer.getLongVolatile(index) != position + 1)
                {
                    break;
                }
                final int length = buffer.getInt(index + LENGTH_OFFSET);
                final int type = buffer.getInt(index + TYPE_OFFSET);
                position += BitUtil.align(HEADER_LENGTH + length, ALIGNMENT);
                if (PADDING_TYPE != type)
                {
                    records++;
                    if (!handler.onRecord(type, buffer, index + HEADER_LENGTH, length))
                    {
                        break;
                    }
                }
            }
        }
        finally
        {
            if (position != head)
            {
                // Clear the first word of every consumed block, then let writers have the space.
                for (long block = head; block < position; block += ALIGNMENT)
                {
                    buffer.putLong((int)block & mask, 0L);
                }
                buffer.putLongOrdered(headIndex, position);
            }
        }
        return records;
    }

    /**
     * @return bytes of records committed or being written and not yet consumed (approximate under concurrency).
     */
    long size()
    {
        return buffer.getLongVolatile(tailIndex) - buffer.getLongVolatile(headIndex);
    }
}
