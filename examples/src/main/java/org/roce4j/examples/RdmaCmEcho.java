package org.roce4j.examples;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.roce4j.cm.rdmacm.ConnParam;
import org.roce4j.cm.rdmacm.RdmaCm;
import org.roce4j.cm.rdmacm.RdmaCmEvent;
import org.roce4j.cm.rdmacm.RdmaCmEventType;
import org.roce4j.cm.rdmacm.RdmaCmId;
import org.roce4j.ib.AccessFlags;
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
import org.roce4j.verbs.RdmaDevice;
import org.roce4j.verbs.RecvWorkRequest;
import org.roce4j.verbs.SendWorkRequest;

/**
 * An rdma_cm client and server: the server listens, accepts one client and echoes every message back; the client
 * connects (rdma_resolve_addr, rdma_resolve_route, rdma_connect in one call), sends numbered lines, checks every echo
 * byte for byte and disconnects. The connection is the IB CM's REQ, REP, RTU over QP1 with rdma_cm's header, so
 * either side can also face librdmacm code on an rxe or mlx5 host (rdma-core's rping speaks the same; see
 * {@code roce rping}).
 *
 * <pre>
 * java -jar examples/target/examples.jar rdma-cm                                   # both sides here, in memory
 * java -jar examples/target/examples.jar rdma-cm server --link udp:10.81.0.1
 * java -jar examples/target/examples.jar rdma-cm client --link udp:10.81.0.2 --server 10.81.0.1 --count 100
 * </pre>
 */
public final class RdmaCmEcho
{
    /** The port the server listens on unless --port says otherwise. */
    public static final int DEFAULT_PORT = 7471;
    private static final int MESSAGE_BYTES = 256;
    private static final long WAIT_NS = TimeUnit.SECONDS.toNanos(30);

    private RdmaCmEcho()
    {
    }

    /**
     * @param args {@code [both|server|client] [--link SPEC] [--server IP] [--port N] [--count N]}.
     * @throws Exception when a side fails.
     */
    public static void main(final String[] args) throws Exception
    {
        final String role = args.length > 0 && !args[0].startsWith("--") ? args[0] : "both";
        String link = "server".equals(role) ? "memory:10.0.4.1" : "memory:10.0.4.2";
        String server = "10.0.4.1";
        int port = DEFAULT_PORT;
        int count = 100;
        for (int i = "both".equals(role) && (0 == args.length || args[0].startsWith("--")) ? 0 : 1; i < args.length;
            i += 2)
        {
            final String value = i + 1 < args.length ? args[i + 1] : null;
            if (null == value)
            {
                throw new IllegalArgumentException(args[i] + " needs a value");
            }
            switch (args[i])
            {
                case "--link" -> link = value;
                case "--server" -> server = value;
                case "--port" -> port = Integer.parseInt(value);
                case "--count" -> count = Integer.parseInt(value);
                default -> throw new IllegalArgumentException("unknown option " + args[i] +
                    " (--link, --server, --port, --count)");
            }
        }
        final int listenPort = port;
        switch (role)
        {
            case "both" -> System.out.println(runBoth(port, count));
            case "server" -> System.out.println(serve(link, port, () ->
                System.out.println("server: listening on port " + listenPort)));
            case "client" -> System.out.println(connect(link, server, port, count));
            default -> throw new IllegalArgumentException("role must be both, server or client, got " + role);
        }
    }

    /**
     * Server and client in this JVM, each on its own thread with its own device on the in-memory fabric.
     *
     * @param port  the server's port.
     * @param count messages to echo.
     * @return the client's report.
     * @throws Exception when a side fails.
     */
    public static String runBoth(final int port, final int count) throws Exception
    {
        final CountDownLatch listening = new CountDownLatch(1);
        final CompletableFuture<String> server = CompletableFuture.supplyAsync(() ->
        {
            try
            {
                return serve("memory:10.0.4.1", port, listening::countDown);
            }
            catch (final IOException ex)
            {
                throw new IllegalStateException("server: " + ex.getMessage(), ex);
            }
        });
        if (!listening.await(WAIT_NS, TimeUnit.NANOSECONDS))
        {
            throw new IllegalStateException("the server did not listen" + (server.isDone() ? " (it ended)" : ""));
        }
        final String client = connect("memory:10.0.4.2", "10.0.4.1", port, count);
        try
        {
            return client + "\n" + server.get(WAIT_NS, TimeUnit.NANOSECONDS);
        }
        catch (final ExecutionException ex)
        {
            throw new IllegalStateException(ex.getCause().getMessage(), ex.getCause());
        }
    }

