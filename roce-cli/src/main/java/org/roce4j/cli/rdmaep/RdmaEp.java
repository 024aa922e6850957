package org.roce4j.cli.rdmaep;

import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

import org.roce4j.cli.cmtool.CmTool;
import org.roce4j.cm.rdmacm.ConnParam;
import org.roce4j.cm.rdmacm.RdmaCm;
import org.roce4j.cm.rdmacm.RdmaCmEvent;
import org.roce4j.cm.rdmacm.RdmaCmEventType;
import org.roce4j.cm.rdmacm.RdmaCmException;
import org.roce4j.cm.rdmacm.RdmaCmId;
import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.QpType;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WcStatus;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.ib.WrOpcode;
import org.roce4j.verbs.CompletionQueue;
import org.roce4j.verbs.MemoryRegion;
import org.roce4j.verbs.ProtectionDomain;
import org.roce4j.verbs.QpInitAttributes;
import org.roce4j.verbs.RdmaDevice;
import org.roce4j.verbs.RecvWorkRequest;
import org.roce4j.verbs.SendWorkRequest;

/**
 * rdma-core's rdma_server and rdma_client (librdmacm/examples/rdma_server.c, rdma_client.c, rdma-core 44) on roce4j:
 * librdmacm's synchronous endpoint API (rdma_getaddrinfo, rdma_create_ep, rdma_get_request, rdma_accept /
 * rdma_connect waiting for ESTABLISHED, rdma_reg_msgs, rdma_post_recv / rdma_post_send, rdma_get_recv_comp /
 * rdma_get_send_comp) for one RC connection and one 16-byte SEND each way: the client sends first, the server
 * answers once its receive completed. Output lines ("rdma_server: start", "rdma_server: end 0", perror's lines) and
 * the return status are the examples'.
 *
 * <p>The endpoint's QP asks for 16 bytes of inline data with {@code sq_sig_all}, and each side SENDs inline when the
 * QP grants them (roce4j grants up to 512), else from a registered buffer with "device doesn't support
 * IBV_SEND_INLINE, using sge sends". roce4j copies inline data out of registered memory, so the send buffer is
 * registered either way. rdma_create_ep's default CQs are one send and one receive CQ. rdma_connect with no
 * parameters asks for one outstanding read each way (roce4j's ConnParam defaults); librdmacm asks for the device's
 * maximum. Where the examples wait forever, a timeout ({@link RdmaEpSettings#timeoutMs}, 0 = forever) ends the wait
 * as a failed call (-1) with perror's "Connection timed out".
 */
public final class RdmaEp
{
    /** The examples' message size: send_msg[16], recv_msg[16]. */
    public static final int MESSAGE_BYTES = 16;
    /** strerror(ETIMEDOUT). */
    private static final String ETIMEDOUT_TEXT = "Connection timed out";
    /** strerror(ECONNREFUSED): ucma_complete's errno for a REJECTED event. */
    private static final String ECONNREFUSED_TEXT = "Connection refused";

    private final RdmaCm cm;
    private final RdmaEpSettings settings;
    private final PrintWriter out;
    private final PrintWriter err;
    private final String name;
    private final WorkCompletion[] wc = {new WorkCompletion()};
    private RdmaCmId listenId;
    private RdmaCmId id;
    private ProtectionDomain pd;
    private CompletionQueue sendCq;
    private CompletionQueue recvCq;
    private MemoryRegion mr;
    private MemoryRegion sendMr;
    private int sendFlags;
    private int completions;
    private int failedCompletions;
    private Runnable onListening = () ->
    {
    };

    /**
     * @param cm       rdma_cm of the device to run on.
     * @param settings the options.
     * @param out      the example's stdout.
     * @param err      its stderr (perror's lines).
     */
    public RdmaEp(final RdmaCm cm, final RdmaEpSettings settings, final PrintWriter out, final PrintWriter err)
    {
        this.cm = cm;
        this.settings = settings;
        this.out = out;
        this.err = err;
        this.name = settings.server() ? "rdma_server" : "rdma_client";
    }

