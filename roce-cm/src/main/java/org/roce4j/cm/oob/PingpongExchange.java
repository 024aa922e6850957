package org.roce4j.cm.oob;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;

/**
 * The ibv_*_pingpong out-of-band exchange over TCP (default port 18515), both roles, byte-compatible with
 * rdma-core's examples (pp_client_exch_dest / pp_server_exch_dest):
 * <ol>
 *   <li>the client connects and writes its 52-byte message;</li>
 *   <li>the server reads it, moves its QP to RTR and RTS (the {@link ServerStep} callback), then writes its own
 *   message;</li>
 *   <li>the client reads it and writes {@code "done\0"}, which the server reads before it starts.</li>
 * </ol>
 * Every read and the connect have a timeout; a malformed, truncated or late message is an
 * {@link OobProtocolException} that says which.
 */
public final class PingpongExchange
{
    /** Port ibv_*_pingpong use unless -p says otherwise. */
    public static final int DEFAULT_PORT = 18515;

    /**
     * What the server does between reading the client's message and answering: connect its QP to the client's.
     */
    @FunctionalInterface
    public interface ServerStep
    {
        /**
         * @param remote the client's info.
         * @return the server's info to send back.
         * @throws IOException to abort the exchange.
         */
        QpInfo onClient(QpInfo remote) throws IOException;
    }

    private PingpongExchange()
    {
    }

    /**
     * Client role: connect, send ours, read the server's, send "done". The caller connects its QP to the returned
     * info before or after (the client in rc_pingpong connects after reading the server's message).
     *
     * @param host     server host.
     * @param port     server port.
     * @param local    our info.
     * @param timeout  for the connect and each read.
     * @param retryFor keep retrying the connect (and a closed-without-data connection, as QEMU's port forwarding
     *                 does before the guest listens) for this long; Duration.ZERO tries once, as ibv_rc_pingpong
     *                 does (the roce command always tries once).
     * @return the server's info.
     * @throws IOException when the exchange fails.
     */
    public static QpInfo client(
        final String host, final int port, final QpInfo local, final Duration timeout, final Duration retryFor)
        throws IOException
    {
        final long deadline = System.nanoTime() + retryFor.toNanos();
        while (true)
        {
            try (Socket socket = new Socket())
            {
                socket.setTcpNoDelay(true);
                socket.connect(new InetSocketAddress(host, port), (int)timeout.toMillis());
                socket.setSoTimeout((int)timeout.toMillis());
                final OutputStream out = socket.getOutputStream();
                out.write(PingpongMessage.encode(local));
                out.flush();
                final QpInfo remote = PingpongMessage.decode(readExactly(socket.getInputStream(),
                    PingpongMessage.LENGTH, "server's pingpong message"));
                out.write(PingpongMessage.DONE);
                out.flush();
                return remote;
            }
            catch (final EOFException | java.net.ConnectException ex)
            {
                if (System.nanoTime() - deadline >= 0)
                {
                    // pp_client_exch_dest's words: "Couldn't connect to %s:%d", "Couldn't read/write remote address".
                    throw new OobProtocolException((ex instanceof EOFException ?
                        "Couldn't read/write remote address from " : "Couldn't connect to ") + host + ":" + port +
                        ": " + ex.getMessage(), ex);
                }
                Thread.onSpinWait();
                parkBriefly();
            }
        }
    }

    /**
     * Server role on an already bound socket: accept one client, read its message, run the step, answer, read
     * "done".
     *
     * @param server  bound listening socket.
     * @param step    connects our QP to the client's and returns our info.
     * @param timeout for the accept and each read.
     * @return the client's info.
     * @throws IOException when the exchange fails.
     */
    public static QpInfo server(final ServerSocket server, final ServerStep step, final Duration timeout)
        throws IOException
    {
        server.setSoTimeout((int)timeout.toMillis());
        final Socket socket;
        try
        {
            socket = server.accept();
        }
        catch (final SocketTimeoutException ex)
        {
            throw new OobProtocolException("no pingpong client connected to port " + server.getLocalPort() +
                " within " + timeout.toMillis() + " ms", ex);
        }
        try (socket)
        {
            socket.setTcpNoDelay(true);
            socket.setSoTimeout((int)timeout.toMillis());
            final QpInfo remote = PingpongMessage.decode(readExactly(socket.getInputStream(), PingpongMessage.LENGTH,
                "client's pingpong message"));
            final QpInfo local = step.onClient(remote);
            final OutputStream out = socket.getOutputStream();
            out.write(PingpongMessage.encode(local));
            out.flush();
            final byte[] done = readExactly(socket.getInputStream(), PingpongMessage.DONE.length, "client's \"done\"");
            if (!java.util.Arrays.equals(done, PingpongMessage.DONE))
            {
                throw new OobProtocolException("expected \"done\\0\" from the client, got '" +
                    PingpongMessage.printable(new String(done, java.nio.charset.StandardCharsets.US_ASCII)) + "'");
            }
            return remote;
        }
    }

    static byte[] readExactly(final InputStream in, final int length, final String what) throws IOException
    {
        final byte[] bytes = new byte[length];
        int done = 0;
        try
        {
            while (done < length)
            {
                final int n = in.read(bytes, done, length - done);
                if (n < 0)
                {
                    if (0 == done)
                    {
                        throw new EOFException("connection closed before the " + what);
                    }
                    throw new OobProtocolException("truncated " + what + ": " + done + " of " + length + " bytes");
                }
                done += n;
            }
        }
        catch (final SocketTimeoutException ex)
        {
            throw new OobProtocolException("timed out waiting for the " + what + " (" + done + " of " + length +
                " bytes)", ex);
        }
        return bytes;
    }

    private static void parkBriefly()
    {
        // Between connect retries while a peer is not listening yet: yield the CPU for about 50 ms.
        java.util.concurrent.locks.LockSupport.parkNanos(50_000_000L);
    }
}
