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
     * Set its handler with {@link CmConnection#handler(CmHandler)} to keep it.
     *
     * @param connection the new connection, filled from the REQ.
     * @return {@link #PENDING}, {@link #DROP}, or a REJ reason code (enum ib_cm_rej_reason) to reject it at once.
     */
    int onRequest(CmConnection connection);
}
