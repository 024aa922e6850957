package org.roce4j.cli.rping;

import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

import org.agrona.concurrent.AtomicBuffer;
import org.roce4j.cm.rdmacm.ConnParam;
import org.roce4j.cm.rdmacm.RdmaCm;
import org.roce4j.cm.rdmacm.RdmaCmEvent;
import org.roce4j.cm.rdmacm.RdmaCmEventType;
import org.roce4j.cm.rdmacm.RdmaCmException;
import org.roce4j.cm.rdmacm.RdmaCmId;
import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.SendFlags;
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

    private final RdmaCm cm;
    private final RpingSettings settings;
    private final PrintWriter out;
    private final PrintWriter err;
    private final String role;
    private final RpingEvents events;
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
        this.events = new RpingEvents(cm, settings, out, err, role);
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
            final RdmaCmEvent event = events.awaitCmEvent(id);
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
            events.state = STATE_CONNECTED;
            debug("rdma_connect successful");
            final int ret = testClient();
            if (0 != ret)
            {
                err.println("rping client failed: " + ret);
            }
            id.disconnect();
            events.awaitDisconnectEvent();
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
            events.state = STATE_RDMA_READ_ADV;
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

            final int recvsBefore = events.recvs;
            postInfo(startMr);
            if (!events.await(() -> events.recvs > recvsBefore))
            {
                return events.waitFailure("RDMA_WRITE_ADV");
            }
            events.state = STATE_RDMA_WRITE_ADV;
            postInfo(rdmaMr);
            if (!events.await(() -> events.recvs > recvsBefore + 1))
            {
                return events.waitFailure("RDMA_WRITE_COMPLETE");
            }
            events.state = STATE_RDMA_WRITE_COMPLETE;
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
            final long deadline = events.deadline();
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
                final RdmaCmEvent established = events.awaitCmEvent(child);
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
                events.state = STATE_CONNECTED;
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
            final int recvsBefore = events.recvs;
            if (!events.await(() -> events.recvs > recvsBefore))
            {
                return events.waitFailure("RDMA_READ_ADV");
            }
            events.state = STATE_RDMA_READ_ADV;
            final long remoteAddr = recvInfo.buf();
            final int remoteRkey = recvInfo.rkey();
            final int remoteLen = recvInfo.size();
            debug(String.format("Received rkey %x addr %x len %d from peer", remoteRkey, remoteAddr, remoteLen));
            debug("server received sink adv");

            events.readDone = false;
            postRdma(WrOpcode.RDMA_READ, remoteAddr, remoteRkey, remoteLen);
            debug("server posted rdma read req ");
            if (!events.await(() -> events.readDone))
            {
                return events.waitFailure("RDMA_READ_COMPLETE");
            }
            events.state = STATE_RDMA_READ_COMPLETE;
            debug("server received read complete");
            if (settings.verbose)
            {
                out.println("server ping data: " + cString(sink, Math.min(remoteLen, settings.size)));
            }
            postSend();
            debug("server posted go ahead");

            if (!events.await(() -> events.recvs > recvsBefore + 1))
            {
                return events.waitFailure("RDMA_WRITE_ADV");
            }
            events.state = STATE_RDMA_WRITE_ADV;
            debug("server received sink adv");
            final int length = strlen(sink, settings.size) + 1;
            events.writeDone = false;
            debug(String.format("rdma write from lkey %x laddr %x len %d", rdmaMr.lkey(), rdmaMr.address(0),
                length));
            postRdma(WrOpcode.RDMA_WRITE, recvInfo.buf(), recvInfo.rkey(), length);
            if (!events.await(() -> events.writeDone))
            {
                return events.waitFailure("RDMA_WRITE_COMPLETE");
            }
            events.state = STATE_RDMA_WRITE_COMPLETE;
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
        events.attach(cq, qp, recvWr);
    }

    private void postSend()
    {
        sendWr.reset().wrId(3).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
            .addSge(sendMr, 0, RpingRdmaInfo.LENGTH);
        qp.postSend(sendWr);
    }

    private void debug(final String line)
    {
        events.debug(line);
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
