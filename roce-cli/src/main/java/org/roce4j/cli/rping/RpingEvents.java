package org.roce4j.cli.rping;

import java.io.PrintWriter;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.roce4j.cm.rdmacm.RdmaCm;
import org.roce4j.cm.rdmacm.RdmaCmEvent;
import org.roce4j.cm.rdmacm.RdmaCmId;
import org.roce4j.ib.WcStatus;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.verbs.CompletionQueue;
import org.roce4j.verbs.QueuePair;
import org.roce4j.verbs.RecvWorkRequest;

/**
 * One rping connection's events and the state they move (rping_cb's state, rping_cq_event_handler and
 * rping_cma_event_handler): completions (receives counted and reposted, READ and WRITE done, a flush), CM events
 * (DISCONNECTED, errors), and the waits {@link Rping}'s client and server flows make on them, with rping's lines.
 */
final class RpingEvents
{
    /** How long one CQ wait lasts before the CM's events are looked at again. */
    private static final long POLL_SLICE_NS = TimeUnit.MILLISECONDS.toNanos(20);
    /** How long to wait for the DISCONNECTED event after the receive queue was flushed. */
    private static final long DISCONNECT_EVENT_WAIT_NS = TimeUnit.SECONDS.toNanos(5);

    private final RdmaCm cm;
    private final RpingSettings settings;
    private final PrintWriter out;
    private final PrintWriter err;
    private final String role;
    private final WorkCompletion[] wcs = {new WorkCompletion(), new WorkCompletion(), new WorkCompletion(),
        new WorkCompletion()};
    private CompletionQueue cq;
    private QueuePair qp;
    private RecvWorkRequest recvWr;
    private boolean flushed;
    private boolean disconnected;
    private boolean failed;

    /** enum test_state: what rping prints in its "wait for ... state N" lines. */
    int state = 1;
    /** Receives completed. */
    int recvs;
    /** The last RDMA READ completed. */
    boolean readDone;
    /** The last RDMA WRITE completed. */
    boolean writeDone;

    RpingEvents(final RdmaCm cm, final RpingSettings settings, final PrintWriter out, final PrintWriter err,
        final String role)
    {
        this.cm = cm;
        this.settings = settings;
        this.out = out;
        this.err = err;
        this.role = role;
    }

    /**
     * The connection's CQ and QP, once set up, and the receive WR reposted after each receive.
     */
    void attach(final CompletionQueue completionQueue, final QueuePair queuePair, final RecvWorkRequest receive)
    {
        this.cq = completionQueue;
        this.qp = queuePair;
        this.recvWr = receive;
    }

    /**
     * Poll the CQ (rping_cq_event_handler) and the CM's events (rping_cma_event_handler) until {@code done} holds.
     *
     * @return true when done; false when the connection ended or failed first.
     */
    boolean await(final BooleanSupplier done)
    {
        final long deadline = deadline();
        long flushedAt = 0;
        while (!done.getAsBoolean())
        {
            if (disconnected || failed)
            {
                return false;
            }
            final int n = cq.pollBlocking(wcs, POLL_SLICE_NS);
            for (int i = 0; i < n; i++)
            {
                onCompletion(wcs[i]);
            }
            drainCmEvents();
            if (flushed && !disconnected)
            {
                // rping's CQ thread stops at a flush; the end of the connection comes as a CM event.
                if (0 == flushedAt)
                {
                    flushedAt = System.nanoTime();
                }
                else if (System.nanoTime() - flushedAt > DISCONNECT_EVENT_WAIT_NS)
                {
                    failed = true;
                }
            }
            if (Long.MAX_VALUE != deadline && System.nanoTime() - deadline > 0)
            {
                err.println("rping: nothing happened for " + settings.timeoutMs + " ms (--timeout)");
                failed = true;
            }
        }
        return true;
    }

    private void onCompletion(final WorkCompletion wc)
    {
        if (WcStatus.SUCCESS != wc.status())
        {
            if (WcStatus.WR_FLUSH_ERR == wc.status())
            {
                flushed = true;
                return;
            }
            err.println("cq completion failed status " + wc.status().ordinal());
            failed = true;
            state = Rping.STATE_ERROR;
            return;
        }
        switch (wc.opcode())
        {
            case SEND:
                debug("send completion");
                break;
            case RDMA_WRITE:
                debug("rdma write completion");
                writeDone = true;
                break;
            case RDMA_READ:
                debug("rdma read completion");
                readDone = true;
                break;
            case RECV:
                debug("recv completion");
                if (RpingRdmaInfo.LENGTH != wc.byteLen())
                {
                    err.println("Received bogus data, size " + wc.byteLen());
                    err.println("recv wc error: -1");
                    failed = true;
                    state = Rping.STATE_ERROR;
                    return;
                }
                recvs++;
                qp.postRecv(recvWr);
                break;
            default:
                debug("unknown!!!!! completion");
                failed = true;
                state = Rping.STATE_ERROR;
                break;
        }
    }

    private void drainCmEvents()
    {
        RdmaCmEvent event;
        while (null != (event = cm.pollEvent()))
        {
            onCmEvent(event);
        }
    }

    private void onCmEvent(final RdmaCmEvent event)
    {
        debug("cma_event type " + event.type().libraryName() + " cma_id " + event.id() + " (child)");
        switch (event.type())
        {
            case DISCONNECTED:
                err.println(role + " DISCONNECT EVENT...");
                disconnected = true;
                state = Rping.STATE_DISCONNECTED;
                break;
            case REJECTED:
            case UNREACHABLE:
            case CONNECT_ERROR:
                err.println("cma event " + event.type().libraryName() + ", error " + event.status());
                failed = true;
                state = Rping.STATE_ERROR;
                break;
            case ESTABLISHED:
                debug("ESTABLISHED");
                break;
            default:
                err.println("unhandled event: " + event.type().libraryName() + ", ignoring");
                break;
        }
    }

    RdmaCmEvent awaitCmEvent(final RdmaCmId id)
    {
        final long deadline = deadline();
        while (true)
        {
            final long left = Long.MAX_VALUE == deadline ? POLL_SLICE_NS : Math.min(POLL_SLICE_NS,
                deadline - System.nanoTime());
            if (left <= 0)
            {
                err.println("rping: no connection event within " + settings.timeoutMs + " ms (--timeout)");
                return null;
            }
            final RdmaCmEvent event = cm.getEvent(left);
            if (null != event && event.id() == id)
            {
                return event;
            }
            if (null != event)
            {
                onCmEvent(event);
            }
        }
    }

    void awaitDisconnectEvent()
    {
        final long deadline = System.nanoTime() + DISCONNECT_EVENT_WAIT_NS;
        while (!disconnected && System.nanoTime() - deadline < 0)
        {
            final RdmaCmEvent event = cm.getEvent(POLL_SLICE_NS);
            if (null != event)
            {
                onCmEvent(event);
            }
        }
    }

    int waitFailure(final String expected)
    {
        err.println("wait for " + expected + " state " + state);
        return Rping.STATE_DISCONNECTED == state ? 0 : -1;
    }

    long deadline()
    {
        return 0 == settings.timeoutMs ? Long.MAX_VALUE :
            System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(settings.timeoutMs);
    }

    void debug(final String line)
    {
        if (settings.debug)
        {
            out.println(line);
        }
    }
}
