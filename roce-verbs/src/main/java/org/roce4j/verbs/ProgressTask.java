package org.roce4j.verbs;

/**
 * Work that runs alongside the engines of a {@link ProgressGroup} in {@link ThreadingMode#INVOKER} mode: a protocol
 * agent above the verbs (the IB CM on QP1, for one) that must keep answering while the application waits on a
 * completion queue, as a kernel service would. The group runs every task after its engines in each
 * {@link ProgressGroup#progress()}, and counts the task's deadline when simulated time jumps to the next event.
 */
public interface ProgressTask
{
    /**
     * One round of work, on the group's thread. It may itself poll completion queues of the group (their
     * progress calls nest), so it must tolerate being called again from inside its own round.
     *
     * @return work done; 0 when there was nothing to do.
     */
    int doWork();

    /**
     * @return the earliest time (the engines' clock) the task has something to do without outside input, such as
     *     a retransmission timer; Long.MAX_VALUE when none.
     */
    default long earliestDeadlineNs()
    {
        return Long.MAX_VALUE;
    }
}
