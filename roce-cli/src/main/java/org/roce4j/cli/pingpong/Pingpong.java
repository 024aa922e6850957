package org.roce4j.cli.pingpong;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

import org.agrona.concurrent.AtomicBuffer;
import org.roce4j.cm.QpSetup;
import org.roce4j.cm.oob.GidText;
import org.roce4j.cm.oob.PingpongExchange;
import org.roce4j.cm.oob.QpInfo;
import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.AhAttributes;
import org.roce4j.ib.QpType;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WcStatus;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.ib.WrOpcode;
import org.roce4j.wire.addr.Gid;
import org.roce4j.verbs.AddressHandle;
import org.roce4j.verbs.CompletionQueue;
import org.roce4j.verbs.MemoryRegion;
import org.roce4j.verbs.ProtectionDomain;
import org.roce4j.verbs.QpInitAttributes;
import org.roce4j.verbs.QueuePair;
import org.roce4j.verbs.RdmaDevice;
import org.roce4j.verbs.RecvWorkRequest;
import org.roce4j.verbs.SendWorkRequest;

/**
 * ibv_rc_pingpong, ibv_uc_pingpong and ibv_ud_pingpong, on a roce4j device: the same out-of-band exchange, QP
 * attributes, buffer layout, message flow and output, so either side can be the C example.
 *
 * <p>The flow (rdma-core libibverbs/examples/*_pingpong.c): one buffer of {@code size} bytes (UD: size + 40, the
 * GRH area first) filled with 0x7b serves every send and receive; rx_depth receives are kept posted; the client
 * sends first; each side sends again once its previous send completed and a message arrived; each side counts
 * iters sends and iters receives. With -c the client zeroes the first byte of every 4 KiB page before its first
 * send and the server checks those bytes at the end (the examples' check: {@code buf[i] = i / page_size %
 * sizeof(char)}, which is 0).
 */
public final class Pingpong
{
    /** wr_id of receives (PINGPONG_RECV_WRID). */
    static final int RECV_WRID = 1;
    /** wr_id of sends (PINGPONG_SEND_WRID). */
    static final int SEND_WRID = 2;
    /** Initial fill of the buffer (memset(ctx->buf, 0x7b, size)). */
    static final byte FILL = 0x7b;
    /** Sends of up to this many bytes are inline, as the examples do when max_inline_data allows. */
    static final int INLINE_LIMIT = 64;
    /** Hop limit of ibv_ud_pingpong's address handle. */
    static final int UD_HOP_LIMIT = 64;

    private final RdmaDevice device;
    private final PingpongSettings settings;
    private final PrintWriter out;
    private final ServerSocket listener;

    /**
     * @param device   an open device.
     * @param settings what to run.
     * @param out      where the examples' lines go.
     * @param listener the bound TCP listener of the server side (the caller binds it first, so a port in use fails
     *                 before anything else and an in-process client never races the server); null on the client.
     */
    public Pingpong(final RdmaDevice device, final PingpongSettings settings, final PrintWriter out,
        final ServerSocket listener)
    {
        requireListener(settings, listener);
        this.device = device;
        this.settings = settings;
        this.out = out;
        this.listener = listener;
    }

