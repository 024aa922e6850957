package org.roce4j.cli.mckey;

import java.io.PrintWriter;
import java.util.concurrent.locks.LockSupport;

import org.roce4j.cli.cmtool.CmTool;
import org.roce4j.cli.cmtool.UdNode;
import org.roce4j.cm.rdmacm.RdmaCm;
import org.roce4j.cm.rdmacm.RdmaCmEvent;
import org.roce4j.cm.rdmacm.UdParam;
import org.roce4j.ib.AhAttributes;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.mad.RdmaCmServiceId;

/**
 * rdma-core's mckey (librdmacm/examples/mckey.c, v44) on roce4j: {@code -c} rdma_cm identifiers in the UDP port
 * space each join the multicast group {@code -m} with a UD QP of their own (rdma_join_multicast: on RoCE the MGID is
 * the group's IP as a GID, no SA, Q_Key RDMA_UDP_QKEY, DestQP 0xFFFFFF); after mckey's pause the sender posts
 * {@code -C} unsignaled SEND_WITH_IMM of {@code -S} bytes (the immediate is its QPN) to the group and the receiver
 * waits for as many completions; both leave the group. Functions keep mckey.c's names and order, and the output lines
 * and return status are mckey's: "return status N" is rdma_leave_multicast's result, as mckey's run() overwrites its
 * status with it.
 *
 * <p>Where mckey waits forever (the receiver's poll_cqs), a timeout ({@link MckeySettings#timeoutMs}, 0 = forever)
 * ends the wait with status -110 (ETIMEDOUT) and a line saying how many messages came. The sender waits, before it
 * leaves, until its unsignaled sends are on the wire (mckey destroys its QP at once; rxe has sent them by then).
 */
public final class Mckey
{
    /** How long the sender waits for its sends to leave without a --timeout. */
    private static final long SEND_WAIT_MS = 10_000;
    /** How often it looks. */
    private static final long SEND_POLL_NS = 100_000;

    private final RdmaCm cm;
    private final MckeySettings settings;
    private final PrintWriter out;
    private final PrintWriter err;
    private final UdNode[] nodes;
    private int messageCount;
    private int connectsLeft;
    private Runnable onJoined = () ->
    {
    };

    /**
     * @param cm       rdma_cm of the device to run on.
     * @param settings the options.
     * @param out      mckey's stdout.
     * @param err      mckey's stderr (perror's lines).
     */
    public Mckey(final RdmaCm cm, final MckeySettings settings, final PrintWriter out, final PrintWriter err)
    {
        this.cm = cm;
        this.settings = settings;
        this.out = out;
        this.err = err;
        this.messageCount = settings.messageCount();
        this.nodes = UdNode.allocate(settings.connections());
    }

    /**
     * @param callback run once the joins are done (or have failed): the in-process receiver lets the sender start.
     * @return this.
     */
    public Mckey onJoined(final Runnable callback)
    {
        this.onJoined = callback;
        return this;
    }

    /**
     * mckey's main after option parsing: alloc_nodes, run, "test complete", destroy_nodes, "return status N".
     *
     * @return mckey's exit status: its return status as a byte (-1 exits 255).
     */
    public int run()
    {
        try
        {
            for (final UdNode node : nodes)
            {
                node.cmaId = cm.createId(RdmaCmServiceId.PS_UDP);
            }
        }
        catch (final IllegalArgumentException ex)
        {
            err.println("roce mckey: " + ex.getMessage());
            err.flush();
            onJoined.run();
            return 1;
        }
        final int ret;
        try
        {
            ret = runTest();
        }
        finally
        {
            onJoined.run();
        }
        out.println("test complete");
        destroyNodes();
        out.println("return status " + ret);
        out.flush();
        err.flush();
        return ret & 0xFF;
    }

    private int runTest()
    {
        out.println("mckey: starting " + (settings.sender() ? "client" : "server"));
        out.println("mckey: joining");
        out.flush();
        connectsLeft = nodes.length;
        int ret = 0;
        for (final UdNode node : nodes)
        {
            // rdma_resolve_addr completes at once on RoCE: addr_handler prepares the node and joins.
            ret = addrHandler(node);
            if (0 != ret)
            {
                break;
            }
        }
        if (0 == ret)
        {
            ret = connectEvents();
        }
        if (0 == ret)
        {
            onJoined.run();
            ret = transfer();
        }
        int left = ret;
        for (final UdNode node : nodes)
        {
            try
            {
                node.cmaId.leaveMulticast(settings.group());
                left = 0;
            }
            catch (final IllegalArgumentException | IllegalStateException ex)
            {
                err.println("mckey: failure leaving: " + ex.getMessage());
                left = CmTool.FAILED;
            }
        }
        // mckey's run() returns rdma_leave_multicast's status; roce4j's own timeout keeps its -110.
        return CmTool.ETIMEDOUT == ret ? ret : left;
    }

