package org.roce4j.conform.dut;

import java.io.EOFException;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.SocketException;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.roce4j.conform.CapturedFrame;
import org.roce4j.conform.ConformContext;
import org.roce4j.conform.ConformSkip;
import org.roce4j.conform.FrameFilter;
import org.roce4j.conform.Frames;
import org.roce4j.cm.oob.RetryDeadline;
import org.roce4j.cm.perftest.PerftestDest;
import org.roce4j.cm.perftest.PerftestReport;
import org.roce4j.cm.perftest.PerftestSession;
import org.roce4j.cm.perftest.PerftestSysData;
import org.roce4j.cm.perftest.PerftestTcpConnector;
import org.roce4j.cm.perftest.PerftestVersion;
import org.roce4j.ib.Mtu;
import org.roce4j.ib.QpType;
import org.roce4j.ib.WrOpcode;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.Psn;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.header.AethHeader;

/**
 * A device under test as requester, driven only by a stock client it runs in a loop ({@code while :; do ib_write_bw
 * ... ROCE4J_IP; done}, {@link RemoteTool#client}): roce4j is the perftest server the client connects to. For each
 * scenario it accepts the client's exchange as perftest's one-way server does (versions, system data, MTU, the QP
 * records naming the conform peer's QPN, first PSN and a pretend region, the barrier; for ib_send_bw the second
 * barrier, where its server would have posted receives), and then the conform peer answers the client's requests as
 * the scenario says: it loses, NAKs, delays or invents acknowledgements. The client posts its own work, one request at
 * a time (-t 1); a scenario's post step must ask for what it posts ({@link #postSend}), else the scenario SKIPs.
 *
 * <p>What the tool shows stands in for what it does not: it posts its next request only once the last one completed
 * successfully (so that request, at the next PSN, shows the completion), and it exits on a completion with an error,
 * closing the exchange before its run's end (so the closed exchange shows a QP gone to the error state). After the
 * verdict the peer answers every request as a well-behaved responder until the client ends its run
 * ({@link #finish}), and the loop starts it again for the next scenario.
 */
public final class RemoteRequesterDut extends StockToolDut
{
    /** out_reads the peer announces: the client's READs outstanding towards it (one at a time with -t 1). */
    private static final int PEER_OUT_READS = 16;
    /** The least time the client is given to exit after a completion with an error: 2 s. */
    private static final long TOOL_EXIT_NS = 2_000_000_000L;
    /** How long each wait for the client's next request lasts while its run is brought to its end: 10 ms. */
    private static final long FINISH_POLL_NS = 10_000_000L;
    private static final int ACK = AethHeader.SYNDROME_ACK_UNLIMITED;

    private final RemoteDutConfig config;
    private final RemoteTool tool;
    private final String gap;
    private final HeldFramesLink link;
    private final DutLinkWaits waits;
    private final RequesterListeners listeners;
    private PerftestDest local;
    private int mtuBytes;
    /** The client's run to its end (true) or to an early close of its exchange (false), read on a thread of its own. */
    private FutureTask<Boolean> runEnd;

    /**
     * @param config    where the DUT's loops are and where roce4j listens for them.
     * @param tool      the client tool this scenario needs, or null when no client loop posts its work.
     * @param gap       why no client loop serves the scenario (when {@code tool} is null).
     * @param link      the conform peer's link to the DUT, holding what comes while the exchange runs.
     * @param listeners the run's listeners for the client loops.
     */
    RemoteRequesterDut(final RemoteDutConfig config, final RemoteTool tool, final String gap, final HeldFramesLink link,
        final RequesterListeners listeners)
    {
        this.config = config;
        this.tool = tool;
        this.gap = gap;
        this.link = link;
        this.waits = new DutLinkWaits(link);
        this.listeners = listeners;
    }

    @Override
    public RemoteTool tool()
    {
        return tool;
    }

    @Override
    public String name()
    {
        return "remote DUT at " + config.server() + " (" + config.device() + ", stock clients in loops)";
    }

