package org.roce4j.cli.udaddy;

import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;

import org.roce4j.cli.cmtool.CmTool;
import org.roce4j.cli.cmtool.UdNode;
import org.roce4j.cm.rdmacm.ConnParam;
import org.roce4j.cm.rdmacm.RdmaCm;
import org.roce4j.cm.rdmacm.RdmaCmEvent;
import org.roce4j.cm.rdmacm.RdmaCmId;
import org.roce4j.ib.QpAttrMask;
import org.roce4j.ib.QpAttributes;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WorkCompletion;

/**
 * rdma-core's udaddy (librdmacm/examples/udaddy.c) on roce4j: UD "connections" through rdma_cm's UDP port space
 * (SIDR), then {@code -C} messages of {@code -S} bytes from the client to the server and back, with udaddy's output
 * lines and its return status. Its functions keep udaddy.c's names and order: the client resolves each connection
 * (init_node, post_recvs, rdma_connect), takes the peer's UD address from ESTABLISHED (resolved_handler), sends
 * unsignaled SEND_WITH_IMM carrying its QPN and waits for the replies; the server accepts each CONNECT_REQUEST,
 * waits for the messages, addresses its replies from the first work completion and its GRH (create_reply_ah) and
 * sends them signaled.
 *
 * <p>Where udaddy waits forever, a timeout ({@link UdaddySettings#timeoutMs}, 0 = forever) ends the wait with
 * status -110 (ETIMEDOUT) and a line saying what did not come.
 */
public final class Udaddy
{
    private final RdmaCm cm;
    private final UdaddySettings settings;
    private final PrintWriter out;
    private final PrintWriter err;
    private final UdNode[] nodes;
    private int messageCount;
    private int connIndex;
    private int connectsLeft;
    private Runnable onListening = () ->
    {
    };

    /**
     * @param cm       rdma_cm of the device to run on.
     * @param settings the options.
     * @param out      udaddy's stdout.
     * @param err      udaddy's stderr (perror's lines).
     */
    public Udaddy(final RdmaCm cm, final UdaddySettings settings, final PrintWriter out, final PrintWriter err)
    {
        this.cm = cm;
        this.settings = settings;
        this.out = out;
        this.err = err;
        this.messageCount = settings.messageCount();
        this.nodes = UdNode.allocate(settings.connections());
    }

    /**
     * @param callback run once the server listens, or has failed to (for the in-process run); may run twice.
     * @return this.
     */
    public Udaddy onListening(final Runnable callback)
    {
        this.onListening = callback;
        return this;
    }

