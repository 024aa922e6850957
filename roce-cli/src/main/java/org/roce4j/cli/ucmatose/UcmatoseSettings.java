package org.roce4j.cli.ucmatose;

import java.net.InetAddress;

/**
 * What one ucmatose run does (cmatose.c's globals, set by its options).
 *
 * @param server       true without -s (cmatose listens), false with it.
 * @param destination  the server's address (-s); null for the server.
 * @param bind         the address to bind (-b): the server's listening address; or null (any).
 * @param port         -p: the port, default 7471.
 * @param connections  -c: connections to make or take, default 1.
 * @param messageCount -C: messages each way per connection, default 10.
 * @param messageSize  -S: bytes per message, default 100.
 * @param tos          -t: type of service, or -1 when not given.
 * @param ackTimeout   -a: the ACK timeout asked for, or -1 when not given.
 * @param timeoutMs    roce4j: give up a wait after this long; 0 waits forever, as cmatose does.
 */
public record UcmatoseSettings(
    boolean server,
    InetAddress destination,
    InetAddress bind,
    int port,
    int connections,
    int messageCount,
    int messageSize,
    int tos,
    int ackTimeout,
    long timeoutMs)
{
    /** cmatose's default port ("7471"). */
    public static final int DEFAULT_PORT = 7471;

    /**
     * @param asServer the role.
     * @param to       the server's address for a client, else null.
     * @param address  the address to bind, or null.
     * @return a copy for that role.
     */
    public UcmatoseSettings role(final boolean asServer, final InetAddress to, final InetAddress address)
    {
        return new UcmatoseSettings(asServer, to, address, port, connections, messageCount, messageSize, tos,
            ackTimeout, timeoutMs);
    }
}
