package org.roce4j.transport.link.tunnel;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.util.List;
import java.util.Map;

import org.roce4j.transport.link.Link;
import org.roce4j.transport.link.LinkConformanceSuite;
import org.roce4j.transport.link.LinkTestFrames;
import org.roce4j.wire.addr.Mac;

/**
 * Link conformance over the Ethernet-in-UDP tunnel: two tunnel links on loopback, each the other's peer (as a QEMU
 * guest's {@code -netdev dgram} and roce4j are), MTU 9000, resolving each other by ARP before traffic. The UDP
 * sockets bind two 127/8 addresses picked per process so that parallel runs on one machine do not collide; the
 * links' own IPv4 addresses exist only inside the tunnel.
 */
class TunnelConformanceTest extends LinkConformanceSuite
{
    /** UDP port both sockets bind (on different loopback addresses). */
    private static final int PORT = 4792;
    /** IP MTU of both links: jumbo, so the largest RoCEv2 frame (IB MTU 4096) fits. */
    private static final int MTU = 9000;
    private static final String FIRST_IP = "10.78.1.1";
    private static final String SECOND_IP = "10.78.1.2";

    private static String socketAddress(final int host)
    {
        final long pid = ProcessHandle.current().pid();
        return "127." + (64 + pid % 128) + "." + (200 + (pid / 128) % 4) + "." + host;
    }

    /**
     * @return the first link's own address.
     */
    String firstIp()
    {
        return FIRST_IP;
    }

    /**
     * @return the second link's own address.
     */
    String secondIp()
    {
        return SECOND_IP;
    }

    private static String spec(final int host, final int peer, final String ip)
    {
        return "tunnel:" + socketAddress(host) + ":" + PORT + ":" + socketAddress(peer) + ":" + PORT + ",ip=" + ip +
            ",mtu=" + MTU;
    }

    private static TunnelLink open(final String spec)
    {
        try
        {
            return TunnelLink.open(spec);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    protected Link openFirst()
    {
        return open(spec(1, 2, firstIp()));
    }

    protected Link openSecond()
    {
        return open(spec(2, 1, secondIp()));
    }

    protected void prepare(final Link first, final Link second)
    {
        final TunnelLink a = (TunnelLink)first;
        final TunnelLink b = (TunnelLink)second;
        a.resolve(ip(b).high(), ip(b).low());
        b.resolve(ip(a).high(), ip(a).low());
        LinkTestFrames.pollUntil(a, new LinkTestFrames.Collector(1, true), b,
            () -> Mac.NONE != a.resolvedMac(ip(b)) && Mac.NONE != b.resolvedMac(ip(a)),
            (ipv6() ? "Neighbor Discovery" : "ARP") + " resolution both ways");
    }

    protected boolean mediumMayDropUnderBurst()
    {
        // A kernel UDP socket drops datagrams when its receive buffer is full; the link counts those drops.
        return true;
    }

    protected List<BadConfiguration> badConfigurations()
    {
        return List.of(
            new BadConfiguration(Misconfiguration.ADDRESS_NOT_LOCAL, "bind address not on this machine",
                () -> TunnelLink.open("tunnel:192.0.2.1:" + PORT + ":" + socketAddress(1) + ":" + PORT +
                    ",ip=10.78.1.9"), BindException.class, "192.0.2.1 is not an address of this machine"),
            new BadConfiguration(Misconfiguration.PORT_IN_USE, "UDP port held by the second link",
                () -> TunnelLink.open(spec(2, 1, "10.78.1.9")), BindException.class,
                "UDP port " + PORT + " is already in use on " + socketAddress(2)),
            new BadConfiguration(Misconfiguration.OTHER, "unknown option",
                () -> TunnelLink.open(spec(3, 1, "10.78.1.9") + ",colour=blue"), IllegalArgumentException.class,
                "unknown option 'colour'"),
            new BadConfiguration(Misconfiguration.OTHER, "no address of its own",
                () -> TunnelLink.open("tunnel:" + socketAddress(3) + ":" + PORT + ":" + socketAddress(1) + ":" +
                    PORT), IllegalArgumentException.class, "missing option ip=IP"),
            new BadConfiguration(Misconfiguration.OTHER, "MTU beyond jumbo frames",
                () -> TunnelLink.open(spec(3, 1, "10.78.1.9").replace("mtu=" + MTU, "mtu=9217")),
                IllegalArgumentException.class, "mtu 9217 is out of range 576..9216"),
            new BadConfiguration(Misconfiguration.OTHER, "IPv6 socket with an IPv4 peer",
                () -> TunnelLink.open("tunnel:[::1]:0:" + socketAddress(1) + ":" + PORT + ",ip=10.78.1.9"),
                IllegalArgumentException.class, "use one address family"));
    }

    protected Map<Misconfiguration, String> inapplicableMisconfigurations()
    {
        // Like the udp link, the tunnel binds a UDP socket to an address; the kernel routes through whichever
        // interface holds it, so a missing interface appears as an address that is not local, checked above.
        return Map.of(Misconfiguration.UNKNOWN_INTERFACE, "a tunnel binds a UDP socket to an address and names no " +
            "interface (an absent address is ADDRESS_NOT_LOCAL)");
    }
}