    @Override
    public DutQp connect(final boolean rc, final PeerQp peer)
    {
        if (null == tool)
        {
            throw new ConformSkip("the DUT as requester: " + gap);
        }
        if (!rc)
        {
            throw new ConformSkip("a UD QP on the DUT: the client loops run RC QPs");
        }
        final ServerSocket listener;
        try
        {
            listener = listeners.listener(tool, config.ports().applyAsInt(tool));
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("cannot listen for " + config.describe(tool) + ": " + ex, ex);
        }
        link.clear();
        final PerftestDest remote;
        try
        {
            // The client's first request may come before the exchange's thread returns: the link holds it.
            remote = waits.whilePolling("conform-accept", () -> accept(listener, peer), link.holder());
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + config.describe(tool), ex);
        }
        catch (final ExecutionException ex)
        {
            disconnect();
            throw new IllegalStateException("no exchange with " + config.describe(tool) + " (the DUT runs: " +
                config.loop(tool) + "): " + ex.getCause(), ex.getCause());
        }
        if (!remote.isIpv4MappedGid())
        {
            disconnect();
            throw new ConformSkip("the DUT's GID " + new Gid(remote.gidHigh(), remote.gidLow()) + " is not " +
                "IPv4-mapped: the conform peer crafts IPv4 frames; give the loop the RoCEv2 IPv4 GID's index (-x)");
        }
        final int dutIp = (int)remote.gidLow();
        runEnd = new FutureTask<>(this::awaitRunEnd);
        final Thread thread = new Thread(runEnd, "conform-client-run");
        thread.setDaemon(true);
        thread.start();
        return new DutQp(QpType.RC, new LinkAddress(waits.resolveMac(dutIp), dutIp), remote.qpn(), remote.psn(),
            mtuBytes, remote.vaddr(), remote.rkey(), tool.sizeBytes(), 0, 0, 0, RemoteDut.PERFTEST_TIMEOUT,
            RemoteDut.PERFTEST_RETRY, RemoteDut.PERFTEST_MIN_RNR_TIMER, RemoteDut.PERFTEST_QKEY, remote.outReads());
    }

    /**
     * perftest's one-way server up to the client's run: once the barrier after ctx_connect is passed the client's QP is
     * at RTS and it posts its first request; ib_send_bw's client waits for a second barrier, after which its server
     * would have posted its receives (send_bw.c), so here the scenario alone decides how its SENDs are answered.
     */
    private PerftestDest accept(final ServerSocket listener, final PeerQp peer) throws IOException
    {
        final RetryDeadline retry = RetryDeadline.after(config.connectFor(), 0);
        while (true)
        {
            try
            {
                return acceptOnce(listener, peer);
            }
            catch (final IOException ex)
            {
                // A connection its client gave up on while it waited in the backlog: the loop has started the next.
                disconnect();
                if (retry.expired())
                {
                    throw ex;
                }
            }
        }
    }

    private PerftestDest acceptOnce(final ServerSocket listener, final PeerQp peer) throws IOException
    {
        session = PerftestSession.open(PerftestTcpConnector.server(listener, true, config.connectFor()),
            PerftestVersion.LOCAL, Duration.ZERO);
        session.exchangeSysData(PerftestSysData.DEFAULT);
        mtuBytes = Mtu.fromVerbsValue(session.exchangeMtu(Mtu.forLinkMtu(link.mtu()).verbsValue())).bytes();
        local = new PerftestDest(0, PEER_OUT_READS, peer.qpn(), peer.psn(), ConformContext.PEER_RKEY,
            ConformContext.PEER_VA, Gid.IPV4_MAPPED_HIGH, peer.address().ipv4MappedLow(), 0);
        final PerftestDest remote = session.exchangeDests(new PerftestDest[] {local})[0];
        session.handShake(local);
        if (RemoteTool.SEND_CLIENT == tool)
        {
            session.handShake(local);
        }
        return remote;
    }

    /**
     * The rest of the server's exchange, read while the scenario runs: the barrier after the client's run, the reports
     * and the closing handshake (write_bw.c, read_bw.c), or only the closing handshake (send_bw.c). Each side writes
     * before it reads, so the server's part can go out before the client gets there.
     *
     * @return true when the client ran to its end, false when it closed the exchange before (it exited on an error).
     */
    private Boolean awaitRunEnd() throws IOException
    {
        try
        {
            if (RemoteTool.SEND_CLIENT != tool)
            {
                session.handShake(local);
                session.exchangeReport(new PerftestReport(0, 0, 0, 0, 0));
            }
            session.close(local);
            return Boolean.TRUE;
        }
        catch (final EOFException | SocketException closed)
        {
            return Boolean.FALSE;
        }
    }

    /**
     * The client posts its own work: the scenario's work must be what it posts (its verb, its size), which it then
     * posts once its last request completed.
     *
     * @throws ConformSkip when the client posts other work.
     */
    @Override
    public void postSend(final DutWork work)
    {
        final WrOpcode posts = switch (tool)
        {
            case WRITE_CLIENT, WRITE_4_MTU_CLIENT, WRITE_100_MTU_CLIENT -> WrOpcode.RDMA_WRITE;
            case READ_CLIENT, READ_2_CLIENT -> WrOpcode.RDMA_READ;
            default -> WrOpcode.SEND;
        };
        if (posts != work.opcode() || tool.sizeBytes() != work.length())
        {
            throw new ConformSkip("posting " + work.opcode() + " of " + work.length() + " bytes on the DUT: its " +
                "loop runs " + tool + " -s " + tool.sizeBytes() + ", which posts " + posts + " of " +
                tool.sizeBytes() + " bytes");
        }
    }

    @Override
    public void postRecv(final long wrId, final int offset, final int length)
    {
        throw new ConformSkip("posting a receive on the DUT: its client loop posts none");
    }

    /**
     * The observable substitute for the QP state: a perftest client exits at a completion with an error (a WQE
     * completed in error moves its QP to ERR, IBA 10.3.1), which closes the exchange before its run's end.
     *
     * @return true when the client closed the exchange before its run's end within {@link #TOOL_EXIT_NS} (or twice the
     *     wait floor).
     */
    @Override
    public boolean qpInError()
    {
        return Boolean.FALSE.equals(runOutcome(Math.max(TOOL_EXIT_NS, 2 * config.waitFloorNs())));
    }

    @Override
    public String qpStateEvidence()
    {
        final Boolean outcome = runOutcome(0);
        if (null == outcome)
        {
            return "the DUT does not show its QP state: " + tool + " is still in its run (a perftest client exits at " +
                "a completion with an error)";
        }
        return outcome ? "the DUT does not show its QP state: " + tool + " ran to its end, so no completion failed" :
            "the DUT does not show its QP state: " + tool + " closed its exchange before its run's end, as a " +
            "perftest client does when a completion fails; a failed completion takes its QP to the error state";
    }

    /**
     * @param waitNs how long to wait for the client's run to end.
     * @return true when it ran to its end, false when it closed the exchange early, null when it did not end yet.
     */
    private Boolean runOutcome(final long waitNs)
    {
        if (null == runEnd)
        {
            return null;
        }
        try
        {
            return runEnd.get(waitNs, TimeUnit.NANOSECONDS);
        }
        catch (final TimeoutException | ExecutionException ex)
        {
            return null;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    @Override
    public byte[] readMemory(final int offset, final int length)
    {
        throw new ConformSkip("reading the DUT's memory: " + tool + " does not show it");
    }

    /**
     * After the verdict, and outside the scenario's capture: answer every request of the client as a well-behaved
     * responder (an ACK of each WRITE or SEND packet, the READ responses of each READ from its PSN) until it ends its
     * run, so its loop starts it again for the next scenario.
     */
    @Override
    public void finish(final ConformContext context)
    {
        if (null == runEnd)
        {
            return;
        }
        final ConformContext after = context.afterwards();
        final long deadlineNs = System.nanoTime() + config.connectFor().toNanos();
        int msn = 0;
        while (!runEnd.isDone() && System.nanoTime() - deadlineNs < 0)
        {
            final CapturedFrame request = after.await(FrameFilter.request(), FINISH_POLL_NS);
            if (null == request)
            {
                continue;
            }
            msn++;
            if (Opcode.RC_RDMA_READ_REQUEST == request.opcode())
            {
                answerRead(after, request, msn);
            }
            else
            {
                after.send(Frames.ack(after, request.psn(), ACK, msn));
            }
        }
    }

    /** The READ responses of a READ request: ONLY, or FIRST, MIDDLEs and LAST of the path MTU each. */
    private void answerRead(final ConformContext after, final CapturedFrame read, final int msn)
    {
        final int length = (int)read.dmaLength();
        if (length <= mtuBytes)
        {
            after.send(after.frame(Opcode.RC_RDMA_READ_RESPONSE_ONLY, read.psn(), new byte[length],
                b -> b.aeth().syndrome(ACK).msn(msn)));
            return;
        }
        final int packets = (length + mtuBytes - 1) / mtuBytes;
        for (int i = 0; i < packets; i++)
        {
            final int psn = Psn.add(read.psn(), i);
            final byte[] payload = new byte[Math.min(mtuBytes, length - i * mtuBytes)];
            if (0 == i)
            {
                after.send(after.frame(Opcode.RC_RDMA_READ_RESPONSE_FIRST, psn, payload,
                    b -> b.aeth().syndrome(ACK).msn(msn)));
            }
            else if (packets - 1 == i)
            {
                after.send(after.frame(Opcode.RC_RDMA_READ_RESPONSE_LAST, psn, payload,
                    b -> b.aeth().syndrome(ACK).msn(msn)));
            }
            else
            {
                after.send(after.frame(Opcode.RC_RDMA_READ_RESPONSE_MIDDLE, psn, payload, b -> { }));
            }
        }
    }

    /**
     * Drop the exchange: a client still in its run gives up, and its loop starts it again.
     */
    @Override
    public void close()
    {
        disconnect();
    }
}
