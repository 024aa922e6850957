package org.roce4j.cli.cmtool;

import java.util.concurrent.TimeUnit;

import org.roce4j.cm.rdmacm.RdmaCmId;

/**
 * What librdmacm's example programs on roce4j (udaddy, ucmatose, rdma_server / rdma_client) share: their return
 * codes as librdmacm and the kernel give them, rdma_listen's backlog, and roce4j's optional end to the waits the
 * examples keep up forever.
 */
public final class CmTool
{
    /** rdma_listen(id, 0): the kernel's ucma takes its max_backlog, 1024. */
    public static final int BACKLOG = 1024;
    /** -ETIMEDOUT: the status when a wait of roce4j's timeout expires. */
    public static final int ETIMEDOUT = -110;
    /** -ENOMEM: connect_handler's status when more requests come than -c. */
    public static final int ENOMEM = -12;
    /** -EINVAL. */
    public static final int EINVAL = -22;
    /** -1: what librdmacm returns for a failed call (errno set). */
    public static final int FAILED = -1;
    /** How long one blocking wait lasts before the loop looks at the deadline again. */
    public static final long SLICE_NS = TimeUnit.MILLISECONDS.toNanos(100);

    private CmTool()
    {
    }

    /**
     * @param timeoutMs roce4j's timeout; 0 waits forever.
     * @return the deadline of a wait that starts now (System.nanoTime).
     */
    public static long deadlineNs(final long timeoutMs)
    {
        return System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    }

    /**
     * @param timeoutMs  roce4j's timeout; 0 waits forever.
     * @param deadlineNs from {@link #deadlineNs}.
     * @return true once the wait has passed its deadline; never without a timeout (the examples' way).
     */
    public static boolean expired(final long timeoutMs, final long deadlineNs)
    {
        return 0 != timeoutMs && System.nanoTime() - deadlineNs >= 0;
    }

    /**
     * rdma_disconnect, whose return value the examples ignore.
     *
     * @param id the connection.
     */
    public static void disconnect(final RdmaCmId id)
    {
        try
        {
            id.disconnect();
        }
        catch (final IllegalStateException ex)
        {
            // Not connected (any more): nothing to tear down, as rdma_disconnect's ignored error.
        }
    }
}
