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
import java.util.ArrayList;
import java.util.List;

/**
 * The ibv_*_pingpong out-of-band exchange over TCP (default port 18515), both roles, byte-compatible with
 * rdma-core's examples (pp_client_exch_dest / pp_server_exch_dest):
 * <ol>
 *   <li>the client connects and writes its 52-byte message;</li>
 *   <li>the server reads it, moves its QP to RTR and RTS (the {@link ServerStep} callback), then writes its own
 *   message;</li>
 *   <li>the client reads it and writes {@code "done\0"}, which the server reads before it starts.</li>
 * </ol>
 * ibv_srq_pingpong makes the same exchange with {@link #SRQ_MESSAGES} messages each way, back to back, where the
 * others send one.
 * Every read and the connect have a timeout; a malformed, truncated or late message is an
 * {@link OobProtocolException} that says which.
 */
public final class PingpongExchange
{
    /** Port ibv_*_pingpong use unless -p says otherwise. */
    public static final int DEFAULT_PORT = 18515;
    /**
     * Messages ibv_srq_pingpong writes and reads each way: its MAX_QP (srq_pingpong.c), whatever -q says; the
     * entries past its QPs are all zeros.
     */
    public static final int SRQ_MESSAGES = 256;
    /** The entry of an unused QP slot in ibv_srq_pingpong's exchange: all zeros. */
    private static final QpInfo UNUSED = QpInfo.of(0, 0, 0, 0, 0);
    /** Between connect retries while a peer is not listening yet: yield the CPU for about 50 ms. */
    private static final long RETRY_PAUSE_NS = 50_000_000L;

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

    /**
     * What the server of a several-message exchange (ibv_srq_pingpong) does between reading the client's messages
     * and answering: connect its QPs to the client's.
     */
    @FunctionalInterface
    public interface MultiServerStep
    {
        /**
         * @param remote the client's entries, all of them (all-zero ones included).
         * @return the server's QPs' info to send back, at most as many entries as it received.
         * @throws IOException to abort the exchange.
         */
        List<QpInfo> onClient(List<QpInfo> remote) throws IOException;
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
        return client(host, port, List.of(local), 1, timeout, retryFor).get(0);
    }

    /**
     * Client role with several messages each way, as ibv_srq_pingpong's pp_client_exch_dest: write {@code
     * messages} messages (ours, then all-zero ones), read as many, send "done".
     *
     * @param host     server host.
     * @param port     server port.
     * @param local    our QPs' info, at most {@code messages}.
     * @param messages messages each way: 1, or {@link #SRQ_MESSAGES} for ibv_srq_pingpong.
     * @param timeout  for the connect and each read.
     * @param retryFor keep retrying the connect for this long, as {@link #client(String, int, QpInfo, Duration,
     *                 Duration)}.
     * @return the server's {@code messages} entries, all-zero ones included.
     * @throws IOException when the exchange fails.
     */
    public static List<QpInfo> client(
        final String host, final int port, final List<QpInfo> local, final int messages, final Duration timeout,
        final Duration retryFor) throws IOException
    {
        final byte[] ours = encodeAll(local, messages);
        final RetryDeadline retry = RetryDeadline.after(retryFor, RETRY_PAUSE_NS);
        while (true)
        {
            try (Socket socket = new Socket())
            {
                socket.setTcpNoDelay(true);
                socket.connect(new InetSocketAddress(host, port), (int)timeout.toMillis());
                socket.setSoTimeout((int)timeout.toMillis());
                final OutputStream out = socket.getOutputStream();
                out.write(ours);
                out.flush();
                final List<QpInfo> remote = readAll(socket.getInputStream(), messages, "server's");
                out.write(PingpongMessage.DONE);
                out.flush();
                return remote;
            }
            catch (final EOFException | java.net.ConnectException ex)
            {
                if (retry.expired())
                {
                    // pp_client_exch_dest's words: "Couldn't connect to %s:%d", "Couldn't read/write remote address".
                    throw new OobProtocolException((ex instanceof EOFException ?
                        "Couldn't read/write remote address from " : "Couldn't connect to ") + host + ":" + port +
                        ": " + ex.getMessage(), ex);
                }
                retry.pause();
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
        return server(server, remote -> List.of(step.onClient(remote.get(0))), 1, timeout).get(0);
    }

    /**
     * Server role with several messages each way, as ibv_srq_pingpong's pp_server_exch_dest: read {@code messages}
     * messages, run the step, write as many (ours, then all-zero ones), read "done".
     *
     * @param server   bound listening socket.
     * @param step     connects our QPs to the client's and returns our QPs' info (at most {@code messages}).
     * @param messages messages each way: 1, or {@link #SRQ_MESSAGES} for ibv_srq_pingpong.
     * @param timeout  for the accept and each read.
     * @return the client's {@code messages} entries, all-zero ones included.
     * @throws IOException when the exchange fails.
     */
    public static List<QpInfo> server(
        final ServerSocket server, final MultiServerStep step, final int messages, final Duration timeout)
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
            final List<QpInfo> remote = readAll(socket.getInputStream(), messages, "client's");
            final byte[] ours = encodeAll(step.onClient(remote), messages);
            final OutputStream out = socket.getOutputStream();
            out.write(ours);
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

    /**
     * Our messages back to back, the entries past {@code local} all zeros (srq_pingpong's my_dest is memset to 0,
     * so they read "0000:000000:000000:" and 32 zeros).
     */
    private static byte[] encodeAll(final List<QpInfo> local, final int messages)
    {
        if (messages < 1 || local.size() > messages)
        {
            throw new IllegalArgumentException(local.size() + " QPs do not fit in " + messages + " messages");
        }
        final byte[] bytes = new byte[messages * PingpongMessage.LENGTH];
        for (int i = 0; i < messages; i++)
        {
            final QpInfo info = i < local.size() ? local.get(i) : UNUSED;
            System.arraycopy(PingpongMessage.encode(info), 0, bytes, i * PingpongMessage.LENGTH,
                PingpongMessage.LENGTH);
        }
        return bytes;
    }

    private static List<QpInfo> readAll(final InputStream in, final int messages, final String whose)
        throws IOException
    {
        final List<QpInfo> infos = new ArrayList<>(messages);
        for (int i = 0; i < messages; i++)
        {
            final String what = whose + " pingpong message" + (1 == messages ? "" : " " + (i + 1) + " of " + messages);
            infos.add(PingpongMessage.decode(readExactly(in, PingpongMessage.LENGTH, what)));
        }
        return infos;
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

}
