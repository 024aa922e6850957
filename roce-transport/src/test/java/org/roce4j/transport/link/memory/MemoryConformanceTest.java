package org.roce4j.transport.link.memory;

import java.util.List;
import java.util.Map;

import org.roce4j.transport.link.Link;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.transport.link.LinkConformanceSuite;
import org.roce4j.wire.addr.Mac;
import org.roce4j.wire.header.Ipv4Header;

/**
 * Link conformance over the in-memory fabric: two ports of one {@link MemoryFabric} (a fresh fabric per test), IP
 * MTU 9000 so the largest RoCEv2 frame (IB MTU 4096) fits. No faults are configured: the suite checks the medium,
 * the fault injector has its own tests.
 */
class MemoryConformanceTest extends LinkConformanceSuite
{
    /** IP MTU of both ports: jumbo, as the veth and loopback media of the other subclasses. */
    private static final int MTU = 9000;
    private static final LinkAddress FIRST = new LinkAddress(Mac.parse("02:00:00:4d:00:01"),
        Ipv4Header.parseAddress("10.78.0.1"));
    private static final LinkAddress SECOND = new LinkAddress(Mac.parse("02:00:00:4d:00:02"),
        Ipv4Header.parseAddress("10.78.0.2"));

    private final MemoryFabric fabric = new MemoryFabric();

    /**
     * @return the first port's address.
     */
    LinkAddress first()
    {
        return FIRST;
    }

    /**
     * @return the second port's address.
     */
    LinkAddress second()
    {
        return SECOND;
    }

    protected Link openFirst()
    {
        return fabric.attach(first(), MTU);
    }

    protected Link openSecond()
    {
        return fabric.attach(second(), MTU);
    }

    protected boolean mediumMayDropUnderBurst()
    {
        // The switch drops only when a destination ring is full; 10,000 small frames (144 ring bytes each) fill a
        // third of the default 4 MiB ring, so the burst must arrive whole.
        return false;
    }

    protected List<BadConfiguration> badConfigurations()
    {
        final LinkAddress otherIpSameMac = new LinkAddress(SECOND.mac(), Ipv4Header.parseAddress("10.78.0.3"));
        return List.of(
            new BadConfiguration(Misconfiguration.PORT_IN_USE, "IPv4 address of an open port",
                () -> fabric.attach(new LinkAddress(Mac.parse("02:00:00:4d:00:09"), SECOND.ipv4()), MTU),
                IllegalStateException.class, "overlaps the open port memory:10.78.0.2"),
            new BadConfiguration(Misconfiguration.PORT_IN_USE, "MAC of an open port",
                () -> fabric.attach(otherIpSameMac, MTU), IllegalStateException.class,
                "overlaps the open port memory:10.78.0.2"),
            new BadConfiguration(Misconfiguration.OTHER, "MTU below the IPv4 minimum",
                () -> fabric.attach(new LinkAddress(Mac.parse("02:00:00:4d:00:0a"),
                    Ipv4Header.parseAddress("10.78.0.10")), 67), IllegalArgumentException.class,
                "mtu 67 is outside 68..65535"),
            new BadConfiguration(Misconfiguration.OTHER, "multicast MAC",
                () -> fabric.attach(new LinkAddress(Mac.parse("01:00:5e:00:00:01"),
                    Ipv4Header.parseAddress("10.78.0.11")), MTU), IllegalArgumentException.class,
                "a port needs a unicast MAC (group bit clear)"),
            new BadConfiguration(Misconfiguration.OTHER, "ring too small for the MTU",
                () -> fabric.attach(new LinkAddress(Mac.parse("02:00:00:4d:00:0c"),
                    Ipv4Header.parseAddress("10.78.0.12")), MTU, 64 * 1024), IllegalArgumentException.class,
                "ring capacity 65536 cannot carry frames of 9018 bytes"));
    }

    protected Map<Misconfiguration, String> inapplicableMisconfigurations()
    {
        // The fabric is the whole medium: a port is attached by address, with no interface to name, and every
        // address is the fabric's own. Its "in use" case is an address another open port holds, checked above.
        return Map.of(
            Misconfiguration.UNKNOWN_INTERFACE, "a memory port is attached to the fabric by address; there is no " +
                "interface to name",
            Misconfiguration.ADDRESS_NOT_LOCAL, "the fabric has no host: any unused unicast MAC and IPv4 address " +
                "may be attached, none is foreign to it");
    }
}
