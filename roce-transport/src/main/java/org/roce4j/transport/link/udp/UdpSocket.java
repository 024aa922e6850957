package org.roce4j.transport.link.udp;

import java.lang.reflect.Field;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.SocketOption;
import java.util.concurrent.TimeUnit;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelOption;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.socket.SocketProtocolFamily;
import io.netty.channel.socket.nio.NioChannelOption;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.unix.Errors;
import io.netty.channel.unix.FileDescriptor;
import io.netty.channel.unix.IntegerUnixChannelOption;
import io.netty.channel.unix.Socket;
import io.netty.channel.uring.IoUringChannelOption;
import io.netty.channel.uring.IoUringDatagramChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.roce4j.transport.link.host.SocketDrops;

/**
 * Socket setup of the {@link UdpLink}: which transport and which send and receive modes run, the Netty channel and
 * its event loop, the socket options that make the kernel send what the ICRC can predict, the bind and what a failed
 * bind means, and the native descriptor the direct paths use.
 *
 * <p>Options on native transports: IPv4 {@code IP_MTU_DISCOVER = IP_PMTUDISC_DO} (DF and IPv4 ID 0); IPv6
 * {@code IPV6_MTU_DISCOVER = IPV6_PMTUDISC_DO}, {@code IPV6_AUTOFLOWLABEL = 0} (flow label 0, as rxe sends) and
 * {@code UDP_NO_CHECK6_RX = 1} (accept UDP checksum 0 over IPv6, as rxe's own socket does: rxe and roce4j's raw links
 * send RoCEv2 with checksum 0, which the ICRC supersedes); socket buffers of 8 MiB (forced past
 * net.core.[rw]mem_max when root). JDK 17 cannot set IP_MTU_DISCOVER on a NIO socket; the NIO transport sets
 * {@code jdk.net.ExtendedSocketOptions.IP_DONTFRAGMENT} where it exists (JDK 19+) and refuses to start without it
 * unless the spec says {@code icrc=unverified}; over IPv6 NIO cannot accept checksum 0, which is logged.
 */
final class UdpSocket
{
    private static final System.Logger LOG = System.getLogger(UdpSocket.class.getName());

    /** Datagrams per recvmmsg call (epoll) or recvmsg requests in flight (io_uring), event-loop receive mode. */
    static final int RECEIVE_BATCH = 32;
    /** Datagrams read per event-loop wake-up before Netty checks other work. */
    private static final int MAX_MESSAGES_PER_READ = 1024;
    /** Socket send and receive buffers asked for (granted above net.core.[rw]mem_max only to root). */
    private static final int SOCKET_BUFFER_BYTES = 8 << 20;

    /** IPPROTO_IP (netinet/in.h). */
    static final int IPPROTO_IP = 0;
    /** IPPROTO_IPV6 (netinet/in.h). */
    static final int IPPROTO_IPV6 = 41;
    /** IPPROTO_UDP (netinet/in.h). */
    private static final int IPPROTO_UDP = 17;
    /** IP_MTU_DISCOVER (linux/in.h). */
    private static final int IP_MTU_DISCOVER = 10;
    /** IPV6_MTU_DISCOVER (linux/in6.h). */
    private static final int IPV6_MTU_DISCOVER = 23;
    /** IPV6_AUTOFLOWLABEL (linux/in6.h). */
    private static final int IPV6_AUTOFLOWLABEL = 70;
    /** UDP_NO_CHECK6_RX (linux/udp.h): accept UDP checksum 0 over IPv6. */
    private static final int UDP_NO_CHECK6_RX = 102;
    /** IP_PMTUDISC_DO and IPV6_PMTUDISC_DO (linux/in.h, in6.h): always DF, never fragment; IPv4 ID 0 then. */
    private static final int PMTUDISC_DO = 2;
    /** SOL_SOCKET (asm-generic/socket.h). */
    private static final int SOL_SOCKET = 1;
    /** SO_SNDBUFFORCE (asm-generic/socket.h): SO_SNDBUF beyond wmem_max, CAP_NET_ADMIN only. */
    private static final int SO_SNDBUFFORCE = 32;
    /** SO_RCVBUFFORCE (asm-generic/socket.h): SO_RCVBUF beyond rmem_max, CAP_NET_ADMIN only. */
    private static final int SO_RCVBUFFORCE = 33;
    /** EADDRINUSE on Linux (asm-generic/errno.h). */
    private static final int EADDRINUSE = 98;
    /** EADDRNOTAVAIL on Linux (asm-generic/errno.h). */
    private static final int EADDRNOTAVAIL = 99;

