package org.roce4j.wire.header;

import org.agrona.MutableDirectBuffer;

/**
 * Atomic Extended Transport Header (IBA 9.3.4), carried by COMPARE_SWAP and FETCH_ADD requests.
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
 *  |                  Swap (or Add) Data (64)                      |
 *  +                                                               +
 *  |                                                               |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                     Compare Data (64)                         |
 *  +                                                               +
 *  |                                                               |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * 28 bytes, so the 64-bit data fields are not 8-byte aligned. For FETCH_ADD the add value travels in Swap/Add and
 * Compare is ignored (rxe_req.c).
 */
public final class AtomicEthHeader extends HeaderFlyweight
{
    /** Header length (IB_EXT_ATOMICETH_BYTES). */
    public static final int LENGTH = 28;
    /** Offset of the virtual address. */
    public static final int VA_OFFSET = 0;
    /** Offset of the remote key. */
    public static final int RKEY_OFFSET = 8;
    /** Offset of the swap or add operand. */
    public static final int SWAP_ADD_OFFSET = 12;
    /** Offset of the compare operand. */
    public static final int COMPARE_OFFSET = 20;

    /** {@inheritDoc} */
    public AtomicEthHeader wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    /**
     * @return 28.
     */
    public int length()
    {
        return LENGTH;
    }

    /**
     * @return remote virtual address of the 8-byte target.
     */
    public long va()
    {
        return i64(VA_OFFSET);
    }

    /**
     * @param va remote virtual address.
     * @return this.
     */
    public AtomicEthHeader va(final long va)
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
    public AtomicEthHeader rkey(final int rkey)
    {
        i32(RKEY_OFFSET, rkey);
        return this;
    }

    /**
     * @return swap value (COMPARE_SWAP) or addend (FETCH_ADD).
     */
    public long swapAdd()
    {
        return i64(SWAP_ADD_OFFSET);
    }

    /**
     * @param value swap value or addend.
     * @return this.
     */
    public AtomicEthHeader swapAdd(final long value)
    {
        i64(SWAP_ADD_OFFSET, value);
        return this;
    }

    /**
     * @return compare value (COMPARE_SWAP only).
     */
    public long compare()
    {
        return i64(COMPARE_OFFSET);
    }

    /**
     * @param value compare value.
     * @return this.
     */
    public AtomicEthHeader compare(final long value)
    {
        i64(COMPARE_OFFSET, value);
        return this;
    }
}
