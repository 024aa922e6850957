package org.roce4j.cli.rping;

import java.nio.ByteOrder;

import org.agrona.MutableDirectBuffer;
import org.roce4j.wire.header.HeaderFlyweight;

/**
 * rping's one control message (librdmacm/examples/rping.c {@code struct rping_rdma_info}), sent as a 16-byte SEND:
 * the address, rkey and length of a buffer the peer may read or write, all big-endian.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                          buf (64)                             |   0
 *  +                                                               +
 *  |                                                               |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                          rkey (32)                            |   8
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                          size (32)                            |  12
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 */
public final class RpingRdmaInfo extends HeaderFlyweight
{
    /** Bytes of the message. */
    public static final int LENGTH = 16;
    /** Offset of the buffer's address (the peer's RDMA address: an iova). */
    public static final int BUF_OFFSET = 0;
    /** Offset of the buffer's rkey. */
    public static final int RKEY_OFFSET = 8;
    /** Offset of the buffer's length. */
    public static final int SIZE_OFFSET = 12;

    /** {@inheritDoc} */
    public RpingRdmaInfo wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    /**
     * @return 16.
     */
    public int length()
    {
        return LENGTH;
    }

    /**
     * @return the buffer's address.
     */
    public long buf()
    {
        return buffer.getLong(offset + BUF_OFFSET, ByteOrder.BIG_ENDIAN);
    }

    /**
     * @return the buffer's rkey.
     */
    public int rkey()
    {
        return buffer.getInt(offset + RKEY_OFFSET, ByteOrder.BIG_ENDIAN);
    }

    /**
     * @return the buffer's length.
     */
    public int size()
    {
        return buffer.getInt(offset + SIZE_OFFSET, ByteOrder.BIG_ENDIAN);
    }

    /**
     * Fill the message (rping_format_send).
     *
     * @param buf  address.
     * @param rkey rkey.
     * @param size length.
     * @return this.
     */
    public RpingRdmaInfo set(final long buf, final int rkey, final int size)
    {
        buffer.putLong(offset + BUF_OFFSET, buf, ByteOrder.BIG_ENDIAN);
        buffer.putInt(offset + RKEY_OFFSET, rkey, ByteOrder.BIG_ENDIAN);
        buffer.putInt(offset + SIZE_OFFSET, size, ByteOrder.BIG_ENDIAN);
        return this;
    }
}
