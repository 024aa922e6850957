package org.roce4j.testcontainers;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The host side of an rxe peer: free ports on 127.0.0.1 for a guest's NIC, forwards and consoles, and the end of a
 * log for a message.
 */
public final class Host
{
    private Host()
    {
    }

    /**
     * A free UDP port on 127.0.0.1 (free when probed; another process could take it before use).
     *
     * @return the port.
     * @throws IOException when no socket can be opened.
     */
    public static int freeUdpPort() throws IOException
    {
        try (DatagramChannel probe = DatagramChannel.open())
        {
            probe.bind(new InetSocketAddress("127.0.0.1", 0));
            return ((InetSocketAddress)probe.getLocalAddress()).getPort();
        }
    }

    /**
     * A free TCP port on 127.0.0.1 (free when probed).
     *
     * @return the port.
     * @throws IOException when no socket can be opened.
     */
    public static int freeTcpPort() throws IOException
    {
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            return probe.getLocalPort();
        }
    }

    /**
     * @param file  a text file.
     * @param lines how many.
     * @return its last lines, or a note that it cannot be read.
     */
    public static String tail(final Path file, final int lines)
    {
        try
        {
            final List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        }
        catch (final IOException ex)
        {
            return "(cannot read " + file + ": " + ex + ")";
        }
    }
}
