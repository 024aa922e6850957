package org.roce4j.transport.engine;

import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;

/**
 * Doorbells: posting threads tell the engine which QPs have new send WRs; the engine takes them on its duty cycle
 * and schedules those QPs. A QP is queued at most once until the engine has seen it ({@link QpContext#doorbell}), so
 * ringing an already rung doorbell costs one compare-and-set, and the bounded queue (no allocation per offer) never
 * holds more entries than there are QPs.
 */
final class DoorbellQueue
{
    private final ManyToOneConcurrentArrayQueue<QpContext> queue;

    /**
     * @param capacity QPs that may wait to be seen at once; a ringing thread spins while the queue is full.
     */
    DoorbellQueue(final int capacity)
    {
        this.queue = new ManyToOneConcurrentArrayQueue<>(capacity);
    }

    /**
     * Ring a QP's doorbell (any thread).
     *
     * @param qp the QP.
     */
    void ring(final QpContext qp)
    {
        if (qp.doorbell.compareAndSet(false, true))
        {
            while (!queue.offer(qp))
            {
                Thread.onSpinWait();
            }
        }
    }

    /**
     * Schedule every QP whose doorbell rang (engine thread); destroyed QPs are ignored.
     *
     * @param engine the engine whose run queue takes them.
     * @return doorbells taken.
     */
    int drain(final RoceEngine engine)
    {
        int n = 0;
        QpContext qp;
        while (null != (qp = queue.poll()))
        {
            qp.doorbell.set(false);
            if (!qp.destroyed)
            {
                engine.schedule(qp);
            }
            n++;
        }
        return n;
    }

    /**
     * @return true when no doorbell waits.
     */
    boolean isEmpty()
    {
        return queue.isEmpty();
    }
}
