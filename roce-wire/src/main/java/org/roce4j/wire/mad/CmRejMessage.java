package org.roce4j.wire.mad;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * CM REJ, ConnectReject (IBA 12.6.7 table 108 "REJ message contents"; CM_REJ_* in include/rdma/ibta_vol1_c12.h).
 * Offsets are from the start of the CM data (MAD byte 24).
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                  Local Communication ID                       |   0
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                  Remote Communication ID                      |   4
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |M. | Reserved  |  ARI Len    |R|            Reason             |   8
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |            Additional Rejection Information (72 bytes)        |  12
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                  Private Data (148 bytes)                     |  84
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * M. = message rejected (2 bits: {@link #REJECTED_REQ}, {@link #REJECTED_REP}, {@link #REJECTED_OTHER}), ARI Len =
 * rejected info length (7 bits, bytes of ARI that are valid). The reason is a {@link CmRejectReason} code. A REJ
 * answering a REQ for an unknown service has local comm ID 0 (the rejecting side never created an ID).
 */
public final class CmRejMessage extends CmMessage
{
    /** Offset of the message-rejected byte. */
    public static final int MESSAGE_REJECTED_OFFSET = 8;
    /** Offset of the rejected-info-length byte. */
    public static final int ARI_LENGTH_OFFSET = 9;
    /** Offset of the 16-bit reason. */
    public static final int REASON_OFFSET = 10;
    /** Offset of the additional rejection information. */
    public static final int ARI_OFFSET = 12;
    /** Bytes of ARI space (IB_CM_REJ_ARI_LENGTH). */
    public static final int ARI_CAPACITY = 72;
    /** Offset of the private data. */
    public static final int PRIVATE_DATA_OFFSET = 84;
    /** Bytes of private data (IB_CM_REJ_PRIVATE_DATA_SIZE). */
    public static final int PRIVATE_DATA_LENGTH = LENGTH - PRIVATE_DATA_OFFSET;

    /** Message rejected: the REQ. */
    public static final int REJECTED_REQ = 0;
    /** Message rejected: the REP. */
    public static final int REJECTED_REP = 1;
    /** Message rejected: none in particular (e.g. a timeout). */
    public static final int REJECTED_OTHER = 2;

    /** {@inheritDoc} */
    public CmRejMessage wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    /** {@inheritDoc} */
    public CmRejMessage wrapMad(final MutableDirectBuffer buffer, final int madOffset)
    {
        return wrap(buffer, madOffset + MadHeader.LENGTH);
    }

    /**
     * @return {@link CmAttribute#CONNECT_REJECT}.
     */
    public CmAttribute attribute()
    {
        return CmAttribute.CONNECT_REJECT;
    }

    /**
     * @return 84.
     */
    public int privateDataOffset()
    {
        return PRIVATE_DATA_OFFSET;
    }

    /** {@inheritDoc} */
    public CmRejMessage clear()
    {
        super.clear();
        return this;
    }

    /** {@inheritDoc} */
    public CmRejMessage localCommId(final int commId)
    {
        super.localCommId(commId);
        return this;
    }

    /**
     * @return the communication ID of the side whose message is rejected.
     */
    public int remoteCommId()
    {
        return i32(REMOTE_COMM_ID_OFFSET);
    }

    /**
     * @param commId remote communication ID.
     * @return this.
     */
    public CmRejMessage remoteCommId(final int commId)
    {
        i32(REMOTE_COMM_ID_OFFSET, commId);
        return this;
    }

    /**
     * @return which message is rejected, 2 bits.
     */
    public int messageRejected()
    {
        return bitsAt(MESSAGE_REJECTED_OFFSET, 0, 2);
    }

    /**
     * @param message 2 bits.
     * @return this.
     */
    public CmRejMessage messageRejected(final int message)
    {
        bitsAt(MESSAGE_REJECTED_OFFSET, 0, 2, message);
        return this;
    }

    /**
     * @return bytes of valid ARI, 7 bits.
     */
    public int ariLength()
    {
        return bitsAt(ARI_LENGTH_OFFSET, 0, 7);
    }

    /**
     * @param length 7 bits (at most {@link #ARI_CAPACITY}).
     * @return this.
     */
    public CmRejMessage ariLength(final int length)
    {
        bitsAt(ARI_LENGTH_OFFSET, 0, 7, length);
        return this;
    }

    /**
     * @return reason code, see {@link CmRejectReason#of(int)}.
     */
    public int reason()
    {
        return u16(REASON_OFFSET);
    }

    /**
     * @param reason code.
     * @return this.
     */
    public CmRejMessage reason(final int reason)
    {
        u16(REASON_OFFSET, reason);
        return this;
    }

    /**
     * @param reason the reason.
     * @return this.
     */
    public CmRejMessage reason(final CmRejectReason reason)
    {
        return reason(reason.code());
    }

    /**
     * @return offset of the ARI in the wrapped buffer.
     */
    public int ariBufferOffset()
    {
        return offset + ARI_OFFSET;
    }

    /**
     * Copy ARI in, set its length and zero the rest of the ARI space.
     *
     * @param source       holding the ARI.
     * @param sourceOffset where it starts.
     * @param length       0..72 bytes.
     * @return this.
     * @throws IllegalArgumentException when the ARI does not fit.
     */
    public CmRejMessage ari(final DirectBuffer source, final int sourceOffset, final int length)
    {
        if (length < 0 || length > ARI_CAPACITY)
        {
            throw new IllegalArgumentException("REJ ARI holds 0.." + ARI_CAPACITY + " bytes, got " + length);
        }
        buffer.putBytes(offset + ARI_OFFSET, source, sourceOffset, length);
        buffer.setMemory(offset + ARI_OFFSET + length, ARI_CAPACITY - length, (byte)0);
        return ariLength(length);
    }
}
