package org.roce4j.transport.link.udp;

/**
 * Link conformance over kernel UDP on loopback with options {@code ,transport=epoll,send=eventloop,recv=eventloop}.
 */
class UdpEpollEventLoopConformanceTest extends UdpConformanceBase
{
    String options()
    {
        return ",transport=epoll,send=eventloop,recv=eventloop";
    }

    int subnet()
    {
        return 4;
    }
}
