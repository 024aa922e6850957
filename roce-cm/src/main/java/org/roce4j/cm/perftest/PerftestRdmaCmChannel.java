package org.roce4j.cm.perftest;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.agrona.concurrent.AtomicBuffer;
import org.roce4j.cm.oob.OobProtocolException;
import org.roce4j.cm.oob.RetryDeadline;
import org.roce4j.cm.rdmacm.ConnParam;
import org.roce4j.cm.rdmacm.RdmaCm;
import org.roce4j.cm.rdmacm.RdmaCmEvent;
import org.roce4j.cm.rdmacm.RdmaCmEventType;
import org.roce4j.cm.rdmacm.RdmaCmException;
import org.roce4j.cm.rdmacm.RdmaCmId;
import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.QpAttrMask;
import org.roce4j.ib.QpAttributes;
import org.roce4j.ib.QpState;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WcOpcode;
import org.roce4j.ib.WcStatus;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.ib.WrOpcode;
import org.roce4j.verbs.CompletionQueue;
import org.roce4j.verbs.MemoryRegion;
import org.roce4j.verbs.ProtectionDomain;
import org.roce4j.verbs.QpInitAttributes;
import org.roce4j.verbs.QueuePair;
import org.roce4j.verbs.RecvWorkRequest;
import org.roce4j.verbs.SendWorkRequest;

/**
 * perftest's exchange over RDMA-CM, as perftest 4.5+0.17 runs it with -R (create_comm_struct, rdma_client_connect,
 * rdma_server_connect in perftest_communication.c): an RC connection of its own on the test's port (RDMA_PS_TCP),
 * one QP with one send and one receive, and every message a SEND of exactly the bytes of the exchange:
 * <ul>
 *   <li>ctx_xchg_data (versions, page and cache line sizes, MTU, reports): the raw bytes, as over TCP;</li>
 *   <li>ctx_hand_shake (QP records): {@code struct pingpong_dest} itself, 56 bytes on x86_64, its integers
 *   big-endian (HAVE_ENDIAN: rdma_write_keys / rdma_read_keys), not the TCP text record.</li>
 * </ul>
 * The client writes first and then reads, the server reads and then writes; a receive (56 bytes, wr_id 5,
 * SYNC_SPEC_ID) is posted before connecting and again after each message read. There is no "done": closing
 * destroys the identifier, which disconnects.
 *
 * <p>The channel also ends the test's own rdma_cm connections ({@link #adoptDataConnections}) before its own, in
 * perftest's order (destroy_ctx of the test's context, then of the exchange's).
 */
public final class PerftestRdmaCmChannel implements PerftestChannel
{
    /** sizeof(struct pingpong_dest) on LP64: five ints, 4 bytes of padding, vaddr, the 16-byte GID, two ints. */
    public static final int DEST_BYTES = 56;
    /** wr_id of every exchange SEND and receive (SYNC_SPEC_ID). */
    static final long SYNC_SPEC_ID = 5;
    /** perftest's retry_count (DEF_RETRY_COUNT) and the exchange's rnr_retry_count (7: retry forever). */
    public static final int RETRY_COUNT = 7;
    /** Offset of the receive area in the buffer (the send area is at 0). */
    private static final int RECV_OFFSET = 64;
    /** The exchange's buffer: perftest's is a page (buff_size = cycle_buffer); the messages use its start. */
    private static final int BUFFER_BYTES = 4096;
    /** Pause between connection attempts while the server does not listen yet. */
    private static final long RETRY_PAUSE_NS = 100_000_000L;
    /** Longest wait for the DREP of a test connection when closing. */
    private static final long DISCONNECT_WAIT_NS = TimeUnit.SECONDS.toNanos(3);

    private final RdmaCm cm;
    private final RdmaCmId id;
    private final RdmaCmId listener;
    private final boolean client;
    private final String peer;
    private final CompletionQueue sendCq;
    private final CompletionQueue recvCq;
    private final QueuePair qp;
    private final AtomicBuffer buffer;
    private final MemoryRegion mr;
    private final SendWorkRequest send;
    private final RecvWorkRequest recv;
    private final WorkCompletion[] wc = {new WorkCompletion()};
    private final List<RdmaCmId> dataIds = new ArrayList<>();
    private long readTimeoutNs;
    private boolean closed;

