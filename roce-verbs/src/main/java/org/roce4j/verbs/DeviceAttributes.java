package org.roce4j.verbs;

/**
 * Device limits and capabilities (struct ibv_device_attr). The values follow rxe's rxe_param.h where they mean the
 * same here; where roce4j preallocates per-entry objects (work queue entries) the limit is lower and says why.
 *
 * @param fwVer            firmware version string.
 * @param nodeGuid         node GUID: the EUI-64 of the link's MAC, as rxe derives it.
 * @param vendorId         IEEE vendor id (rxe: 0xFFFFFF).
 * @param maxMrSize        largest memory region in bytes.
 * @param maxQp            most QPs.
 * @param maxQpWr          most work requests per queue.
 * @param maxSge           most scatter/gather elements per send or receive WR.
 * @param maxSgeRd         most SGEs for the local side of an RDMA READ.
 * @param maxCq            most completion queues.
 * @param maxCqe           most entries per completion queue.
 * @param maxMr            most memory regions.
 * @param maxPd            most protection domains.
 * @param maxQpRdAtom      most outstanding RDMA READ / atomic requests a QP may target at it (responder resources).
 * @param maxQpInitRdAtom  most outstanding RDMA READ / atomic requests a QP may initiate.
 * @param maxResRdAtom     responder resources for the whole device.
 * @param atomicCap        atomicity guarantee.
 * @param maxAh            most address handles.
 * @param maxSrq           most shared receive queues.
 * @param maxSrqWr         most work requests per SRQ.
 * @param maxSrqSge        most SGEs per SRQ work request.
 * @param maxPkeys         P_Key table length.
 * @param localCaAckDelay  local CA ACK delay exponent.
 * @param physPortCnt      number of ports.
 * @param maxInlineData    most inline bytes per send WR (libibverbs reports it per QP; rxe: 512).
 * @param maxMsgSize       largest message (port max_msg_sz).
 */
public record DeviceAttributes(
    String fwVer,
    long nodeGuid,
    int vendorId,
    long maxMrSize,
    int maxQp,
    int maxQpWr,
    int maxSge,
    int maxSgeRd,
    int maxCq,
    int maxCqe,
    int maxMr,
    int maxPd,
    int maxQpRdAtom,
    int maxQpInitRdAtom,
    int maxResRdAtom,
    AtomicCapability atomicCap,
    int maxAh,
    int maxSrq,
    int maxSrqWr,
    int maxSrqSge,
    int maxPkeys,
    int localCaAckDelay,
    int physPortCnt,
    int maxInlineData,
    long maxMsgSize)
{
    /** Firmware version reported. */
    public static final String FW_VER = "roce4j-0.1";
    /** rxe's RXE_VENDOR_ID (no IEEE OUI). */
    public static final int VENDOR_ID = 0xFF_FFFF;
    /** 2 GiB - 1: an Agrona buffer is indexed by int (rxe allows any size). */
    public static final long MAX_MR_SIZE = Integer.MAX_VALUE;
    /** rxe RXE_MAX_QP: DEFAULT_MAX_VALUE (2^20) - RXE_MIN_QP_INDEX (16). */
    public static final int MAX_QP = (1 << 20) - 16;
    /**
     * Work requests per queue. rxe allows 2^20; roce4j preallocates one WQE object (with its SGE arrays and inline
     * area) per slot, so it caps queues at 32768 entries, above what perftest and the pingpong tools ask for.
     */
    public static final int MAX_QP_WR = 1 << 15;
    /** rxe RXE_MAX_SGE. */
    public static final int MAX_SGE = 32;
    /** rxe RXE_MAX_SGE_RD. */
    public static final int MAX_SGE_RD = 32;
    /** rxe RXE_MAX_CQ. */
    public static final int MAX_CQ = 1 << 20;
    /** rxe max_cqe: (1 &lt;&lt; RXE_MAX_LOG_CQE) - 1 with RXE_MAX_LOG_CQE 15. */
    public static final int MAX_CQE = (1 << 15) - 1;
    /** rxe RXE_MAX_MR: RXE_MAX_MR_INDEX (2^19) - RXE_MIN_MR_INDEX (1). */
    public static final int MAX_MR = (1 << 19) - 1;
    /**
     * rxe RXE_MAX_MW: RXE_MAX_MW_INDEX (2^20) - RXE_MIN_MW_INDEX (2^19 + 1). roce4j's windows draw 24-bit indexes and
     * do not enforce it; it is what {@code roce devinfo -v} reports as max_mw, as rxe does.
     */
    public static final int MAX_MW = (1 << 19) - 1;
    /** rxe RXE_MAX_PD. */
    public static final int MAX_PD = 1 << 20;
    /** rxe RXE_MAX_QP_RD_ATOM. */
    public static final int MAX_QP_RD_ATOM = 128;
    /** rxe RXE_MAX_QP_INIT_RD_ATOM. */
    public static final int MAX_QP_INIT_RD_ATOM = 128;
    /** rxe RXE_MAX_RES_RD_ATOM. */
    public static final int MAX_RES_RD_ATOM = 0x3F000;
    /** rxe RXE_MAX_AH: 32Ki - 1. */
    public static final int MAX_AH = (1 << 15) - 1;
    /** rxe RXE_MAX_SRQ: DEFAULT_MAX_VALUE - RXE_MIN_SRQ_INDEX (0x20001). */
    public static final int MAX_SRQ = (1 << 20) - 0x2_0001;
    /** SRQ depth; capped like {@link #MAX_QP_WR} for the same reason. */
    public static final int MAX_SRQ_WR = 1 << 15;
    /** rxe RXE_MAX_SRQ_SGE. */
    public static final int MAX_SRQ_SGE = 27;
    /** The P_Key table holds only the default P_Key 0xFFFF (rxe RXE_PORT_PKEY_TBL_LEN = 1). */
    public static final int MAX_PKEYS = 1;
    /** rxe RXE_LOCAL_CA_ACK_DELAY. */
    public static final int LOCAL_CA_ACK_DELAY = 15;
    /** rxe RXE_MAX_INLINE_DATA: RXE_MAX_SGE (32) x sizeof(struct ib_sge) (16). */
    public static final int MAX_INLINE_DATA = 512;
    /** rxe RXE_PORT_MAX_MSG_SZ: 2^31. */
    public static final long MAX_MSG_SIZE = 1L << 31;
}
