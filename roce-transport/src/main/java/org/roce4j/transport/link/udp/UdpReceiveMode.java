package org.roce4j.transport.link.udp;

import java.util.Locale;

/**
 * How a {@link UdpLink} takes datagrams from the kernel.
 */
public enum UdpReceiveMode
{
    /**
     * The engine thread itself calls recvmmsg(2) (non-blocking) on the socket Netty opened, from {@link
     * UdpLink#poll}, straight into the link's receive arena behind room for the synthetic headers: no thread hop,
     * one copy (the kernel's), one system call per batch. Netty's event loop does not read. Native transports only;
     * the default there.
     */
    DIRECT("direct"),
    /**
     * Netty's event loop reads (epoll: recvmmsg; io_uring: recvmsg requests in flight) and copies each datagram
     * into a lock-free ring that {@link UdpLink#poll} drains. Works on every transport; the only mode for NIO.
     */
    EVENT_LOOP("eventloop");

    private final String specName;

    UdpReceiveMode(final String specName)
    {
        this.specName = specName;
    }

    /**
     * @return the name used in link specs ({@code recv=direct}).
     */
    public String specName()
    {
        return specName;
    }

    /**
     * @param name as written in a spec, case-insensitive.
     * @return the mode.
     * @throws IllegalArgumentException listing the valid names when the name is unknown.
     */
    public static UdpReceiveMode fromSpecName(final String name)
    {
        final String wanted = name.trim().toLowerCase(Locale.ROOT);
        for (final UdpReceiveMode mode : values())
        {
            if (mode.specName.equals(wanted))
            {
                return mode;
            }
        }
        throw new IllegalArgumentException("unknown udp receive mode '" + name +
            "': valid modes are direct, eventloop");
    }
}
