package org.roce4j.transport.link.udp;

import java.util.Locale;

/**
 * How a {@link UdpLink} hands datagrams to the kernel.
 */
public enum UdpSendMode
{
    /**
     * The engine thread itself calls sendmmsg(2) on the socket Netty opened, with the frames still in the link's
     * send arena (no copy, no thread hop, one system call per batch). Native transports only; the default there.
     */
    DIRECT("direct"),
    /**
     * The engine thread copies each datagram into a lock-free ring and wakes Netty's event loop, which writes them
     * all and flushes once (epoll: one sendmmsg per flush). Works on every transport; the only mode for NIO.
     */
    EVENT_LOOP("eventloop");

    private final String specName;

    UdpSendMode(final String specName)
    {
        this.specName = specName;
    }

    /**
     * @return the name used in link specs ({@code send=direct}).
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
    public static UdpSendMode fromSpecName(final String name)
    {
        final String wanted = name.trim().toLowerCase(Locale.ROOT);
        for (final UdpSendMode mode : values())
        {
            if (mode.specName.equals(wanted))
            {
                return mode;
            }
        }
        throw new IllegalArgumentException("unknown udp send mode '" + name + "': valid modes are direct, eventloop");
    }
}
