package org.roce4j.cm.rdmacm;

/**
 * One connection event (struct rdma_cm_event): its type, the connection it is about, a status (the REJ reason for
 * REJECTED, -110 ETIMEDOUT for a timeout, 0 otherwise), the private data that came with it and, for
 * CONNECT_REQUEST and ESTABLISHED, the peer's connection parameters seen from this side.
 *
 * @param type       what happened.
 * @param id         the connection (for CONNECT_REQUEST: the new one, to accept or reject).
 * @param listenId   for CONNECT_REQUEST: the listener it arrived on; else null.
 * @param status     REJ reason, negative errno, or 0.
 * @param privateData the user part of the private data (after rdma_cm's header in a REQ), possibly empty.
 * @param param      the peer's parameters (responder resources and initiator depth as this side should use them,
 *                   retry counts), or null.
 * @param message    a sentence saying what happened, for logs and exceptions.
 */
public record RdmaCmEvent(
    RdmaCmEventType type,
    RdmaCmId id,
    RdmaCmId listenId,
    int status,
    byte[] privateData,
    ConnParam param,
    String message)
{
    /** status of a timeout: -ETIMEDOUT, as rdma_cm reports it. */
    public static final int ETIMEDOUT = -110;

    /**
     * @return e.g. {@code RDMA_CM_EVENT_REJECTED status 8: ...}.
     */
    public String toString()
    {
        return type.libraryName() + " status " + status + ": " + message;
    }
}
