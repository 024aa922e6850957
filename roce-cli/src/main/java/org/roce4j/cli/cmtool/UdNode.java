package org.roce4j.cli.cmtool;

import java.io.PrintWriter;

import org.roce4j.cm.rdmacm.RdmaCmId;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.verbs.AddressHandle;
import org.roce4j.verbs.CompletionQueue;
import org.roce4j.verbs.MemoryRegion;
import org.roce4j.verbs.ProtectionDomain;

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
