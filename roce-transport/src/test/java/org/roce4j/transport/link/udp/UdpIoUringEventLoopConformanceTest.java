package org.roce4j.transport.link.udp;

/**
 * Link conformance over kernel UDP on loopback with options
 * {@code ,transport=io_uring,send=eventloop,recv=eventloop}.
 */
class UdpIoUringEventLoopConformanceTest extends UdpConformanceBase
{
    String options()
    {
        return ",transport=io_uring,send=eventloop,recv=eventloop";
    }

    int subnet()
    {
        return 5;
    }
}
