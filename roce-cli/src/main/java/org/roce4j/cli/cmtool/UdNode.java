package org.roce4j.cli.cmtool;

import java.io.PrintWriter;
import java.nio.ByteBuffer;

import org.roce4j.cm.rdmacm.RdmaCmId;
import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.QpType;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.ib.WrOpcode;
import org.roce4j.verbs.AddressHandle;
import org.roce4j.verbs.CompletionQueue;
import org.roce4j.verbs.MemoryRegion;
import org.roce4j.verbs.ProtectionDomain;
import org.roce4j.verbs.QpInitAttributes;
import org.roce4j.verbs.RdmaDevice;
import org.roce4j.verbs.RecvWorkRequest;
import org.roce4j.verbs.SendWorkRequest;

/**
 * One UD node of librdmacm's udaddy.c and mckey.c (their struct cmatest_node): its rdma_cm identifier, the verbs
 * objects it owns, and where it sends (an address handle, the remote QPN and Q_Key).
 */
public final class UdNode
{
    /** The node's rdma_cm identifier. */
    public RdmaCmId cmaId;
    /** Resolved (udaddy) or joined (mckey): its completions are waited for. */
    public boolean connected;
    /** Its protection domain. */
    public ProtectionDomain pd;
    /** Its one CQ, for sends and receives. */
    public CompletionQueue cq;
    /** Its message buffer. */
    public MemoryRegion mr;
    /** Where it sends to. */
    public AddressHandle ah;
    /** The remote QPN it sends to. */
    public int remoteQpn;
    /** The remote Q_Key it sends with. */
    public int remoteQkey;

    /**
     * @param nodes the nodes.
     * @param id    an identifier an event named.
     * @return the node owning it, or null.
     */
    public static UdNode of(final UdNode[] nodes, final RdmaCmId id)
    {
        for (final UdNode node : nodes)
        {
            if (node.cmaId == id)
            {
                return node;
            }
        }
        return null;
    }

    /**
     * @param count how many.
     * @return that many empty nodes (alloc_nodes).
     */
    public static UdNode[] allocate(final int count)
    {
        final UdNode[] nodes = new UdNode[count];
        for (int i = 0; i < nodes.length; i++)
        {
            nodes[i] = new UdNode();
        }
        return nodes;
    }

    /**
     * The examples' verify_test_params: a message must fit in the active MTU.
     *
     * @param device       the device.
     * @param messageCount messages per node (none: nothing to check).
     * @param messageSize  bytes per message.
     * @param out          the tool's stdout.
     * @param tool         the tool's name.
     * @return 0, or {@link CmTool#EINVAL} after "TOOL: message_size N is larger than active mtu M".
     */
    public static int verifyTestParams(final RdmaDevice device, final int messageCount, final int messageSize,
        final PrintWriter out, final String tool)
    {
        final int mtu = device.activeMtu().bytes();
        if (0 != messageCount && messageSize > mtu)
        {
            out.println(tool + ": message_size " + messageSize + " is larger than active mtu " + mtu);
            return CmTool.EINVAL;
        }
        return 0;
    }

    /**
     * The examples' create_message: no size means no messages.
     *
     * @param messageCount messages asked for.
     * @param messageSize  bytes per message.
     * @return the messages there are.
     */
    public static int messageCount(final int messageCount, final int messageSize)
    {
        return 0 == messageSize ? 0 : messageCount;
    }

    /**
     * The examples' init_node: a PD, one CQ of twice {@code messageCount} entries (2 without messages), a UD QP on
     * the node's identifier with {@code messageCount} (at least 1) sends and receives, and, when there are messages
     * ({@link #messageCount}), a buffer of {@code messageSize} bytes and room for the GRH (create_message).
     *
     * @param device       the device.
     * @param messageCount messages per node.
     * @param messageSize  bytes per message.
     * @param err          the tool's stderr.
     * @param tool         the tool's name.
     * @return 0, or {@link CmTool#FAILED} after "TOOL: unable to create QP: ...".
     */
    public int init(final RdmaDevice device, final int messageCount, final int messageSize, final PrintWriter err,
        final String tool)
    {
        pd = device.allocPd();
        final int cqe = 0 != messageCount ? messageCount * 2 : 2;
        cq = device.createCq(cqe);
        final int depth = 0 != messageCount ? messageCount : 1;
        try
        {
            cmaId.createQp(pd, new QpInitAttributes().qpType(QpType.UD).cq(cq).cap(depth, depth, 1, 1, 0));
        }
        catch (final IllegalArgumentException | IllegalStateException ex)
        {
            err.println(tool + ": unable to create QP: " + ex.getMessage());
            return CmTool.FAILED;
        }
        if (0 != messageCount(messageCount, messageSize))
        {
            mr = pd.registerMemory(ByteBuffer.allocateDirect(messageSize + WorkCompletion.GRH_BYTES),
                AccessFlags.LOCAL_WRITE);
        }
        return 0;
    }

