package org.roce4j.wire.mad;

import org.agrona.MutableDirectBuffer;

/**
 * CM MRA, MsgRcptAck: "I received your message and need more time" (IBA 12.6.6 table 107 "MRA message contents";
 * CM_MRA_* in include/rdma/ibta_vol1_c12.h). Offsets are from the start of the CM data (MAD byte 24).
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                  Local Communication ID                       |   0
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                  Remote Communication ID                      |   4
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |M. |  Reserved |SvcTmo   | Rsv |   Private Data (222 bytes)    |   8
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * M. = message MRAed (2 bits: {@link #MRAED_REQ}, {@link #MRAED_REP}, {@link #MRAED_LAP}), SvcTmo = service
 * timeout (5 bits, 4.096 µs * 2^value).
 */
public final class CmMraMessage extends CmMessage
{
    /** Offset of the message-MRAed byte. */
    public static final int MESSAGE_MRAED_OFFSET = 8;
    /** Offset of the service-timeout byte. */
    public static final int SERVICE_TIMEOUT_OFFSET = 9;
    /** Offset of the private data. */
    public static final int PRIVATE_DATA_OFFSET = 10;
    /** Bytes of private data (IB_CM_MRA_PRIVATE_DATA_SIZE). */
    public static final int PRIVATE_DATA_LENGTH = LENGTH - PRIVATE_DATA_OFFSET;

    /** Message MRAed: the REQ. */
    public static final int MRAED_REQ = 0;
    /** Message MRAed: the REP. */
    public static final int MRAED_REP = 1;
    /** Message MRAed: the LAP. */
    public static final int MRAED_LAP = 2;

    /** {@inheritDoc} */
    public CmMraMessage wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    /** {@inheritDoc} */
    public CmMraMessage wrapMad(final MutableDirectBuffer buffer, final int madOffset)
    {
        return wrap(buffer, madOffset + MadHeader.LENGTH);
    }

    /**
     * @return {@link CmAttribute#MSG_RCPT_ACK}.
     */
    public CmAttribute attribute()
    {
        return CmAttribute.MSG_RCPT_ACK;
    }

    /**
     * @return 10.
     */
    public int privateDataOffset()
    {
        return PRIVATE_DATA_OFFSET;
    }

    /** {@inheritDoc} */
    public CmMraMessage clear()
    {
        super.clear();
        return this;
    }

    /** {@inheritDoc} */
    public CmMraMessage localCommId(final int commId)
    {
        super.localCommId(commId);
        return this;
    }

    /**
     * @return the communication ID of the side whose message is acknowledged.
     */
    public int remoteCommId()
    {
        return i32(REMOTE_COMM_ID_OFFSET);
    }

    /**
     * @param commId remote communication ID.
     * @return this.
     */
    public CmMraMessage remoteCommId(final int commId)
    {
        i32(REMOTE_COMM_ID_OFFSET, commId);
        return this;
    }

    /**
     * @return which message is acknowledged, 2 bits.
     */
    public int messageMraed()
    {
        return bitsAt(MESSAGE_MRAED_OFFSET, 0, 2);
    }

    /**
     * @param message 2 bits.
     * @return this.
     */
    public CmMraMessage messageMraed(final int message)
    {
        bitsAt(MESSAGE_MRAED_OFFSET, 0, 2, message);
        return this;
    }

    /**
     * @return service timeout, 5 bits: how much longer the sender needs.
     */
    public int serviceTimeout()
    {
        return bitsAt(SERVICE_TIMEOUT_OFFSET, 0, 5);
    }

    /**
     * @param timeout 5 bits.
     * @return this.
     */
    public CmMraMessage serviceTimeout(final int timeout)
    {
        bitsAt(SERVICE_TIMEOUT_OFFSET, 0, 5, timeout);
        return this;
    }
}