    private int transfer()
    {
        pause();
        if (0 == messageCount)
        {
            return 0;
        }
        int ret = 0;
        if (settings.sender())
        {
            out.println("initiating data transfers");
            out.flush();
            for (final UdNode node : nodes)
            {
                if (node.connected)
                {
                    node.postSends(node.cmaId.qp().qpNum(), 0, messageCount, settings.messageSize());
                }
            }
            ret = awaitSent();
        }
        else
        {
            out.println("receiving data transfers");
            out.flush();
            ret = pollCqs();
        }
        if (0 == ret)
        {
            out.println("data transfers complete");
            out.flush();
        }
        return ret;
    }

    private void pause()
    {
        if (settings.pauseMs() > 0)
        {
            try
            {
                // mckey.c: "Pause to give SM chance to configure switches."
                Thread.sleep(settings.pauseMs());
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }
    }

    private int addrHandler(final UdNode node)
    {
        int ret = UdNode.verifyTestParams(cm.device(), messageCount, settings.messageSize(), out, "mckey");
        if (0 == ret)
        {
            ret = node.init(cm.device(), messageCount, settings.messageSize(), err, "mckey");
        }
        if (0 == ret)
        {
            messageCount = UdNode.messageCount(messageCount, settings.messageSize());
        }
        if (0 == ret && !settings.sender())
        {
            node.postRecvs(node.cmaId.qp().qpNum(), messageCount, settings.messageSize());
        }
        if (0 == ret)
        {
            try
            {
                node.cmaId.joinMulticast(settings.group(), settings.bind(), settings.sendOnly());
            }
            catch (final IllegalArgumentException | IllegalStateException ex)
            {
                err.println("mckey: failure joining: " + ex.getMessage());
                ret = CmTool.FAILED;
            }
        }
        if (0 != ret)
        {
            connectsLeft--;
        }
        return ret;
    }

    private int joinHandler(final UdNode node, final UdParam param)
    {
        final AhAttributes ah = param.ahAttr();
        // mckey prints the MGID with inet_ntop(AF_INET6): an IPv4 group as ::ffff:a.b.c.d. RoCE has no LIDs: 0.
        out.println("mckey: joined dgid: " + Gid.toString(ah.dgidHigh(), ah.dgidLow()) + " mlid 0x0 sl " +
            ah.serviceLevel());
        out.flush();
        node.remoteQpn = param.qpNum();
        node.remoteQkey = param.qkey();
        try
        {
            node.ah = node.pd.createAh(ah);
        }
        catch (final IllegalArgumentException | IllegalStateException ex)
        {
            out.println("mckey: failure creating address handle");
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
            case MULTICAST_JOIN:
                final UdNode node = UdNode.of(nodes, event.id());
                return null == node ? 0 : joinHandler(node, event.ud());
            case ADDR_ERROR:
            case MULTICAST_ERROR:
                out.println("mckey: event: " + event.type().libraryName() + ", error: " + event.status());
                connectsLeft--;
                return event.status();
            default:
                return 0;
        }
    }

    private int connectEvents()
    {
        return CmTool.events(cm, settings.timeoutMs(), out, "mckey", () -> connectsLeft, "join(s)",
            this::cmaHandler);
    }

    private int pollCqs()
    {
        return UdNode.pollCqs(nodes, messageCount, settings.timeoutMs(), out, "mckey", "messages",
            (node, wc, count) -> 0);
    }

    /** The unsignaled sends leave the send queue once they are on the wire (the engine retires them). */
    private int awaitSent()
    {
        final long boundMs = 0 != settings.timeoutMs() ? settings.timeoutMs() : SEND_WAIT_MS;
        final long deadline = CmTool.deadlineNs(boundMs);
        for (final UdNode node : nodes)
        {
            while (null != node.cmaId.qp() && node.cmaId.qp().outstandingSendWrs() > 0)
            {
                if (CmTool.expired(boundMs, deadline))
                {
                    out.println("roce mckey: " + node.cmaId.qp().outstandingSendWrs() + " sends still queued after " +
                        boundMs + " ms");
                    return CmTool.ETIMEDOUT;
                }
                LockSupport.parkNanos(SEND_POLL_NS);
            }
        }
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
            node.cmaId.destroy();
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
        }
    }
}
