package org.roce4j.cli.cmtool;

import java.io.PrintWriter;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import java.util.function.ToIntFunction;

import org.roce4j.cm.rdmacm.RdmaCm;
import org.roce4j.cm.rdmacm.RdmaCmEvent;
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

    /**
     * The examples' connect_events / disconnect_events: handle rdma_cm events while some are awaited and the handler
     * returns 0. The examples wait for ever; with a timeout (not 0) roce4j ends the wait with "roce TOOL: no rdma_cm
     * event within N ms (LEFT WHAT left)" and {@link #ETIMEDOUT}.
     *
     * @param cm        the rdma_cm to take events from.
     * @param timeoutMs roce4j's bound on the wait, 0 for none.
     * @param out       the tool's stdout.
     * @param tool      the tool's name.
     * @param left      how many events are still awaited.
     * @param what      what they are, for the message ("connection(s)").
     * @param handler   the tool's cma_handler: 0 to go on, else the status to end with.
     * @return 0, the handler's status, or {@link #ETIMEDOUT}.
     */
    public static int events(final RdmaCm cm, final long timeoutMs, final PrintWriter out, final String tool,
        final IntSupplier left, final String what, final ToIntFunction<RdmaCmEvent> handler)
    {
        int ret = 0;
        final long deadline = deadlineNs(timeoutMs);
        while (left.getAsInt() > 0 && 0 == ret)
        {
            final RdmaCmEvent event = cm.getEvent(SLICE_NS);
            if (null == event)
            {
                if (expired(timeoutMs, deadline))
                {
                    out.println("roce " + tool + ": no rdma_cm event within " + timeoutMs + " ms (" +
                        left.getAsInt() + " " + what + " left)");
                    return ETIMEDOUT;
                }
                continue;
            }
            ret = handler.applyAsInt(event);
        }
        out.flush();
        return ret;
    }
}
