package org.roce4j.conform.dut;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.roce4j.conform.CapturedFrame;
import org.roce4j.conform.ConformContext;
import org.roce4j.conform.ConformFailure;
import org.roce4j.conform.ConformSkip;
import org.roce4j.conform.FrameFilter;
import org.roce4j.conform.Frames;
import org.roce4j.cm.QpSetup;
import org.roce4j.cm.oob.RetryDeadline;
import org.roce4j.cm.perftest.PerftestDest;
import org.roce4j.cm.perftest.PerftestReport;
import org.roce4j.cm.perftest.PerftestSession;
import org.roce4j.cm.perftest.PerftestSysData;
import org.roce4j.cm.perftest.PerftestTcpConnector;
import org.roce4j.cm.perftest.PerftestVersion;
import org.roce4j.ib.Mtu;
import org.roce4j.ib.QpType;
import org.roce4j.transport.link.Link;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.header.AethHeader;

/**
 * A device under test reached over a real link and driven only by a stock tool it runs in a loop (the DUT as
 * responder): for each scenario roce4j connects to the tool's server through perftest's out-of-band exchange, as
 * {@code roce perf} does as a client, announcing the conform peer's QPN and first PSN; the DUT's QP is then at RTR
 * towards the peer, and its QPN, first PSN, R_Key and VA come from the exchange. The scenario's requests are the
 * conform peer's own frames on that QP. After the scenario the exchange is finished as a client finishes it, so the
 * tool exits and its loop starts it again for the next scenario.
 *
 * <p>ib_send_bw's server posts its own receives ({@link #postRecv} passes the barrier before them), and
 * is brought to the end of its run after the verdict ({@link #finish}); its region, registered without any remote
 * right behind a QP that allows remote write, is the region without remote write of
 * {@code responder.mr-without-remote-write}. What a tool cannot give makes the scenario SKIP, naming what is missing
 * (posting sends on its QP, its QP state, a UD QP, a READ of a region without remote read, a region without remote
 * access against another tool), or, for a part beyond the rule the verdict judges, is reported as not checked
 * (reading or writing the DUT's memory, its completions).
 */
public final class RemoteDut extends StockToolDut
{
    /** perftest's DEF_QP_TIME: the local ACK timeout exponent of its QPs (4.096 us x 2^14 = 67 ms). */
    static final int PERFTEST_TIMEOUT = 14;
    /** perftest's DEF_RETRY_COUNT (retry_cnt and rnr_retry). */
    static final int PERFTEST_RETRY = 7;
    /** perftest's MIN_RNR_TIMER (12: 0.64 ms), ctx_modify_qp_to_rtr. */
    static final int PERFTEST_MIN_RNR_TIMER = QpSetup.DEFAULT_MIN_RNR_TIMER;
    /** perftest's DEF_QKEY. */
    static final int PERFTEST_QKEY = 0x1111_1111;
    /** out_reads the peer announces: the DUT's max_rd_atomic towards it (it sends no request here). */
    private static final int PEER_OUT_READS = 16;
    /** Pause before connecting again to a loop that closed the connection: 100 ms. */
    private static final long RECONNECT_PAUSE_NS = 100_000_000L;
    /** How long each read of the closing exchange may take. */
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(10);

    private final RemoteDutConfig config;
    private final RemoteTool tool;
    private final Link link;
    private final DutLinkWaits waits;
    private PerftestDest local;
    private PerftestSysData sys;
    private int mtuBytes;
    /** ib_send_bw: the barrier before its receives not passed yet, so its server has posted none. */
    private boolean barriersPending;
    private DutQp qp;
    /** ib_send_bw -c UD: the closing barrier, begun once its run began; done when the server came to it. */
    private CompletableFuture<Void> runEnd;

    /**
     * @param config where the DUT's loops are.
     * @param tool   the tool this scenario needs, or null when no server loop can serve it.
     * @param link   the conform peer's raw link to the DUT (polled here only while connecting, for ARP).
     */
    public RemoteDut(final RemoteDutConfig config, final RemoteTool tool, final Link link)
    {
        this.config = config;
        this.tool = tool;
        this.link = link;
        this.waits = new DutLinkWaits(link);
    }

