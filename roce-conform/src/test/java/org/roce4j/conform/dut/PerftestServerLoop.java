package org.roce4j.conform.dut;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.roce4j.cm.QpSetup;
import org.roce4j.cm.perftest.PerftestDest;
import org.roce4j.cm.perftest.PerftestReport;
import org.roce4j.cm.perftest.PerftestSession;
import org.roce4j.cm.perftest.PerftestSysData;
import org.roce4j.cm.perftest.PerftestTcpConnector;
import org.roce4j.cm.perftest.PerftestVersion;
import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.Mtu;
import org.roce4j.ib.QpType;
import org.roce4j.ib.WcStatus;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.verbs.CompletionQueue;
import org.roce4j.verbs.DeviceOptions;
import org.roce4j.verbs.MemoryRegion;
import org.roce4j.verbs.ProtectionDomain;
import org.roce4j.verbs.QpInitAttributes;
import org.roce4j.verbs.QueuePair;
import org.roce4j.verbs.RdmaDevice;
import org.roce4j.verbs.RecvWorkRequest;
import org.roce4j.wire.addr.Gid;

/**
 * A stand-in for {@code while :; do ib_write_bw ...; done} (or ib_atomic_bw, or ib_send_bw) on a DUT, in this JVM: roce4j's own
 * device on a port of the JVM's in-memory fabric, answering perftest's exchange as a one-way bandwidth server does
 * (versions, system data, MTU, the QP records, the barrier; then the end-of-run barrier, the reports and the closing
 * handshake), with a region that has only the tool's remote right, as perftest registers it. As ib_send_bw it posts
 * its receives of the tool's -s between the two barriers before the run, as send_bw.c does, and runs until a receive
 * completes with an error (perftest stops at one). One connection at a time, a fresh QP for each, again and again
 * until closed.
 */
final class PerftestServerLoop implements AutoCloseable
{
    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    /** Receives the ib_send_bw stand-in posts (perftest posts rx_depth of them: 512 by default, DEF_RX_SEND). */
    private static final int SEND_RECEIVES = 6;

    private final RdmaDevice device;
    private final ProtectionDomain pd;
    private final CompletionQueue cq;
    private final MemoryRegion region;
    private final int ip;
    private final int outReads;
    private final RemoteTool tool;
    private final RecvWorkRequest recvWr = new RecvWorkRequest();
    private final WorkCompletion[] completions = {new WorkCompletion()};
    private final ServerSocket listener;
    private final Thread thread;
    private final List<String> errors = Collections.synchronizedList(new ArrayList<>());
    private volatile boolean closing;
    private int served;

