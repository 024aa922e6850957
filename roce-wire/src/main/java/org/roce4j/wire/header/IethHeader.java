package org.roce4j.wire.header;

import org.agrona.MutableDirectBuffer;

/**
 * Invalidate Extended Transport Header (IBA 9.3.7): the R_Key a SEND_WITH_INVALIDATE asks the responder to
 * invalidate.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                        R_Key (32)                             |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 */
public final class IethHeader extends HeaderFlyweight
{
    /** Header length. */
    public static final int LENGTH = 4;
    /** Offset of the R_Key. */
    public static final int RKEY_OFFSET = 0;

    /** {@inheritDoc} */
    public IethHeader wrap(final MutableDirectBuffer buffer, final int offset)
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
     * @return the R_Key to invalidate.
     */
    public int rkey()
    {
        return i32(RKEY_OFFSET);
    }

    /**
     * @param rkey the R_Key to invalidate.
     * @return this.
     */
    public IethHeader rkey(final int rkey)
    {
        i32(RKEY_OFFSET, rkey);
        return this;
    }
}
