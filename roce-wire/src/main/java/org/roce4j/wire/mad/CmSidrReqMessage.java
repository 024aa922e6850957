package org.roce4j.wire.mad;

import org.agrona.MutableDirectBuffer;

/**
 * CM SIDR_REQ, ServiceIDResReq: a UD client asks which QP and Q_Key serve a service ID (IBA 12.11 and 12.6.9
 * table 119 "SIDR_REQ message contents"; CM_SIDR_REQ_* in include/rdma/ibta_vol1_c12.h, cm.c cm_format_sidr_req).
 * Offsets are from the start of the CM data (MAD byte 24). rdma_cm puts its 36-byte {@link CmaHeader} at the start of
 * the private data, as in a REQ (cma.c cma_resolve_ib_udp), leaving 216 - 36 = 180 bytes for the application.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                          Request ID                           |   0
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |         Partition Key         |           Reserved            |   4
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                        Service ID (64)                        |   8
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                   Private Data (216 bytes)                    |  16
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * The Request ID is the requester's local communication ID (cm.c: {@code cm_id_priv->id.local_id}); the SIDR_REP
 * echoes it. RoCE paths carry the default P_Key 0xFFFF (cma.c cma_resolve_iboe_route).
 */
public final class CmSidrReqMessage extends CmMessage
{
    /** Offset of the Request ID. */
    public static final int REQUEST_ID_OFFSET = 0;
    /** Offset of the Partition Key. */
    public static final int PKEY_OFFSET = 4;
    /** Offset of the Service ID. */
    public static final int SERVICE_ID_OFFSET = 8;
    /** Offset of the private data. */
    public static final int PRIVATE_DATA_OFFSET = 16;
    /** Bytes of private data (IB_CM_SIDR_REQ_PRIVATE_DATA_SIZE). */
    public static final int PRIVATE_DATA_LENGTH = LENGTH - PRIVATE_DATA_OFFSET;

    /** {@inheritDoc} */
    public CmSidrReqMessage wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    /** {@inheritDoc} */
    public CmSidrReqMessage wrapMad(final MutableDirectBuffer buffer, final int madOffset)
    {
        return wrap(buffer, madOffset + MadHeader.LENGTH);
    }

    /**
     * @return {@link CmAttribute#SERVICE_ID_RES_REQ}.
     */
    public CmAttribute attribute()
    {
        return CmAttribute.SERVICE_ID_RES_REQ;
    }

    /**
     * @return 16.
     */
    public int privateDataOffset()
    {
        return PRIVATE_DATA_OFFSET;
    }

    /** {@inheritDoc} */
    public CmSidrReqMessage clear()
    {
        super.clear();
        return this;
    }

    /**
     * @return the requester's Request ID (the same field as a Local Communication ID).
     */
    public int requestId()
    {
        return localCommId();
    }

    /**
     * @param requestId the requester's Request ID.
     * @return this.
     */
    public CmSidrReqMessage requestId(final int requestId)
    {
        localCommId(requestId);
        return this;
    }

    /**
     * @return the Partition Key.
     */
    public int pkey()
    {
        return u16(PKEY_OFFSET);
    }

    /**
     * @param pkey 16 bits.
     * @return this.
     */
    public CmSidrReqMessage pkey(final int pkey)
    {
        u16(PKEY_OFFSET, pkey);
        return this;
    }

    /**
     * @return the Service ID asked about.
     */
    public long serviceId()
    {
        return i64(SERVICE_ID_OFFSET);
    }

    /**
     * @param serviceId the Service ID.
     * @return this.
     */
    public CmSidrReqMessage serviceId(final long serviceId)
    {
        i64(SERVICE_ID_OFFSET, serviceId);
        return this;
    }
}
