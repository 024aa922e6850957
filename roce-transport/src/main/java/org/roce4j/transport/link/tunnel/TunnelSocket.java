package org.roce4j.transport.link.tunnel;

import java.io.IOException;
import java.net.BindException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;

import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.transport.link.LinkCounter;
import org.roce4j.transport.link.LinkCounters;
import org.roce4j.transport.link.ethernet.EthernetLayer;
import org.roce4j.transport.link.host.SocketDrops;

/**
 * The tunnel link's medium: a non-blocking UDP socket bound to {@code BIND_HOST:BIND_PORT} that sends every frame as
 * one datagram to {@code PEER_HOST:PEER_PORT} and receives the peer's, as QEMU's {@code -netdev dgram} backend does.
 * Datagrams the kernel drops for the socket (receive buffer full) are read from {@code /proc/net/udp}
 * ({@link SocketDrops}) on idle polls, at most every 100 ms, into {@link LinkCounter#RECEIVE_ERRORS}.
 */
final class TunnelSocket implements EthernetLayer.Medium
{
    /** Largest UDP payload over IPv4 (65535 - 20 IP - 8 UDP): a receive buffer this big never truncates. */
    static final int MAX_DATAGRAM_LENGTH = 65507;
    /** Socket buffers large enough for a burst of a full send ring of jumbo frames (the kernel may cap them). */
    private static final int SOCKET_BUFFER_BYTES = 4 << 20;
    /** How often idle polls add the kernel's drops for the socket to RECEIVE_ERRORS. */
    private static final long SOCKET_DROPS_PERIOD_NS = 100_000_000L;
    /** Buffers frames are sent from: the send ring, the held-frame pool, the ARP and ND frames; room to spare. */
    private static final int VIEWS = 8;

    private final DatagramChannel channel;
    private final InetSocketAddress peer;
    private final int localPort;
    private final LinkCounters counters;
    private final SocketDrops drops;
    private final UnsafeBuffer[] viewedBuffers = new UnsafeBuffer[VIEWS];
    private final ByteBuffer[] views = new ByteBuffer[VIEWS];

    private TunnelSocket(final DatagramChannel channel, final InetSocketAddress peer, final LinkCounters counters)
        throws IOException
    {
        this.channel = channel;
        this.peer = peer;
        this.counters = counters;
        final InetSocketAddress bound = (InetSocketAddress)channel.getLocalAddress();
        this.localPort = bound.getPort();
        // Opened now, on the thread that opened the socket, so it lists the socket's network namespace.
        this.drops = SocketDrops.procTable(bound);
    }

    /**
     * Open and bind the socket.
     *
     * @param config   settings.
     * @param counters the link's counters.
     * @return the socket.
     * @throws IllegalArgumentException when a host does not resolve or the families differ.
     * @throws IOException              when the socket cannot be bound; the message names the address.
     */
    static TunnelSocket open(final TunnelLinkConfig config, final LinkCounters counters) throws IOException
    {
        final InetAddress bindAddress = resolveHost("bind host", config.bindHost());
        final InetAddress peerAddress = resolveHost("peer host", config.peerHost());
        if (!(bindAddress instanceof Inet4Address) && peerAddress instanceof Inet4Address)
        {
            // An IPv6 socket could still reach an IPv4 peer through a mapped address, but QEMU's dgram backend
            // replies from the family it was given: keep both ends in one family.
            throw new IllegalArgumentException("tunnel link: bind host " + config.bindHost() + " is IPv6 but peer " +
                "host " + config.peerHost() + " is IPv4; use one address family");
        }
        final DatagramChannel channel = DatagramChannel.open(
            bindAddress instanceof Inet4Address ? StandardProtocolFamily.INET : StandardProtocolFamily.INET6);
        try
        {
            channel.configureBlocking(false);
            channel.setOption(StandardSocketOptions.SO_RCVBUF, SOCKET_BUFFER_BYTES);
            channel.setOption(StandardSocketOptions.SO_SNDBUF, SOCKET_BUFFER_BYTES);
            try
            {
                channel.bind(new InetSocketAddress(bindAddress, config.bindPort()));
            }
            catch (final BindException ex)
            {
                final BindException named = new BindException("tunnel link cannot bind UDP " +
                    config.bindHost() + ":" + config.bindPort() + ": " + bindProblem(config, ex));
                named.initCause(ex);
                throw named;
            }
            return new TunnelSocket(channel, new InetSocketAddress(peerAddress, config.peerPort()), counters);
        }
        catch (final IOException | RuntimeException ex)
        {
            try
            {
                channel.close();
            }
            catch (final IOException suppressed)
            {
                ex.addSuppressed(suppressed);
            }
            throw ex;
        }
    }

