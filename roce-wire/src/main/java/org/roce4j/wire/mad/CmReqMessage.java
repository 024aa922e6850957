package org.roce4j.wire.mad;

import org.agrona.MutableDirectBuffer;

/**
 * CM REQ, ConnectRequest (IBA 12.6.5 table 106 "REQ message contents"; CM_REQ_* in
 * include/rdma/ibta_vol1_c12.h). Offsets are from the start of the CM data (MAD byte 24).
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                  Local Communication ID                       |   0
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |   Reserved    |                 Vendor ID (24)                |   4
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                      Service ID (64)                          |   8
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                     Local CA GUID (64)                        |  16
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                          Reserved                             |  24
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                        Local Q_Key                            |  28
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                  Local QPN (24)               | Responder Res |  32
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                  Local EECN (24)              | Initiator Dep |  36
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                  Remote EECN (24)             |RCmTmo   |TS |F|  40
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                  Starting PSN (24)            |LCmTmo   |Retry|  44
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |         Partition Key         |  MTU  |R| RNR |MaxCmRt|S| Ext |  48
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |            Primary path (44 bytes, see CmPath)                |  52
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |            Alternate path (44 bytes, see CmPath)              |  96
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |            Private Data (92 bytes)                            | 140
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * RCmTmo / LCmTmo = remote / local CM response timeout (5 bits each, 4.096 µs * 2^value), TS = transport service
 * type (2 bits), F = end-to-end flow control, Retry = retry count (3), MTU = path packet payload MTU (4), R = RDC
 * exists, RNR = RNR retry count (3), MaxCmRt = max CM retries (4), S = SRQ, Ext = extended transport type (3).
 * RDMA CM puts a 36-byte {@link CmaHeader} at the start of the private data and the passive side's TCP port in the
 * low 16 bits of the service ID ({@link RdmaCmServiceId}).
 */
public final class CmReqMessage extends CmMessage
{
    /** Offset of the vendor ID (24 bits, CM_REQ_VENDOR_ID; the Linux CM fills it only for ECE). */
    public static final int VENDOR_ID_OFFSET = 5;
    /** Offset of the service ID. */
    public static final int SERVICE_ID_OFFSET = 8;
    /** Offset of the local CA GUID. */
    public static final int LOCAL_CA_GUID_OFFSET = 16;
    /** Offset of the local Q_Key. */
    public static final int LOCAL_QKEY_OFFSET = 28;
    /** Offset of the local QPN (24 bits). */
    public static final int LOCAL_QPN_OFFSET = 32;
    /** Offset of responder resources. */
    public static final int RESPONDER_RESOURCES_OFFSET = 35;
    /** Offset of the local EECN (24 bits). */
    public static final int LOCAL_EECN_OFFSET = 36;
    /** Offset of initiator depth. */
    public static final int INITIATOR_DEPTH_OFFSET = 39;
    /** Offset of the remote EECN (24 bits). */
    public static final int REMOTE_EECN_OFFSET = 40;
    /** Offset of remote CM response timeout / transport service type / end-to-end flow control. */
    public static final int REMOTE_CM_TIMEOUT_OFFSET = 43;
    /** Offset of the starting PSN (24 bits). */
    public static final int STARTING_PSN_OFFSET = 44;
    /** Offset of local CM response timeout / retry count. */
    public static final int LOCAL_CM_TIMEOUT_OFFSET = 47;
    /** Offset of the partition key. */
    public static final int PKEY_OFFSET = 48;
    /** Offset of path MTU / RDC exists / RNR retry count. */
    public static final int PATH_MTU_OFFSET = 50;
    /** Offset of max CM retries / SRQ / extended transport type. */
    public static final int MAX_CM_RETRIES_OFFSET = 51;
    /** Offset of the primary path. */
    public static final int PRIMARY_PATH_OFFSET = 52;
    /** Offset of the alternate path. */
    public static final int ALTERNATE_PATH_OFFSET = 96;
    /** Offset of the byte holding SAP Supported (the alternate path's last byte). */
    public static final int SAP_SUPPORTED_OFFSET = 139;
    /** Offset of the private data. */
    public static final int PRIVATE_DATA_OFFSET = 140;
    /** Bytes of private data (IB_CM_REQ_PRIVATE_DATA_SIZE). */
    public static final int PRIVATE_DATA_LENGTH = LENGTH - PRIVATE_DATA_OFFSET;

