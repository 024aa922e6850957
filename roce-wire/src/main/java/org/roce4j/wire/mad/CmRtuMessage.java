package org.roce4j.wire.mad;

import org.agrona.MutableDirectBuffer;

/**
 * CM RTU, ReadyToUse: the active side accepts the REP and the connection may carry traffic (IBA 12.6.9 table
 * 111 "RTU message contents"; CM_RTU_* in include/rdma/ibta_vol1_c12.h). Offsets are from the start of the CM data
 * (MAD byte 24).
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
public final class CmRtuMessage extends CmMessage
{
    /** Offset of the private data. */
    public static final int PRIVATE_DATA_OFFSET = 8;
    /** Bytes of private data. */
    public static final int PRIVATE_DATA_LENGTH = LENGTH - PRIVATE_DATA_OFFSET;

    /** {@inheritDoc} */
    public CmRtuMessage wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    /** {@inheritDoc} */
    public CmRtuMessage wrapMad(final MutableDirectBuffer buffer, final int madOffset)
    {
        return wrap(buffer, madOffset + MadHeader.LENGTH);
    }

    /**
     * @return {@link CmAttribute#READY_TO_USE}.
     */
    public CmAttribute attribute()
    {
        return CmAttribute.READY_TO_USE;
    }

    /**
     * @return 8.
     */
    public int privateDataOffset()
    {
        return PRIVATE_DATA_OFFSET;
    }

    /** {@inheritDoc} */
    public CmRtuMessage clear()
    {
        super.clear();
        return this;
    }

    /** {@inheritDoc} */
    public CmRtuMessage localCommId(final int commId)
    {
        super.localCommId(commId);
        return this;
    }

    /**
     * @return the passive side's communication ID (from its REP).
     */
    public int remoteCommId()
    {
        return i32(REMOTE_COMM_ID_OFFSET);
    }

    /**
     * @param commId remote communication ID.
     * @return this.
     */
    public CmRtuMessage remoteCommId(final int commId)
    {
        i32(REMOTE_COMM_ID_OFFSET, commId);
        return this;
    }
}