    /**
     * udaddy's main after option parsing: run the role, print "test complete" and "return status N".
     *
     * @return udaddy's exit status: its return status as a byte (-22 exits 234).
     */
    public int run()
    {
        connectsLeft = settings.connections();
        if (!settings.server())
        {
            // alloc_nodes: the client's ids exist before anything runs; a failure exits 1 at once.
            try
            {
                for (final UdNode node : nodes)
                {
                    node.cmaId = cm.createId(settings.portSpace());
                }
            }
            catch (final IllegalArgumentException ex)
            {
                err.println("roce udaddy: " + ex.getMessage());
                err.flush();
                return 1;
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
        out.println("return status " + ret);
        out.flush();
        err.flush();
        return ret & 0xFF;
    }

    private int runServer()
    {
        out.println("udaddy: starting server");
        out.flush();
        final RdmaCmId listenId;
        try
        {
            listenId = cm.createId(settings.portSpace());
        }
        catch (final IllegalArgumentException ex)
        {
            err.println("udaddy: listen request failed: " + ex.getMessage());
            return CmTool.FAILED;
        }
        try
        {
            final InetAddress bind = null == settings.bind() ? InetAddress.getByName("::") : settings.bind();
            listenId.listen(new InetSocketAddress(bind, settings.port()), CmTool.BACKLOG);
        }
        catch (final IllegalArgumentException | IllegalStateException | java.net.UnknownHostException ex)
        {
            err.println("udaddy: bind address failed: " + ex.getMessage());
            listenId.destroy();
            return CmTool.FAILED;
        }
        onListening.run();
        try
        {
            // udaddy.c ignores connect_events' status on the server.
            connectEvents();
            int ret = 0;
            if (0 != messageCount)
            {
                out.println("receiving data transfers");
                out.flush();
                ret = pollCqs();
                if (0 != ret)
                {
                    return ret;
                }
                out.println("sending replies");
                out.flush();
                for (final UdNode node : nodes)
                {
                    node.postSends(0, SendFlags.SIGNALED, messageCount, settings.messageSize());
                }
                ret = pollCqs();
                if (0 != ret)
                {
                    return ret;
                }
                out.println("data transfers complete");
            }
            return ret;
        }
        finally
        {
            listenId.destroy();
        }
    }

    private int runClient()
    {
        out.println("udaddy: starting client");
        out.println("udaddy: connecting");
        out.flush();
        for (final UdNode node : nodes)
        {
            // rdma_resolve_addr and rdma_resolve_route complete at once on RoCE; addr_handler sets the TOS, then
            // route_handler prepares the node and connects.
            if (settings.tos() >= 0)
            {
                node.cmaId.tos(settings.tos());
            }
            final int ret = routeHandler(node);
            if (0 != ret)
            {
                return ret;
            }
        }
        int ret = connectEvents();
        if (0 != ret)
        {
            return ret;
        }
        if (0 != messageCount)
        {
            out.println("initiating data transfers");
            out.flush();
            for (final UdNode node : nodes)
            {
                node.postSends(0, 0, messageCount, settings.messageSize());
            }
            out.println("receiving data transfers");
            out.flush();
            ret = pollCqs();
            if (0 != ret)
            {
                return ret;
            }
            out.println("data transfers complete");
        }
        return 0;
    }

    /** What both route_handler and connect_handler do first: verify_test_params, init_node, post_recvs. */
    private int prepareNode(final UdNode node)
    {
        int ret = UdNode.verifyTestParams(cm.device(), messageCount, settings.messageSize(), out, "udaddy");
        if (0 == ret)
        {
            ret = node.init(cm.device(), messageCount, settings.messageSize(), err, "udaddy");
        }
        if (0 == ret)
        {
            messageCount = UdNode.messageCount(messageCount, settings.messageSize());
            node.postRecvs(0, messageCount, settings.messageSize());
        }
        return ret;
    }

    private int routeHandler(final UdNode node)
    {
        int ret = prepareNode(node);
        if (0 == ret)
        {
            try
            {
                node.cmaId.connect(new InetSocketAddress(settings.destination(), settings.port()), new ConnParam());
            }
            catch (final IllegalArgumentException | IllegalStateException ex)
            {
                err.println("udaddy: failure connecting: " + ex.getMessage());
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
            out.println("udaddy: failing connection request");
            cmaId.reject(null);
            return CmTool.ENOMEM;
        }
        final UdNode node = nodes[connIndex++];
        node.cmaId = cmaId;
        int ret = prepareNode(node);
        if (0 == ret)
        {
            try
            {
                cmaId.accept(null);
                node.connected = true;
                connectsLeft--;
                return 0;
            }
            catch (final IllegalArgumentException | IllegalStateException ex)
            {
                err.println("udaddy: failure accepting: " + ex.getMessage());
                ret = CmTool.FAILED;
            }
        }
        node.cmaId = null;
        connectsLeft--;
        out.println("udaddy: failing connection request");
        cmaId.reject(null);
        return ret;
    }

    private int resolvedHandler(final UdNode node, final RdmaCmEvent event)
    {
        node.remoteQpn = event.ud().qpNum();
        node.remoteQkey = event.ud().qkey();
        try
        {
            node.ah = node.pd.createAh(event.ud().ahAttr());
        }
        catch (final IllegalArgumentException | IllegalStateException ex)
        {
            out.println("udaddy: failure creating address handle");
            connectsLeft--;
            return CmTool.FAILED;
        }
        node.connected = true;
        connectsLeft--;
        return 0;
    }

    private int cmaHandler(final RdmaCmEvent event)
    {
        switch (event.type())
        {
            case CONNECT_REQUEST:
                return connectHandler(event.id());
            case ESTABLISHED:
                final UdNode node = UdNode.of(nodes, event.id());
                return null == node ? 0 : resolvedHandler(node, event);
            case ADDR_ERROR:
            case CONNECT_ERROR:
            case UNREACHABLE:
            case REJECTED:
                out.println("udaddy: event: " + event.type().libraryName() + ", error: " + event.status());
                connectsLeft--;
                return event.status();
            default:
                return 0;
        }
    }

    private int connectEvents()
    {
        return CmTool.events(cm, settings.timeoutMs(), out, "udaddy", () -> connectsLeft, "connection(s)",
            this::cmaHandler);
    }

    private int pollCqs()
    {
        return UdNode.pollCqs(nodes, messageCount, settings.timeoutMs(), out, "udaddy", "completions",
            this::replyAh);
    }

    /** poll_cqs: the server answers the first message's sender through an AH made from its completion. */
    private int replyAh(final UdNode node, final WorkCompletion[] wc, final int count)
    {
        if (null != node.ah)
        {
            return 0;
        }
        final int rc = createReplyAh(node, wc[0]);
        if (0 != rc)
        {
            out.println("udaddy: failed to create reply AH");
        }
        return rc;
    }

    private int createReplyAh(final UdNode node, final WorkCompletion wc)
    {
        try
        {
            node.ah = node.pd.createAhFromWc(wc, node.mr.buffer(), 0);
        }
        catch (final IllegalArgumentException | IllegalStateException ex)
        {
            return CmTool.FAILED;
        }
        node.remoteQpn = wc.immData();
        node.remoteQkey = node.cmaId.qp().query(new QpAttributes(), QpAttrMask.QKEY).qkey;
        return 0;
    }

    private void destroyNodes()
    {
        for (final UdNode node : nodes)
        {
            if (null == node.cmaId)
            {
                continue;
            }
            if (null != node.ah)
            {
                node.ah.destroy();
            }
            if (null != node.cmaId.qp())
            {
                node.cmaId.qp().destroy();
            }
            if (null != node.cq)
            {
                node.cq.destroy();
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