    /** Transport service type: Reliable Connection. */
    public static final int TRANSPORT_RC = 0;
    /** Transport service type: Unreliable Connection. */
    public static final int TRANSPORT_UC = 1;
    /** Transport service type: Reliable Datagram. */
    public static final int TRANSPORT_RD = 2;
    /** Transport service type 3: look at the extended transport type (1 = XRC, cm_req_get_qp_type). */
    public static final int TRANSPORT_EXTENDED = 3;

    private final CmPath primaryPath = new CmPath();
    private final CmPath alternatePath = new CmPath();

    /** {@inheritDoc} */
    public CmReqMessage wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        primaryPath.wrap(buffer, offset + PRIMARY_PATH_OFFSET);
        alternatePath.wrap(buffer, offset + ALTERNATE_PATH_OFFSET);
        return this;
    }

    /** {@inheritDoc} */
    public CmReqMessage wrapMad(final MutableDirectBuffer buffer, final int madOffset)
    {
        return wrap(buffer, madOffset + MadHeader.LENGTH);
    }

    /**
     * @return {@link CmAttribute#CONNECT_REQUEST}.
     */
    public CmAttribute attribute()
    {
        return CmAttribute.CONNECT_REQUEST;
    }

    /**
     * @return 140.
     */
    public int privateDataOffset()
    {
        return PRIVATE_DATA_OFFSET;
    }

    /** {@inheritDoc} */
    public CmReqMessage clear()
    {
        super.clear();
        return this;
    }

    /** {@inheritDoc} */
    public CmReqMessage localCommId(final int commId)
    {
        super.localCommId(commId);
        return this;
    }

    /**
     * @return vendor ID, 24 bits (0 unless ECE is in use).
     */
    public int vendorId()
    {
        return u24(VENDOR_ID_OFFSET);
    }

    /**
     * @param vendorId 24 bits.
     * @return this.
     */
    public CmReqMessage vendorId(final int vendorId)
    {
        u24(VENDOR_ID_OFFSET, vendorId);
        return this;
    }

    /**
     * @return service ID: for RDMA CM {@code 0x0000000001060000 | port} (TCP port space).
     */
    public long serviceId()
    {
        return i64(SERVICE_ID_OFFSET);
    }

    /**
     * @param serviceId service ID.
     * @return this.
     */
    public CmReqMessage serviceId(final long serviceId)
    {
        i64(SERVICE_ID_OFFSET, serviceId);
        return this;
    }

    /**
     * @return the sender's CA GUID (rxe derives it from the MAC: 52:54:00:00:00:02 gives 0x505400fffe000002).
     */
    public long localCaGuid()
    {
        return i64(LOCAL_CA_GUID_OFFSET);
    }

    /**
     * @param guid CA GUID.
     * @return this.
     */
    public CmReqMessage localCaGuid(final long guid)
    {
        i64(LOCAL_CA_GUID_OFFSET, guid);
        return this;
    }

    /**
     * @return local Q_Key (meaningful for RD only; the Linux CM sends 0 for RC).
     */
    public int localQkey()
    {
        return i32(LOCAL_QKEY_OFFSET);
    }

    /**
     * @param qkey Q_Key.
     * @return this.
     */
    public CmReqMessage localQkey(final int qkey)
    {
        i32(LOCAL_QKEY_OFFSET, qkey);
        return this;
    }

    /**
     * @return the active side's QP number, 24 bits.
     */
    public int localQpn()
    {
        return u24(LOCAL_QPN_OFFSET);
    }

    /**
     * @param qpn 24 bits.
     * @return this.
     */
    public CmReqMessage localQpn(final int qpn)
    {
        u24(LOCAL_QPN_OFFSET, qpn);
        return this;
    }

    /**
     * @return responder resources: RDMA READ / atomic requests the sender will accept in flight.
     */
    public int responderResources()
    {
        return u8(RESPONDER_RESOURCES_OFFSET);
    }

    /**
     * @param value responder resources.
     * @return this.
     */
    public CmReqMessage responderResources(final int value)
    {
        u8(RESPONDER_RESOURCES_OFFSET, value);
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
    public CmReqMessage localEecn(final int eecn)
    {
        u24(LOCAL_EECN_OFFSET, eecn);
        return this;
    }

    /**
     * @return initiator depth: RDMA READ / atomic requests the sender will issue in flight.
     */
    public int initiatorDepth()
    {
        return u8(INITIATOR_DEPTH_OFFSET);
    }

    /**
     * @param value initiator depth.
     * @return this.
     */
    public CmReqMessage initiatorDepth(final int value)
    {
        u8(INITIATOR_DEPTH_OFFSET, value);
        return this;
    }

    /**
     * @return remote EE context number, 24 bits (RD only).
     */
    public int remoteEecn()
    {
        return u24(REMOTE_EECN_OFFSET);
    }

    /**
     * @param eecn 24 bits.
     * @return this.
     */
    public CmReqMessage remoteEecn(final int eecn)
    {
        u24(REMOTE_EECN_OFFSET, eecn);
        return this;
    }

    /**
     * @return remote CM response timeout, 5 bits (4.096 µs * 2^value; see {@link #cmTimeoutNs(int)}).
     */
    public int remoteCmResponseTimeout()
    {
        return bitsAt(REMOTE_CM_TIMEOUT_OFFSET, 0, 5);
    }

    /**
     * @param timeout 5 bits.
     * @return this.
     */
    public CmReqMessage remoteCmResponseTimeout(final int timeout)
    {
        bitsAt(REMOTE_CM_TIMEOUT_OFFSET, 0, 5, timeout);
        return this;
    }

    /**
     * @return transport service type, 2 bits: {@link #TRANSPORT_RC}, {@link #TRANSPORT_UC}, {@link #TRANSPORT_RD},
     *     {@link #TRANSPORT_EXTENDED}.
     */
    public int transportServiceType()
    {
        return bitsAt(REMOTE_CM_TIMEOUT_OFFSET, 5, 2);
    }

    /**
     * @param type 2 bits.
     * @return this.
     */
    public CmReqMessage transportServiceType(final int type)
    {
        bitsAt(REMOTE_CM_TIMEOUT_OFFSET, 5, 2, type);
        return this;
    }

    /**
     * @return end-to-end flow control: the responder will send ACK credits.
     */
    public boolean endToEndFlowControl()
    {
        return 0 != bitsAt(REMOTE_CM_TIMEOUT_OFFSET, 7, 1);
    }

    /**
     * @param value end-to-end flow control.
     * @return this.
     */
    public CmReqMessage endToEndFlowControl(final boolean value)
    {
        bitsAt(REMOTE_CM_TIMEOUT_OFFSET, 7, 1, value ? 1 : 0);
        return this;
    }

    /**
     * @return the PSN the active side's send queue starts at, 24 bits (the passive side's expected PSN).
     */
    public int startingPsn()
    {
        return u24(STARTING_PSN_OFFSET);
    }

    /**
     * @param psn 24 bits.
     * @return this.
     */
    public CmReqMessage startingPsn(final int psn)
    {
        u24(STARTING_PSN_OFFSET, psn);
        return this;
    }

    /**
     * @return local CM response timeout, 5 bits.
     */
    public int localCmResponseTimeout()
    {
        return bitsAt(LOCAL_CM_TIMEOUT_OFFSET, 0, 5);
    }

    /**
     * @param timeout 5 bits.
     * @return this.
     */
    public CmReqMessage localCmResponseTimeout(final int timeout)
    {
        bitsAt(LOCAL_CM_TIMEOUT_OFFSET, 0, 5, timeout);
        return this;
    }

    /**
     * @return transport retry count, 3 bits.
     */
    public int retryCount()
    {
        return bitsAt(LOCAL_CM_TIMEOUT_OFFSET, 5, 3);
    }

    /**
     * @param count 3 bits.
     * @return this.
     */
    public CmReqMessage retryCount(final int count)
    {
        bitsAt(LOCAL_CM_TIMEOUT_OFFSET, 5, 3, count);
        return this;
    }

    /**
     * @return partition key.
     */
    public int pkey()
    {
        return u16(PKEY_OFFSET);
    }

    /**
     * @param pkey partition key.
     * @return this.
     */
    public CmReqMessage pkey(final int pkey)
    {
        u16(PKEY_OFFSET, pkey);
        return this;
    }

    /**
     * @return path packet payload MTU code, 4 bits (1 = 256 ... 5 = 4096; see {@link #mtuBytes(int)}).
     */
    public int pathMtu()
    {
        return bitsAt(PATH_MTU_OFFSET, 0, 4);
    }

    /**
     * @param mtu code, 4 bits.
     * @return this.
     */
    public CmReqMessage pathMtu(final int mtu)
    {
        bitsAt(PATH_MTU_OFFSET, 0, 4, mtu);
        return this;
    }

    /**
     * @return RDC exists (RD only).
     */
    public boolean rdcExists()
    {
        return 0 != bitsAt(PATH_MTU_OFFSET, 4, 1);
    }

    /**
     * @param value RDC exists.
     * @return this.
     */
    public CmReqMessage rdcExists(final boolean value)
    {
        bitsAt(PATH_MTU_OFFSET, 4, 1, value ? 1 : 0);
        return this;
    }

    /**
     * @return RNR retry count, 3 bits (7 = infinite).
     */
    public int rnrRetryCount()
    {
        return bitsAt(PATH_MTU_OFFSET, 5, 3);
    }

    /**
     * @param count 3 bits.
     * @return this.
     */
    public CmReqMessage rnrRetryCount(final int count)
    {
        bitsAt(PATH_MTU_OFFSET, 5, 3, count);
        return this;
    }

    /**
     * @return max CM retries, 4 bits: how often the sender resends the REQ.
     */
    public int maxCmRetries()
    {
        return bitsAt(MAX_CM_RETRIES_OFFSET, 0, 4);
    }

    /**
     * @param retries 4 bits.
     * @return this.
     */
    public CmReqMessage maxCmRetries(final int retries)
    {
        bitsAt(MAX_CM_RETRIES_OFFSET, 0, 4, retries);
        return this;
    }

    /**
     * @return SRQ: the sender's QP uses a shared receive queue.
     */
    public boolean srq()
    {
        return 0 != bitsAt(MAX_CM_RETRIES_OFFSET, 4, 1);
    }

    /**
     * @param value SRQ.
     * @return this.
     */
    public CmReqMessage srq(final boolean value)
    {
        bitsAt(MAX_CM_RETRIES_OFFSET, 4, 1, value ? 1 : 0);
        return this;
    }

    /**
     * @return extended transport type, 3 bits (1 = XRC when the transport service type is 3).
     */
    public int extendedTransportType()
    {
        return bitsAt(MAX_CM_RETRIES_OFFSET, 5, 3);
    }

    /**
     * @param type 3 bits.
     * @return this.
     */
    public CmReqMessage extendedTransportType(final int type)
    {
        bitsAt(MAX_CM_RETRIES_OFFSET, 5, 3, type);
        return this;
    }

    /**
     * @return the primary path, a flyweight rewrapped by every {@link #wrap}.
     */
    public CmPath primaryPath()
    {
        return primaryPath;
    }

    /**
     * @return the alternate path (all zeros when there is none: its local LID is then 0).
     */
    public CmPath alternatePath()
    {
        return alternatePath;
    }

    /**
     * @return SAP Supported (REQ byte 139, bit offset 5).
     */
    public boolean sapSupported()
    {
        return 0 != bitsAt(SAP_SUPPORTED_OFFSET, 5, 1);
    }

    /**
     * @param value SAP Supported.
     * @return this.
     */
    public CmReqMessage sapSupported(final boolean value)
    {
        bitsAt(SAP_SUPPORTED_OFFSET, 5, 1, value ? 1 : 0);
        return this;
    }

    /**
     * @param code path MTU code 1..5 (enum ib_mtu).
     * @return the MTU in bytes, or 0 for a reserved code.
     */
    public static int mtuBytes(final int code)
    {
        return code >= 1 && code <= 5 ? 128 << code : 0;
    }

    /**
     * A CM timeout field as a duration: 4.096 µs * 2^value (IBA 12.7.2; the Linux CM rounds it to
     * {@code 1 << max(value - 8, 0)} ms in cm_convert_to_ms).
     *
     * @param value 5-bit timeout code.
     * @return nanoseconds.
     */
    public static long cmTimeoutNs(final int value)
    {
        return 4096L << (value & 0x1F);
    }
}
