package org.roce4j.ib;

/**
 * Asynchronous events (enum ibv_event_type, the subset roce4j raises).
 */
public enum AsyncEventType
{
    /** IBV_EVENT_CQ_ERR: a completion queue overflowed. */
    CQ_ERR,
    /** IBV_EVENT_QP_FATAL: a QP hit an error that is not one of the two below and went to ERR. */
    QP_FATAL,
    /** IBV_EVENT_QP_REQ_ERR: the responder saw an invalid request and the QP went to ERR. */
    QP_REQ_ERR,
    /** IBV_EVENT_QP_ACCESS_ERR: the responder saw a remote access violation and the QP went to ERR. */
    QP_ACCESS_ERR,
    /** IBV_EVENT_COMM_EST: first packet received on a QP in RTR. */
    COMM_EST,
    /** IBV_EVENT_SQ_DRAINED: a QP in SQD has no outstanding send WRs. */
    SQ_DRAINED,
    /** IBV_EVENT_QP_LAST_WQE_REACHED: a QP on an SRQ went to ERR; no more receives will complete for it. */
    QP_LAST_WQE_REACHED,
    /** IBV_EVENT_SRQ_LIMIT_REACHED: an SRQ dropped below its armed limit. */
    SRQ_LIMIT_REACHED,
    /** IBV_EVENT_PORT_ACTIVE: the port (the link) is up. */
    PORT_ACTIVE,
    /** IBV_EVENT_PORT_ERR: the port (the link) went down. */
    PORT_ERR
}
