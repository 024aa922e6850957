package org.roce4j.transport.provider;

/**
 * A receive queue: a QP's own ({@link QpOps#receiveQueue()}) or a shared receive queue
 * ({@link DeviceOps#createSrq}). One thread at a time posts; the engine consumes in order.
 */
public interface RqOps
{
    /**
     * @return the SRQ's handle (the element of its SRQ_LIMIT_REACHED events), or the QPN for a QP's own queue.
     */
    int handle();

    /**
     * @return the receive WRs it holds (max_wr).
     */
    int depth();

    /**
     * @return receive WRs posted and not yet consumed.
     */
    int available();

    /**
     * Put one receive WR into the next free slot, copying its id and scatter list. The caller has checked the WR
     * and that a slot is free.
     *
     * @param wr the work request.
     * @throws IllegalStateException when the queue is full.
     */
    void postRecv(WrView wr);

    /**
     * Arm (or with 0 disarm) the SRQ limit event (ibv_modify_srq with IBV_SRQ_LIMIT): once fewer than
     * {@code limit} WRs remain posted, the device raises one SRQ_LIMIT_REACHED event and disarms (IBA 10.2.9.3).
     *
     * @param limit 0 .. {@link #depth()}.
     */
    void armLimit(int limit);

    /**
     * @return the armed limit, 0 when disarmed.
     */
    int limit();
}
