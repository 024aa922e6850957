package org.roce4j.wire.mad;

import org.agrona.MutableDirectBuffer;

/**
 * CM DREP, DisconnectReply: the answer to a DREQ (IBA 12.6.11 table 113 "DREP message contents"; CM_DREP_* in
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
 *  |                  Private Data (224 bytes)                     |   8
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 */
public final class CmDrepMessage extends CmMessage
{
    /** Offset of the private data. */
    public static final int PRIVATE_DATA_OFFSET = 8;
    /** Bytes of private data. */
    public static final int PRIVATE_DATA_LENGTH = LENGTH - PRIVATE_DATA_OFFSET;

    /** {@inheritDoc} */
    public CmDrepMessage wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    /** {@inheritDoc} */
    public CmDrepMessage wrapMad(final MutableDirectBuffer buffer, final int madOffset)
    {
        return wrap(buffer, madOffset + MadHeader.LENGTH);
    }

    /**
     * @return {@link CmAttribute#DISCONNECT_REPLY}.
     */
    public CmAttribute attribute()
    {
        return CmAttribute.DISCONNECT_REPLY;
    }

    /**
     * @return 8.
     */
    public int privateDataOffset()
    {
        return PRIVATE_DATA_OFFSET;
    }

    /** {@inheritDoc} */
    public CmDrepMessage clear()
    {
        super.clear();
        return this;
    }

    /** {@inheritDoc} */
    public CmDrepMessage localCommId(final int commId)
    {
        super.localCommId(commId);
        return this;
    }

    /**
     * @return the DREQ sender's communication ID.
     */
    public int remoteCommId()
    {
        return i32(REMOTE_COMM_ID_OFFSET);
    }

    /**
     * @param commId remote communication ID.
     * @return this.
     */
    public CmDrepMessage remoteCommId(final int commId)
    {
        i32(REMOTE_COMM_ID_OFFSET, commId);
        return this;
    }
}
