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
 * REMOTE_READ for ib_read_bw, REMOTE_ATOMIC for ib_atomic_bw, none for ib_send_bw, never more). Each tool listens
 * on its own port, so all the loops run side by side. The client tools are the DUT as requester: perftest clients
 * in loops that connect to roce4j's listener ({@link RemoteRequesterDut}).
 */
public enum RemoteTool
{
    /** ib_write_bw: a region with remote write, for every WRITE scenario. */
    WRITE_BW("ib_write_bw", 0, 65_536, ""),
    /** ib_atomic_bw: a region with remote atomic, for the atomic scenarios. */
    ATOMIC_BW("ib_atomic_bw", 1, 8, ""),
    /**
     * ib_send_bw: receives of {@value #SEND_BW_RECEIVE_BYTES} bytes (-s), for the SEND scenarios. Its server posts
     * them after the second barrier that follows ctx_connect (send_bw.c: ctx_connect, ctx_hand_shake,
     * ctx_hand_shake, ctx_set_recv_wqes, ctx_hand_shake), so until the peer passes it its QP is at RTR with no
     * receive posted. Its region has no remote right while its QP allows remote write: the region without remote
     * write.
     */
    SEND_BW("ib_send_bw", 2, RemoteTool.SEND_BW_RECEIVE_BYTES, " -s " + RemoteTool.SEND_BW_RECEIVE_BYTES),
    /** ib_read_bw: a region with remote read only (no remote write), for the READ scenarios. */
    READ_BW("ib_read_bw", 3, 65_536, ""),
    /**
     * ib_send_bw -c UD: a UD QP with perftest's Q_Key (DEFF_QKEY 0x11111111, ctx_modify_qp_to_init) and receives
     * of {@value #SEND_BW_RECEIVE_BYTES} bytes plus the GRH; its run ends after {@value #CLIENT_ITERATIONS} receives
     * (-n), and its server then comes to the closing barrier (send_bw.c run_iter_bw_server, ctx_close_connection):
     * that is what the conform peer sees of its receives.
     */
    SEND_UD("ib_send_bw", 4, RemoteTool.SEND_BW_RECEIVE_BYTES, " -c UD -s " + RemoteTool.SEND_BW_RECEIVE_BYTES +
        " -n " + RemoteTool.CLIENT_ITERATIONS),
    /**
     * ib_write_bw as client (the DUT as requester): WRITEs of {@value #CLIENT_MESSAGE_BYTES} bytes, one at a time
     * (-t 1: perftest posts the next WRITE only once the last one completed, so its next WRITE at the next PSN shows
     * the completion), {@value #CLIENT_ITERATIONS} of them per run (-n), to roce4j's listener.
     */
    WRITE_CLIENT("ib_write_bw", 0, RemoteTool.CLIENT_MESSAGE_BYTES, RemoteTool.CLIENT_OPTIONS, true),
    /** ib_read_bw as client: READs of {@value #CLIENT_MESSAGE_BYTES} bytes, one at a time. */
    READ_CLIENT("ib_read_bw", 1, RemoteTool.CLIENT_MESSAGE_BYTES, RemoteTool.CLIENT_OPTIONS, true),
    /** ib_send_bw as client: SENDs of {@value #CLIENT_MESSAGE_BYTES} bytes, one at a time. */
    SEND_CLIENT("ib_send_bw", 2, RemoteTool.CLIENT_MESSAGE_BYTES, RemoteTool.CLIENT_OPTIONS, true),
    /**
     * ib_write_bw as client with WRITEs of {@value #GO_BACK_N_MESSAGE_BYTES} bytes, one at a time: 4 packets at a path
     * MTU of 1024 (rxe's in the guest), a message with middle packets for go-back-N.
     */
    WRITE_4_MTU_CLIENT("ib_write_bw", 3, RemoteTool.GO_BACK_N_MESSAGE_BYTES, " -s " +
        RemoteTool.GO_BACK_N_MESSAGE_BYTES + RemoteTool.CLIENT_RUN_OPTIONS, true),
    /**
     * ib_write_bw as client with WRITEs of {@value #CADENCE_MESSAGE_BYTES} bytes, one at a time: 100 packets at a
     * path MTU of 1024, more than a requester may send in a row without AckReq, for the AckReq cadence.
     */
    WRITE_100_MTU_CLIENT("ib_write_bw", 4, RemoteTool.CADENCE_MESSAGE_BYTES, " -s " +
        RemoteTool.CADENCE_MESSAGE_BYTES + RemoteTool.CLIENT_RUN_OPTIONS, true),
    /**
     * ib_read_bw as client with two READs of {@value #CLIENT_MESSAGE_BYTES} bytes outstanding (-t 2; perftest posts
     * the next READ as each one completes): a READ response for the second while the first is unanswered is the
     * implied NAK. perftest gives its QP max_rd_atomic = the out_reads the exchange settles on (16 here), so both
     * READs go out at once.
     */
    READ_2_CLIENT("ib_read_bw", 5, RemoteTool.CLIENT_MESSAGE_BYTES, " -s " + RemoteTool.CLIENT_MESSAGE_BYTES +
        " -n " + RemoteTool.CLIENT_ITERATIONS + " -t 2", true);

