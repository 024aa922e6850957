package org.roce4j.transport.link.udp;

/**
 * Link conformance over kernel UDP on loopback with options {@code ,transport=io_uring}.
 */
class UdpIoUringConformanceTest extends UdpConformanceBase
{
    String options()
    {
        return ",transport=io_uring";
    }

    int subnet()
    {
        return 2;
    }
}
