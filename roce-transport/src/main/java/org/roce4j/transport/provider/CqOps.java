package org.roce4j.transport.provider;

import org.roce4j.ib.WorkCompletion;

/**
 * A completion queue of a {@link DeviceOps}: the engine thread adds completions, one consumer thread at a time
 * polls them into caller-provided {@link WorkCompletion} objects without allocating.
 */
public interface CqOps
{
    /**
     * @return the CQ's handle (the element of its CQ_ERR events).
     */
    int handle();

    /**
     * @return entries it holds (cqe).
     */
    int depth();

    /**
     * @return completions waiting to be polled.
     */
    int size();

    /**
     * @return true once a completion did not fit (the QP that produced it went to ERR and CQ_ERR was raised).
     */
    boolean hasOverflowed();

    /**
     * Take completions (ibv_poll_cq).
     *
     * @param out    filled from {@code offset}; every element from there to {@code offset + max} must be non-null.
     * @param offset first index to fill.
     * @param max    most completions to take.
     * @return number taken.
     */
    int poll(WorkCompletion[] out, int offset, int max);

    /**
     * Park the calling thread until a completion is added or the timeout passes (returns at once when one is
     * waiting). Spurious returns are possible: check {@link #size()}.
     *
     * @param timeoutNs longest park.
     */
    void awaitCompletion(long timeoutNs);
}