    /**
     * The examples' post_recvs: one receive of a message and its GRH per message.
     *
     * @param wrId         the receives' work request id.
     * @param messageCount how many (0: none).
     * @param messageSize  bytes per message.
     */
    public void postRecvs(final long wrId, final int messageCount, final int messageSize)
    {
        if (0 == messageCount)
        {
            return;
        }
        final RecvWorkRequest wr = new RecvWorkRequest().wrId(wrId).addSge(mr, 0, messageSize +
            WorkCompletion.GRH_BYTES);
        for (int i = 0; i < messageCount; i++)
        {
            cmaId.qp().postRecv(wr);
        }
    }

    /**
     * The examples' post_sends: SEND_WITH_IMM of each message (the immediate is the QPN) to where the node sends,
     * once it is connected.
     *
     * @param wrId         the sends' work request id.
     * @param sendFlags    the sends' flags (0: unsignaled).
     * @param messageCount how many (0: none).
     * @param messageSize  bytes per message.
     */
    public void postSends(final long wrId, final int sendFlags, final int messageCount, final int messageSize)
    {
        if (!connected || 0 == messageCount)
        {
            return;
        }
        final SendWorkRequest wr = new SendWorkRequest().wrId(wrId).opcode(WrOpcode.SEND_WITH_IMM)
            .sendFlags(sendFlags).immData(cmaId.qp().qpNum()).ud(ah, remoteQpn, remoteQkey)
            .addSge(mr, 0, messageSize);
        for (int i = 0; i < messageCount; i++)
        {
            cmaId.qp().postSend(wr);
        }
    }

    /** What a tool does with each batch of completions a node's CQ gives. */
    @FunctionalInterface
    public interface CompletionHook
    {
        /**
         * @param node  the node.
         * @param wc    the completions, the first {@code count} filled.
         * @param count how many.
         * @return 0 to go on, else the status to end with.
         */
        int onCompletions(UdNode node, WorkCompletion[] wc, int count);
    }

    /**
     * The examples' poll_cqs: wait for {@code messageCount} completions on each connected node's CQ in turn. The
     * examples wait for ever; with a timeout (not 0) roce4j ends the wait with "roce TOOL: D of N WHAT within T ms"
     * and {@link CmTool#ETIMEDOUT}.
     *
     * @param nodes        the nodes.
     * @param messageCount completions awaited per node.
     * @param timeoutMs    roce4j's bound on the wait, 0 for none.
     * @param out          the tool's stdout.
     * @param tool         the tool's name.
     * @param what         what is counted, for the message ("completions").
     * @param hook         run on every batch that has completions.
     * @return 0, the hook's status, or {@link CmTool#ETIMEDOUT}.
     */
    public static int pollCqs(final UdNode[] nodes, final int messageCount, final long timeoutMs,
        final PrintWriter out, final String tool, final String what, final CompletionHook hook)
    {
        final WorkCompletion[] wc = new WorkCompletion[8];
        for (int i = 0; i < wc.length; i++)
        {
            wc[i] = new WorkCompletion();
        }
        final long deadline = CmTool.deadlineNs(timeoutMs);
        for (final UdNode node : nodes)
        {
            if (!node.connected)
            {
                continue;
            }
            int done = 0;
            while (done < messageCount)
            {
                final int ret = node.cq.pollBlocking(wc, CmTool.SLICE_NS);
                if (0 == ret && CmTool.expired(timeoutMs, deadline))
                {
                    out.println("roce " + tool + ": " + done + " of " + messageCount + " " + what + " within " +
                        timeoutMs + " ms");
                    return CmTool.ETIMEDOUT;
                }
                if (ret > 0)
                {
                    final int status = hook.onCompletions(node, wc, ret);
                    if (0 != status)
                    {
                        return status;
                    }
                }
                done += ret;
            }
        }
        return 0;
    }
}
