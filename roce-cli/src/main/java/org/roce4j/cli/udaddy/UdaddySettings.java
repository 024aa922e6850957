package org.roce4j.cli.udaddy;

import java.net.InetAddress;

import org.roce4j.wire.mad.RdmaCmServiceId;

/**
 * What one udaddy run does (udaddy.c's globals, set by its options).
 *
 * @param server       true without -s (udaddy listens), false with it.
 * @param destination  the server's address (-s); null for the server.
 * @param bind         the address to bind (-b): the server's listening address, the client's source; or null.
 * @param port         the port (-p's neighbour in udaddy.c: the service port, default 7174).
 * @param connections  -c: connections (UD service resolutions) to make or take, default 1.
 * @param messageCount -C: messages each way per connection, default 10.
 * @param messageSize  -S: bytes per message, default 100.
 * @param tos          -t: type of service, or -1 when not given.
 * @param portSpace    -p / -P: RdmaCmServiceId.PS_UDP (default) or another port space.
 * @param timeoutMs    roce4j: give up a wait after this long; 0 waits forever, as udaddy does.
 */
public record UdaddySettings(
    boolean server,
    InetAddress destination,
    InetAddress bind,
    int port,
    int connections,
    int messageCount,
    int messageSize,
    int tos,
    int portSpace,
    long timeoutMs)
{
    /** udaddy's default port. */
    public static final int DEFAULT_PORT = 7174;
    /** udaddy's default port space. */
    public static final int DEFAULT_PORT_SPACE = RdmaCmServiceId.PS_UDP;

    /**
     * @param asServer the role.
     * @param to       the server's address for a client, else null.
     * @return a copy for that role.
     */
    public UdaddySettings role(final boolean asServer, final InetAddress to)
    {
        return new UdaddySettings(asServer, to, bind, port, connections, messageCount, messageSize, tos, portSpace,
            timeoutMs);
    }

    /**
     * @param address the address to bind.
     * @return a copy binding it.
     */
    public UdaddySettings bindTo(final InetAddress address)
    {
        return new UdaddySettings(server, destination, address, port, connections, messageCount, messageSize, tos,
            portSpace, timeoutMs);
    }
}
