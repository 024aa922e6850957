package org.roce4j.cli.rping;

import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.agrona.concurrent.AtomicBuffer;
import org.roce4j.cm.rdmacm.ConnParam;
import org.roce4j.cm.rdmacm.RdmaCm;
import org.roce4j.cm.rdmacm.RdmaCmEvent;
import org.roce4j.cm.rdmacm.RdmaCmEventType;
import org.roce4j.cm.rdmacm.RdmaCmException;
import org.roce4j.cm.rdmacm.RdmaCmId;
import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.SendFlags;
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
 * rping (rdma-core librdmacm/examples/rping.c) on roce4j: the same rdma_cm connection, buffers, message flow and
 * output, so either side can be the C rping.
 *
 * <p>One ping (rping.c's comment, implemented by rping_test_client / rping_test_server):
 * <ol>
 *   <li>the client fills its start buffer ("rdma-ping-N: " and a rolling A..z pattern, NUL at the end) and SENDs
 *   its address, rkey and size ({@link RpingRdmaInfo});</li>
 *   <li>the server RDMA READs that buffer into its own, prints it with -v ("server ping data: ..."), SENDs a
 *   "go ahead";</li>
 *   <li>the client SENDs the address, rkey and size of its second buffer;</li>
 *   <li>the server RDMA WRITEs its buffer there (strlen + 1 bytes) and SENDs a "go ahead";</li>
 *   <li>the client compares both buffers with -V ("data mismatch!") and prints the second with -v
 *   ("ping data: ...").</li>
 * </ol>
 * After -C pings the client disconnects; the server's loop ends when it sees the disconnect (it prints "server
 * DISCONNECT EVENT..." and "wait for RDMA_READ_ADV state 10", and exits 0, as rping does). A rejected or
 * unreachable connect prints "cma event RDMA_CM_EVENT_REJECTED, error 8" and exits 255 (rping's exit(-1)).
 *
 * <p>rping waits on CQ and CM events in two threads; here one thread polls the CQ in short slices and looks at the
 * CM's events in between (the CM itself runs on its own thread).
 */
public final class Rping
{
    /** rping's exit code for a failure: main returns -1. */
    public static final int EXIT_FAILURE = 255;
    /** RPING_SQ_DEPTH: send queue depth (the CQ holds twice that). */
    static final int SQ_DEPTH = 16;
    /** Receive queue depth of rping's QP. */
    static final int RQ_DEPTH = 2;
    /** rping's listen backlog. */
    static final int BACKLOG = 3;
    /** The connection's enum test_state values rping prints in its error lines. */
    static final int STATE_CONNECTED = 5;
    /** RDMA_READ_ADV. */
    static final int STATE_RDMA_READ_ADV = 6;
    /** RDMA_READ_COMPLETE. */
    static final int STATE_RDMA_READ_COMPLETE = 7;
    /** RDMA_WRITE_ADV. */
    static final int STATE_RDMA_WRITE_ADV = 8;
    /** RDMA_WRITE_COMPLETE. */
    static final int STATE_RDMA_WRITE_COMPLETE = 9;
    /** DISCONNECTED. */
    static final int STATE_DISCONNECTED = 10;
    /** ERROR. */
    static final int STATE_ERROR = 11;
    /** First and last character of the rolling pattern ('A' .. 'z'). */
    private static final int FIRST_CHAR = 65;
    private static final int LAST_CHAR = 122;
    /** How long one CQ wait lasts before the CM's events are looked at again. */
    private static final long POLL_SLICE_NS = TimeUnit.MILLISECONDS.toNanos(20);
    /** How long to wait for the DISCONNECTED event after the receive queue was flushed. */
    private static final long DISCONNECT_EVENT_WAIT_NS = TimeUnit.SECONDS.toNanos(5);

    private final RdmaCm cm;
    private final RpingSettings settings;
    private final PrintWriter out;
    private final PrintWriter err;
    private final String role;
    private final WorkCompletion[] wcs = {new WorkCompletion(), new WorkCompletion(), new WorkCompletion(),
        new WorkCompletion()};
    private final RpingRdmaInfo sendInfo = new RpingRdmaInfo();
    private final RpingRdmaInfo recvInfo = new RpingRdmaInfo();
    private final RecvWorkRequest recvWr = new RecvWorkRequest();
    private final SendWorkRequest sendWr = new SendWorkRequest();
    private final SendWorkRequest rdmaWr = new SendWorkRequest();

    private Runnable onListening = () -> { };
    private CompletionQueue cq;
    private QueuePair qp;
    private MemoryRegion recvMr;
    private MemoryRegion sendMr;
    private MemoryRegion rdmaMr;
    private MemoryRegion startMr;
    private int state = 1;
    private int recvs;
    private boolean readDone;
    private boolean writeDone;
    private boolean flushed;
    private boolean disconnected;
    private boolean failed;

    /**
     * @param cm       rdma_cm on the device to use.
     * @param settings what to run.
     * @param out      rping's stdout (-v and -d lines).
     * @param err      rping's stderr.
     */
    public Rping(final RdmaCm cm, final RpingSettings settings, final PrintWriter out, final PrintWriter err)
    {
        this.cm = cm;
        this.settings = settings;
        this.out = out;
        this.err = err;
        this.role = settings.server ? "server" : "client";
    }

    /**
     * @param callback run once the server listens (lets a caller start a client in the same process).
     * @return this.
     */
    public Rping onListening(final Runnable callback)
    {
        this.onListening = callback;
        return this;
    }

    /**
     * Run one side to the end.
     *
     * @return rping's exit code: 0, or 255 on failure.
     */
    public int run()
    {
        try
        {
            return settings.server ? runServer() : runClient();
        }
        finally
        {
            out.flush();
            err.flush();
        }
    }

    // ------------------------------------------------------------------------------------------------------------
    // Client
    // ------------------------------------------------------------------------------------------------------------

    private int runClient()
    {
        final RdmaCmId id = cm.createId();
        debug("created cm_id " + id);
        if (settings.trafficClass >= 0)
        {
            id.tos(settings.trafficClass);
        }
        try
        {
            debug("rdma_resolve_addr - rdma_resolve_route successful");
            setup(id);
            final InetSocketAddress server = new InetSocketAddress(settings.address, settings.port);
            id.connect(server, new ConnParam().responderResources(1).initiatorDepth(1).retryCount(7)
                .rnrRetryCount(7));
            final RdmaCmEvent event = awaitCmEvent(id);
            if (null == event)
            {
                return EXIT_FAILURE;
            }
            if (RdmaCmEventType.ESTABLISHED != event.type())
            {
                err.println("cma event " + event.type().libraryName() + ", error " + event.status());
                debug(event.message());
                return EXIT_FAILURE;
            }
            debug("ESTABLISHED");
            state = STATE_CONNECTED;
            debug("rdma_connect successful");
            final int ret = testClient();
            if (0 != ret)
            {
                err.println("rping client failed: " + ret);
            }
            id.disconnect();
            awaitDisconnectEvent();
            return 0 == ret ? 0 : EXIT_FAILURE;
        }
        catch (final RdmaCmException ex)
        {
            err.println("rping: " + ex.getMessage());
            return EXIT_FAILURE;
        }
        finally
        {
            debug("destroy cm_id " + id);
            id.destroy();
        }
    }

    private int testClient()
    {
        final AtomicBuffer start = startMr.buffer();
        final AtomicBuffer sink = rdmaMr.buffer();
        final int size = settings.size;
        int first = FIRST_CHAR;
        for (int ping = 0; 0 == settings.count || ping < settings.count; ping++)
        {
            state = STATE_RDMA_READ_ADV;
            final String prefix = "rdma-ping-" + ping + ": ";
            final int cc = Math.min(prefix.length(), size);
            start.putStringWithoutLengthAscii(0, prefix.substring(0, cc));
            int c = first;
            for (int i = cc; i < size; i++)
            {
                start.putByte(i, (byte)c);
                c = c >= LAST_CHAR ? FIRST_CHAR : c + 1;
            }
            first = first >= LAST_CHAR ? FIRST_CHAR : first + 1;
            start.putByte(size - 1, (byte)0);

            final int recvsBefore = recvs;
            postInfo(startMr);
            if (!await(() -> recvs > recvsBefore))
            {
                return waitFailure("RDMA_WRITE_ADV");
            }
            state = STATE_RDMA_WRITE_ADV;
            postInfo(rdmaMr);
            if (!await(() -> recvs > recvsBefore + 1))
            {
                return waitFailure("RDMA_WRITE_COMPLETE");
            }
            state = STATE_RDMA_WRITE_COMPLETE;
            if (settings.validate && !sameBytes(start, sink, size))
            {
                err.println("data mismatch!");
                return -1;
            }
            if (settings.verbose)
            {
                out.println("ping data: " + cString(sink, size));
            }
        }
        return 0;
    }

    private static boolean sameBytes(final AtomicBuffer a, final AtomicBuffer b, final int length)
    {
        for (int i = 0; i < length; i++)
        {
            if (a.getByte(i) != b.getByte(i))
            {
                return false;
            }
        }
        return true;
    }

    private void postInfo(final MemoryRegion mr)
    {
        sendInfo.set(mr.address(0), mr.rkey(), settings.size);
        debug(String.format("RDMA addr %x rkey %x len %d", mr.address(0), mr.rkey(), settings.size));
        postSend();
    }

    // ------------------------------------------------------------------------------------------------------------
    // Server
    // ------------------------------------------------------------------------------------------------------------

    private int runServer()
    {
        final RdmaCmId listener = cm.createId();
        debug("created cm_id " + listener);
        if (settings.trafficClass >= 0)
        {
            listener.tos(settings.trafficClass);
        }
        try
        {
            final InetAddress bind = null != settings.address ? settings.address :
                InetAddress.getByAddress(new byte[4]);
            listener.listen(new InetSocketAddress(bind, settings.port), BACKLOG);
            debug("rdma_bind_addr successful");
            debug("rdma_listen");
            onListening.run();
            final long deadline = deadline();
            final RdmaCmEvent request = cm.expect(listener, RdmaCmEventType.CONNECT_REQUEST,
                Long.MAX_VALUE == deadline ? Long.MAX_VALUE : Math.max(0, deadline - System.nanoTime()));
            final RdmaCmId child = request.id();
            debug("cma_event type " + request.type().libraryName() + " cma_id " + child + " (parent)");
            debug("child cma " + child);
            try
            {
                setup(child);
                debug("accepting client connection request");
                child.accept(null);
                final RdmaCmEvent established = awaitCmEvent(child);
                if (null == established || RdmaCmEventType.ESTABLISHED != established.type())
                {
                    if (null != established)
                    {
                        err.println("cma event " + established.type().libraryName() + ", error " +
                            established.status());
                    }
                    err.println("connect error -1");
                    return EXIT_FAILURE;
                }
                debug("ESTABLISHED");
                state = STATE_CONNECTED;
                final int ret = testServer();
                if (0 != ret)
                {
                    err.println("rping server failed: " + ret);
                }
                child.disconnect();
                return 0 == ret ? 0 : EXIT_FAILURE;
            }
            finally
            {
                child.destroy();
            }
        }
        catch (final RdmaCmException ex)
        {
            err.println("rping: " + ex.getMessage());
            return EXIT_FAILURE;
        }
        catch (final java.net.UnknownHostException ex)
        {
            throw new IllegalStateException(ex);
        }
        finally
        {
            debug("destroy cm_id " + listener);
            listener.destroy();
        }
    }

    private int testServer()
    {
        final AtomicBuffer sink = rdmaMr.buffer();
        while (true)
        {
            final int recvsBefore = recvs;
            if (!await(() -> recvs > recvsBefore))
            {
                return waitFailure("RDMA_READ_ADV");
            }
            state = STATE_RDMA_READ_ADV;
            final long remoteAddr = recvInfo.buf();
            final int remoteRkey = recvInfo.rkey();
            final int remoteLen = recvInfo.size();
            debug(String.format("Received rkey %x addr %x len %d from peer", remoteRkey, remoteAddr, remoteLen));
            debug("server received sink adv");

            readDone = false;
            postRdma(WrOpcode.RDMA_READ, remoteAddr, remoteRkey, remoteLen);
            debug("server posted rdma read req ");
            if (!await(() -> readDone))
            {
                return waitFailure("RDMA_READ_COMPLETE");
            }
            state = STATE_RDMA_READ_COMPLETE;
            debug("server received read complete");
            if (settings.verbose)
            {
                out.println("server ping data: " + cString(sink, Math.min(remoteLen, settings.size)));
            }
            postSend();
            debug("server posted go ahead");

            if (!await(() -> recvs > recvsBefore + 1))
            {
                return waitFailure("RDMA_WRITE_ADV");
            }
            state = STATE_RDMA_WRITE_ADV;
            debug("server received sink adv");
            final int length = strlen(sink, settings.size) + 1;
            writeDone = false;
            debug(String.format("rdma write from lkey %x laddr %x len %d", rdmaMr.lkey(), rdmaMr.address(0),
                length));
            postRdma(WrOpcode.RDMA_WRITE, recvInfo.buf(), recvInfo.rkey(), length);
            if (!await(() -> writeDone))
            {
                return waitFailure("RDMA_WRITE_COMPLETE");
            }
            state = STATE_RDMA_WRITE_COMPLETE;
            debug("server rdma write complete ");
            postSend();
            debug("server posted go ahead");
        }
    }

    private void postRdma(final WrOpcode opcode, final long remoteAddr, final int rkey, final int length)
    {
        rdmaWr.reset().wrId(2).opcode(opcode).sendFlags(SendFlags.SIGNALED)
            .addSge(rdmaMr, 0, Math.min(length, rdmaMr.length())).rdma(remoteAddr, rkey);
        qp.postSend(rdmaWr);
    }

    // ------------------------------------------------------------------------------------------------------------
    // Shared
    // ------------------------------------------------------------------------------------------------------------

    /**
     * rping_setup_qp and rping_setup_buffers: PD, CQ, RC QP (16 sends, 2 receives), the 16-byte receive and send
     * buffers, the RDMA buffer (and the client's start buffer) with local write and remote read/write; one receive
     * posted.
     */
    private void setup(final RdmaCmId id)
    {
        final ProtectionDomain pd = cm.device().allocPd();
        debug("created pd " + pd);
        cq = cm.device().createCq(SQ_DEPTH * 2);
        debug("created cq " + cq);
        qp = id.createQp(pd, new QpInitAttributes().cq(cq).cap(SQ_DEPTH, RQ_DEPTH, 1, 1, 0));
        debug("created qp " + qp);
        debug("rping_setup_buffers called on cb " + id);
        final int remote = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_WRITE;
        recvMr = pd.registerMemory(ByteBuffer.allocateDirect(RpingRdmaInfo.LENGTH), AccessFlags.LOCAL_WRITE);
        sendMr = pd.registerMemory(ByteBuffer.allocateDirect(RpingRdmaInfo.LENGTH), 0);
        rdmaMr = pd.registerMemory(ByteBuffer.allocateDirect(settings.size), remote);
        if (!settings.server)
        {
            startMr = pd.registerMemory(ByteBuffer.allocateDirect(settings.size), remote);
        }
        recvInfo.wrap(recvMr.buffer(), 0);
        sendInfo.wrap(sendMr.buffer(), 0);
        debug("allocated & registered buffers...");
        recvWr.reset().wrId(1).addSge(recvMr, 0, RpingRdmaInfo.LENGTH);
        qp.postRecv(recvWr);
    }

    private void postSend()
    {
        sendWr.reset().wrId(3).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
            .addSge(sendMr, 0, RpingRdmaInfo.LENGTH);
        qp.postSend(sendWr);
    }

    /**
     * Poll the CQ (rping_cq_event_handler) and the CM's events (rping_cma_event_handler) until {@code done} holds.
     *
     * @return true when done; false when the connection ended or failed first.
     */
    private boolean await(final BooleanSupplier done)
    {
        final long deadline = deadline();
        long flushedAt = 0;
        while (!done.getAsBoolean())
        {
            if (disconnected || failed)
            {
                return false;
            }
            final int n = cq.pollBlocking(wcs, POLL_SLICE_NS);
            for (int i = 0; i < n; i++)
            {
                onCompletion(wcs[i]);
            }
            drainCmEvents();
            if (flushed && !disconnected)
            {
                // rping's CQ thread stops at a flush; the end of the connection comes as a CM event.
                if (0 == flushedAt)
                {
                    flushedAt = System.nanoTime();
                }
                else if (System.nanoTime() - flushedAt > DISCONNECT_EVENT_WAIT_NS)
                {
                    failed = true;
                }
            }
            if (Long.MAX_VALUE != deadline && System.nanoTime() - deadline > 0)
            {
                err.println("rping: nothing happened for " + settings.timeoutMs + " ms (--timeout)");
                failed = true;
            }
        }
        return true;
    }

    private void onCompletion(final WorkCompletion wc)
    {
        if (WcStatus.SUCCESS != wc.status())
        {
            if (WcStatus.WR_FLUSH_ERR == wc.status())
            {
                flushed = true;
                return;
            }
            err.println("cq completion failed status " + wc.status().ordinal());
            failed = true;
            state = STATE_ERROR;
            return;
        }
        switch (wc.opcode())
        {
            case SEND:
                debug("send completion");
                break;
            case RDMA_WRITE:
                debug("rdma write completion");
                writeDone = true;
                break;
            case RDMA_READ:
                debug("rdma read completion");
                readDone = true;
                break;
            case RECV:
                debug("recv completion");
                if (RpingRdmaInfo.LENGTH != wc.byteLen())
                {
                    err.println("Received bogus data, size " + wc.byteLen());
                    err.println("recv wc error: -1");
                    failed = true;
                    state = STATE_ERROR;
                    return;
                }
                recvs++;
                qp.postRecv(recvWr);
                break;
            default:
                debug("unknown!!!!! completion");
                failed = true;
                state = STATE_ERROR;
                break;
        }
    }

    private void drainCmEvents()
    {
        RdmaCmEvent event;
        while (null != (event = cm.pollEvent()))
        {
            onCmEvent(event);
        }
    }

    private void onCmEvent(final RdmaCmEvent event)
    {
        debug("cma_event type " + event.type().libraryName() + " cma_id " + event.id() + " (child)");
        switch (event.type())
        {
            case DISCONNECTED:
                err.println(role + " DISCONNECT EVENT...");
                disconnected = true;
                state = STATE_DISCONNECTED;
                break;
            case REJECTED:
            case UNREACHABLE:
            case CONNECT_ERROR:
                err.println("cma event " + event.type().libraryName() + ", error " + event.status());
                failed = true;
                state = STATE_ERROR;
                break;
            case ESTABLISHED:
                debug("ESTABLISHED");
                break;
            default:
                err.println("unhandled event: " + event.type().libraryName() + ", ignoring");
                break;
        }
    }

    private RdmaCmEvent awaitCmEvent(final RdmaCmId id)
    {
        final long deadline = deadline();
        while (true)
        {
            final long left = Long.MAX_VALUE == deadline ? POLL_SLICE_NS : Math.min(POLL_SLICE_NS,
                deadline - System.nanoTime());
            if (left <= 0)
            {
                err.println("rping: no connection event within " + settings.timeoutMs + " ms (--timeout)");
                return null;
            }
            final RdmaCmEvent event = cm.getEvent(left);
            if (null != event && event.id() == id)
            {
                return event;
            }
            if (null != event)
            {
                onCmEvent(event);
            }
        }
    }

    private void awaitDisconnectEvent()
    {
        final long deadline = System.nanoTime() + DISCONNECT_EVENT_WAIT_NS;
        while (!disconnected && System.nanoTime() - deadline < 0)
        {
            final RdmaCmEvent event = cm.getEvent(POLL_SLICE_NS);
            if (null != event)
            {
                onCmEvent(event);
            }
        }
    }

    private int waitFailure(final String expected)
    {
        err.println("wait for " + expected + " state " + state);
        return STATE_DISCONNECTED == state ? 0 : -1;
    }

    private long deadline()
    {
        return 0 == settings.timeoutMs ? Long.MAX_VALUE :
            System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(settings.timeoutMs);
    }

    private void debug(final String line)
    {
        if (settings.debug)
        {
            out.println(line);
        }
    }

    static int strlen(final AtomicBuffer buffer, final int limit)
    {
        for (int i = 0; i < limit; i++)
        {
            if (0 == buffer.getByte(i))
            {
                return i;
            }
        }
        return limit - 1;
    }

    private static String cString(final AtomicBuffer buffer, final int limit)
    {
        return buffer.getStringWithoutLengthAscii(0, strlen(buffer, limit));
    }
}
