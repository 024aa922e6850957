package org.roce4j.transport.link.pcap;

/**
 * The pcap link's conformance over IPv6 on the veth pair: both links own only IPv6 addresses (the kernel's IPv6 is
 * off in the namespace, so only the links answer Neighbor Solicitations) and resolve each other by Neighbor Discovery.
 */
class PcapIpv6ConformanceTest extends PcapConformanceTest
{
    protected boolean ipv6()
    {
        return true;
    }

    String firstIp()
    {
        return "fd00:77::1";
    }

    String secondIp()
    {
        return "fd00:77::2";
    }
}
