package org.roce4j.wire.mad;

import org.agrona.MutableDirectBuffer;

/**
 * CM SIDR_REP, ServiceIDResReqResp: the answer to a {@link CmSidrReqMessage}, naming the UD QP and Q_Key that serve
 * the service ID, or a status saying why not (IBA 12.11 and 12.6.10 table 120 "SIDR_REP message contents";
 * CM_SIDR_REP_* in include/rdma/ibta_vol1_c12.h, cm.c cm_format_sidr_rep). Offsets are from the start of the CM data
 * (MAD byte 24).
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                          Request ID                           |   0
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |    Status     |  AddInfo Len  |          Vendor ID H          |   4
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                      QPN                      |  Vendor ID L  |   8
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                        Service ID (64)                        |  12
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                             Q_Key                             |  20
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |             Additional Information (72 bytes)                 |  24
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                   Private Data (136 bytes)                    |  96
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * The Request ID echoes the SIDR_REQ's; the status values are enum ib_cm_sidr_status in include/rdma/ib_cm.h
 * ({@link #STATUS_SUCCESS} .. {@link #STATUS_UNSUPPORTED_VERSION}).
 */
public final class CmSidrRepMessage extends CmMessage
{
    /** Offset of the Request ID. */
    public static final int REQUEST_ID_OFFSET = 0;
    /** Offset of the Status byte. */
    public static final int STATUS_OFFSET = 4;
    /** Offset of the Additional Information Length byte. */
    public static final int ADD_INFO_LENGTH_OFFSET = 5;
    /** Offset of the high 16 bits of the Vendor ID. */
    public static final int VENDOR_ID_H_OFFSET = 6;
    /** Offset of the QPN (24 bits). */
    public static final int QPN_OFFSET = 8;
    /** Offset of the low 8 bits of the Vendor ID. */
    public static final int VENDOR_ID_L_OFFSET = 11;
    /** Offset of the Service ID. */
    public static final int SERVICE_ID_OFFSET = 12;
    /** Offset of the Q_Key. */
    public static final int QKEY_OFFSET = 20;
    /** Offset of the Additional Information. */
    public static final int ADD_INFO_OFFSET = 24;
    /** Bytes of Additional Information (IB_CM_SIDR_REP_INFO_LENGTH). */
    public static final int ADD_INFO_LENGTH = 72;
    /** Offset of the private data. */
    public static final int PRIVATE_DATA_OFFSET = 96;
    /** Bytes of private data (IB_CM_SIDR_REP_PRIVATE_DATA_SIZE). */
    public static final int PRIVATE_DATA_LENGTH = LENGTH - PRIVATE_DATA_OFFSET;

    /** IB_SIDR_SUCCESS: the QPN and Q_Key are valid. */
    public static final int STATUS_SUCCESS = 0;
    /** IB_SIDR_UNSUPPORTED: no such service ID (cm.c answers a SIDR_REQ nobody listens for with it). */
    public static final int STATUS_UNSUPPORTED = 1;
    /** IB_SIDR_REJECT: the service rejected the request (rdma_reject on a UD id). */
    public static final int STATUS_REJECT = 2;
    /** IB_SIDR_NO_QP: no QP available. */
    public static final int STATUS_NO_QP = 3;
    /** IB_SIDR_REDIRECT: ask the ClassPortInfo in Additional Information instead. */
    public static final int STATUS_REDIRECT = 4;
    /** IB_SIDR_UNSUPPORTED_VERSION: the private data's version is not supported (Additional Information: which). */
    public static final int STATUS_UNSUPPORTED_VERSION = 5;

    /** {@inheritDoc} */
    public CmSidrRepMessage wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    /** {@inheritDoc} */
    public CmSidrRepMessage wrapMad(final MutableDirectBuffer buffer, final int madOffset)
    {
        return wrap(buffer, madOffset + MadHeader.LENGTH);
    }

    /**
     * @return {@link CmAttribute#SERVICE_ID_RES_REQ_RESP}.
     */
    public CmAttribute attribute()
    {
        return CmAttribute.SERVICE_ID_RES_REQ_RESP;
    }