    /**
     * The message size ib_send_bw's loop is given (-s), the length of each receive its server posts
     * (perftest_resources.c ctx_set_recv_wqes: one SGE of the message size): 64 bytes, so a SEND of 65 is longer.
     */
    public static final int SEND_BW_RECEIVE_BYTES = 64;
    /** The message size of the client loops (the DUT as requester): one packet at any path MTU. */
    public static final int CLIENT_MESSAGE_BYTES = 64;
    /**
     * Iterations of each client run and of the UD server's run: perftest's least (5), so the run after a scenario
     * ends soon.
     */
    public static final int CLIENT_ITERATIONS = 5;
    /**
     * The message size of the go-back-N client loop: 4 path MTUs of 1024 (the guest's path MTU; a DUT at another MTU
     * makes the scenario SKIP, naming the size its loop posts), the least that gives a message middle packets.
     */
    public static final int GO_BACK_N_MESSAGE_BYTES = 4 * 1024;
    /**
     * The message size of the AckReq cadence client loop: 100 path MTUs of 1024, so that a requester setting AckReq
     * only on a message's last packet shows it (rxe's cadence allows 65 in a row without, Checkers).
     */
    public static final int CADENCE_MESSAGE_BYTES = 100 * 1024;
    /** The run options of every client loop: its iterations, one request outstanding (tx depth 1). */
    private static final String CLIENT_RUN_OPTIONS = " -n " + CLIENT_ITERATIONS + " -t 1";
    /** The options of the one-packet client loops: their size and the run options. */
    private static final String CLIENT_OPTIONS = " -s " + CLIENT_MESSAGE_BYTES + CLIENT_RUN_OPTIONS;

