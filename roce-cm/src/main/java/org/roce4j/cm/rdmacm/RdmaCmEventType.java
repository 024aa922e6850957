package org.roce4j.cm.rdmacm;

/**
 * The connection events of rdma_cm (enum rdma_cm_event_type in rdma/rdma_cma.h) that a roce4j {@link RdmaCm}
 * delivers. Address and route resolution complete inside {@link RdmaCmId#connect} (RoCE needs no SA query), so
 * their events do not exist here.
 */
public enum RdmaCmEventType
{
    /** The address could not be used: for UD, a SIDR_REP whose Q_Key is not RDMA_UDP_QKEY (status -22). */
    ADDR_ERROR("RDMA_CM_EVENT_ADDR_ERROR"),
    /** A listener received a REQ: {@link RdmaCmEvent#id()} is the new connection, to accept or reject. */
    CONNECT_REQUEST("RDMA_CM_EVENT_CONNECT_REQUEST"),
    /** The connection could not be completed locally (a QP could not be moved to RTR or RTS). */
    CONNECT_ERROR("RDMA_CM_EVENT_CONNECT_ERROR"),
    /**
     * The peer did not answer a REQ, a REP or a SIDR_REQ after every retry (status -110, ETIMEDOUT), or a SIDR_REP
     * refused the service (status: the SIDR status, 1 no such service, 2 rejected).
     */
    UNREACHABLE("RDMA_CM_EVENT_UNREACHABLE"),
    /** The peer rejected the connection; status is the REJ reason (8: nobody listens, 28: rdma_reject). */
    REJECTED("RDMA_CM_EVENT_REJECTED"),
    /**
     * The connection is established: the QP is in RTS on both sides. For a UD identifier: the SIDR_REP arrived and
     * {@link RdmaCmEvent#ud()} names the peer's QP.
     */
    ESTABLISHED("RDMA_CM_EVENT_ESTABLISHED"),
    /** The connection ended: DREQ received, or our DREQ answered (status -110 when it timed out). */
    DISCONNECTED("RDMA_CM_EVENT_DISCONNECTED"),
    /** The connection left TimeWait: its QP may be reused. */
    TIMEWAIT_EXIT("RDMA_CM_EVENT_TIMEWAIT_EXIT"),
    /**
     * {@link RdmaCmId#joinMulticast} joined the group: {@link RdmaCmEvent#ud()} is the address vector to the group,
     * QPN 0xFFFFFF and the Q_Key to send with.
     */
    MULTICAST_JOIN("RDMA_CM_EVENT_MULTICAST_JOIN"),
    /** A multicast group could not be joined (or was lost); status is a negative errno. */
    MULTICAST_ERROR("RDMA_CM_EVENT_MULTICAST_ERROR");

    private final String libraryName;

    RdmaCmEventType(final String libraryName)
    {
        this.libraryName = libraryName;
    }

    /**
     * @return the name rdma_event_str() gives, e.g. {@code RDMA_CM_EVENT_REJECTED}.
     */
    public String libraryName()
    {
        return libraryName;
    }
}