    private static final IntegerUnixChannelOption IP_MTU_DISCOVER_OPTION =
        new IntegerUnixChannelOption("IP_MTU_DISCOVER", IPPROTO_IP, IP_MTU_DISCOVER);
    private static final IntegerUnixChannelOption IPV6_MTU_DISCOVER_OPTION =
        new IntegerUnixChannelOption("IPV6_MTU_DISCOVER", IPPROTO_IPV6, IPV6_MTU_DISCOVER);
    private static final IntegerUnixChannelOption IPV6_AUTOFLOWLABEL_OPTION =
        new IntegerUnixChannelOption("IPV6_AUTOFLOWLABEL", IPPROTO_IPV6, IPV6_AUTOFLOWLABEL);
    private static final IntegerUnixChannelOption UDP_NO_CHECK6_RX_OPTION =
        new IntegerUnixChannelOption("UDP_NO_CHECK6_RX", IPPROTO_UDP, UDP_NO_CHECK6_RX);
    private static final IntegerUnixChannelOption SO_RCVBUFFORCE_OPTION =
        new IntegerUnixChannelOption("SO_RCVBUFFORCE", SOL_SOCKET, SO_RCVBUFFORCE);
    private static final IntegerUnixChannelOption SO_SNDBUFFORCE_OPTION =
        new IntegerUnixChannelOption("SO_SNDBUFFORCE", SOL_SOCKET, SO_SNDBUFFORCE);

    private final UdpLinkConfig config;
    private final UdpTransport transport;
    private final UdpSendMode sendMode;
    private final UdpReceiveMode receiveMode;
    private final MultiThreadIoEventLoopGroup group;
    private final String name;
    private Channel channel;
    private int fd = -1;
    private int maxPayloadLength;
    /** The bound address's interface (IPv6; 0 for IPv4, whose requests name the interface by the bound address). */
    private int interfaceIndex;

    private UdpSocket(final UdpLinkConfig config, final UdpTransport transport, final UdpSendMode sendMode,
        final UdpReceiveMode receiveMode, final String name)
    {
        this.config = config;
        this.transport = transport;
        this.sendMode = sendMode;
        this.receiveMode = receiveMode;
        this.name = name;
        this.group = new MultiThreadIoEventLoopGroup(
            1, new DefaultThreadFactory("roce4j-" + name, true), transport.newIoHandlerFactory());
    }

    /**
     * Decide the transport and modes for a spec, refusing combinations that cannot work; no socket yet.
     *
     * @param config the spec.
     * @return the socket to {@link #start}.
     * @throws IllegalArgumentException or IllegalStateException naming what cannot run here.
     */
    static UdpSocket plan(final UdpLinkConfig config)
    {
        final UdpTransport transport = resolveTransport(config);
        final UdpSendMode sendMode = resolveSendMode(config, transport);
        final UdpReceiveMode receiveMode = resolveReceiveMode(config, transport);
        if (UdpTransport.NIO == transport && null == ipDontFragmentOption() && !config.allowUnmatchedIcrc() &&
            !config.ipv6())
        {
            throw new IllegalStateException("udp link " + config.spec() + ": the NIO transport cannot set " +
                "IP_MTU_DISCOVER on Java " + Runtime.version().feature() + " (jdk.net.ExtendedSocketOptions." +
                "IP_DONTFRAGMENT needs Java 19+), so the kernel would write IPv4 IDs the ICRC cannot predict and " +
                "peers that check ICRCs (rxe) would drop every frame. Use transport=epoll or io_uring, run on " +
                "Java 19+, or add icrc=unverified for peers that do not check ICRCs.");
        }
        return new UdpSocket(config, transport, sendMode, receiveMode,
            "udp:" + config.addressText() + ":" + config.port() + "/" + transport.specName());
    }

    /**
     * Register, configure and bind the channel.
     *
     * @param handler              the event loop's inbound handler (event-loop receive mode, write errors).
     * @param maxPayloadLength     the largest UDP payload the link carries.
     * @throws IllegalArgumentException when the address is not local.
     * @throws IllegalStateException    when the port is in use or the channel cannot be set up.
     */
    void start(final ChannelHandler handler, final int maxPayloadLength)
    {
        final Channel newChannel = newChannel();
        this.channel = newChannel;
        final ChannelFuture registration = new Bootstrap()
            .group(group)
            .channelFactory(() -> newChannel)
            .handler(handler)
            .register()
            .awaitUninterruptibly();
        if (!registration.isSuccess())
        {
            throw new IllegalStateException("udp link " + name + ": cannot register the channel: " +
                registration.cause(), registration.cause());
        }
        this.maxPayloadLength = maxPayloadLength;
        configure(channel, maxPayloadLength);
        warmUpReceiveBuffers(maxPayloadLength);
        final ChannelFuture bound = channel.bind(new InetSocketAddress(config.address().toInetAddress(),
            config.port())).awaitUninterruptibly();
        if (!bound.isSuccess())
        {
            throw bindFailure(bound.cause());
        }
        if (UdpSendMode.DIRECT == sendMode || UdpReceiveMode.DIRECT == receiveMode)
        {
            fd = nativeSocket(channel).intValue();
        }
        if (transport.isNative())
        {
            interfaceIndex = UdpMulticast.interfaceIndex(config);
            UdpMulticast.sendFromBoundInterface(channel, config, interfaceIndex);
        }
    }