    /**
     * @return 96.
     */
    public int privateDataOffset()
    {
        return PRIVATE_DATA_OFFSET;
    }

    /** {@inheritDoc} */
    public CmSidrRepMessage clear()
    {
        super.clear();
        return this;
    }

    /**
     * @return the Request ID of the SIDR_REQ answered.
     */
    public int requestId()
    {
        return localCommId();
    }

    /**
     * @param requestId the SIDR_REQ's Request ID.
     * @return this.
     */
    public CmSidrRepMessage requestId(final int requestId)
    {
        localCommId(requestId);
        return this;
    }

    /**
     * @return the status (STATUS_*).
     */
    public int status()
    {
        return u8(STATUS_OFFSET);
    }

    /**
     * @param status 8 bits (STATUS_*).
     * @return this.
     */
    public CmSidrRepMessage status(final int status)
    {
        u8(STATUS_OFFSET, status);
        return this;
    }

    /**
     * @return bytes of Additional Information that are meaningful.
     */
    public int addInfoLength()
    {
        return u8(ADD_INFO_LENGTH_OFFSET);
    }

    /**
     * @param length 0..72.
     * @return this.
     */
    public CmSidrRepMessage addInfoLength(final int length)
    {
        u8(ADD_INFO_LENGTH_OFFSET, length);
        return this;
    }

    /**
     * @return the 24-bit Vendor ID, split around the QPN on the wire (high 16 bits at 6, low 8 at 11).
     */
    public int vendorId()
    {
        return (u16(VENDOR_ID_H_OFFSET) << 8) | u8(VENDOR_ID_L_OFFSET);
    }

    /**
     * @param vendorId 24 bits.
     * @return this.
     */
    public CmSidrRepMessage vendorId(final int vendorId)
    {
        u16(VENDOR_ID_H_OFFSET, (vendorId >>> 8) & 0xFFFF);
        u8(VENDOR_ID_L_OFFSET, vendorId & 0xFF);
        return this;
    }

    /**
     * @return the QP that serves the service ID (valid with {@link #STATUS_SUCCESS}).
     */
    public int qpn()
    {
        return u24(QPN_OFFSET);
    }

    /**
     * @param qpn 24 bits.
     * @return this.
     */
    public CmSidrRepMessage qpn(final int qpn)
    {
        u24(QPN_OFFSET, qpn);
        return this;
    }

    /**
     * @return the Service ID answered.
     */
    public long serviceId()
    {
        return i64(SERVICE_ID_OFFSET);
    }

    /**
     * @param serviceId the Service ID.
     * @return this.
     */
    public CmSidrRepMessage serviceId(final long serviceId)
    {
        i64(SERVICE_ID_OFFSET, serviceId);
        return this;
    }

    /**
     * @return the Q_Key the client must send with.
     */
    public int qkey()
    {
        return i32(QKEY_OFFSET);
    }

    /**
     * @param qkey 32 bits.
     * @return this.
     */
    public CmSidrRepMessage qkey(final int qkey)
    {
        i32(QKEY_OFFSET, qkey);
        return this;
    }

    /**
     * @return offset of the Additional Information in the wrapped buffer.
     */
    public int addInfoBufferOffset()
    {
        return offset + ADD_INFO_OFFSET;
    }

    /**
     * Describe a status value as ib_cm.h names it. Allocates.
     *
     * @param status a SIDR_REP status.
     * @return e.g. "IB_SIDR_UNSUPPORTED (no such service ID)".
     */
    public static String describeStatus(final int status)
    {
        switch (status)
        {
            case STATUS_SUCCESS:
                return "IB_SIDR_SUCCESS";
            case STATUS_UNSUPPORTED:
                return "IB_SIDR_UNSUPPORTED (no such service ID)";
            case STATUS_REJECT:
                return "IB_SIDR_REJECT (rejected by the service)";
            case STATUS_NO_QP:
                return "IB_SIDR_NO_QP";
            case STATUS_REDIRECT:
                return "IB_SIDR_REDIRECT";
            case STATUS_UNSUPPORTED_VERSION:
                return "IB_SIDR_UNSUPPORTED_VERSION";
            default:
                return "status " + status;
        }
    }
}