    /**
     * @return the tool this scenario connects to, or null.
     */
    @Override
    public RemoteTool tool()
    {
        return tool;
    }

    @Override
    public String name()
    {
        return "remote DUT at " + config.server() + " (" + config.device() + ", stock tools in loops)";
    }

    @Override
    public DutQp connect(final boolean rc, final PeerQp peer)
    {
        if (null == tool)
        {
            throw new ConformSkip("the DUT as requester: its client would have to run in a loop against roce4j " +
                "(not implemented yet); a server loop posts no work");
        }
        if (rc == (RemoteTool.SEND_UD == tool))
        {
            throw new ConformSkip(rc ? "an RC QP from " + tool + "'s loop, which runs a UD QP" :
                "a UD QP on the DUT: " + tool + "'s loop runs an RC QP (ib_send_bw -c UD's loop runs the UD scenario)");
        }
        final PerftestDest remote;
        try
        {
            // The DUT resolves the peer's MAC while it moves its QP to RTR: its ARP is answered meanwhile.
            remote = waits.whilePolling("conform-exchange", () -> exchange(peer), (buffer, offset, length) -> {});
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while connecting to " + config.describe(tool), ex);
        }
        catch (final ExecutionException ex)
        {
            disconnect();
            throw new IllegalStateException("cannot connect to " + config.describe(tool) + " (the DUT runs: " +
                config.loop(tool) + "): " + ex.getCause(), ex.getCause());
        }
        if (!remote.isIpv4MappedGid())
        {
            throw new ConformSkip("the DUT's GID " + new Gid(remote.gidHigh(), remote.gidLow()) + " is not " +
                "IPv4-mapped: the conform peer crafts IPv4 frames; give the loop the RoCEv2 IPv4 GID's index (-x)");
        }
        final int dutIp = (int)remote.gidLow();
        final int regionBytes = tool.regionBytes(sys.cycleBuffer(), sys.cacheLineSize());
        // ib_send_bw registers its region with LOCAL_WRITE only (perftest_resources.c create_single_mr: the remote
        // right is its verb's, and a SEND has none) while its QP allows remote write (ctx_modify_qp_to_init, case
        // SEND: REMOTE_WRITE | LOCAL_WRITE), and its record still names the region's R_Key and VA: a WRITE into it
        // passes the QP's check and meets the region's (rxe_resp.c check_rkey).
        final boolean localOnly = RemoteTool.SEND_BW == tool;
        qp = new DutQp(rc ? QpType.RC : QpType.UD, new LinkAddress(waits.resolveMac(dutIp), dutIp), remote.qpn(),
            remote.psn(), mtuBytes, remote.vaddr(), remote.rkey(), regionBytes, localOnly ? remote.vaddr() : 0,
            localOnly ? remote.rkey() : 0, localOnly ? regionBytes : 0, PERFTEST_TIMEOUT, PERFTEST_RETRY,
            PERFTEST_MIN_RNR_TIMER, PERFTEST_QKEY, remote.outReads());
        return qp;
    }

    /**
     * Connect to the tool's loop, again while the connection breaks before the QP records are through: QEMU's port
     * forwarding, and a loop between two runs of its tool, accept and close connections nothing serves yet.
     */
    private PerftestDest exchange(final PeerQp peer) throws IOException
    {
        final RetryDeadline retry = RetryDeadline.after(config.connectFor(), RECONNECT_PAUSE_NS);
        while (true)
        {
            try
            {
                return exchangeOnce(peer);
            }
            catch (final IOException ex)
            {
                disconnect();
                if (retry.expired())
                {
                    throw ex;
                }
                retry.pause();
            }
        }
    }