    /**
     * Set the options of the link's socket on a channel (the link's, or a group's).
     *
     * @param channel          registered, not bound.
     * @param maxPayloadLength the largest UDP payload the link carries.
     */
    void configure(final Channel channel, final int maxPayloadLength)
    {
        final int slot = maxPayloadLength + 1;
        if (transport.isNative())
        {
            if (config.ipv6())
            {
                setChecked(channel, IPV6_MTU_DISCOVER_OPTION, PMTUDISC_DO);
                setChecked(channel, IPV6_AUTOFLOWLABEL_OPTION, 0);
                setChecked(channel, UDP_NO_CHECK6_RX_OPTION, 1);
            }
            else
            {
                setChecked(channel, IP_MTU_DISCOVER_OPTION, PMTUDISC_DO);
            }
            setBufferSize(channel, SO_RCVBUFFORCE_OPTION, ChannelOption.SO_RCVBUF);
            setBufferSize(channel, SO_SNDBUFFORCE_OPTION, ChannelOption.SO_SNDBUF);
            // One byte more than the largest datagram: a datagram that fills its slot was truncated.
            channel.config().setOption(UdpTransport.EPOLL == transport ?
                EpollChannelOption.MAX_DATAGRAM_PAYLOAD_SIZE : IoUringChannelOption.MAX_DATAGRAM_PAYLOAD_SIZE, slot);
            channel.config().setRecvByteBufAllocator(
                new FixedRecvByteBufAllocator(slot * RECEIVE_BATCH).maxMessagesPerRead(MAX_MESSAGES_PER_READ));
            if (UdpReceiveMode.DIRECT == receiveMode)
            {
                // The engine thread reads with recvmmsg; the event loop must not compete for datagrams.
                channel.config().setAutoRead(false);
            }
            return;
        }
        final SocketOption<Boolean> dontFragment = ipDontFragmentOption();
        if (config.ipv6())
        {
            LOG.log(System.Logger.Level.WARNING, "udp link {0}: NIO cannot set UDP_NO_CHECK6_RX, so the kernel " +
                "drops IPv6 datagrams with UDP checksum 0 (rxe and roce4j's raw links send them); use epoll", name);
        }
        else if (null != dontFragment)
        {
            channel.config().setOption(NioChannelOption.of(dontFragment), Boolean.TRUE);
        }
        else
        {
            LOG.log(System.Logger.Level.WARNING, "udp link {0}: icrc=unverified: NIO on Java {1} cannot set " +
                "IP_MTU_DISCOVER; outgoing ICRCs will not match the IPv4 IDs the kernel writes", name,
                Runtime.version().feature());
        }
        channel.config().setOption(ChannelOption.SO_RCVBUF, SOCKET_BUFFER_BYTES);
        channel.config().setOption(ChannelOption.SO_SNDBUF, SOCKET_BUFFER_BYTES);
        channel.config().setRecvByteBufAllocator(
            new FixedRecvByteBufAllocator(slot).maxMessagesPerRead(MAX_MESSAGES_PER_READ));
    }

    private void setChecked(final Channel channel, final IntegerUnixChannelOption option, final int value)
    {
        channel.config().setOption(option, value);
        final Integer check = channel.config().getOption(option);
        if (null == check || value != check)
        {
            throw new IllegalStateException("udp link " + name + ": " + option.name() + " reads back " + check +
                " after setting " + value);
        }
    }

