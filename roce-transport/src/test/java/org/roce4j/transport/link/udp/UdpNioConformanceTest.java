package org.roce4j.transport.link.udp;

/**
 * Link conformance over kernel UDP on loopback with options {@code ,transport=nio,icrc=unverified}.
 */
class UdpNioConformanceTest extends UdpConformanceBase
{
    String options()
    {
        return ",transport=nio,icrc=unverified";
    }

    int subnet()
    {
        return 3;
    }
}
