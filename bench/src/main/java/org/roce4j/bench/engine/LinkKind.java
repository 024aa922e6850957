package org.roce4j.bench.engine;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;

import org.roce4j.transport.link.Link;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.transport.link.memory.MemoryFabric;
import org.roce4j.transport.link.tunnel.TunnelLink;
import org.roce4j.transport.link.udp.UdpLink;
import org.roce4j.wire.addr.Mac;
import org.roce4j.wire.header.Ipv4Header;

/**
 * The media a benchmark can run two endpoints over, all inside this JVM and on loopback:
 * <ul>
 *   <li>{@link #MEMORY}: the in-memory fabric (one copy per frame into the peer's ring);</li>
 *   <li>{@link #UDP}: two kernel UDP links on 127.0.77.1 and 127.0.77.2, port 4791 each (sendmmsg out, Netty's
 *   epoll event loop in);</li>
 *   <li>{@link #TUNNEL}: two Ethernet-over-UDP tunnel links pointing at each other on 127.0.0.1.</li>
 * </ul>
 * Every kind gets an IP MTU that gives an active IB MTU of 4096 (Mtu.forLinkMtu: the MTU less 80 bytes of RoCEv2
 * headers must hold 4096).
 */
public enum LinkKind
{
    /** The in-memory fabric. */
    MEMORY("memory"),
    /** Kernel UDP sockets on loopback. */
    UDP("udp"),
    /** Ethernet-over-UDP tunnel links on loopback. */
    TUNNEL("tunnel");

    /** IP MTU of the memory fabric ports and tunnel links: a 9000-byte jumbo frame (active IB MTU 4096). */
    public static final int JUMBO_MTU = 9000;
    /** Client address for the memory fabric and the tunnel (the tunnel's own IP, not bound). */
    private static final String CLIENT_IP = "10.77.0.1";
    /** Server address for the memory fabric and the tunnel. */
    private static final String SERVER_IP = "10.77.0.2";
    /** Loopback addresses of the udp links: an unusual 127/8 pair, so other tests on port 4791 rarely collide. */
    private static final String UDP_CLIENT_IP = "127.0.77.1";
    private static final String UDP_SERVER_IP = "127.0.77.2";

    private final String label;

    LinkKind(final String label)
    {
        this.label = label;
    }

    /**
     * @return the name used on the command line and in reports.
     */
    public String label()
    {
        return label;
    }

    /**
     * @param label as printed by {@link #label()}.
     * @return the kind.
     * @throws IllegalArgumentException naming the valid labels.
     */
    public static LinkKind of(final String label)
    {
        for (final LinkKind kind : values())
        {
            if (kind.label.equals(label))
            {
                return kind;
            }
        }
        throw new IllegalArgumentException("unknown link '" + label + "' (memory, udp, tunnel)");
    }

    /**
     * Open a connected pair of links: index 0 the client's, index 1 the server's.
     *
     * @param memoryRingBytes inbound ring size of each memory fabric port (a power of two); ignored by the others.
     * @return the two links.
     */
    public Link[] openPair(final int memoryRingBytes)
    {
        try
        {
            switch (this)
            {
                case MEMORY:
                {
                    final MemoryFabric fabric = MemoryFabric.builder().ringCapacityBytes(memoryRingBytes).build();
                    return new Link[]
                        {
                            fabric.attach(address(CLIENT_IP, 0x0A), JUMBO_MTU),
                            fabric.attach(address(SERVER_IP, 0x0B), JUMBO_MTU)
                        };
                }
                case UDP:
                {
                    final UdpLink client = UdpLink.open("udp:" + UDP_CLIENT_IP);
                    try
                    {
                        return new Link[] {client, UdpLink.open("udp:" + UDP_SERVER_IP)};
                    }
                    catch (final RuntimeException ex)
                    {
                        client.close();
                        throw ex;
                    }
                }
                default:
                {
                    final int clientPort = freeUdpPort();
                    int serverPort = freeUdpPort();
                    while (serverPort == clientPort)
                    {
                        serverPort = freeUdpPort();
                    }
                    final TunnelLink client = TunnelLink.open(tunnelSpec(clientPort, serverPort, CLIENT_IP));
                    try
                    {
                        return new Link[] {client, TunnelLink.open(tunnelSpec(serverPort, clientPort, SERVER_IP))};
                    }
                    catch (final IOException | RuntimeException ex)
                    {
                        client.close();
                        throw ex;
                    }
                }
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot open a " + label + " link pair: " + ex.getMessage(), ex);
        }
    }

    private static String tunnelSpec(final int bindPort, final int peerPort, final String ip)
    {
        return "tunnel:127.0.0.1:" + bindPort + ":127.0.0.1:" + peerPort + ",ip=" + ip + ",mtu=" + JUMBO_MTU +
            ",ring=4096";
    }

    private static LinkAddress address(final String ip, final int lastMacOctet)
    {
        return new LinkAddress(Mac.parse("02:00:00:00:77:" + String.format("%02x", lastMacOctet)),
            Ipv4Header.parseAddress(ip));
    }

    private static int freeUdpPort() throws IOException
    {
        try (DatagramSocket socket = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)))
        {
            return socket.getLocalPort();
        }
    }
}