    /**
     * @param callback run once the server listens, or has failed to (for the in-process run); may run twice.
     * @return this.
     */
    public RdmaEp onListening(final Runnable callback)
    {
        this.onListening = callback;
        return this;
    }

    /**
     * @return work completions taken, send and receive, whatever their status (what the examples wait for).
     */
    public int completions()
    {
        return completions;
    }

    /**
     * @return work completions taken whose status was not SUCCESS (the examples do not look).
     */
    public int failedCompletions()
    {
        return failedCompletions;
    }

    /**
     * The example's main after option parsing: "NAME: start", run, "NAME: end N".
     *
     * @return its exit status: run's return value as a byte (-1 exits 255, -2 254).
     */
    public int run()
    {
        out.println(name + ": start");
        out.flush();
        final int ret;
        try
        {
            ret = null != settings.addressError() ? addressError() : settings.server() ? runServer() : runClient();
        }
        finally
        {
            onListening.run();
            destroy();
        }
        if (0 != failedCompletions)
        {
            err.println("roce " + name + ": " + failedCompletions + " of " + completions + " work completions had " +
                "an error status (" + name + " does not look)");
        }
        out.println(name + ": end " + ret);
        out.flush();
        err.flush();
        return ret & 0xFF;
    }

    private int addressError()
    {
        out.println("rdma_getaddrinfo: " + settings.addressError());
        return settings.addressCode();
    }

    private int runServer()
    {
        listenId = cm.createId();
        try
        {
            listenId.listen(new InetSocketAddress(settings.address(), settings.port()), CmTool.BACKLOG);
        }
        catch (final IllegalArgumentException | IllegalStateException ex)
        {
            return perror("rdma_create_ep", ex.getMessage());
        }
        onListening.run();
        final RdmaCmEvent request;
        try
        {
            request = cm.expect(listenId, RdmaCmEventType.CONNECT_REQUEST, waitNs());
        }
        catch (final RdmaCmException ex)
        {
            return perror("rdma_get_request", ETIMEDOUT_TEXT + " (" + ex.getMessage() + ")");
        }
        // rdma_get_request creates the QP of the new id with the listener's rdma_create_ep attributes.
        id = request.id();
        int ret = createQp("rdma_get_request");
        if (0 == ret)
        {
            ret = registerAndPostRecv();
        }
        if (0 != ret)
        {
            return ret;
        }
        try
        {
            id.accept(null);
            cm.expect(id, RdmaCmEventType.ESTABLISHED, waitNs());
        }
        catch (final RdmaCmException | IllegalArgumentException | IllegalStateException ex)
        {
            return perror("rdma_accept", ex.getMessage());
        }
        ret = awaitCompletion(recvCq, "rdma_get_recv_comp");
        if (0 == ret)
        {
            ret = postSend();
        }
        if (0 == ret)
        {
            ret = awaitCompletion(sendCq, "rdma_get_send_comp");
        }
        CmTool.disconnect(id);
        return ret;
    }

    private int runClient()
    {
        id = cm.createId();
        int ret = createQp("rdma_create_ep");
        if (0 == ret)
        {
            ret = registerAndPostRecv();
        }
        if (0 != ret)
        {
            return ret;
        }
        try
        {
            id.connect(new InetSocketAddress(settings.address(), settings.port()), new ConnParam());
            cm.expect(id, RdmaCmEventType.ESTABLISHED, waitNs());
        }
        catch (final RdmaCmException ex)
        {
            // ucma_complete: a REJECTED event is ECONNREFUSED, another failed event its status as errno.
            final boolean refused = null != ex.event() && RdmaCmEventType.REJECTED == ex.event().type();
            return perror("rdma_connect", (refused ? ECONNREFUSED_TEXT : ETIMEDOUT_TEXT) + " (" + ex.getMessage() +
                ")");
        }
        catch (final IllegalArgumentException | IllegalStateException ex)
        {
            return perror("rdma_connect", ex.getMessage());
        }
        ret = postSend();
        if (0 == ret)
        {
            ret = awaitCompletion(sendCq, "rdma_get_send_comp");
        }
        if (0 == ret)
        {
            ret = awaitCompletion(recvCq, "rdma_get_recv_comp");
        }
        CmTool.disconnect(id);
        return ret;
    }

