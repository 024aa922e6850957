package org.roce4j.transport.link.udp;

import java.util.Locale;

import io.netty.channel.IoHandlerFactory;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringIoHandler;

/**
 * The Netty 4.2 transport a {@link UdpLink} runs its datagram socket on.
 */
public enum UdpTransport
{
    /** Linux epoll: recvmmsg batches on receive; the default. */
    EPOLL("epoll"),
    /** Linux io_uring: several recvmsg requests in flight on receive. */
    IO_URING("io_uring"),
    /** java.nio: portable, one datagram per read; cannot set IP_MTU_DISCOVER on JDK 17 (see {@link UdpLink}). */
    NIO("nio");

    private final String specName;

    UdpTransport(final String specName)
    {
        this.specName = specName;
    }

    /**
     * @return the name used in link specs ({@code transport=epoll}).
     */
    public String specName()
    {
        return specName;
    }

    /**
     * @return true when the transport can run on this machine.
     */
    public boolean isAvailable()
    {
        switch (this)
        {
            case EPOLL:
                return Epoll.isAvailable();
            case IO_URING:
                return IoUring.isAvailable();
            default:
                return true;
        }
    }

    /**
     * @return why the transport cannot run here (Netty's unavailability cause), or null when it can.
     */
    public Throwable unavailabilityCause()
    {
        switch (this)
        {
            case EPOLL:
                return Epoll.unavailabilityCause();
            case IO_URING:
                return IoUring.unavailabilityCause();
            default:
                return null;
        }
    }

    /**
     * @return true for the Linux native transports, whose socket accepts raw setsockopt options.
     */
    public boolean isNative()
    {
        return NIO != this;
    }

    IoHandlerFactory newIoHandlerFactory()
    {
        switch (this)
        {
            case EPOLL:
                return EpollIoHandler.newFactory();
            case IO_URING:
                return IoUringIoHandler.newFactory();
            default:
                return NioIoHandler.newFactory();
        }
    }

    /**
     * @param name as written in a spec, case-insensitive.
     * @return the transport.
     * @throws IllegalArgumentException listing the valid names when the name is unknown.
     */
    public static UdpTransport fromSpecName(final String name)
    {
        final String wanted = name.trim().toLowerCase(Locale.ROOT);
        for (final UdpTransport transport : values())
        {
            if (transport.specName.equals(wanted))
            {
                return transport;
            }
        }
        throw new IllegalArgumentException(
            "unknown udp transport '" + name + "': valid transports are epoll, io_uring, nio");
    }
}