    /**
     * @param ipv4   the DUT's address on the fabric, e.g. {@code 10.0.78.1}.
     * @param tool   which tool it stands in for (its region's remote right, its out_reads).
     * @throws IOException when the port or the listener cannot open.
     */
    PerftestServerLoop(final String ipv4, final RemoteTool tool) throws IOException
    {
        device = RdmaDevice.open("memory:" + ipv4, DeviceOptions.dedicated());
        pd = device.allocPd();
        cq = device.createCq(64);
        this.tool = tool;
        final int remoteRight = switch (tool)
        {
            case ATOMIC_BW -> AccessFlags.REMOTE_ATOMIC;
            case SEND_BW, SEND_UD -> 0;
            case READ_BW -> AccessFlags.REMOTE_READ;
            default -> AccessFlags.REMOTE_WRITE;
        };
        // perftest registers twice its buffer and names the second half; the first half is never touched here.
        final int half = tool.regionBytes(PerftestSysData.DEFAULT.cycleBuffer(),
            PerftestSysData.DEFAULT.cacheLineSize());
        region = pd.registerMemory(ByteBuffer.allocateDirect(2 * half), AccessFlags.LOCAL_WRITE | remoteRight);
        ip = Gid.parse(ipv4).ipv4();
        outReads = RemoteTool.ATOMIC_BW == tool ? 16 : 1;
        listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        thread = new Thread(this::loop, "perftest-server-loop");
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * @return the control port.
     */
    int port()
    {
        return listener.getLocalPort();
    }

    /**
     * @return connections served to the end.
     */
    synchronized int served()
    {
        return served;
    }

    /**
     * Wait until the loop has served {@code count} connections to the end (the client's last step may return before
     * the server's).
     *
     * @param count connections.
     * @return the connections served when the wait ended, at most {@link #TIMEOUT} later.
     * @throws InterruptedException when interrupted.
     */
    synchronized int awaitServed(final int count) throws InterruptedException
    {
        final long deadlineNs = System.nanoTime() + TIMEOUT.toNanos();
        while (served < count && deadlineNs - System.nanoTime() > 0)
        {
            wait(Math.max(1, (deadlineNs - System.nanoTime()) / 1_000_000));
        }
        return served;
    }

    private synchronized void countServed()
    {
        served++;
        notifyAll();
    }

    /**
     * @return the stand-in DUT's non-zero counters, for failure messages.
     */
    String counters()
    {
        return device.describeCounters();
    }

    /**
     * @return what went wrong in the loop (empty when every exchange went through).
     */
    List<String> errors()
    {
        return List.copyOf(errors);
    }

    private void loop()
    {
        while (!closing)
        {
            try
            {
                serveOne();
                countServed();
            }
            catch (final IOException | RuntimeException ex)
            {
                if (!closing)
                {
                    errors.add(ex.toString());
                }
            }
        }
    }

    private void serveOne() throws IOException
    {
        final PerftestSession session = PerftestSession.open(PerftestTcpConnector.server(listener, true, TIMEOUT),
            PerftestVersion.LOCAL, Duration.ZERO);
        final boolean ud = RemoteTool.SEND_UD == tool;
        final QueuePair qp = pd.createQp(new QpInitAttributes().qpType(ud ? QpType.UD : QpType.RC).cq(cq));
        try
        {
            session.exchangeSysData(PerftestSysData.DEFAULT);
            final Mtu mtu = Mtu.fromVerbsValue(session.exchangeMtu(Mtu.MTU_1024.verbsValue()));
            final QpSetup setup = new QpSetup().mtu(mtu).accessFlags(AccessFlags.REMOTE_WRITE |
                AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC).timeout(RemoteDut.PERFTEST_TIMEOUT)
                .retries(RemoteDut.PERFTEST_RETRY, RemoteDut.PERFTEST_RETRY)
                .minRnrTimer(RemoteDut.PERFTEST_MIN_RNR_TIMER).qkey(RemoteDut.PERFTEST_QKEY);
            setup.toInit(qp);
            final int psn = 0x00AB_C000 + served();
            final PerftestDest local = new PerftestDest(0, outReads, qp.qpNum(), psn, region.rkey(),
                region.address(region.length() / 2), Gid.IPV4_MAPPED_HIGH, Gid.ofIpv4(ip).low(), 0);
            final PerftestDest remote = session.exchangeDests(new PerftestDest[] {local})[0];
            setup.readAtomicDepths(remote.outReads(), outReads);
            setup.toRts(qp, psn, remote.toQpInfo());
            session.handShake(local);
            if (RemoteTool.SEND_BW == tool || ud)
            {
                runSendServer(session, local, qp);
                return;
            }
            // The client's run, then write_bw.c's end: the barrier, the reports, ctx_close_connection.
            session.handShake(local);
            session.exchangeReport(new PerftestReport(0, 0, 0, 0, 0));
            session.close(local);
        }
        finally
        {
            session.close();
            qp.destroy();
        }
    }

    /**
     * send_bw.c's one-way server: a barrier, receives posted, a barrier, then the run, which ends here at the first
     * receive completing with an error (the conform peer's SEND longer than the receive ends it so), or where the
     * peer drops the connection.
     */
    private void runSendServer(final PerftestSession session, final PerftestDest local, final QueuePair qp)
        throws IOException
    {
        // send_bw.c: the barrier that prints the remote record, ctx_set_recv_wqes, the barrier before the run. A peer
        // that drops the connection at a barrier ends the run there (perftest exits, its loop starts it again).
        if (!barrierPassed(session, local))
        {
            return;
        }
        // A UD receive holds the GRH before the payload (perftest's UD_ADDITION).
        final int receiveBytes = tool.sizeBytes() + (QpType.UD == qp.type() ? WorkCompletion.GRH_BYTES : 0);
        for (int i = 0; i < SEND_RECEIVES; i++)
        {
            qp.postRecv(recvWr.reset().wrId(i).addSge(region, i * receiveBytes, receiveBytes));
        }
        if (!barrierPassed(session, local))
        {
            return;
        }
        int received = 0;
        final long deadlineNs = System.nanoTime() + TIMEOUT.toNanos();
        while (deadlineNs - System.nanoTime() > 0)
        {
            // The CQ outlives each run's QP: the receives an earlier run's QP flushed are no part of this one.
            if (1 == cq.poll(completions) && qp.qpNum() == completions[0].qpNum())
            {
                if (WcStatus.SUCCESS != completions[0].status())
                {
                    return;
                }
                // ib_send_bw -c UD -n N: its run ends at the Nth receive, then ctx_close_connection.
                if (QpType.UD == qp.type() && RemoteTool.CLIENT_ITERATIONS == ++received)
                {
                    session.close(local);
                    return;
                }
            }
            Thread.onSpinWait();
        }
        throw new IOException("no receive completed with an error within " + TIMEOUT);
    }

    /**
     * @return true when the barrier passed, false when the peer closed the connection instead.
     */
    private static boolean barrierPassed(final PerftestSession session, final PerftestDest local)
    {
        try
        {
            session.handShake(local);
            return true;
        }
        catch (final IOException closed)
        {
            return false;
        }
    }

    @Override
    public void close() throws IOException
    {
        closing = true;
        listener.close();
        try
        {
            thread.join(TIMEOUT.toMillis());
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        device.close();
    }
}
