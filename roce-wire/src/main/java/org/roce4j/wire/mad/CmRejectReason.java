package org.roce4j.wire.mad;

/**
 * Reason codes of a CM REJ (IBA 12.6.7.2 table 109 "REJ reason codes"; enum ib_cm_rej_reason in
 * include/rdma/ib_cm.h). The ones the Linux CM sends over RoCE in practice: {@link #INVALID_SERVICE_ID} (nobody
 * listens on the service ID), {@link #STALE_CONN} (QPN and CA GUID still in timewait), {@link #INVALID_GID} (the
 * REQ's GIDs are not the receiver's), {@link #CONSUMER_DEFINED} (rdma_reject by the application) and
 * {@link #TIMEOUT}.
 */
public enum CmRejectReason
{
    /** 1: no QP available. */
    NO_QP(1, "no QP"),
    /** 2: no EE context available. */
    NO_EEC(2, "no EEC"),
    /** 3: no resources. */
    NO_RESOURCES(3, "no resources"),
    /** 4: timeout (the sender gave up waiting). */
    TIMEOUT(4, "timeout"),
    /** 5: unsupported request. */
    UNSUPPORTED(5, "unsupported"),
    /** 6: invalid communication ID. */
    INVALID_COMM_ID(6, "invalid comm ID"),
    /** 7: invalid communication instance. */
    INVALID_COMM_INSTANCE(7, "invalid comm instance"),
    /** 8: no listener for the service ID. */
    INVALID_SERVICE_ID(8, "invalid service ID"),
    /** 9: transport service type not supported by the listener. */
    INVALID_TRANSPORT_TYPE(9, "invalid transport type"),
    /** 10: stale connection: QPN/CA GUID pair still in timewait. */
    STALE_CONN(10, "stale connection"),
    /** 11: RDC does not exist. */
    RDC_NOT_EXIST(11, "RDC does not exist"),
    /** 12: primary GID not acceptable (the ARI carries the rejecting port's GID). */
    INVALID_GID(12, "invalid GID"),
    /** 13: primary LID not acceptable. */
    INVALID_LID(13, "invalid LID"),
    /** 14: primary SL not acceptable. */
    INVALID_SL(14, "invalid SL"),
    /** 15: primary traffic class not acceptable. */
    INVALID_TRAFFIC_CLASS(15, "invalid traffic class"),
    /** 16: primary hop limit not acceptable. */
    INVALID_HOP_LIMIT(16, "invalid hop limit"),
    /** 17: primary packet rate not acceptable. */
    INVALID_PACKET_RATE(17, "invalid packet rate"),
    /** 18: alternate GID not acceptable. */
    INVALID_ALT_GID(18, "invalid alternate GID"),
    /** 19: alternate LID not acceptable. */
    INVALID_ALT_LID(19, "invalid alternate LID"),
    /** 20: alternate SL not acceptable. */
    INVALID_ALT_SL(20, "invalid alternate SL"),
    /** 21: alternate traffic class not acceptable. */
    INVALID_ALT_TRAFFIC_CLASS(21, "invalid alternate traffic class"),
    /** 22: alternate hop limit not acceptable. */
    INVALID_ALT_HOP_LIMIT(22, "invalid alternate hop limit"),
    /** 23: alternate packet rate not acceptable. */
    INVALID_ALT_PACKET_RATE(23, "invalid alternate packet rate"),
    /** 24: port CM redirect (ARI holds ClassPortInfo). */
    PORT_CM_REDIRECT(24, "port CM redirect"),
    /** 25: port redirect. */
    PORT_REDIRECT(25, "port redirect"),
    /** 26: path MTU not acceptable. */
    INVALID_MTU(26, "invalid MTU"),
    /** 27: not enough responder resources for the requested initiator depth. */
    INSUFFICIENT_RESP_RESOURCES(27, "insufficient responder resources"),
    /** 28: consumer defined: the application rejected (rdma_reject). */
    CONSUMER_DEFINED(28, "consumer defined"),
    /** 29: RNR retry count not acceptable. */
    INVALID_RNR_RETRY(29, "invalid RNR retry count"),
    /** 30: duplicate local communication ID. */
    DUPLICATE_LOCAL_COMM_ID(30, "duplicate local comm ID"),
    /** 31: class version not supported. */
    INVALID_CLASS_VERSION(31, "invalid class version"),
    /** 32: primary flow label not acceptable. */
    INVALID_FLOW_LABEL(32, "invalid flow label"),
    /** 33: alternate flow label not acceptable. */
    INVALID_ALT_FLOW_LABEL(33, "invalid alternate flow label"),
    /** 35: vendor option not supported (ECE, IB_CM_REJ_VENDOR_OPTION_NOT_SUPPORTED). */
    VENDOR_OPTION_NOT_SUPPORTED(35, "vendor option not supported");

    private static final CmRejectReason[] BY_CODE = new CmRejectReason[64];

    static
    {
        for (final CmRejectReason reason : values())
        {
            BY_CODE[reason.code] = reason;
        }
    }

    private final int code;
    private final String description;

    CmRejectReason(final int code, final String description)
    {
        this.code = code;
        this.description = description;
    }

    /**
     * @return the 16-bit reason code.
     */
    public int code()
    {
        return code;
    }

    /**
     * @return a short human description.
     */
    public String description()
    {
        return description;
    }

    /**
     * @param code reason from a REJ.
     * @return the reason, or null for an undefined code.
     */
    public static CmRejectReason of(final int code)
    {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
