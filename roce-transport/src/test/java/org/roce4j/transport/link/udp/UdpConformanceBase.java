package org.roce4j.transport.link.udp;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.roce4j.transport.link.Link;
import org.roce4j.transport.link.LinkConformanceSuite;

/**
 * The link conformance suite over kernel UDP on loopback: two links on two 127/8 addresses (the kernel accepts
 * every 127/8 address on lo), both on port 4791. The addresses are picked per process and per subclass so that
 * parallel runs on one machine do not collide.
 */
abstract class UdpConformanceBase extends LinkConformanceSuite
{
    /**
     * @return the spec options after the address, e.g. {@code ,transport=epoll}.
     */
    abstract String options();

    /**
     * @return a number 0..63 distinct per subclass, part of the addresses.
     */
    abstract int subnet();

    final String address(final int host)
    {
        final long pid = ProcessHandle.current().pid();
        return "127." + (64 + (pid % 128)) + "." + (subnet() * 4 + (int)((pid / 128) % 4)) + "." + host;
    }

    protected Link openFirst()
    {
        return UdpLink.open("udp:" + address(1) + options());
    }

    protected Link openSecond()
    {
        return UdpLink.open("udp:" + address(2) + options());
    }

    protected int sourcePortOnArrival(final Link sender, final int sentPort)
    {
        return ((UdpLink)sender).port();
    }

    protected boolean mediumMayDropUnderBurst()
    {
        // The kernel drops datagrams when a socket's receive buffer is full; the link counts them (SO_MEMINFO).
        return true;
    }

    protected List<BadConfiguration> badConfigurations()
    {
        final List<BadConfiguration> cases = new ArrayList<>();
        cases.add(new BadConfiguration(Misconfiguration.OTHER, "unknown transport",
            () -> UdpLink.open("udp:" + address(3) + ",transport=dpdk"), IllegalArgumentException.class,
            "valid transports are epoll, io_uring, nio"));
        cases.add(new BadConfiguration(Misconfiguration.ADDRESS_NOT_LOCAL, "address not local",
            () -> UdpLink.open("udp:192.0.2.1" + options()), IllegalArgumentException.class,
            "192.0.2.1 is not an address of this machine"));
        cases.add(new BadConfiguration(Misconfiguration.PORT_IN_USE, "port in use",
            () -> UdpLink.open("udp:" + address(2) + options()), IllegalStateException.class,
            "port 4791 is already in use on " + address(2)));
        cases.add(new BadConfiguration(Misconfiguration.OTHER, "unknown option",
            () -> UdpLink.open("udp:" + address(3) + ",colour=blue"), IllegalArgumentException.class,
            "unknown option 'colour' (valid: port, transport, send, recv, icrc)"));
        cases.add(new BadConfiguration(Misconfiguration.OTHER, "not an address",
            () -> UdpLink.open("udp:127.0.0.300"), IllegalArgumentException.class, "is not an IPv4 or IPv6 address"));
        return cases;
    }

    protected Map<Misconfiguration, String> inapplicableMisconfigurations()
    {
        // udp:IP names no interface: the socket binds an address and the kernel routes through whichever
        // interface holds it, so "unknown interface" shows up as "address not local", checked above.
        return Map.of(Misconfiguration.UNKNOWN_INTERFACE, "a udp link binds an IP address and names no " +
            "interface; the kernel picks the interface by route (an absent address is ADDRESS_NOT_LOCAL)");
    }
}
