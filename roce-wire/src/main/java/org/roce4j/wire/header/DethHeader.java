package org.roce4j.wire.header;

import org.agrona.MutableDirectBuffer;

/**
 * Datagram Extended Transport Header (IBA 9.3.2), carried by every UD packet.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                         Q_Key (32)                            |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |    Reserved   |              Source QP (24)                   |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * The receiver checks the Q_Key; packets to QP1 must carry {@link #GSI_QKEY}.
 */
public final class DethHeader extends HeaderFlyweight
{
    /** Header length. */
    public static final int LENGTH = 8;
    /** Offset of the queue key. */
    public static final int QKEY_OFFSET = 0;
    /** Offset of the reserved byte. */
    public static final int RESERVED_OFFSET = 4;
    /** Offset of the 24-bit source QP. */
    public static final int SRC_QP_OFFSET = 5;
    /** Q_Key of the GSI QP1 (IB_QP1_QKEY in ib_mad.h, GSI_QKEY in rxe_hdr.h). */
    public static final int GSI_QKEY = 0x8001_0000;
    /** A Q_Key with this bit set is "controlled" and cannot be sent by ordinary consumers (IBA 10.2.5). */
    public static final int CONTROLLED_QKEY_BIT = 0x8000_0000;

    /** {@inheritDoc} */
    public DethHeader wrap(final MutableDirectBuffer buffer, final int offset)
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
     * @return queue key.
     */
    public int qkey()
    {
        return i32(QKEY_OFFSET);
    }

    /**
     * @param qkey queue key.
     * @return this.
     */
    public DethHeader qkey(final int qkey)
    {
        i32(QKEY_OFFSET, qkey);
        return this;
    }

    /**
     * @return the reserved byte.
     */
    public int reserved()
    {
        return u8(RESERVED_OFFSET);
    }

    /**
     * @param value the reserved byte.
     * @return this.
     */
    public DethHeader reserved(final int value)
    {
        u8(RESERVED_OFFSET, value);
        return this;
    }

    /**
     * @return source QP number, 24 bits.
     */
    public int srcQp()
    {
        return u24(SRC_QP_OFFSET);
    }

    /**
     * @param qpn source QP number.
     * @return this.
     */
    public DethHeader srcQp(final int qpn)
    {
        u24(SRC_QP_OFFSET, qpn);
        return this;
    }
}