    /**
     * Which tool each scenario of the catalogue needs as DUT, by name (a scenario that is not here runs with
     * {@link #WRITE_BW} when it is a responder or congestion scenario; a requester scenario that is not here needs work
     * no client loop posts: {@link #requesterGap}).
     */
    private static final Map<String, RemoteTool> BY_SCENARIO = Map.ofEntries(
        Map.entry("responder.duplicate-atomic", ATOMIC_BW),
        Map.entry("responder.unaligned-atomic", ATOMIC_BW),
        Map.entry("responder.duplicate-send", SEND_BW),
        Map.entry("responder.send-longer-than-receive", SEND_BW),
        Map.entry("responder.send-without-receive-rnr", SEND_BW),
        Map.entry("responder.mr-without-remote-write", SEND_BW),
        Map.entry("responder.ud-wrong-qkey-dropped", SEND_UD),
        Map.entry("responder.duplicate-read", READ_BW),
        Map.entry("responder.duplicate-read-shorter", READ_BW),
        Map.entry("responder.reads-beyond-resources", READ_BW),
        Map.entry("requester.lost-ack-retransmit", WRITE_CLIENT),
        Map.entry("requester.nak-sequence-go-back-n", WRITE_4_MTU_CLIENT),
        Map.entry("requester.ackreq-cadence", WRITE_100_MTU_CLIENT),
        Map.entry("requester.late-ack-after-retransmit", WRITE_CLIENT),
        Map.entry("requester.ghost-ack-ignored", WRITE_CLIENT),
        Map.entry("requester.duplicate-ack-harmless", WRITE_CLIENT),
        Map.entry("requester.retry-exhausted", WRITE_CLIENT),
        Map.entry("requester.rnr-nak-wait-retry", SEND_CLIENT),
        Map.entry("requester.read-response-too-long", READ_CLIENT),
        Map.entry("requester.implied-nak-read", READ_2_CLIENT),
        Map.entry("requester.read-response-wrong-opcode", READ_CLIENT));

    private final String command;
    private final int portOffset;
    private final int sizeBytes;
    private final String options;
    private final boolean client;

    RemoteTool(final String command, final int portOffset, final int sizeBytes, final String options)
    {
        this(command, portOffset, sizeBytes, options, false);
    }

    RemoteTool(final String command, final int portOffset, final int sizeBytes, final String options,
        final boolean client)
    {
        this.command = command;
        this.portOffset = portOffset;
        this.sizeBytes = sizeBytes;
        this.options = options;
        this.client = client;
    }

    /**
     * @return true for a client loop (the DUT as requester, connecting to roce4j's listener), false for a server loop.
     */
    public boolean client()
    {
        return client;
    }

    /**
     * @return the tool's program name, e.g. {@code ib_write_bw}.
     */
    public String command()
    {
        return command;
    }

    /**
     * @return added to the base control port: a server loop listens on base + this, a client loop connects to
     *     roce4j's listen port + this.
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
        return loop(device, gidIndex, port, "");
    }

    /**
     * @param device   the DUT's RDMA device.
     * @param gidIndex the DUT's GID index of its RoCEv2 IPv4 GID.
     * @param port     the port the loop listens on, or (a client loop) connects to.
     * @param peerHost roce4j's control address as the DUT reaches it, for a client loop (ignored for a server).
     * @return the shell loop the DUT runs.
     */
    public String loop(final String device, final int gidIndex, final int port, final String peerHost)
    {
        return String.format(Locale.ROOT, "while :; do %s -d %s -x %d -p %d%s%s; done", command, device, gidIndex,
            port, options, client ? " " + peerHost : "");
    }

    /**
     * Why no client loop serves a requester scenario that {@link #forScenario} gives no tool.
     *
     * @param name the scenario's name.
     * @return the reason, naming the work the scenario needs the DUT to post.
     */
    public static String requesterGap(final String name)
    {
        return switch (name)
        {
            case "requester.read-response-placed" -> "a READ of 2 path MTUs posted on the DUT and its memory read " +
                "back: the client loops post messages of " + CLIENT_MESSAGE_BYTES + " bytes and show no memory";
            default -> "work posted on the DUT that no client loop posts";
        };
    }

    /**
     * @param name the scenario's name.
     * @param side its side.
     * @return the tool the scenario needs on a remote DUT, or null when no loop can serve it (a requester scenario
     *     whose work no client loop posts: {@link #requesterGap}).
     */
    public static RemoteTool forScenario(final String name, final Side side)
    {
        return BY_SCENARIO.getOrDefault(name, Side.REQUESTER == side ? null : WRITE_BW);
    }

    /**
     * @param scenario a scenario.
     * @return the tool it needs on a remote DUT, or null when no loop can serve it.
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
