package org.roce4j.wire.mad;

import org.agrona.MutableDirectBuffer;

/**
 * CM REP, ConnectReply (IBA 12.6.8 table 110 "REP message contents"; CM_REP_* in include/rdma/ibta_vol1_c12.h).
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
 *  |                        Local Q_Key                            |   8
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                  Local QPN (24)               |  Vendor ID H  |  12
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                  Local EECN (24)              |  Vendor ID M  |  16
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                  Starting PSN (24)            |  Vendor ID L  |  20
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  | Responder Res | Initiator Dep |TgtAckDl|FO|F|RNR|S| Reserved  |  24
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                     Local CA GUID (64)                        |  28
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                   Private Data (196 bytes)                    |  36
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * TgtAckDl = target ACK delay (5 bits), FO = failover accepted (2), F = end-to-end flow control, RNR = RNR retry
 * count (3), S = SRQ. Byte 27 is {@code RNR(3) S(1) Reserved(4)}.
 */
public final class CmRepMessage extends CmMessage
{
    /** Offset of the local Q_Key. */
    public static final int LOCAL_QKEY_OFFSET = 8;
    /** Offset of the local QPN (24 bits). */
    public static final int LOCAL_QPN_OFFSET = 12;
    /** Offset of the vendor ID's high byte. */
    public static final int VENDOR_ID_H_OFFSET = 15;
    /** Offset of the local EECN (24 bits). */
    public static final int LOCAL_EECN_OFFSET = 16;
    /** Offset of the vendor ID's middle byte. */
    public static final int VENDOR_ID_M_OFFSET = 19;
    /** Offset of the starting PSN (24 bits). */
    public static final int STARTING_PSN_OFFSET = 20;
    /** Offset of the vendor ID's low byte. */
    public static final int VENDOR_ID_L_OFFSET = 23;
    /** Offset of responder resources. */
    public static final int RESPONDER_RESOURCES_OFFSET = 24;
    /** Offset of initiator depth. */
    public static final int INITIATOR_DEPTH_OFFSET = 25;
    /** Offset of target ACK delay / failover accepted / end-to-end flow control. */
    public static final int TARGET_ACK_DELAY_OFFSET = 26;
    /** Offset of RNR retry count / SRQ. */
    public static final int RNR_RETRY_OFFSET = 27;
    /** Offset of the local CA GUID. */
    public static final int LOCAL_CA_GUID_OFFSET = 28;
    /** Offset of the private data. */
    public static final int PRIVATE_DATA_OFFSET = 36;
    /** Bytes of private data (IB_CM_REP_PRIVATE_DATA_SIZE). */
    public static final int PRIVATE_DATA_LENGTH = LENGTH - PRIVATE_DATA_OFFSET;

    /** {@inheritDoc} */
    public CmRepMessage wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    /** {@inheritDoc} */
    public CmRepMessage wrapMad(final MutableDirectBuffer buffer, final int madOffset)
    {
        return wrap(buffer, madOffset + MadHeader.LENGTH);
    }

    /**
     * @return {@link CmAttribute#CONNECT_REPLY}.
     */
    public CmAttribute attribute()
    {
        return CmAttribute.CONNECT_REPLY;
    }

    /**
     * @return 36.
     */
    public int privateDataOffset()
    {
        return PRIVATE_DATA_OFFSET;
    }

    /** {@inheritDoc} */
    public CmRepMessage clear()
    {
        super.clear();
        return this;
    }

    /** {@inheritDoc} */
    public CmRepMessage localCommId(final int commId)
    {
        super.localCommId(commId);
        return this;
    }

    /**
     * @return the REQ sender's communication ID.
     */
    public int remoteCommId()
    {
        return i32(REMOTE_COMM_ID_OFFSET);
    }

    /**
     * @param commId the REQ sender's communication ID.
     * @return this.
     */
    public CmRepMessage remoteCommId(final int commId)
    {
        i32(REMOTE_COMM_ID_OFFSET, commId);
        return this;
    }

    /**
     * @return local Q_Key (RD only).
     */
    public int localQkey()
    {
        return i32(LOCAL_QKEY_OFFSET);
    }

    /**
     * @param qkey Q_Key.
     * @return this.
     */
    public CmRepMessage localQkey(final int qkey)
    {
        i32(LOCAL_QKEY_OFFSET, qkey);
        return this;
    }

    /**
     * @return the passive side's QP number, 24 bits.
     */
    public int localQpn()
    {
        return u24(LOCAL_QPN_OFFSET);
    }

    /**
     * @param qpn 24 bits.
     * @return this.
     */
    public CmRepMessage localQpn(final int qpn)
    {
        u24(LOCAL_QPN_OFFSET, qpn);
        return this;
    }

