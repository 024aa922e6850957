package org.roce4j.wire.header;

import org.agrona.MutableDirectBuffer;

/**
 * Immediate Data Extended Transport Header (IBA 9.3.5): 4 opaque bytes delivered in the receive completion.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                     Immediate Data (32)                       |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * libibverbs passes imm_data in network order; {@link #immediate()} returns the four bytes as a big-endian int.
 */
public final class ImmDtHeader extends HeaderFlyweight
{
    /** Header length. */
    public static final int LENGTH = 4;
    /** Offset of the immediate data. */
    public static final int IMMEDIATE_OFFSET = 0;

    /** {@inheritDoc} */
    public ImmDtHeader wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    /**
     * @return 4.
     */
    public int length()
    {
        return LENGTH;
    }

    /**
     * @return the four bytes as a big-endian int.
     */
    public int immediate()
    {
        return i32(IMMEDIATE_OFFSET);
    }

    /**
     * @param value the four bytes as a big-endian int.
     * @return this.
     */
    public ImmDtHeader immediate(final int value)
    {
        i32(IMMEDIATE_OFFSET, value);
        return this;
    }
}