    private PerftestDest exchangeOnce(final PeerQp peer) throws IOException
    {
        final PerftestTcpConnector connector = PerftestTcpConnector.client(config.server(),
            config.ports().applyAsInt(tool), true, config.connectFor(), config.connectFor());
        session = PerftestSession.open(connector, PerftestVersion.LOCAL, config.connectFor());
        sys = session.exchangeSysData(PerftestSysData.DEFAULT);
        mtuBytes = Mtu.fromVerbsValue(session.exchangeMtu(Mtu.forLinkMtu(link.mtu()).verbsValue())).bytes();
        // The peer has no buffer of its own: its R_Key and VA are never used by a server that only answers.
        local = new PerftestDest(0, PEER_OUT_READS, peer.qpn(), peer.psn(), 0, 0L, Gid.IPV4_MAPPED_HIGH,
            peer.address().ipv4MappedLow(), 0);
        final PerftestDest remote = session.exchangeDests(new PerftestDest[] {local})[0];
        // The barrier after ctx_connect: once it returns, the DUT's QP is at RTR towards the peer.
        session.handShake(local);
        // ib_send_bw posts its receives only after the next barrier (send_bw.c: ctx_connect, ctx_hand_shake,
        // ctx_hand_shake, ctx_set_recv_wqes, ctx_hand_shake): it waits for the scenario's first receive (postRecv),
        // so that until then the DUT's QP is at RTR with none posted.
        barriersPending = RemoteTool.SEND_BW == tool || RemoteTool.SEND_UD == tool;
        return remote;
    }

    /**
     * ib_send_bw posts its own receives, {@link RemoteTool#SEND_BW_RECEIVE_BYTES} bytes each, once the peer passes
     * the barrier before them (send_bw.c); the scenario's first receive passes it, later ones are already there.
     * Another tool posts none.
     */
    @Override
    public void postRecv(final long wrId, final int offset, final int length)
    {
        if (RemoteTool.SEND_BW != tool && RemoteTool.SEND_UD != tool)
        {
            throw new ConformSkip("posting a receive on the DUT: " + tool + " posts none (the SEND scenarios run " +
                "against ib_send_bw's loop)");
        }
        if (!barriersPending)
        {
            return;
        }
        try
        {
            // The barrier before ctx_set_recv_wqes: once it returns, the receives are posted (or being posted: a SEND
            // that meets none yet is sent again past its RNR NAK).
            session.handShake(local);
            barriersPending = false;
            if (RemoteTool.SEND_UD == tool)
            {
                beginUdRun();
            }
        }
        catch (final IOException ex)
        {
            disconnect();
            throw new IllegalStateException("cannot pass " + config.describe(tool) + "'s barriers: " + ex, ex);
        }
    }

    /**
     * ib_send_bw -c UD: the barrier before its run (its receives are posted), then the closing one begun at once on
     * a thread of its own: a one-way server reads the client's record first (perftest_communication.c
     * ctx_hand_shake), so it answers only once its run ended, after {@link #receivesPerRun} receives.
     */
    private void beginUdRun() throws IOException
    {
        session.handShake(local);
        final PerftestSession exchange = session;
        final PerftestDest record = local;
        runEnd = CompletableFuture.runAsync(() ->
        {
            try
            {
                exchange.handShake(record);
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException(ex);
            }
        }, runnable ->
        {
            final Thread thread = new Thread(runnable, "conform-ud-run-end");
            thread.setDaemon(true);
            thread.start();
        });
    }

    @Override
    public int receivesPerRun()
    {
        return RemoteTool.SEND_UD == tool ? RemoteTool.CLIENT_ITERATIONS : 0;
    }