    /** rdma_create_ep's QP: max_send_wr = max_recv_wr = 1, one SGE, 16 bytes inline, sq_sig_all; own CQs. */
    private int createQp(final String call)
    {
        final RdmaDevice device = cm.device();
        try
        {
            pd = device.allocPd();
            sendCq = device.createCq(1);
            recvCq = device.createCq(1);
            id.createQp(pd, new QpInitAttributes().qpType(QpType.RC).sendCq(sendCq).recvCq(recvCq)
                .cap(1, 1, 1, 1, MESSAGE_BYTES).sqSigAll(true));
        }
        catch (final IllegalArgumentException | IllegalStateException ex)
        {
            return perror(call, ex.getMessage());
        }
        // ibv_query_qp (server) or the attributes rdma_create_ep returns (client): inline if granted.
        if (id.qp().queryInitAttributes(new QpInitAttributes()).cap().maxInlineData >= MESSAGE_BYTES)
        {
            sendFlags = SendFlags.INLINE;
        }
        else
        {
            out.println(name + ": device doesn't support IBV_SEND_INLINE, using sge sends");
        }
        return 0;
    }

    /** rdma_reg_msgs for recv_msg and send_msg, then rdma_post_recv. */
    private int registerAndPostRecv()
    {
        mr = pd.registerMemory(ByteBuffer.allocateDirect(MESSAGE_BYTES), AccessFlags.LOCAL_WRITE);
        sendMr = pd.registerMemory(ByteBuffer.allocateDirect(MESSAGE_BYTES), AccessFlags.LOCAL_WRITE);
        try
        {
            id.qp().postRecv(new RecvWorkRequest().wrId(0).addSge(mr, 0, MESSAGE_BYTES));
        }
        catch (final IllegalArgumentException | IllegalStateException ex)
        {
            return perror("rdma_post_recv", ex.getMessage());
        }
        return 0;
    }

    private int postSend()
    {
        try
        {
            id.qp().postSend(new SendWorkRequest().wrId(0).opcode(WrOpcode.SEND).sendFlags(sendFlags)
                .addSge(sendMr, 0, MESSAGE_BYTES));
        }
        catch (final IllegalArgumentException | IllegalStateException ex)
        {
            return perror("rdma_post_send", ex.getMessage());
        }
        return 0;
    }

    /** while ((ret = rdma_get_*_comp(id, &wc)) == 0); a completion of any status ends the wait. */
    private int awaitCompletion(final CompletionQueue cq, final String call)
    {
        final long deadline = CmTool.deadlineNs(settings.timeoutMs());
        while (0 == cq.pollBlocking(wc, CmTool.SLICE_NS))
        {
            if (CmTool.expired(settings.timeoutMs(), deadline))
            {
                return perror(call, ETIMEDOUT_TEXT + " (no completion within " + settings.timeoutMs() + " ms)");
            }
        }
        completions++;
        if (WcStatus.SUCCESS != wc[0].status())
        {
            failedCompletions++;
        }
        return 0;
    }

    /** perror(call) and librdmacm's -1. */
    private int perror(final String call, final String text)
    {
        err.println(call + ": " + text);
        err.flush();
        return CmTool.FAILED;
    }

    private long waitNs()
    {
        return 0 == settings.timeoutMs() ? Long.MAX_VALUE : TimeUnit.MILLISECONDS.toNanos(settings.timeoutMs());
    }

    /** rdma_dereg_mr, rdma_destroy_ep (QP, CQs, PD, id) and the listener's. */
    private void destroy()
    {
        if (null != id && null != id.qp())
        {
            id.qp().destroy();
        }
        if (null != sendCq)
        {
            sendCq.destroy();
        }
        if (null != recvCq)
        {
            recvCq.destroy();
        }
        if (null != mr)
        {
            mr.deregister();
        }
        if (null != sendMr)
        {
            sendMr.deregister();
        }
        if (null != pd)
        {
            pd.dealloc();
        }
        if (null != id)
        {
            id.destroy();
        }
        if (null != listenId)
        {
            listenId.destroy();
        }
    }
}
