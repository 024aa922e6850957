package org.roce4j.cli.pingpong;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

import org.agrona.concurrent.AtomicBuffer;
import org.roce4j.cm.QpSetup;
import org.roce4j.cm.oob.GidText;
import org.roce4j.cm.oob.PingpongExchange;
import org.roce4j.cm.oob.QpInfo;
import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.QpType;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WcStatus;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.ib.WrOpcode;
import org.roce4j.verbs.CompletionQueue;
import org.roce4j.verbs.MemoryRegion;
import org.roce4j.verbs.ProtectionDomain;
import org.roce4j.verbs.QpInitAttributes;
import org.roce4j.verbs.QueuePair;
import org.roce4j.verbs.RdmaDevice;
import org.roce4j.verbs.RecvWorkRequest;
import org.roce4j.verbs.SendWorkRequest;
import org.roce4j.verbs.SharedReceiveQueue;
import org.roce4j.wire.addr.Gid;

/**
 * ibv_srq_pingpong on a roce4j device (rdma-core libibverbs/examples/srq_pingpong.c): -q RC QPs sharing one SRQ and
 * one CQ, the same out-of-band exchange, QP attributes, buffer, message flow and output, so either side can be the C
 * example.
 *
 * <p>The flow: one buffer of {@code size} bytes, zeroed (srq_pingpong memsets it to 0 where the others fill 0x7b),
 * serves every send and receive; the SRQ (max_wr rx_depth, max_sge 1) is refilled to rx_depth once no more than -q
 * receives remain; the CQ holds rx_depth + -q entries. The exchange sends {@link PingpongExchange#SRQ_MESSAGES}
 * messages each way whatever -q is. The client posts one send on every QP; each QP sends again once its previous
 * send completed and a message arrived on it; -n counts sends and receives over all QPs together (its help says
 * "per QP", its code counts them all), so the byte line is size × iters × 2 as in the other examples.
 */
public final class SrqPingpong
{
    /** srq_pingpong.c's MAX_QP: -q must be below it. */
    public static final int MAX_QP = PingpongExchange.SRQ_MESSAGES;
    /** ibv_srq_pingpong's default -q. */
    public static final int DEFAULT_QPS = 16;

    private final RdmaDevice device;
    private final PingpongSettings settings;
    private final PrintWriter out;
    private final ServerSocket listener;

    /**
     * @param device   an open device.
     * @param settings what to run; {@link PingpongSettings#srqQps()} QPs, RC.
     * @param out      where the example's lines go.
     * @param listener the bound TCP listener of the server side; null on the client.
     */
    public SrqPingpong(final RdmaDevice device, final PingpongSettings settings, final PrintWriter out,
        final ServerSocket listener)
    {
        Pingpong.requireListener(settings, listener);
        checkQps(settings.srqQps, settings.rxDepth);
        if (QpType.RC != settings.transport)
        {
            throw new IllegalArgumentException("ibv_srq_pingpong runs RC QPs; --srq takes no --transport " +
                settings.transport.name().toLowerCase(java.util.Locale.ROOT));
        }
        this.device = device;
        this.settings = settings;
        this.out = out;
        this.listener = listener;
    }

    /**
     * The checks of srq_pingpong's main before it opens the device, in its words.
     *
     * @param qps     -q.
     * @param rxDepth -r.
     * @throws IllegalArgumentException naming the problem.
     */
    public static void checkQps(final int qps, final int rxDepth)
    {
        if (qps < 1)
        {
            // srq_pingpong accepts -q 0 and then waits for ever: no QP ever sends.
            throw new IllegalArgumentException("-q " + qps + ": ibv_srq_pingpong needs at least one QP");
        }
        if (qps > rxDepth)
        {
            throw new IllegalArgumentException("rx_depth " + rxDepth + " is too small for " + qps + " QPs -- " +
                "must have at least one receive per QP.");
        }
        if (qps >= MAX_QP)
        {
            // srq_pingpong's words and number: it prints MAX_QP - 1 although it accepts 255 QPs.
            throw new IllegalArgumentException("num_qp " + qps + " must be less than " + (MAX_QP - 1));
        }
    }

