package org.roce4j.transport.link.pcap;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.opentest4j.TestAbortedException;
import org.roce4j.transport.link.Link;
import org.roce4j.transport.link.LinkConformanceSuite;
import org.roce4j.transport.link.NetworkNamespace;
import org.roce4j.transport.link.TestEnvironment;
import org.roce4j.transport.link.LinkTestFrames;
import org.roce4j.transport.link.ethernet.NeighbourState;

/**
 * Link conformance over raw Ethernet: two pcap links on the two ends of a veth pair (MTU 9000) inside a network
 * namespace made for the run, opened from threads that entered it. Their addresses exist only as the links'
 * own identities inside that namespace.
 */
class PcapConformanceTest extends LinkConformanceSuite
{
    private static final String FIRST_END = "rcv0";
    private static final String SECOND_END = "rcv1";
    private static final String FIRST_IP = "10.77.0.1";
    private static final String SECOND_IP = "10.77.0.2";
    private static NetworkNamespace namespace;

    /**
     * Skip (or, with ROCE4J_REQUIRE_TOOLS=1, fail) unless the machine has root, ip and libpcap.
     */
    private static void requireEnvironment()
    {
        TestEnvironment.requireNetworkAdmin();
        TestEnvironment.requireCommand("ip");
        TestEnvironment.requireLibpcap();
    }

    @BeforeAll
    static void createVethPair()
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
        namespace = NetworkNamespace.create("conf");
        namespace.addVethPair(FIRST_END, SECOND_END, 9000);
    }

    @AfterAll
    static void removeNamespace()
    {
        if (null != namespace)
        {
            namespace.close();
        }
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

    protected Link openFirst()
    {
        requireEnvironment();
        return namespace.call(() -> PcapLink.open("pcap:" + FIRST_END + ",ip=" + firstIp()));
    }

    protected Link openSecond()
    {
        return namespace.call(() -> PcapLink.open("pcap:" + SECOND_END + ",ip=" + secondIp()));
    }

    protected void prepare(final Link first, final Link second)
    {
        final PcapLink a = (PcapLink)first;
        final PcapLink b = (PcapLink)second;
        a.resolve(ip(b).high(), ip(b).low());
        b.resolve(ip(a).high(), ip(a).low());
        LinkTestFrames.pollUntil(a, new LinkTestFrames.Collector(1, true), b,
            () -> NeighbourState.REACHABLE == a.neighbourState(ip(b)) &&
            NeighbourState.REACHABLE == b.neighbourState(ip(a)),
            (ipv6() ? "Neighbor Discovery" : "ARP") + " resolution both ways");
    }

    protected boolean mediumMayDropUnderBurst()
    {
        // libpcap's kernel ring can overflow if the reader thread is descheduled; drops are counted (pcap_stats).
        return true;
    }

    protected List<BadConfiguration> badConfigurations()
    {
        return List.of(
            new BadConfiguration(Misconfiguration.UNKNOWN_INTERFACE, "unknown interface",
                () -> namespace.call(() -> PcapLink.open("pcap:nosuch0,ip=10.77.0.9")), IllegalArgumentException.class,
                "unknown interface 'nosuch0'; interfaces here: "),
            new BadConfiguration(Misconfiguration.OTHER, "no address given, none on the interface",
                () -> namespace.call(() -> PcapLink.open("pcap:" + FIRST_END)), IllegalArgumentException.class,
                "interface " + FIRST_END + " has 0 IPv4 addresses; say which address the link owns with ip="),
            new BadConfiguration(Misconfiguration.OTHER, "bad MAC",
                () -> PcapLink.open("pcap:" + FIRST_END + ",mac=01:02:03"), IllegalArgumentException.class,
                "not a MAC address"),
            new BadConfiguration(Misconfiguration.OTHER, "multicast MAC",
                () -> PcapLink.open("pcap:" + FIRST_END + ",mac=01:00:5e:00:00:01"), IllegalArgumentException.class,
                "is a multicast address"),
            new BadConfiguration(Misconfiguration.OTHER, "unknown option",
                () -> PcapLink.open("pcap:" + FIRST_END + ",vlan=3"), IllegalArgumentException.class,
                "unknown option 'vlan' (valid: ip, mac, arp-retries, arp-interval-ms, arp-queue, neighbours)"));
    }

    protected Map<Misconfiguration, String> inapplicableMisconfigurations()
    {
        // A pcap link is a separate host on the wire: its IP is its own identity (it answers ARP for it), not an
        // address of the machine; and a capture reserves no port, so nothing can be "in use".
        return Map.of(
            Misconfiguration.ADDRESS_NOT_LOCAL, "a pcap link owns its IP as a separate NIC would; the address " +
                "need not be (and usually is not) configured on the interface",
            Misconfiguration.PORT_IN_USE, "raw capture reserves no port: any number of pcap handles (other links, " +
                "tcpdump) may share an interface");
    }
}