    /**
     * Run one side.
     *
     * @return the result (iterations, bytes, time, validation).
     * @throws IOException when the exchange or the traffic fails; the message says what happened.
     */
    public PingpongResult run() throws IOException
    {
        final QpType type = settings.transport;
        final int size = settings.size();
        final boolean ud = type.isDatagram();
        if (ud && size > device.activeMtu().bytes())
        {
            throw new IOException("Requested size larger than port MTU (" + device.activeMtu().bytes() + ")");
        }
        requireGidIndex(settings);
        final int bufferSize = ud ? size + WorkCompletion.GRH_BYTES : size;
        final int payloadOffset = ud ? WorkCompletion.GRH_BYTES : 0;

        final ProtectionDomain pd = device.allocPd();
        final ByteBuffer memory = ByteBuffer.allocateDirect(Math.max(1, bufferSize));
        final MemoryRegion mr = pd.registerMemory(memory, AccessFlags.LOCAL_WRITE);
        final AtomicBuffer buffer = mr.buffer();
        buffer.setMemory(0, buffer.capacity(), FILL);
        final CompletionQueue cq = device.createCq(settings.rxDepth + 1);
        final QueuePair qp = pd.createQp(new QpInitAttributes().qpType(type).cq(cq)
            .cap(1, settings.rxDepth, 1, 1, INLINE_LIMIT));
        final QpSetup setup = new QpSetup().mtu(settings.mtu).serviceLevel(settings.serviceLevel)
            .trafficClass(settings.trafficClass)
            .sgidIndex(settings.gidIndex).accessFlags(0).readAtomicDepth(1);
        setup.toInit(qp);

        final RecvWorkRequest recv = new RecvWorkRequest().wrId(RECV_WRID).addSge(mr, 0, bufferSize);
        int receivesOut = postReceives(qp, recv, settings.rxDepth);
        if (receivesOut < settings.rxDepth)
        {
            throw new IOException("Couldn't post receive (" + receivesOut + ")");
        }

        final Gid gid = device.queryGid(settings.gidIndex);
        final int psn = ThreadLocalRandom.current().nextInt() & 0xFF_FFFF;
        final QpInfo local = QpInfo.of(0, qp.qpNum(), psn, gid.high(), gid.low());
        out.println("  local address:  " + GidText.address(local));
        out.flush();

        final Duration timeout = Duration.ofMillis(settings.timeoutMs);
        final AddressHandle[] ah = new AddressHandle[1];
        final QpInfo remote;
        if (null != settings.server)
        {
            // One attempt, as pp_client_exch_dest makes: a refused connection fails at once.
            remote = PingpongExchange.client(settings.server, settings.port, local, timeout, Duration.ZERO);
            checkRemoteGid(remote);
            ah[0] = connect(pd, qp, setup, psn, remote);
        }
        else
        {
            remote = PingpongExchange.server(listener, client ->
            {
                checkRemoteGid(client);
                ah[0] = connect(pd, qp, setup, psn, client);
                return local;
            }, timeout);
        }
        out.println("  remote address: " + GidText.address(remote));
        out.flush();

        final SendWorkRequest send = new SendWorkRequest().wrId(SEND_WRID).opcode(WrOpcode.SEND)
            .sendFlags(SendFlags.SIGNALED | (size <= INLINE_LIMIT ? SendFlags.INLINE : 0))
            .addSge(mr, payloadOffset, size);
        if (ud)
        {
            send.ud(ah[0], remote.qpn(), QpSetup.DEFAULT_QKEY);
        }

        int pending = RECV_WRID;
        if (null != settings.server)
        {
            if (settings.validate)
            {
                for (int i = 0; i < size; i += PingpongSettings.PAGE_SIZE)
                {
                    buffer.putByte(payloadOffset + i, (byte)0);
                }
            }
            qp.postSend(send);
            pending |= SEND_WRID;
        }

        final long start = System.nanoTime();
        final WorkCompletion[] wc = {new WorkCompletion(), new WorkCompletion()};
        final long waitNs = timeout.toNanos();
        int received = 0;
        int sent = 0;
        final int iterations = settings.iterations;
        while (received < iterations || sent < iterations)
        {
            final int n = settings.events ? cq.pollBlocking(wc, waitNs) : cq.pollBusy(wc, waitNs);
            if (0 == n)
            {
                throw silentPeer(settings, sent, received);
            }
            for (int i = 0; i < n; i++)
            {
                final WorkCompletion completion = wc[i];
                if (WcStatus.SUCCESS != completion.status())
                {
                    throw failedStatus(completion);
                }
                if (SEND_WRID == completion.wrId())
                {
                    sent++;
                }
                else if (RECV_WRID == completion.wrId())
                {
                    if (--receivesOut <= 1)
                    {
                        receivesOut += postReceives(qp, recv, settings.rxDepth - receivesOut);
                        if (receivesOut < settings.rxDepth)
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
                pending &= ~(int)completion.wrId();
                if (sent < iterations && 0 == pending)
                {
                    qp.postSend(send);
                    pending = RECV_WRID | SEND_WRID;
                }
            }
        }
        final long elapsedNs = System.nanoTime() - start;
        final long bytes = printRates(out, size, iterations, elapsedNs);
        final int invalidPages = null == settings.server && settings.validate ?
            checkPages(out, buffer, payloadOffset, size) : 0;
        out.flush();
        return new PingpongResult(iterations, sent, received, bytes, elapsedNs, invalidPages, local, remote);
    }

    private static int postReceives(final QueuePair qp, final RecvWorkRequest recv, final int count)
    {
        int posted = 0;
        while (posted < count)
        {
            qp.postRecv(recv);
            posted++;
        }
        return posted;
    }

    /**
     * The examples' two closing lines (their printf of bytes, seconds, Mbit/sec and usec/iter).
     *
     * @param out        where they go.
     * @param size       message size.
     * @param iterations -n.
     * @param elapsedNs  time of the message loop.
     * @return the bytes counted: size × iterations × 2, as the examples count them.
     */
    static long printRates(final PrintWriter out, final int size, final int iterations, final long elapsedNs)
    {
        final double usec = elapsedNs / 1000.0;
        final long bytes = (long)size * iterations * 2;
        out.println(String.format(Locale.ROOT, "%d bytes in %.2f seconds = %.2f Mbit/sec", bytes, usec / 1_000_000.0,
            bytes * 8.0 / usec));
        out.println(String.format(Locale.ROOT, "%d iters in %.2f seconds = %.2f usec/iter", iterations,
            usec / 1_000_000.0, usec / iterations));
        return bytes;
    }

    /**
     * The server's -c check: the first byte of every page must be 0 ({@code i / page_size % sizeof(char)}).
     *
     * @return the pages that failed, each reported with the examples' "invalid data in page N" line.
     */
    static int checkPages(final PrintWriter out, final AtomicBuffer buffer, final int offset, final int size)
    {
        int invalidPages = 0;
        for (int i = 0; i < size; i += PingpongSettings.PAGE_SIZE)
        {
            if (0 != buffer.getByte(offset + i))
            {
                out.println("invalid data in page " + i / PingpongSettings.PAGE_SIZE);
                invalidPages++;
            }
        }
        return invalidPages;
    }

    /**
     * @param completion a completion whose status is not SUCCESS.
     * @return the examples' "Failed status %s (%d) for wr_id %d" error, with ibv_wc_status_str's text.
     */
    static IOException failedStatus(final WorkCompletion completion)
    {
        return new IOException(String.format(Locale.ROOT, "Failed status %s (%d) for wr_id %d",
            completion.status().description(), completion.status().verbsValue(), (int)completion.wrId()));
    }

    static void requireListener(final PingpongSettings settings, final ServerSocket listener)
    {
        if (null == settings.server && null == listener)
        {
            throw new IllegalArgumentException("the server side needs its bound TCP listener");
        }
    }

    static IOException silentPeer(final PingpongSettings settings, final int sent, final int received)
    {
        return new IOException("no completion within " + settings.timeoutMs + " ms (sent " + sent + ", received " +
            received + " of " + settings.iterations + "); is the peer still running?");
    }

    static void requireGidIndex(final PingpongSettings settings) throws IOException
    {
        if (settings.gidIndex < 0)
        {
            throw new IOException("RoCE needs a GID: pass -g <index> (roce4j and rxe: 1 is the IPv4 address, 0 the " +
                "IPv6 link-local address)");
        }
    }

    static void checkRemoteGid(final QpInfo remote) throws IOException
    {
        // pp_connect_ctx uses a GRH only when the peer sent a GID; RoCE always needs one.
        if (0 == remote.gidLow())
        {
            throw new IOException("the peer sent no GID (" + remote + "); on RoCE both sides need -g");
        }
    }

    private AddressHandle connect(
        final ProtectionDomain pd, final QueuePair qp, final QpSetup setup, final int psn, final QpInfo remote)
    {
        if (qp.type().isDatagram())
        {
            setup.toRts(qp, psn, remote);
            return pd.createAh(new AhAttributes().dgid(remote.gidHigh(), remote.gidLow())
                .sgidIndex(settings.gidIndex).hopLimit(UD_HOP_LIMIT).serviceLevel(settings.serviceLevel)
                .trafficClass(settings.trafficClass));
        }
        setup.toRts(qp, psn, remote);
        return null;
    }
}
