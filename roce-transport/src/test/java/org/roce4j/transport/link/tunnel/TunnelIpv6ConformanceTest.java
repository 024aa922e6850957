package org.roce4j.transport.link.tunnel;

/**
 * The tunnel's conformance over IPv6: both links own only IPv6 addresses and resolve each other by Neighbor
 * Discovery (solicitations to the solicited-node group, advertisements back) before traffic.
 */
class TunnelIpv6ConformanceTest extends TunnelConformanceTest
{
    protected boolean ipv6()
    {
        return true;
    }

    String firstIp()
    {
        return "fd00:78:1::1";
    }

    String secondIp()
    {
        return "fd00:78:1::2";
    }
}
