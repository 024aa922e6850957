package org.roce4j.cli.ucmatose;

import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;

import org.roce4j.cli.cmtool.CmTool;
import org.roce4j.cm.rdmacm.ConnParam;
import org.roce4j.cm.rdmacm.RdmaCm;
import org.roce4j.cm.rdmacm.RdmaCmEvent;
import org.roce4j.cm.rdmacm.RdmaCmId;
import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.QpType;
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
 * rdma-core's ucmatose (librdmacm/examples/cmatose.c, rdma-core 44) on roce4j: {@code -c} RC connections through
 * rdma_cm's TCP port space, then {@code -C} SENDs of {@code -S} bytes from the server to the client and back, then a
 * disconnect started by the server, with cmatose's output lines and its return status. Its functions keep
 * cmatose.c's names and order: the client resolves and connects every node (addr_handler, route_handler: init_node,
 * post_recvs, rdma_connect with responder resources 1, initiator depth 1, retry count 5), waits for every
 * ESTABLISHED, receives, replies and waits for the server's disconnect; the server accepts each CONNECT_REQUEST
 * (connect_handler), sends, waits for its send and receive completions and disconnects every connection.
 *
 * <p>Each connection has its own PD, a send and a receive CQ of {@code -C} entries and an RC QP with
 * {@code sq_sig_all}, as init_node makes them. cmatose counts completions without looking at their status; roce4j
 * counts them the same way and also says on stderr how many had an error status ({@link #failedCompletions()}).
 * Where cmatose waits forever, a timeout ({@link UcmatoseSettings#timeoutMs}, 0 = forever) ends the wait with status
 * -110 (ETIMEDOUT) and a line saying what did not come.
 */
public final class Ucmatose
{
    /** route_handler's conn_param.retry_count. */
    private static final int RETRY_COUNT = 5;

    /** One connection (struct cmatest_node). */
    private static final class Node
    {
        RdmaCmId cmaId;
        boolean connected;
        ProtectionDomain pd;
        CompletionQueue sendCq;
        CompletionQueue recvCq;
        MemoryRegion mr;
    }

    private final RdmaCm cm;
    private final UcmatoseSettings settings;
    private final PrintWriter out;
    private final PrintWriter err;
    private final Node[] nodes;
    private final WorkCompletion[] wc = new WorkCompletion[8];
    private int messageCount;
    private int connIndex;
    private int connectsLeft;
    private int disconnectsLeft;
    private long completions;
    private long failedCompletions;
    private Runnable onListening = () ->
    {
    };

    /**
     * @param cm       rdma_cm of the device to run on.
     * @param settings the options.
     * @param out      cmatose's stdout.
     * @param err      cmatose's stderr (perror's lines).
     */
    public Ucmatose(final RdmaCm cm, final UcmatoseSettings settings, final PrintWriter out, final PrintWriter err)
    {
        this.cm = cm;
        this.settings = settings;
        this.out = out;
        this.err = err;
        this.messageCount = settings.messageCount();
        this.nodes = new Node[settings.connections()];
        for (int i = 0; i < nodes.length; i++)
        {
            nodes[i] = new Node();
        }
        for (int i = 0; i < wc.length; i++)
        {
            wc[i] = new WorkCompletion();
        }
    }

    /**
     * @param callback run once the server listens, or has failed to (for the in-process run); may run twice.
     * @return this.
     */
    public Ucmatose onListening(final Runnable callback)
    {
        this.onListening = callback;
        return this;
    }

    /**
     * @return the work completions polled so far, send and receive, whatever their status (what poll_cqs counts).
     */
    public long completions()
    {
        return completions;
    }

    /**
     * @return the work completions polled so far whose status was not SUCCESS (cmatose does not look).
     */
    public long failedCompletions()
    {
        return failedCompletions;
    }

    /**
     * cmatose's main after option parsing: run the role, print "test complete" and "return status N".
     *
     * @return cmatose's exit status: its return status as a byte (-110 exits 146).
     */
    public int run()
    {
        connectsLeft = settings.connections();
        if (!settings.server())
        {
            // alloc_nodes: the client's ids exist before anything runs.
            for (final Node node : nodes)
            {
                node.cmaId = cm.createId();
            }
        }
        final int ret;
        try
        {
            ret = settings.server() ? runServer() : runClient();
        }
        finally
        {
            // A server that failed before listening must not leave the in-process client waiting for it.
            onListening.run();
        }
        out.println("test complete");
        destroyNodes();
        if (0 != failedCompletions)
        {
            err.println("roce ucmatose: " + failedCompletions + " of " + completions + " work completions had an " +
                "error status (cmatose counts them all)");
        }
        out.println("return status " + ret);
        out.flush();
        err.flush();
        return ret & 0xFF;
    }

    private int runServer()
    {
        out.println("cmatose: starting server");
        out.flush();
        final RdmaCmId listenId = cm.createId();
        try
        {
            try
            {
                final InetAddress bind = null == settings.bind() ? InetAddress.getByName("::") : settings.bind();
                listenId.listen(new InetSocketAddress(bind, settings.port()), CmTool.BACKLOG);
            }
            catch (final IllegalArgumentException | IllegalStateException | UnknownHostException ex)
            {
                err.println("cmatose: bind address failed: " + ex.getMessage());
                return CmTool.FAILED;
            }
            onListening.run();
            int ret = connectEvents();
            if (0 != ret)
            {
                return ret;
            }
            if (0 != messageCount)
            {
                out.println("initiating data transfers");
                for (final Node node : nodes)
                {
                    postSends(node);
                }
                out.println("completing sends");
                out.flush();
                ret = pollCqs(true);
                if (0 != ret)
                {
                    return ret;
                }
                out.println("receiving data transfers");
                out.flush();
                ret = pollCqs(false);
                if (0 != ret)
                {
                    return ret;
                }
                out.println("data transfers complete");
            }
            out.println("cmatose: disconnecting");
            out.flush();
            for (final Node node : nodes)
            {
                if (!node.connected)
                {
                    continue;
                }
                node.connected = false;
                CmTool.disconnect(node.cmaId);
            }
            ret = disconnectEvents();
            out.println("disconnected");
            return ret;
        }
        finally
        {
            listenId.destroy();
        }
    }

    private int runClient()
    {
        out.println("cmatose: starting client");
        out.println("cmatose: connecting");
        out.flush();
        for (final Node node : nodes)
        {
            // rdma_resolve_addr and rdma_resolve_route complete at once on RoCE: addr_handler sets the options,
            // route_handler prepares the node and connects.
            addrHandler(node);
            final int ret = routeHandler(node);
            if (0 != ret)
            {
                return ret;
            }
        }
        int ret = connectEvents();
        if (0 == ret && 0 != messageCount)
        {
            out.println("receiving data transfers");
            out.flush();
            ret = pollCqs(false);
            if (0 == ret)
            {
                out.println("sending replies");
                for (final Node node : nodes)
                {
                    postSends(node);
                }
                out.println("data transfers complete");
                out.flush();
            }
        }
        // disc: wait for the server's disconnects whatever happened.
        final int ret2 = disconnectEvents();
        return 0 != ret2 ? ret2 : ret;
    }

    private void addrHandler(final Node node)
    {
        if (settings.tos() >= 0)
        {
            node.cmaId.tos(settings.tos());
        }
        setAckTimeout();
    }

    /** RDMA_OPTION_ID_ACK_TIMEOUT: roce4j's rdma_cm has no such option; cmatose reports the failure and goes on. */
    private void setAckTimeout()
    {
        if (settings.ackTimeout() >= 0)
        {
            err.println("cmatose: set ack timeout option failed: Operation not supported (roce4j's rdma_cm keeps " +
                "the local ACK timeout it negotiates)");
        }
    }

    private int initNode(final Node node)
    {
        final RdmaDevice device = cm.device();
        node.pd = device.allocPd();
        final int cqe = 0 != messageCount ? messageCount : 1;
        node.sendCq = device.createCq(cqe);
        node.recvCq = device.createCq(cqe);
        try
        {
            node.cmaId.createQp(node.pd, new QpInitAttributes().qpType(QpType.RC).sendCq(node.sendCq)
                .recvCq(node.recvCq).cap(cqe, cqe, 1, 1, 0).sqSigAll(true));
        }
        catch (final IllegalArgumentException | IllegalStateException ex)
        {
            err.println("cmatose: unable to create QP: " + ex.getMessage());
            return CmTool.FAILED;
        }
        // create_message: no size means no messages.
        if (0 == settings.messageSize())
        {
            messageCount = 0;
        }
        if (0 != messageCount)
        {
            node.mr = node.pd.registerMemory(ByteBuffer.allocateDirect(settings.messageSize()),
                AccessFlags.LOCAL_WRITE);
        }
        return 0;
    }

    private void postRecvs(final Node node)
    {
        if (0 == messageCount)
        {
            return;
        }
        final RecvWorkRequest wr = new RecvWorkRequest().wrId(0).addSge(node.mr, 0, settings.messageSize());
        for (int i = 0; i < messageCount; i++)
        {
            node.cmaId.qp().postRecv(wr);
        }
    }

    private void postSends(final Node node)
    {
        if (!node.connected || 0 == messageCount)
        {
            return;
        }
        // send_flags 0: the QP's sq_sig_all signals every SEND.
        final SendWorkRequest wr = new SendWorkRequest().wrId(0).opcode(WrOpcode.SEND).sendFlags(0)
            .addSge(node.mr, 0, settings.messageSize());
        for (int i = 0; i < messageCount; i++)
        {
            node.cmaId.qp().postSend(wr);
        }
    }

    private int routeHandler(final Node node)
    {
        int ret = initNode(node);
        if (0 == ret)
        {
            postRecvs(node);
            try
            {
                node.cmaId.connect(new InetSocketAddress(settings.destination(), settings.port()), new ConnParam()
                    .responderResources(1).initiatorDepth(1).retryCount(RETRY_COUNT));
            }
            catch (final IllegalArgumentException | IllegalStateException ex)
            {
                err.println("cmatose: failure connecting: " + ex.getMessage());
                ret = CmTool.FAILED;
            }
        }
        if (0 != ret)
        {
            connectsLeft--;
        }
        return ret;
    }

    private int connectHandler(final RdmaCmId cmaId)
    {
        if (connIndex == nodes.length)
        {
            out.println("cmatose: failing connection request");
            cmaId.reject(null);
            return CmTool.ENOMEM;
        }
        final Node node = nodes[connIndex++];
        node.cmaId = cmaId;
        int ret = initNode(node);
        if (0 == ret)
        {
            setAckTimeout();
            postRecvs(node);
            try
            {
                cmaId.accept(null);
                return 0;
            }
            catch (final IllegalArgumentException | IllegalStateException ex)
            {
                err.println("cmatose: failure accepting: " + ex.getMessage());
                ret = CmTool.FAILED;
            }
        }
        node.cmaId = null;
        connectsLeft--;
        out.println("cmatose: failing connection request");
        cmaId.reject(null);
        return ret;
    }

    private int cmaHandler(final RdmaCmEvent event)
    {
        switch (event.type())
        {
            case CONNECT_REQUEST:
                return connectHandler(event.id());
            case ESTABLISHED:
                final Node node = nodeOf(event.id());
                if (null != node)
                {
                    node.connected = true;
                }
                connectsLeft--;
                disconnectsLeft++;
                return 0;
            case ADDR_ERROR:
            case CONNECT_ERROR:
            case UNREACHABLE:
            case REJECTED:
                out.println("cmatose: event: " + event.type().libraryName() + ", error: " + event.status());
                connectsLeft--;
                return event.status();
            case DISCONNECTED:
                CmTool.disconnect(event.id());
                disconnectsLeft--;
                return 0;
            default:
                return 0;
        }
    }

    private Node nodeOf(final RdmaCmId id)
    {
        for (final Node node : nodes)
        {
            if (node.cmaId == id)
            {
                return node;
            }
        }
        return null;
    }

    private int connectEvents()
    {
        return events(true);
    }

    private int disconnectEvents()
    {
        return events(false);
    }

    /** connect_events and disconnect_events: handle events while connects (or disconnects) are left. */
    private int events(final boolean connecting)
    {
        return connecting ?
            CmTool.events(cm, settings.timeoutMs(), out, "ucmatose", () -> connectsLeft, "connection(s)",
                this::cmaHandler) :
            CmTool.events(cm, settings.timeoutMs(), out, "ucmatose", () -> disconnectsLeft, "disconnect(s)",
                this::cmaHandler);
    }

    /** poll_cqs: {@code -C} completions from the send (or receive) CQ of every connected node. */
    private int pollCqs(final boolean send)
    {
        final long deadline = CmTool.deadlineNs(settings.timeoutMs());
        for (final Node node : nodes)
        {
            if (!node.connected)
            {
                continue;
            }
            final CompletionQueue cq = send ? node.sendCq : node.recvCq;
            int done = 0;
            while (done < messageCount)
            {
                final int ret = cq.pollBlocking(wc, CmTool.SLICE_NS);
                if (0 == ret && CmTool.expired(settings.timeoutMs(), deadline))
                {
                    out.println("roce ucmatose: " + done + " of " + messageCount + " " + (send ? "send" : "receive") +
                        " completions within " + settings.timeoutMs() + " ms");
                    return CmTool.ETIMEDOUT;
                }
                for (int i = 0; i < ret; i++)
                {
                    if (WcStatus.SUCCESS != wc[i].status())
                    {
                        failedCompletions++;
                    }
                }
                completions += ret;
                done += ret;
            }
        }
        return 0;
    }

    private void destroyNodes()
    {
        for (final Node node : nodes)
        {
            if (null == node.cmaId)
            {
                continue;
            }
            if (null != node.cmaId.qp())
            {
                node.cmaId.qp().destroy();
            }
            if (null != node.sendCq)
            {
                node.sendCq.destroy();
            }
            if (null != node.recvCq)
            {
                node.recvCq.destroy();
            }
            if (null != node.mr)
            {
                node.mr.deregister();
            }
            if (null != node.pd)
            {
                node.pd.dealloc();
            }
            // Destroy the RDMA ID after all device resources.
            node.cmaId.destroy();
        }
    }
}
