package org.roce4j.cli;

import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/**
 * The TCP listener of the out-of-band exchanges (pingpong and perf servers), bound as ibv_rc_pingpong and perftest
 * bind theirs (SO_REUSEADDR, any address, backlog 1), with their wording when the port is taken.
 */
final class TcpListener
{
    private TcpListener()
    {
    }

    /**
     * @param port the -p port.
     * @return the bound listener.
     * @throws IOException {@code Couldn't listen to port N: Address already in use (...)} as the C tools say it,
     *                     naming the port and the option that changes it.
     */
    static ServerSocket bind(final int port) throws IOException
    {
        final ServerSocket listener = new ServerSocket();
        try
        {
            listener.setReuseAddress(true);
            listener.bind(new InetSocketAddress(port), 1);
            return listener;
        }
        catch (final BindException ex)
        {
            listener.close();
            throw new IOException("Couldn't listen to port " + port + ": " + ex.getMessage() + " (another program " +
                "listens on it; choose another port with -p, on both sides)", ex);
        }
        catch (final IOException ex)
        {
            listener.close();
            throw new IOException("Couldn't listen to port " + port + ": " + ex.getMessage(), ex);
        }
    }
}
