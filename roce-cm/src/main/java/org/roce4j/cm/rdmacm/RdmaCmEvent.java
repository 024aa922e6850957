package org.roce4j.cm.rdmacm;

/**
 * One connection event (struct rdma_cm_event): its type, the connection it is about, a status (the REJ reason for
 * REJECTED, -110 ETIMEDOUT for a timeout, 0 otherwise), the private data that came with it and, for
 * CONNECT_REQUEST and ESTABLISHED, the peer's connection parameters seen from this side; for the ESTABLISHED of an
 * RDMA_PS_UDP identifier, the peer's UD address (event->param.ud).
 *
 * @param type       what happened.
 * @param id         the connection (for CONNECT_REQUEST: the new one, to accept or reject).
 * @param listenId   for CONNECT_REQUEST: the listener it arrived on; else null.
 * @param status     REJ reason, negative errno, or 0.
 * @param privateData the user part of the private data (after rdma_cm's header in a REQ), possibly empty.
 * @param param      the peer's parameters (responder resources and initiator depth as this side should use them,
 *                   retry counts), or null.
 * @param message    a sentence saying what happened, for logs and exceptions.
 * @param ud         for the ESTABLISHED of a UD identifier: the peer's address, QPN and Q_Key; else null.
 */
public record RdmaCmEvent(
    RdmaCmEventType type,
    RdmaCmId id,
    RdmaCmId listenId,
    int status,
    byte[] privateData,
    ConnParam param,
    String message,
    UdParam ud)
{
    /** status of a timeout: -ETIMEDOUT, as rdma_cm reports it. */
    public static final int ETIMEDOUT = -110;
    /** status of a bad argument: -EINVAL (a SIDR_REP with a Q_Key other than RDMA_UDP_QKEY). */
    public static final int EINVAL = -22;

    /**
     * An event without UD parameters (every event of an RC identifier).
     *
     * @param type        what happened.
     * @param id          the connection.
     * @param listenId    the listener (CONNECT_REQUEST), else null.
     * @param status      REJ reason, SIDR status, negative errno, or 0.
     * @param privateData the user part of the private data.
     * @param param       the peer's parameters, or null.
     * @param message     what happened.
     */
    public RdmaCmEvent(final RdmaCmEventType type, final RdmaCmId id, final RdmaCmId listenId, final int status,
        final byte[] privateData, final ConnParam param, final String message)
    {
        this(type, id, listenId, status, privateData, param, message, null);
    }

    /**
     * @return e.g. {@code RDMA_CM_EVENT_REJECTED status 8: ...}.
     */
    public String toString()
    {
        return type.libraryName() + " status " + status + ": " + message;
    }
}