    /**
     * Allocate and free one receive buffer on the event loop before any datagram can arrive. Netty 4.2's adaptive
     * allocator reports chunk allocations as JFR events, so the first allocation in a JVM loads and registers
     * jdk.jfr's event metadata (io.netty.buffer.AllocateChunkEvent), whether or not a recording runs. Done by the
     * first read, that took 1 to 2.3 s on a busy two-core machine, during which no datagram reached the engine and
     * the peer (rxe, or another roce4j) retransmitted the first message of every connection 10 to 30 times (seen in
     * TapPingpongWithRxeTest's captures, explained by -Xlog:class+load). Done here, the cost is paid while opening.
     */
    private void warmUpReceiveBuffers(final int maxPayloadLength)
    {
        final int bytes = transport.isNative() ? (maxPayloadLength + 1) * RECEIVE_BATCH : maxPayloadLength + 1;
        channel.eventLoop().submit(() -> channel.alloc().directBuffer(bytes).release()).awaitUninterruptibly();
    }

    private static void setBufferSize(final Channel channel, final IntegerUnixChannelOption force,
        final ChannelOption<Integer> plain)
    {
        try
        {
            channel.config().setOption(force, SOCKET_BUFFER_BYTES);
        }
        catch (final RuntimeException ex)
        {
            // Not root (no CAP_NET_ADMIN): the kernel caps the size at net.core.[rw]mem_max.
            channel.config().setOption(plain, SOCKET_BUFFER_BYTES);
        }
    }

    /**
     * @return a new channel of the link's transport and IP version; its socket lives in the calling thread's network
     *     namespace.
     */
    Channel newChannel()
    {
        final SocketProtocolFamily family = config.ipv6() ? SocketProtocolFamily.INET6 : SocketProtocolFamily.INET;
        switch (transport)
        {
            case EPOLL:
                return new EpollDatagramChannel(family);
            case IO_URING:
                return new IoUringDatagramChannel(family);
            default:
                return new NioDatagramChannel(family);
        }
    }

    /**
     * @param groupChannel a channel from {@link UdpMulticast#openGroup}.
     * @return its native descriptor.
     */
    static int fdOf(final Channel groupChannel)
    {
        return nativeSocket(groupChannel).intValue();
    }

    /**
     * @return the native socket (epoll or io_uring).
     */
    FileDescriptor nativeSocket()
    {
        return nativeSocket(channel);
    }

    private static FileDescriptor nativeSocket(final Channel channel)
    {
        if (channel instanceof EpollDatagramChannel)
        {
            return ((EpollDatagramChannel)channel).fd();
        }
        return ((IoUringDatagramChannel)channel).fd();
    }

    /**
     * @return a reader of the kernel's drops for the socket (SO_MEMINFO), or null on NIO.
     */
    SocketDrops drops()
    {
        if (!transport.isNative())
        {
            return null;
        }
        final FileDescriptor socket = nativeSocket();
        return SocketDrops.soMeminfo((level, option, out) ->
        {
            if (socket instanceof Socket && socket.isOpen())
            {
                ((Socket)socket).getRawOpt(level, option, out);
            }
        });
    }

    private RuntimeException bindFailure(final Throwable cause)
    {
        final String where = config.addressText() + ":" + config.port();
        final int errno = errnoOf(cause);
        final String message = String.valueOf(null == cause ? null : cause.getMessage());
        if (EADDRNOTAVAIL == errno || message.contains("Cannot assign requested address"))
        {
            return new IllegalArgumentException("udp link " + config.spec() + ": cannot bind " + where +
                ": " + config.addressText() + " is not an address of this machine (" + message + ")", cause);
        }
        if (EADDRINUSE == errno || message.contains("Address already in use"))
        {
            return new IllegalStateException("udp link " + config.spec() + ": cannot bind " + where +
                ": port " + config.port() + " is already in use on " + config.addressText() +
                " (another roce4j link, rdma_rxe or another program holds it)", cause);
        }
        return new IllegalStateException("udp link " + config.spec() + ": cannot bind " + where + ": " + message,
            cause);
    }

    private static int errnoOf(final Throwable cause)
    {
        for (Throwable t = cause; null != t; t = t.getCause())
        {
            if (t instanceof Errors.NativeIoException)
            {
                return -((Errors.NativeIoException)t).expectedErr();
            }
            if (t instanceof BindException)
            {
                return 0;
            }
        }
        return 0;
    }

    private static UdpTransport resolveTransport(final UdpLinkConfig config)
    {
        final UdpTransport asked = config.transport();
        if (null != asked)
        {
            if (!asked.isAvailable())
            {
                throw new IllegalStateException("udp link " + config.spec() + ": transport " + asked.specName() +
                    " is not available here: " + asked.unavailabilityCause(), asked.unavailabilityCause());
            }
            return asked;
        }
        if (UdpTransport.EPOLL.isAvailable())
        {
            return UdpTransport.EPOLL;
        }
        LOG.log(System.Logger.Level.WARNING, "udp link {0}: epoll is not available ({1}); falling back to NIO",
            config.spec(), String.valueOf(UdpTransport.EPOLL.unavailabilityCause()));
        return UdpTransport.NIO;
    }