    /**
     * Accept one client and echo what it sends until it disconnects.
     *
     * @param link        the server's link spec.
     * @param port        the port to listen on.
     * @param onListening called once the listener is up.
     * @return e.g. {@code server: echoed 100 messages}.
     * @throws IOException when the link cannot be opened.
     */
    public static String serve(final String link, final int port, final Runnable onListening) throws IOException
    {
        try (RdmaDevice device = RdmaDevice.open(link);
            RdmaCm cm = RdmaCm.open(device))
        {
            final Endpoint endpoint = new Endpoint(device);
            final RdmaCmId listener = cm.createId().listen(new InetSocketAddress("0.0.0.0", port), 1);
            onListening.run();
            final RdmaCmEvent request = cm.expect(listener, RdmaCmEventType.CONNECT_REQUEST, Long.MAX_VALUE);
            final int count = ByteBuffer.wrap(request.privateData()).getInt(0);
            final RdmaCmId connection = request.id();
            endpoint.attach(connection.createQp(endpoint.pd, endpoint.init()));
            connection.accept(new ConnParam());
            cm.expect(connection, RdmaCmEventType.ESTABLISHED, WAIT_NS);
            for (int i = 0; i < count; i++)
            {
                final int length = endpoint.receive("message " + i);
                endpoint.outbox.buffer().putBytes(0, endpoint.inbox.buffer(), 0, length);
                endpoint.send(length, "echo " + i);
            }
            cm.expect(connection, RdmaCmEventType.DISCONNECTED, WAIT_NS);
            return "server: echoed " + count + " messages to " + connection.remoteAddress().getAddress()
                .getHostAddress();
        }
    }

    /**
     * Connect, send numbered lines, check each echo, disconnect.
     *
     * @param link   the client's link spec.
     * @param server the server's address.
     * @param port   its port.
     * @param count  messages.
     * @return e.g. {@code client: 100 messages echoed, every byte checked}.
     * @throws IOException when the link cannot be opened or the server name does not resolve.
     */
    public static String connect(final String link, final String server, final int port, final int count)
        throws IOException
    {
        try (RdmaDevice device = RdmaDevice.open(link);
            RdmaCm cm = RdmaCm.open(device))
        {
            final Endpoint endpoint = new Endpoint(device);
            final RdmaCmId id = cm.createId();
            endpoint.attach(id.createQp(endpoint.pd, endpoint.init()));
            // The message count rides in the REQ's private data (at most 56 bytes).
            id.connect(new InetSocketAddress(InetAddress.getByName(server), port),
                new ConnParam().privateData(ByteBuffer.allocate(Integer.BYTES).putInt(count).array()));
            cm.expect(id, RdmaCmEventType.ESTABLISHED, WAIT_NS);
            for (int i = 0; i < count; i++)
            {
                final byte[] line = ("line " + i + ": the quick brown fox jumps over the lazy dog " +
                    "#".repeat(i % 50))
                    .getBytes(StandardCharsets.US_ASCII);
                endpoint.outbox.buffer().putBytes(0, line);
                endpoint.send(line.length, "line " + i);
                final int length = endpoint.receive("echo " + i);
                final byte[] echo = new byte[length];
                endpoint.inbox.buffer().getBytes(0, echo);
                if (!java.util.Arrays.equals(line, echo))
                {
                    throw new IllegalStateException("echo " + i + " differs: '" +
                        new String(echo, StandardCharsets.US_ASCII) + "'");
                }
            }
            id.disconnect();
            cm.expect(id, RdmaCmEventType.DISCONNECTED, WAIT_NS);
            return "client: " + count + " messages echoed by " + server + ":" + port + ", every byte checked";
        }
    }

    /** A PD, a send and a receive CQ, an outbox and an inbox, and the QP once rdma_cm made it. */
    private static final class Endpoint
    {
        final ProtectionDomain pd;
        final CompletionQueue sendCq;
        final CompletionQueue recvCq;
        final MemoryRegion outbox;
        final MemoryRegion inbox;
        final WorkCompletion[] wc = new WorkCompletion[1];
        QueuePair qp;

        Endpoint(final RdmaDevice device)
        {
            pd = device.allocPd();
            sendCq = device.createCq(8);
            recvCq = device.createCq(8);
            outbox = pd.registerMemory(ByteBuffer.allocateDirect(MESSAGE_BYTES), AccessFlags.LOCAL_WRITE);
            inbox = pd.registerMemory(ByteBuffer.allocateDirect(MESSAGE_BYTES), AccessFlags.LOCAL_WRITE);
        }

        QpInitAttributes init()
        {
            return new QpInitAttributes().sendCq(sendCq).recvCq(recvCq).cap(4, 4, 1, 1, 0);
        }

        /** Keep a receive posted from the start: a message must never find none (RNR). */
        void attach(final QueuePair created)
        {
            qp = created;
            qp.postRecv(new RecvWorkRequest().addSge(inbox, 0, MESSAGE_BYTES));
        }

        int receive(final String what)
        {
            final WorkCompletion done = await(recvCq, what);
            if (WcOpcode.RECV != done.opcode())
            {
                throw new IllegalStateException(what + ": " + done);
            }
            final int length = done.byteLen();
            // The inbox is read before the next receive may overwrite it: the peer sends only after our reply.
            qp.postRecv(new RecvWorkRequest().addSge(inbox, 0, MESSAGE_BYTES));
            return length;
        }

        void send(final int length, final String what)
        {
            qp.postSend(new SendWorkRequest().opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .addSge(outbox, 0, length));
            await(sendCq, what);
        }

        private WorkCompletion await(final CompletionQueue cq, final String what)
        {
            if (1 != cq.pollBlocking(wc, WAIT_NS))
            {
                throw new IllegalStateException("no completion for " + what + ":\n" +
                    cq.device().describeCounters());
            }
            if (WcStatus.SUCCESS != wc[0].status())
            {
                throw new IllegalStateException(what + " failed: " + wc[0]);
            }
            return wc[0];
        }
    }
}
