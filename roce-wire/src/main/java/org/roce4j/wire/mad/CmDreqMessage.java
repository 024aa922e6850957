package org.roce4j.wire.mad;

import org.agrona.MutableDirectBuffer;

/**
 * CM DREQ, DisconnectRequest (IBA 12.6.10 table 112 "DREQ message contents"; CM_DREQ_* in
 * include/rdma/ibta_vol1_c12.h). Offsets are from the start of the CM data (MAD byte 24).
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                  Local Communication ID                       |   0
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                  Remote Communication ID                      |   4
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                Remote QPN/EECN (24)           |   Reserved    |   8
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                  Private Data (220 bytes)                     |  12
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 */
public final class CmDreqMessage extends CmMessage
{
    /** Offset of the remote QPN/EECN (24 bits). */
    public static final int REMOTE_QPN_OFFSET = 8;
    /** Offset of the private data. */
    public static final int PRIVATE_DATA_OFFSET = 12;
    /** Bytes of private data (IB_CM_DREQ_PRIVATE_DATA_SIZE). */
    public static final int PRIVATE_DATA_LENGTH = LENGTH - PRIVATE_DATA_OFFSET;

    /** {@inheritDoc} */
    public CmDreqMessage wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    /** {@inheritDoc} */
    public CmDreqMessage wrapMad(final MutableDirectBuffer buffer, final int madOffset)
    {
        return wrap(buffer, madOffset + MadHeader.LENGTH);
    }

    /**
     * @return {@link CmAttribute#DISCONNECT_REQUEST}.
     */
    public CmAttribute attribute()
    {
        return CmAttribute.DISCONNECT_REQUEST;
    }

    /**
     * @return 12.
     */
    public int privateDataOffset()
    {
        return PRIVATE_DATA_OFFSET;
    }

    /** {@inheritDoc} */
    public CmDreqMessage clear()
    {
        super.clear();
        return this;
    }

    /** {@inheritDoc} */
    public CmDreqMessage localCommId(final int commId)
    {
        super.localCommId(commId);
        return this;
    }

    /**
     * @return the peer's communication ID.
     */
    public int remoteCommId()
    {
        return i32(REMOTE_COMM_ID_OFFSET);
    }

    /**
     * @param commId remote communication ID.
     * @return this.
     */
    public CmDreqMessage remoteCommId(final int commId)
    {
        i32(REMOTE_COMM_ID_OFFSET, commId);
        return this;
    }

    /**
     * @return the peer's QP number (or EECN for RD), 24 bits: the QP being disconnected, as the receiver knows it.
     */
    public int remoteQpn()
    {
        return u24(REMOTE_QPN_OFFSET);
    }

    /**
     * @param qpn 24 bits.
     * @return this.
     */
    public CmDreqMessage remoteQpn(final int qpn)
    {
        u24(REMOTE_QPN_OFFSET, qpn);
        return this;
    }
}
