package org.roce4j.conform.dut;

import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import org.roce4j.conform.Scenario;
import org.roce4j.conform.Side;

/**
 * The stock tool a remote DUT runs, in a loop, as the server a scenario connects to ({@link RemoteDut}): a perftest
 * bandwidth server whose out-of-band exchange gives the QPN, the first PSN, the R_Key and the VA of its buffer, and
 * whose region has the one remote right its verb needs (perftest's create_single_mr: REMOTE_WRITE for ib_write_bw,
 * REMOTE_ATOMIC for ib_atomic_bw, none for ib_send_bw, never more). Each tool listens on its own port, so all the loops
 * run side by side.
 */
public enum RemoteTool
{
    /** ib_write_bw: a region with remote write, for every WRITE scenario. */
    WRITE_BW("ib_write_bw", 0, 65_536, ""),
    /** ib_atomic_bw: a region with remote atomic, for the atomic scenarios. */
    ATOMIC_BW("ib_atomic_bw", 1, 8, ""),
    /**
     * ib_send_bw: receives of {@value #SEND_BW_RECEIVE_BYTES} bytes (-s), for the SEND scenarios. Its server posts
     * them between the exchange's two barriers (send_bw.c: ctx_connect, ctx_hand_shake, ctx_set_recv_wqes,
     * ctx_hand_shake), so until the peer passes the barriers its QP is at RTS with no receive posted.
     */
    SEND_BW("ib_send_bw", 2, RemoteTool.SEND_BW_RECEIVE_BYTES, " -s " + RemoteTool.SEND_BW_RECEIVE_BYTES);

    /**
     * The message size ib_send_bw's loop is given (-s), the length of each receive its server posts
     * (perftest_resources.c ctx_set_recv_wqes: one SGE of the message size): 64 bytes, so a SEND of 65 is longer.
     */
    public static final int SEND_BW_RECEIVE_BYTES = 64;

    /**
     * Which tool each scenario of the catalogue needs as DUT, by name (a scenario that is not here runs with
     * {@link #WRITE_BW} when it is a responder or congestion scenario; requester scenarios need the DUT to post work,
     * which no server loop does).
     */
    private static final Map<String, RemoteTool> BY_SCENARIO = Map.of(
        "responder.duplicate-atomic", ATOMIC_BW,
        "responder.unaligned-atomic", ATOMIC_BW,
        "responder.duplicate-send", SEND_BW,
        "responder.send-longer-than-receive", SEND_BW,
        "responder.send-without-receive-rnr", SEND_BW);

    private final String command;
    private final int portOffset;
    private final int sizeBytes;
    private final String options;

    RemoteTool(final String command, final int portOffset, final int sizeBytes, final String options)
    {
        this.command = command;
        this.portOffset = portOffset;
        this.sizeBytes = sizeBytes;
        this.options = options;
    }

    /**
     * @return the tool's program name, e.g. {@code ib_write_bw}.
     */
    public String command()
    {
        return command;
    }

    /**
     * @return added to the base control port: the tool's loop listens on base + this.
     */
    public int portOffset()
    {
        return portOffset;
    }

    /**
     * @return the tool's message size (-s: perftest's default, or what its loop is given), which fixes its buffer's
     *     layout.
     */
    public int sizeBytes()
    {
        return sizeBytes;
    }

    /**
     * The bytes from the VA the exchange names to the end of the tool's region: perftest registers twice its buffer
     * size, max(size, page size) rounded up to the cache line (perftest_resources.c create_single_mr and
     * set_up_connection's {@code vaddr = buf + BUFF_SIZE}), and names the second half.
     *
     * @param pageBytes      the page size the sides agreed (check_sys_data).
     * @param cacheLineBytes the cache line size they agreed.
     * @return bytes of the region from its VA.
     */
    public int regionBytes(final int pageBytes, final int cacheLineBytes)
    {
        final int span = Math.max(sizeBytes, pageBytes);
        return (span + cacheLineBytes - 1) / cacheLineBytes * cacheLineBytes;
    }

    /**
     * @param device   the DUT's RDMA device, e.g. {@code rxe0} or {@code mlx5_0}.
     * @param gidIndex the DUT's GID index of its RoCEv2 IPv4 GID.
     * @param port     the port the loop listens on.
     * @return the shell loop the DUT runs.
     */
    public String loop(final String device, final int gidIndex, final int port)
    {
        return String.format(Locale.ROOT, "while :; do %s -d %s -x %d -p %d%s; done", command, device, gidIndex, port,
            options);
    }

    /**
     * @param name the scenario's name.
     * @param side its side.
     * @return the tool the scenario needs on a remote DUT, or null when no server loop can serve it (the DUT as
     *     requester).
     */
    public static RemoteTool forScenario(final String name, final Side side)
    {
        if (Side.REQUESTER == side)
        {
            return null;
        }
        return BY_SCENARIO.getOrDefault(name, WRITE_BW);
    }

    /**
     * @param scenario a scenario.
     * @return the tool it needs on a remote DUT, or null when no server loop can serve it.
     */
    public static RemoteTool forScenario(final Scenario scenario)
    {
        return forScenario(scenario.name(), scenario.side());
    }

    /**
     * @param scenarios the scenarios of a run.
     * @return the tools they need, each once, in declaration order: the loops to start on the DUT.
     */
    public static Set<RemoteTool> forScenarios(final List<Scenario> scenarios)
    {
        final Set<RemoteTool> tools = EnumSet.noneOf(RemoteTool.class);
        for (final Scenario scenario : scenarios)
        {
            final RemoteTool tool = forScenario(scenario);
            if (null != tool)
            {
                tools.add(tool);
            }
        }
        return tools;
    }

    /**
     * @return e.g. {@code ib_write_bw}.
     */
    @Override
    public String toString()
    {
        return command;
    }
}
