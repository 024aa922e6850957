package org.roce4j.transport.provider;

import org.roce4j.ib.QpState;

/**
 * A queue pair of a {@link DeviceOps}: its identity and its data path. Control (modify, query, destroy) goes through
 * the device.
 *
 * <p>Posting: one thread at a time posts send WRs ({@link #postSend}, then {@link #ringDoorbell()} once for the
 * chain), and one thread at a time posts receive WRs to {@link #receiveQueue()}; the queues are single-producer
 * rings shared with the engine thread, so no call here locks or allocates.
 */
public interface QpOps
{
    /**
     * @return the QP number.
     */
    int qpn();

    /**
     * @return the current state (any thread; the engine moves a QP to ERR on its own after fatal errors).
     */
    QpState state();

    /**
     * @return send WRs posted and not yet retired by the completer, as the posting thread sees them.
     */
    int sendOutstanding();

    /**
     * Put one send WR into the next free slot of the send queue: the provider copies what it needs from
     * {@code wr} (inline data included) before returning, so the caller may reuse it at once. The caller has
     * checked the WR and that a slot is free; the engine starts the WR after {@link #ringDoorbell()}.
     *
     * @param wr the work request.
     * @throws IllegalStateException when the send queue is full.
     */
    void postSend(SendWrView wr);

    /**
     * Tell the engine this QP has new work (any thread): WRs posted with {@link #postSend}, or receive WRs posted in
     * ERR, which the engine flushes when it next runs the QP. Cheap when already rung and not yet seen.
     */
    void ringDoorbell();

    /**
     * @return the QP's own receive queue, or null when it takes its receive WRs from a shared receive queue.
     */
    RqOps receiveQueue();
}
