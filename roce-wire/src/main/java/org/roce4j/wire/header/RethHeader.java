package org.roce4j.wire.header;

import org.agrona.MutableDirectBuffer;

/**
 * RDMA Extended Transport Header (IBA 9.3.3): where an RDMA WRITE, READ, FLUSH or ATOMIC WRITE goes.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                    Virtual Address (64)                       |
 *  +                                                               +
 *  |                                                               |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                        R_Key (32)                             |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                      DMA Length (32)                          |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 */
public final class RethHeader extends HeaderFlyweight
{
    /** Header length. */
    public static final int LENGTH = 16;
    /** Offset of the virtual address. */
    public static final int VA_OFFSET = 0;
    /** Offset of the remote key. */
    public static final int RKEY_OFFSET = 8;
    /** Offset of the DMA length. */
    public static final int DMA_LENGTH_OFFSET = 12;

    /** {@inheritDoc} */
    public RethHeader wrap(final MutableDirectBuffer buffer, final int offset)
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
     * @return remote virtual address.
     */
    public long va()
    {
        return i64(VA_OFFSET);
    }

    /**
     * @param va remote virtual address.
     * @return this.
     */
    public RethHeader va(final long va)
    {
        i64(VA_OFFSET, va);
        return this;
    }

    /**
     * @return remote key.
     */
    public int rkey()
    {
        return i32(RKEY_OFFSET);
    }

    /**
     * @param rkey remote key.
     * @return this.
     */
    public RethHeader rkey(final int rkey)
    {
        i32(RKEY_OFFSET, rkey);
        return this;
    }

    /**
     * @return DMA length of the whole message, unsigned 32 bits.
     */
    public long dmaLength()
    {
        return i32(DMA_LENGTH_OFFSET) & 0xFFFF_FFFFL;
    }

    /**
     * @param length DMA length of the whole message.
     * @return this.
     */
    public RethHeader dmaLength(final long length)
    {
        i32(DMA_LENGTH_OFFSET, (int)length);
        return this;
    }
}
