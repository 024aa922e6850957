package org.roce4j.cm.perftest;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;

import org.roce4j.cm.oob.OobProtocolException;
import org.roce4j.cm.oob.RetryDeadline;

/**
 * Opens perftest's TCP channel (ethernet_client_connect / ethernet_server_connect): the client connects to the
 * server's port (18515 by default), retrying while nothing listens yet; the server accepts one client on a bound
 * socket.
 */
public final class PerftestTcpConnector implements PerftestConnector
{
    /** perftest's default port (DEF_PORT). */
    public static final int DEFAULT_PORT = 18515;
    /** Pause between connect attempts while the server is not listening yet. */
    private static final long RETRY_PAUSE_NS = 50_000_000L;

    private final String host;
    private final int port;
    private final ServerSocket listener;
    private final boolean withGid;
    private final Duration timeout;
    private final Duration retryFor;

    private PerftestTcpConnector(
        final String host, final int port, final ServerSocket listener, final boolean withGid, final Duration timeout,
        final Duration retryFor)
    {
        this.host = host;
        this.port = port;
        this.listener = listener;
        this.withGid = withGid;
        this.timeout = timeout;
        this.retryFor = retryFor;
    }

    /**
     * @param host     the server.
     * @param port     its port.
     * @param withGid  true for QP records with GID (RoCE).
     * @param timeout  for the connect and each read.
     * @param retryFor keep retrying a refused connect this long.
     * @return a client connector.
     */
    public static PerftestTcpConnector client(
        final String host, final int port, final boolean withGid, final Duration timeout, final Duration retryFor)
    {
        return new PerftestTcpConnector(host, port, null, withGid, timeout, retryFor);
    }

    /**
     * @param listener a bound server socket (the caller owns and closes it).
     * @param withGid  true for QP records with GID (RoCE).
     * @param timeout  for the accept and each read.
     * @return a server connector.
     */
    public static PerftestTcpConnector server(final ServerSocket listener, final boolean withGid,
        final Duration timeout)
    {
        return new PerftestTcpConnector(null, listener.getLocalPort(), listener, withGid, timeout, Duration.ZERO);
    }

    /**
     * @return how long a client keeps retrying (also a peer that accepts and closes at once, see
     *     {@link PerftestSession#open}).
     */
    public Duration retryFor()
    {
        return retryFor;
    }

    /**
     * @return the connected channel.
     * @throws IOException when no connection was made in time.
     */
    public PerftestChannel connect() throws IOException
    {
        return null == listener ? connectClient() : accept();
    }

    private PerftestChannel connectClient() throws IOException
    {
        final RetryDeadline retry = RetryDeadline.after(retryFor, RETRY_PAUSE_NS);
        while (true)
        {
            final Socket socket = new Socket();
            try
            {
                socket.connect(new InetSocketAddress(host, port), (int)Math.max(1, timeout.toMillis()));
                return new PerftestTcpChannel(socket, true, withGid, timeout);
            }
            catch (final ConnectException ex)
            {
                socket.close();
                if (retry.expired())
                {
                    throw new OobProtocolException("Couldn't connect to " + host + ":" + port + ": " +
                        ex.getMessage(), ex);
                }
                retry.pause();
            }
            catch (final IOException | RuntimeException ex)
            {
                socket.close();
                throw ex;
            }
        }
    }

    private PerftestChannel accept() throws IOException
    {
        listener.setSoTimeout((int)Math.max(1, timeout.toMillis()));
        final Socket socket;
        try
        {
            socket = listener.accept();
        }
        catch (final SocketTimeoutException ex)
        {
            throw new OobProtocolException("no perftest client connected to port " + port + " within " +
                timeout.toMillis() + " ms", ex);
        }
        try
        {
            return new PerftestTcpChannel(socket, false, withGid, timeout);
        }
        catch (final IOException ex)
        {
            socket.close();
            throw ex;
        }
    }
}