    /**
     * @return the UDP port the socket is bound to.
     */
    int localPort()
    {
        return localPort;
    }

    /** {@inheritDoc} */
    public int transmit(final UnsafeBuffer buffer, final int offset, final int length)
    {
        final ByteBuffer view = viewOf(buffer);
        view.limit(offset + length).position(offset);
        try
        {
            if (0 == channel.send(view, peer))
            {
                counters.increment(LinkCounter.SEND_BACK_PRESSURE);
                return EthernetLayer.RETRY;
            }
            return EthernetLayer.SENT;
        }
        catch (final IOException ex)
        {
            counters.increment(LinkCounter.SEND_ERRORS);
            return EthernetLayer.DROPPED;
        }
    }

    /**
     * A view of a direct buffer's memory for the channel, made once per buffer (the link's send ring, the held-frame
     * pool, the ARP and ND frame buffers: a handful in all), so sending allocates nothing.
     */
    private ByteBuffer viewOf(final UnsafeBuffer buffer)
    {
        for (int i = 0; i < VIEWS; i++)
        {
            if (viewedBuffers[i] == buffer)
            {
                return views[i];
            }
            if (null == viewedBuffers[i])
            {
                if (null == buffer.byteBuffer() || 0 != buffer.wrapAdjustment())
                {
                    throw new IllegalArgumentException("a tunnel sends frames from whole direct ByteBuffers only");
                }
                viewedBuffers[i] = buffer;
                views[i] = buffer.byteBuffer().duplicate().clear();
                return views[i];
            }
        }
        throw new IllegalStateException("a tunnel sends from at most " + VIEWS + " buffers");
    }

    /**
     * Receive one datagram without blocking.
     *
     * @param into direct buffer to receive into, cleared first.
     * @return its length (0 for an empty datagram), or -1 when none was waiting or after an I/O error (counted).
     */
    int receive(final ByteBuffer into)
    {
        into.clear();
        final SocketAddress source;
        try
        {
            source = channel.receive(into);
        }
        catch (final IOException ex)
        {
            if (channel.isOpen())
            {
                counters.increment(LinkCounter.RECEIVE_ERRORS);
            }
            return -1;
        }
        return null == source ? -1 : into.position();
    }

    /**
     * Add the kernel's drops for the socket to RECEIVE_ERRORS, at most every 100 ms: reading /proc walks every UDP
     * socket, so only idle polls call this.
     *
     * @param nowNs current time.
     */
    void countDrops(final long nowNs)
    {
        if (null != drops)
        {
            drops.countInto(counters, nowNs, SOCKET_DROPS_PERIOD_NS);
        }
    }

    /**
     * Close the socket.
     */
    void close()
    {
        try
        {
            channel.close();
        }
        catch (final IOException ignore)
        {
            // Closing a datagram socket cannot lose data; nothing to report.
        }
        if (null != drops)
        {
            drops.close();
        }
    }

    /**
     * Say what a failed bind means in the user's terms, keeping the kernel's words in brackets.
     */
    private static String bindProblem(final TunnelLinkConfig config, final BindException ex)
    {
        final String message = String.valueOf(ex.getMessage());
        if (message.contains("Cannot assign requested address"))
        {
            // EADDRNOTAVAIL: no interface of this machine (of this network namespace) holds the bind address.
            return config.bindHost() + " is not an address of this machine (" + message + ")";
        }
        if (message.contains("Address already in use"))
        {
            return "UDP port " + config.bindPort() + " is already in use on " + config.bindHost() +
                " (another link, a QEMU guest or another program holds it) (" + message + ")";
        }
        return message;
    }

    private static InetAddress resolveHost(final String what, final String host)
    {
        try
        {
            return InetAddress.getByName(host);
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalArgumentException("tunnel link: " + what + " '" + host + "' is not a known address", ex);
        }
    }
}
