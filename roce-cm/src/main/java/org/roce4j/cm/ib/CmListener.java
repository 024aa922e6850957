package org.roce4j.cm.ib;

/**
 * The passive side of a service ID: decides what happens to each new REQ.
 */
@FunctionalInterface
public interface CmListener
{
    /** {@link #onRequest} result: keep the REQ; the owner answers later with accept or reject. */
    int PENDING = 0;
    /** {@link #onRequest} result: forget the REQ without answering (the sender retries; a full backlog). */
    int DROP = -1;

    /**
     * A new REQ (not a duplicate) for this listener's service ID; the connection is in {@link CmState#REQ_RCVD}.
     * Or a new SIDR_REQ; the connection is in {@link CmState#SIDR_REQ_RCVD} and has no path, only the sender's
     * address ({@link CmConnection#peer()}), the service ID and the private data. Set its handler with
     * {@link CmConnection#handler(CmHandler)} to keep it.
     *
     * @param connection the new connection, filled from the REQ or SIDR_REQ.
     * @return {@link #PENDING}, {@link #DROP}, or a code to refuse it at once: a REJ reason (enum ib_cm_rej_reason)
     *     for a REQ, a SIDR_REP status (enum ib_cm_sidr_status) for a SIDR_REQ.
     */
    int onRequest(CmConnection connection);
}