    @Override
    public boolean runEnded(final long withinNs)
    {
        if (null == runEnd)
        {
            throw new ConformSkip("the end of the DUT's run: " + tool + " shows none to the peer");
        }
        try
        {
            runEnd.get(Math.max(withinNs, config.waitFloorNs()), TimeUnit.NANOSECONDS);
            return true;
        }
        catch (final TimeoutException ex)
        {
            return false;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + config.describe(tool), ex);
        }
        catch (final ExecutionException ex)
        {
            throw new IllegalStateException(config.describe(tool) + " broke its exchange instead of ending its run: " +
                ex.getCause(), ex.getCause());
        }
    }

    @Override
    public int ownReceiveBytes()
    {
        return RemoteTool.SEND_BW == tool ? tool.sizeBytes() : 0;
    }

    @Override
    public boolean acceptsRemoteWrite()
    {
        return RemoteTool.WRITE_BW == tool;
    }

    @Override
    public void requireRemoteRead()
    {
        if (RemoteTool.READ_BW == tool)
        {
            return;
        }
        throw new ConformSkip("a READ of the DUT's region: " + tool + " registers it without remote read (perftest " +
            "create_single_mr gives its region its own verb's right only)");
    }

    @Override
    public void postSend(final DutWork work)
    {
        throw new ConformSkip("posting work on the DUT: " + tool + " as server posts none");
    }

    @Override
    public boolean qpInError()
    {
        throw new ConformSkip("the DUT's QP state: " + tool + " does not report it");
    }

    @Override
    public byte[] readMemory(final int offset, final int length)
    {
        throw new ConformSkip("reading the DUT's memory: " + tool + " does not show it, and its region has no " +
            "remote read right to read it back with");
    }

    /**
     * ib_send_bw's server waits for its iterations' SENDs and reads nothing else meanwhile: once its receives are
     * posted, a SEND longer than them at the PSN it expects ends its run (its receive completes with a local length
     * error, rxe_resp.c; perftest stops at a completion with error) and its loop starts it again. The PSN is the one
     * after the highest the DUT acknowledged, or the one its NAK named; a NAK PSN sequence error corrects it once.
     */
    @Override
    public void finish(final ConformContext context)
    {
        if (RemoteTool.SEND_UD == tool && null != runEnd && !runEnd.isDone())
        {
            // The UD server waits for its -n receives: as many SENDs again, so it has them and its loop starts it again
            // (those it does not need meet its QP after it, or no QP, and are dropped).
            final ConformContext after = context.afterwards();
            for (int i = 0; i < RemoteTool.CLIENT_ITERATIONS; i++)
            {
                after.send(Frames.udSend(after, qp.qkey(), new byte[tool.sizeBytes()]));
            }
            return;
        }
        if (RemoteTool.SEND_BW != tool || barriersPending || null == qp)
        {
            return;
        }
        int psn = context.expectedPsn();
        final ConformContext after = context.afterwards();
        for (int attempt = 0; attempt < 2; attempt++)
        {
            after.send(Frames.send(after, Opcode.RC_SEND_ONLY, psn, new byte[tool.sizeBytes() + 1], true));
            final CapturedFrame answer;
            try
            {
                answer = after.expect(FrameFilter.anyAeth(), 0);
            }
            catch (final ConformFailure silent)
            {
                return;
            }
            if (!answer.isNak() || AethHeader.NakCode.PSN_SEQUENCE_ERROR.code() != AethHeader.value(answer.syndrome()))
            {
                return;
            }
            psn = answer.psn();
        }
    }

    /**
     * Finish the exchange as a client does (the barrier after the run, the reports, the closing handshake), so the
     * tool exits and its loop starts it again; a DUT that already gave up is only disconnected.
     */
    @Override
    public void close()
    {
        if (null == session)
        {
            return;
        }
        if (RemoteTool.SEND_UD == tool)
        {
            // Its closing barrier was begun with the run (ctx_close_connection's "done" follows it): nothing to add.
            disconnect();
            return;
        }
        if (RemoteTool.SEND_BW == tool)
        {
            // ib_send_bw's one-way server ends with ctx_close_connection only after a run it never finished here: the
            // run was ended by finish(), or it still waits at a barrier; either way dropping the connection ends it.
            disconnect();
            return;
        }
        try
        {
            session.readTimeout(CLOSE_TIMEOUT);
            session.handShake(local);
            session.exchangeReport(new PerftestReport(0, 0, 0, 0, 0));
            session.close(local);
            session = null;
        }
        catch (final IOException ex)
        {
            disconnect();
        }
    }
}
