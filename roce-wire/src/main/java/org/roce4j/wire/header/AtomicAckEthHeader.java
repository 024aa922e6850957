package org.roce4j.wire.header;

import org.agrona.MutableDirectBuffer;

/**
 * Atomic Acknowledge Extended Transport Header (IBA 9.3.6): the value the target held before the atomic.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                 Original Remote Data (64)                     |
 *  +                                                               +
 *  |                                                               |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 */
public final class AtomicAckEthHeader extends HeaderFlyweight
{
    /** Header length. */
    public static final int LENGTH = 8;
    /** Offset of the original data. */
    public static final int ORIGINAL_DATA_OFFSET = 0;

    /** {@inheritDoc} */
    public AtomicAckEthHeader wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    /**
     * @return 8.
     */
    public int length()
    {
        return LENGTH;
    }

    /**
     * @return the 8 bytes at the target before the operation.
     */
    public long originalData()
    {
        return i64(ORIGINAL_DATA_OFFSET);
    }

    /**
     * @param value the 8 bytes at the target before the operation.
     * @return this.
     */
    public AtomicAckEthHeader originalData(final long value)
    {
        i64(ORIGINAL_DATA_OFFSET, value);
        return this;
    }
}