    /**
     * @return vendor ID assembled from its three bytes (H, M, L), 24 bits.
     */
    public int vendorId()
    {
        return (u8(VENDOR_ID_H_OFFSET) << 16) | (u8(VENDOR_ID_M_OFFSET) << 8) | u8(VENDOR_ID_L_OFFSET);
    }

    /**
     * @param vendorId 24 bits, split over bytes 15, 19 and 23.
     * @return this.
     */
    public CmRepMessage vendorId(final int vendorId)
    {
        u8(VENDOR_ID_H_OFFSET, vendorId >>> 16);
        u8(VENDOR_ID_M_OFFSET, vendorId >>> 8);
        u8(VENDOR_ID_L_OFFSET, vendorId);
        return this;
    }

    /**
     * @return local EE context number, 24 bits (RD only).
     */
    public int localEecn()
    {
        return u24(LOCAL_EECN_OFFSET);
    }

    /**
     * @param eecn 24 bits.
     * @return this.
     */
    public CmRepMessage localEecn(final int eecn)
    {
        u24(LOCAL_EECN_OFFSET, eecn);
        return this;
    }

    /**
     * @return the PSN the passive side's send queue starts at, 24 bits.
     */
    public int startingPsn()
    {
        return u24(STARTING_PSN_OFFSET);
    }

    /**
     * @param psn 24 bits.
     * @return this.
     */
    public CmRepMessage startingPsn(final int psn)
    {
        u24(STARTING_PSN_OFFSET, psn);
        return this;
    }

    /**
     * @return responder resources.
     */
    public int responderResources()
    {
        return u8(RESPONDER_RESOURCES_OFFSET);
    }

    /**
     * @param value responder resources.
     * @return this.
     */
    public CmRepMessage responderResources(final int value)
    {
        u8(RESPONDER_RESOURCES_OFFSET, value);
        return this;
    }

    /**
     * @return initiator depth.
     */
    public int initiatorDepth()
    {
        return u8(INITIATOR_DEPTH_OFFSET);
    }

    /**
     * @param value initiator depth.
     * @return this.
     */
    public CmRepMessage initiatorDepth(final int value)
    {
        u8(INITIATOR_DEPTH_OFFSET, value);
        return this;
    }

    /**
     * @return target ACK delay, 5 bits (4.096 µs * 2^value; rxe reports 15).
     */
    public int targetAckDelay()
    {
        return bitsAt(TARGET_ACK_DELAY_OFFSET, 0, 5);
    }

    /**
     * @param delay 5 bits.
     * @return this.
     */
    public CmRepMessage targetAckDelay(final int delay)
    {
        bitsAt(TARGET_ACK_DELAY_OFFSET, 0, 5, delay);
        return this;
    }

    /**
     * @return failover accepted, 2 bits (0 = accepted, 1 = not supported, 2 = rejected).
     */
    public int failoverAccepted()
    {
        return bitsAt(TARGET_ACK_DELAY_OFFSET, 5, 2);
    }

    /**
     * @param value 2 bits.
     * @return this.
     */
    public CmRepMessage failoverAccepted(final int value)
    {
        bitsAt(TARGET_ACK_DELAY_OFFSET, 5, 2, value);
        return this;
    }

    /**
     * @return end-to-end flow control.
     */
    public boolean endToEndFlowControl()
    {
        return 0 != bitsAt(TARGET_ACK_DELAY_OFFSET, 7, 1);
    }

    /**
     * @param value end-to-end flow control.
     * @return this.
     */
    public CmRepMessage endToEndFlowControl(final boolean value)
    {
        bitsAt(TARGET_ACK_DELAY_OFFSET, 7, 1, value ? 1 : 0);
        return this;
    }

    /**
     * @return RNR retry count, 3 bits.
     */
    public int rnrRetryCount()
    {
        return bitsAt(RNR_RETRY_OFFSET, 0, 3);
    }

    /**
     * @param count 3 bits.
     * @return this.
     */
    public CmRepMessage rnrRetryCount(final int count)
    {
        bitsAt(RNR_RETRY_OFFSET, 0, 3, count);
        return this;
    }

    /**
     * @return SRQ.
     */
    public boolean srq()
    {
        return 0 != bitsAt(RNR_RETRY_OFFSET, 3, 1);
    }

    /**
     * @param value SRQ.
     * @return this.
     */
    public CmRepMessage srq(final boolean value)
    {
        bitsAt(RNR_RETRY_OFFSET, 3, 1, value ? 1 : 0);
        return this;
    }

    /**
     * @return the passive side's CA GUID.
     */
    public long localCaGuid()
    {
        return i64(LOCAL_CA_GUID_OFFSET);
    }

    /**
     * @param guid CA GUID.
     * @return this.
     */
    public CmRepMessage localCaGuid(final long guid)
    {
        i64(LOCAL_CA_GUID_OFFSET, guid);
        return this;
    }
}