    private PerftestRdmaCmChannel(final RdmaCm cm, final RdmaCmId id, final RdmaCmId listener, final boolean client,
        final CompletionQueue sendCq, final CompletionQueue recvCq, final QueuePair qp, final MemoryRegion mr,
        final Duration timeout)
    {
        this.cm = cm;
        this.id = id;
        this.listener = listener;
        this.client = client;
        this.peer = format(id.remoteAddress());
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.qp = qp;
        this.mr = mr;
        this.buffer = mr.buffer();
        this.send = new SendWorkRequest().wrId(SYNC_SPEC_ID).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED);
        this.send.addSge(mr, 0, 0);
        this.recv = new RecvWorkRequest().wrId(SYNC_SPEC_ID).addSge(mr, RECV_OFFSET, DEST_BYTES);
        this.readTimeoutNs = toNanos(timeout);
    }

    /**
     * rdma_client_connect: resolve, create the QP, post a receive, connect, wait for ESTABLISHED. A rejected or
     * unanswered request (nothing listens yet) is retried on a new identifier every 100 ms for up to
     * {@code retryFor}.
     *
     * @param cm       the device's rdma_cm.
     * @param server   the server's IP address and port (perftest's -p).
     * @param timeout  for the connection and each later read.
     * @param retryFor how long to keep retrying a refused connection.
     * @return the connected channel.
     * @throws IOException when no connection could be made.
     */
    public static PerftestRdmaCmChannel connect(final RdmaCm cm, final InetSocketAddress server,
        final Duration timeout, final Duration retryFor) throws IOException
    {
        final RetryDeadline retry = RetryDeadline.after(retryFor, RETRY_PAUSE_NS);
        while (true)
        {
            final RdmaCmId id = cm.createId();
            final Parts parts = new Parts(cm);
            try
            {
                parts.createQp(id);
                // perftest's comm: verb SEND, so no responder resources or initiator depth.
                id.connect(server, new ConnParam().responderResources(0).initiatorDepth(0).retryCount(RETRY_COUNT)
                    .rnrRetryCount(RETRY_COUNT));
                cm.expect(id, RdmaCmEventType.ESTABLISHED, toNanos(timeout));
                return parts.channel(id, null, true, timeout);
            }
            catch (final RdmaCmException ex)
            {
                parts.destroy(id);
                if (retry.expired())
                {
                    throw new IOException("rdma_cm connection to " + format(server) + " failed: " + ex.getMessage(),
                        ex);
                }
                retry.pause();
            }
            catch (final RuntimeException ex)
            {
                parts.destroy(id);
                throw ex;
            }
        }
    }

    /**
     * rdma_server_connect: wait for a connection request on the listener, create the QP, post a receive, accept.
     *
     * @param cm       the device's rdma_cm.
     * @param listener a listening identifier on perftest's port; the channel keeps it for the test's connections
     *                 and destroys it when closed.
     * @param timeout  for the request (Duration.ZERO: forever) and each later read.
     * @return the connected channel.
     * @throws IOException when no client came or the connection failed.
     */
    public static PerftestRdmaCmChannel accept(final RdmaCm cm, final RdmaCmId listener, final Duration timeout)
        throws IOException
    {
        final RdmaCmEvent request;
        try
        {
            request = cm.expect(listener, RdmaCmEventType.CONNECT_REQUEST, toNanos(timeout));
        }
        catch (final RdmaCmException ex)
        {
            throw new IOException("no rdma_cm client: " + ex.getMessage(), ex);
        }
        final RdmaCmId child = request.id();
        final Parts parts = new Parts(cm);
        try
        {
            parts.createQp(child);
            child.accept(new ConnParam().responderResources(0).initiatorDepth(0).retryCount(RETRY_COUNT)
                .rnrRetryCount(RETRY_COUNT));
            cm.expect(child, RdmaCmEventType.ESTABLISHED, toNanos(timeout));
            return parts.channel(child, listener, false, timeout);
        }
        catch (final RdmaCmException ex)
        {
            parts.destroy(child);
            throw new IOException("rdma_cm connection from " + format(child.remoteAddress()) + " failed: " +
                ex.getMessage(), ex);
        }
        catch (final RuntimeException ex)
        {
            parts.destroy(child);
            throw ex;
        }
    }

    /**
     * @return the rdma_cm this channel runs on (the test's connections use it too).
     */
    public RdmaCm cm()
    {
        return cm;
    }

    /**
     * @return the server's listener (the test's connections arrive on it too), null on the client.
     */
    public RdmaCmId listener()
    {
        return listener;
    }

    /**
     * @return the peer's IP address and port.
     */
    public InetSocketAddress remoteAddress()
    {
        return id.remoteAddress();
    }

    /**
     * Take over the test's own rdma_cm connections: {@link #close} ends them first, as perftest's destroy_ctx does
     * (rdma_cm_disconnect_nodes: the client disconnects each and waits for DISCONNECTED; the server disconnects; UD
     * identifiers are only destroyed).
     *
     * @param ids the test's identifiers.
     */
    public void adoptDataConnections(final List<RdmaCmId> ids)
    {
        dataIds.addAll(ids);
    }

    @Override
    public boolean isClient()
    {
        return client;
    }

    @Override
    public byte[] exchange(final byte[] local) throws IOException
    {
        if (local.length > DEST_BYTES)
        {
            throw new IllegalArgumentException("perftest's rdma_cm exchange receives at most " + DEST_BYTES +
                " bytes per message, got " + local.length);
        }
        if (client)
        {
            write(local);
            return read(local.length);
        }
        final byte[] remote = read(local.length);
        write(local);
        return remote;
    }

    @Override
    public PerftestDest exchangeDest(final PerftestDest local) throws IOException
    {
        final byte[] theirs = exchange(encodeDest(local));
        return decodeDest(theirs);
    }

    /**
     * ctx_close_connection writes "done" only over TCP: nothing to do.
     */
    @Override
    public void finish()
    {
    }

    @Override
    public void readTimeout(final Duration timeout)
    {
        readTimeoutNs = toNanos(timeout);
    }

    @Override
    public String peer()
    {
        return peer;
    }

    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        endDataConnections();
        id.destroy();
        qp.destroy();
        sendCq.destroy();
        recvCq.destroy();
        if (null != listener)
        {
            listener.destroy();
        }
    }

    private void endDataConnections()
    {
        final List<RdmaCmId> waiting = new ArrayList<>();
        for (final RdmaCmId dataId : dataIds)
        {
            // UD: rdma_cm_disconnect_nodes returns at once (a SIDR exchange leaves nothing to end but the identifier).
            if (RdmaCmId.State.ESTABLISHED == dataId.state() && !dataId.isUd())
            {
                try
                {
                    dataId.disconnect();
                    waiting.add(dataId);
                }
                catch (final IllegalStateException ex)
                {
                    // Disconnected by the peer meanwhile: nothing left to end.
                }
            }
        }
        if (client)
        {
            for (final RdmaCmId dataId : waiting)
            {
                try
                {
                    cm.expect(dataId, RdmaCmEventType.DISCONNECTED, DISCONNECT_WAIT_NS);
                }
                catch (final RdmaCmException ex)
                {
                    // The peer went first or does not answer: destroying the identifier ends it anyway.
                }
            }
        }
        for (final RdmaCmId dataId : dataIds)
        {
            dataId.destroy();
        }
        dataIds.clear();
    }

    private void write(final byte[] local) throws IOException
    {
        buffer.putBytes(0, local);
        send.sge(0).set(mr, 0, local.length);
        qp.postSend(send);
        final WorkCompletion done = await(sendCq, "the completion of our message");
        if (WcStatus.SUCCESS != done.status() || WcOpcode.SEND != done.opcode() || SYNC_SPEC_ID != done.wrId())
        {
            throw new IOException("sending to " + peer + " over rdma_cm failed: " + done.status() + " (wr_id " +
                done.wrId() + ")");
        }
    }

    private byte[] read(final int length) throws IOException
    {
        final WorkCompletion got = await(recvCq, "the peer's message");
        if (WcStatus.WR_FLUSH_ERR == got.status())
        {
            throw new IOException(peer + " closed the rdma_cm connection instead of sending its message");
        }
        if (WcStatus.SUCCESS != got.status() || WcOpcode.RECV != got.opcode() || SYNC_SPEC_ID != got.wrId())
        {
            throw new IOException("receiving from " + peer + " over rdma_cm failed: " + got.status() + " (wr_id " +
                got.wrId() + ")");
        }
        if (got.byteLen() != length)
        {
            throw new OobProtocolException("the peer sent " + got.byteLen() + " bytes where this step of " +
                "perftest's exchange has " + length);
        }
        final byte[] bytes = new byte[length];
        buffer.getBytes(RECV_OFFSET, bytes);
        qp.postRecv(recv);
        return bytes;
    }

    private WorkCompletion await(final CompletionQueue cq, final String what) throws IOException
    {
        final long timeoutNs = 0 == readTimeoutNs ? Long.MAX_VALUE : readTimeoutNs;
        if (1 != cq.pollBlocking(wc, timeoutNs))
        {
            throw new IOException("no message from " + peer + " within " + TimeUnit.NANOSECONDS.toMillis(timeoutNs) +
                " ms while waiting for " + what);
        }
        return wc[0];
    }

    /**
     * rdma_write_keys: the record as {@code struct pingpong_dest}, its integers big-endian (htobe32/htobe64), the
     * padding after rkey zero.
     *
     * @param dest the record.
     * @return its 56 bytes.
     */
    public static byte[] encodeDest(final PerftestDest dest)
    {
        final ByteBuffer b = ByteBuffer.allocate(DEST_BYTES).order(ByteOrder.BIG_ENDIAN);
        b.putInt(0, dest.lid());
        b.putInt(4, dest.outReads());
        b.putInt(8, dest.qpn());
        b.putInt(12, dest.psn());
        b.putInt(16, dest.rkey());
        b.putLong(24, dest.vaddr());
        b.putLong(32, dest.gidHigh());
        b.putLong(40, dest.gidLow());
        b.putInt(48, dest.srqn());
        // gid_index: perftest sends its own; roce4j's records do not carry it (rdma_read_keys ignores it).
        b.putInt(52, 0);
        return b.array();
    }

    /**
     * rdma_read_keys: lid, out_reads, qpn, psn, rkey, vaddr and the GID (srqn and gid_index are not read).
     *
     * @param bytes the 56 bytes received.
     * @return the record.
     * @throws OobProtocolException when the record is short or a field is out of range.
     */
    public static PerftestDest decodeDest(final byte[] bytes) throws OobProtocolException
    {
        if (DEST_BYTES != bytes.length)
        {
            throw new OobProtocolException("a QP record over rdma_cm is " + DEST_BYTES + " bytes, got " +
                bytes.length);
        }
        final ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.BIG_ENDIAN);
        try
        {
            return new PerftestDest(b.getInt(0), b.getInt(4), b.getInt(8), b.getInt(12), b.getInt(16),
                b.getLong(24), b.getLong(32), b.getLong(40), 0);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new OobProtocolException("malformed QP record over rdma_cm: " + ex.getMessage());
        }
    }

    private static long toNanos(final Duration timeout)
    {
        return Duration.ZERO.equals(timeout) ? Long.MAX_VALUE : timeout.toNanos();
    }

    private static String format(final InetSocketAddress address)
    {
        return null == address ? "?" : address.getAddress().getHostAddress() + ":" + address.getPort();
    }

    /**
     * The exchange's verbs resources while the connection is being made (create_rdma_resources and ctx_init with
     * the comm parameters: RC, tx and rx depth 1).
     */
    private static final class Parts
    {
        private final RdmaCm cm;
        private ProtectionDomain pd;
        private CompletionQueue sendCq;
        private CompletionQueue recvCq;
        private QueuePair qp;
        private MemoryRegion mr;

        Parts(final RdmaCm cm)
        {
            this.cm = cm;
        }

        void createQp(final RdmaCmId id)
        {
            pd = cm.device().allocPd();
            sendCq = cm.device().createCq(2);
            recvCq = cm.device().createCq(2);
            qp = id.createQp(pd, new QpInitAttributes().sendCq(sendCq).recvCq(recvCq).cap(1, 1, 1, 1, 0));
            mr = pd.registerMemory(ByteBuffer.allocateDirect(BUFFER_BYTES), AccessFlags.LOCAL_WRITE);
            // post_one_recv_wqe before rdma_connect / rdma_accept.
            qp.postRecv(new RecvWorkRequest().wrId(SYNC_SPEC_ID).addSge(mr, RECV_OFFSET, DEST_BYTES));
        }

        PerftestRdmaCmChannel channel(final RdmaCmId id, final RdmaCmId listener, final boolean client,
            final Duration timeout)
        {
            return new PerftestRdmaCmChannel(cm, id, listener, client, sendCq, recvCq, qp, mr, timeout);
        }

        void destroy(final RdmaCmId id)
        {
            id.destroy();
            if (null != qp && !qp.isDestroyed())
            {
                qp.destroy();
            }
            if (null != sendCq)
            {
                sendCq.destroy();
            }
            if (null != recvCq)
            {
                recvCq.destroy();
            }
        }
    }

    /**
     * Move a QP left in ERR by a refused connection back to RESET, so a new identifier can take it
     * ({@link RdmaCmId#attachQp} takes RESET or INIT).
     *
     * @param q the QP.
     */
    public static void resetForRetry(final QueuePair q)
    {
        if (QpState.RESET != q.state() && QpState.INIT != q.state())
        {
            final QpAttributes attr = new QpAttributes();
            attr.qpState = QpState.RESET;
            q.modify(attr, QpAttrMask.STATE);
        }
    }
}
