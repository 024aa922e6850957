package org.roce4j.transport.link.udp;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.opentest4j.TestAbortedException;
import org.roce4j.transport.link.Link;
import org.roce4j.transport.link.LinkConformanceSuite;
import org.roce4j.transport.link.NetworkNamespace;
import org.roce4j.transport.link.TestEnvironment;

/**
 * The link conformance suite over kernel UDP on IPv6: two links bound to two unique local addresses
 * ({@code fd00:7a::1} and {@code ::2}, on the loopback of a network namespace made for the run, without duplicate
 * address detection), opened from threads that entered it. Needs root for the namespace.
 */
class UdpIpv6ConformanceTest extends LinkConformanceSuite
{
    private static final String FIRST_IP = "fd00:7a::1";
    private static final String SECOND_IP = "fd00:7a::2";
    private static NetworkNamespace namespace;

    private static void requireEnvironment()
    {
        TestEnvironment.requireNetworkAdmin();
        TestEnvironment.requireCommand("ip");
    }

    @BeforeAll
    static void createNamespace()
    {
        try
        {
            requireEnvironment();
        }
        catch (final TestAbortedException | AssertionError ex)
        {
            // Each test skips or fails with the reason when it opens its links: Surefire does not report a
            // class-level skip.
            return;
        }
        namespace = NetworkNamespace.create("udp6");
        namespace.exec("sysctl", "-q", "-w", "net.ipv6.conf.all.disable_ipv6=0");
        namespace.exec("sysctl", "-q", "-w", "net.ipv6.conf.lo.disable_ipv6=0");
        namespace.ip("-6", "addr", "add", FIRST_IP + "/128", "dev", "lo", "nodad");
        namespace.ip("-6", "addr", "add", SECOND_IP + "/128", "dev", "lo", "nodad");
    }

    @AfterAll
    static void removeNamespace()
    {
        if (null != namespace)
        {
            namespace.close();
        }
    }

    protected boolean ipv6()
    {
        return true;
    }

    protected Link openFirst()
    {
        requireEnvironment();
        return namespace.call(() -> UdpLink.open("udp:[" + FIRST_IP + "]"));
    }

    protected Link openSecond()
    {
        return namespace.call(() -> UdpLink.open("udp:[" + SECOND_IP + "]"));
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
        return List.of(
            new BadConfiguration(Misconfiguration.ADDRESS_NOT_LOCAL, "address not local",
                () -> namespace.call(() -> UdpLink.open("udp:[fd00:dead::1]")), IllegalArgumentException.class,
                "[fd00:dead::1] is not an address of this machine"),
            new BadConfiguration(Misconfiguration.PORT_IN_USE, "port in use",
                () -> namespace.call(() -> UdpLink.open("udp:[" + SECOND_IP + "]")), IllegalStateException.class,
                "port 4791 is already in use on [" + SECOND_IP + "]"),
            new BadConfiguration(Misconfiguration.OTHER, "a multicast address",
                () -> UdpLink.open("udp:[ff02::1]"), IllegalArgumentException.class,
                "'[ff02::1]' is not a unicast address this link could own"));
    }

    protected Map<Misconfiguration, String> inapplicableMisconfigurations()
    {
        return Map.of(Misconfiguration.UNKNOWN_INTERFACE, "a udp link binds an IP address and names no " +
            "interface; the kernel picks the interface by route (an absent address is ADDRESS_NOT_LOCAL)");
    }
}
