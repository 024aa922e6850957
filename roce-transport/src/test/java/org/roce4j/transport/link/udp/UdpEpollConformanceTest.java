package org.roce4j.transport.link.udp;

/**
 * Link conformance over kernel UDP on loopback with options {@code ,transport=epoll}.
 */
class UdpEpollConformanceTest extends UdpConformanceBase
{
    String options()
    {
        return ",transport=epoll";
    }

    int subnet()
    {
        return 1;
    }
}