    private static UdpSendMode resolveSendMode(final UdpLinkConfig config, final UdpTransport transport)
    {
        if (!transport.isNative())
        {
            if (UdpSendMode.DIRECT == config.sendMode())
            {
                throw new IllegalArgumentException("udp link " + config.spec() +
                    ": send=direct needs a native transport (epoll or io_uring)");
            }
            return UdpSendMode.EVENT_LOOP;
        }
        if (null != config.sendMode())
        {
            if (UdpSendMode.DIRECT == config.sendMode() && null != LinuxSendmmsg.unavailabilityCause())
            {
                throw new IllegalStateException("udp link " + config.spec() + ": send=direct is not available: " +
                    LinuxSendmmsg.unavailabilityCause());
            }
            return config.sendMode();
        }
        if (null != LinuxSendmmsg.unavailabilityCause())
        {
            LOG.log(System.Logger.Level.WARNING, "udp link {0}: sendmmsg through libc is not available ({1}); " +
                "sending through the event loop", config.spec(), String.valueOf(LinuxSendmmsg.unavailabilityCause()));
            return UdpSendMode.EVENT_LOOP;
        }
        return UdpSendMode.DIRECT;
    }

    private static UdpReceiveMode resolveReceiveMode(final UdpLinkConfig config, final UdpTransport transport)
    {
        if (!transport.isNative())
        {
            if (UdpReceiveMode.DIRECT == config.receiveMode())
            {
                throw new IllegalArgumentException("udp link " + config.spec() +
                    ": recv=direct needs a native transport (epoll or io_uring)");
            }
            return UdpReceiveMode.EVENT_LOOP;
        }
        if (null != config.receiveMode())
        {
            if (UdpReceiveMode.DIRECT == config.receiveMode() && null != LinuxRecvmmsg.unavailabilityCause())
            {
                throw new IllegalStateException("udp link " + config.spec() + ": recv=direct is not available: " +
                    LinuxRecvmmsg.unavailabilityCause());
            }
            return config.receiveMode();
        }
        if (null != LinuxRecvmmsg.unavailabilityCause())
        {
            LOG.log(System.Logger.Level.WARNING, "udp link {0}: recvmmsg through libc is not available ({1}); " +
                "receiving on the event loop", config.spec(), String.valueOf(LinuxRecvmmsg.unavailabilityCause()));
            return UdpReceiveMode.EVENT_LOOP;
        }
        return UdpReceiveMode.DIRECT;
    }

    @SuppressWarnings("unchecked")
    private static SocketOption<Boolean> ipDontFragmentOption()
    {
        try
        {
            final Field field = Class.forName("jdk.net.ExtendedSocketOptions").getField("IP_DONTFRAGMENT");
            return (SocketOption<Boolean>)field.get(null);
        }
        catch (final ReflectiveOperationException | LinkageError ex)
        {
            return null;
        }
    }

    /**
     * @return the link's name, e.g. {@code udp:127.0.0.1:4791/epoll}.
     */
    String name()
    {
        return name;
    }

    /**
     * @return the transport the socket runs on.
     */
    UdpTransport transport()
    {
        return transport;
    }

    /**
     * @return how datagrams reach the kernel.
     */
    UdpSendMode sendMode()
    {
        return sendMode;
    }

    /**
     * @return how datagrams come from the kernel.
     */
    UdpReceiveMode receiveMode()
    {
        return receiveMode;
    }

    /**
     * @return the event loop group (one loop) every channel of the link runs on.
     */
    MultiThreadIoEventLoopGroup eventLoopGroup()
    {
        return group;
    }

    /**
     * @return the spec.
     */
    UdpLinkConfig config()
    {
        return config;
    }

    /**
     * @return the largest UDP payload the link carries.
     */
    int maxPayloadLength()
    {
        return maxPayloadLength;
    }

    /**
     * @return the bound IPv6 address's interface index, 0 for IPv4 or when not found.
     */
    int interfaceIndex()
    {
        return interfaceIndex;
    }

    /**
     * @return the channel.
     */
    Channel channel()
    {
        return channel;
    }

    /**
     * @return the native descriptor (direct modes), or -1.
     */
    int fd()
    {
        return fd;
    }

    /**
     * Close the channel and stop the event loop.
     */
    void close()
    {
        if (null != channel)
        {
            channel.close().awaitUninterruptibly();
        }
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
    }
}
