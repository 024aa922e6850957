package org.roce4j.bench;

/**
 * Flags shared by the threads of one measurement: whether to go on, whether the warm-up is over, whether the
 * driving (sending) side has stopped, and the first failure.
 */
public final class Running
{
    /** The threads keep working while this is true. */
    public volatile boolean on = true;
    /** True between the end of the warm-up and the end of the measurement. */
    public volatile boolean measuring;
    /** Set by the driving thread when it has stopped (its peer keeps serving until then). */
    public volatile boolean senderDone;
    private volatile String failure;

    /**
     * Record the first failure and stop every thread.
     *
     * @param why what went wrong.
     */
    public void fail(final String why)
    {
        if (null == failure)
        {
            failure = why;
        }
        on = false;
        senderDone = true;
    }

    /**
     * @return the first failure, or null.
     */
    public String failure()
    {
        return failure;
    }
}