    /**
     * Run one side.
     *
     * @return the result (iterations, bytes, time, validation; local and remote of the first QP).
     * @throws IOException when the exchange or the traffic fails; the message says what happened.
     */
    public PingpongResult run() throws IOException
    {
        final int size = settings.size();
        final int qps = settings.srqQps;
        final int rxDepth = settings.rxDepth;
        Pingpong.requireGidIndex(settings);

        final ProtectionDomain pd = device.allocPd();
        final ByteBuffer memory = ByteBuffer.allocateDirect(Math.max(1, size));
        final MemoryRegion mr = pd.registerMemory(memory, AccessFlags.LOCAL_WRITE);
        final AtomicBuffer buffer = mr.buffer();
        buffer.setMemory(0, buffer.capacity(), (byte)0);
        final CompletionQueue cq = device.createCq(rxDepth + qps);
        final SharedReceiveQueue srq = pd.createSrq(rxDepth, 1);
        final QueuePair[] qp = new QueuePair[qps];
        final int[] qpn = new int[qps];
        final QpSetup setup = new QpSetup().mtu(settings.mtu).serviceLevel(settings.serviceLevel)
            .trafficClass(settings.trafficClass).sgidIndex(settings.gidIndex).accessFlags(0).readAtomicDepth(1);
        for (int i = 0; i < qps; i++)
        {
            // max_send_wr 1, max_send_sge 1; receives come from the SRQ.
            qp[i] = pd.createQp(new QpInitAttributes().qpType(QpType.RC).cq(cq).srq(srq)
                .cap(1, 1, 1, 1, Pingpong.INLINE_LIMIT));
            qpn[i] = qp[i].qpNum();
        }
        for (int i = 0; i < qps; i++)
        {
            setup.toInit(qp[i]);
        }

        final RecvWorkRequest recv = new RecvWorkRequest().wrId(Pingpong.RECV_WRID).addSge(mr, 0, size);
        int receivesOut = postReceives(srq, recv, rxDepth);
        if (receivesOut < rxDepth)
        {
            throw new IOException("Couldn't post receive (" + receivesOut + ")");
        }

        final Gid gid = device.queryGid(settings.gidIndex);
        final List<QpInfo> local = new ArrayList<>(qps);
        for (int i = 0; i < qps; i++)
        {
            local.add(QpInfo.of(0, qpn[i], ThreadLocalRandom.current().nextInt() & 0xFF_FFFF, gid.high(), gid.low()));
            out.println("  local address:  " + GidText.address(local.get(i)));
        }
        out.flush();

        final Duration timeout = Duration.ofMillis(settings.timeoutMs);
        final List<QpInfo> remote;
        if (null != settings.server)
        {
            remote = PingpongExchange.client(settings.server, settings.port, local, PingpongExchange.SRQ_MESSAGES,
                timeout, Duration.ZERO);
        }
        else
        {
            remote = PingpongExchange.server(listener, client ->
            {
                connect(qp, setup, local, client);
                return local;
            }, PingpongExchange.SRQ_MESSAGES, timeout);
        }
        for (int i = 0; i < qps; i++)
        {
            out.println("  remote address: " + GidText.address(remote.get(i)));
        }
        out.flush();
        if (null != settings.server)
        {
            connect(qp, setup, local, remote);
        }

        final SendWorkRequest send = new SendWorkRequest().wrId(Pingpong.SEND_WRID).opcode(WrOpcode.SEND)
            .sendFlags(SendFlags.SIGNALED | (size <= Pingpong.INLINE_LIMIT ? SendFlags.INLINE : 0))
            .addSge(mr, 0, size);
        final int[] pending = new int[qps];
        if (null != settings.server)
        {
            if (settings.validate)
            {
                for (int i = 0; i < size; i += PingpongSettings.PAGE_SIZE)
                {
                    buffer.putByte(i, (byte)0);
                }
            }
            for (int i = 0; i < qps; i++)
            {
                qp[i].postSend(send);
                pending[i] = Pingpong.SEND_WRID | Pingpong.RECV_WRID;
            }
        }
        else
        {
            java.util.Arrays.fill(pending, Pingpong.RECV_WRID);
        }

        final long start = System.nanoTime();
        final WorkCompletion[] wc = new WorkCompletion[rxDepth + qps];
        for (int i = 0; i < wc.length; i++)
        {
            wc[i] = new WorkCompletion();
        }
        final long waitNs = timeout.toNanos();
        final int iterations = settings.iterations;
        int received = 0;
        int sent = 0;
        while (received < iterations || sent < iterations)
        {
            final int n = settings.events ? cq.pollBlocking(wc, waitNs) : cq.pollBusy(wc, waitNs);
            if (0 == n)
            {
                throw Pingpong.silentPeer(settings, sent, received);
            }
            for (int i = 0; i < n; i++)
            {
                final WorkCompletion completion = wc[i];
                if (WcStatus.SUCCESS != completion.status())
                {
                    throw Pingpong.failedStatus(completion);
                }
                final int index = findQp(qpn, completion.qpNum());
                if (index < 0)
                {
                    throw new IOException(String.format(java.util.Locale.ROOT, "Couldn't find QPN %06x",
                        completion.qpNum()));
                }
                if (Pingpong.SEND_WRID == completion.wrId())
                {
                    sent++;
                }
                else if (Pingpong.RECV_WRID == completion.wrId())
                {
                    // srq_pingpong refills once no more than one receive per QP is left.
                    if (--receivesOut <= qps)
                    {
                        receivesOut += postReceives(srq, recv, rxDepth - receivesOut);
                        if (receivesOut < rxDepth)
                        {
                            throw new IOException("Couldn't post receive (" + receivesOut + ")");
                        }
                    }
                    received++;
                }
                else
                {
                    throw new IOException("Completion for unknown wr_id " + (int)completion.wrId());
                }
                pending[index] &= ~(int)completion.wrId();
                if (sent < iterations && 0 == pending[index])
                {
                    qp[index].postSend(send);
                    pending[index] = Pingpong.RECV_WRID | Pingpong.SEND_WRID;
                }
            }
        }
        final long elapsedNs = System.nanoTime() - start;
        final long bytes = Pingpong.printRates(out, size, iterations, elapsedNs);
        final int invalidPages = null == settings.server && settings.validate ?
            Pingpong.checkPages(out, buffer, 0, size) : 0;
        out.flush();
        return new PingpongResult(iterations, sent, received, bytes, elapsedNs, invalidPages, local.get(0),
            remote.get(0));
    }

    /**
     * pp_connect_ctx: QP i to the peer's entry i, RTR then RTS, with the GID of the peer's first entry for all of
     * them (its {@code dest->gid}).
     */
    private void connect(final QueuePair[] qp, final QpSetup setup, final List<QpInfo> local,
        final List<QpInfo> remote) throws IOException
    {
        final QpInfo first = remote.get(0);
        Pingpong.checkRemoteGid(first);
        for (int i = 0; i < qp.length; i++)
        {
            final QpInfo peer = remote.get(i);
            setup.toRts(qp[i], local.get(i).psn(),
                QpInfo.of(peer.lid(), peer.qpn(), peer.psn(), first.gidHigh(), first.gidLow()));
        }
    }

    /** find_qp: the index of the QP a completion names, -1 for none. */
    private static int findQp(final int[] qpn, final int qpNum)
    {
        for (int i = 0; i < qpn.length; i++)
        {
            if (qpn[i] == qpNum)
            {
                return i;
            }
        }
        return -1;
    }

    private static int postReceives(final SharedReceiveQueue srq, final RecvWorkRequest recv, final int count)
    {
        for (int posted = 0; posted < count; posted++)
        {
            srq.postRecv(recv);
        }
        return count;
    }
}
