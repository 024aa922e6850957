package org.roce4j.transport.link.udp;

import java.io.IOException;
import java.lang.reflect.Field;
import java.net.BindException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.SocketOption;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Enumeration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.socket.DatagramPacket;
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
import io.netty.util.concurrent.ScheduledFuture;
import org.agrona.MutableDirectBuffer;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.ControlledMessageHandler;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;
import org.roce4j.transport.link.FrameHandler;
import org.roce4j.transport.link.Link;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.transport.link.LinkCounter;
import org.roce4j.transport.link.LinkCounters;
import org.roce4j.wire.header.EthernetHeader;
import org.roce4j.wire.header.Ipv4Header;
import org.roce4j.wire.header.UdpHeader;

/**
 * A link over a kernel UDP socket bound to {@code IP:4791}, on Netty 4.2 (epoll by default, io_uring or NIO on
 * request). Spec: {@link UdpLinkConfig#GRAMMAR}. No root is needed and no layer 2 is owned: the kernel does ARP,
 * routing, IP and UDP.
 *
 * <p><b>Sending.</b> The engine builds whole Ethernet frames in {@link #sendBuffer()}; only the UDP payload (BTH
 * .. ICRC) goes to the kernel, to the frame's destination IP and UDP port (4791), through an unconnected socket
 * with IP_MTU_DISCOVER = IP_PMTUDISC_DO, so the kernel writes IPv4 identification 0 and DF. Before sending, the
 * frame's IPv4 source, identification, flags and UDP source port are rewritten to exactly what the kernel will put
 * on the wire and the ICRC is recomputed (see {@link KernelHeaders}): a peer that checks ICRCs (rxe) accepts them.
 * The UDP source port on the wire is therefore always the bound port, whatever port the engine chose per QP.
 * <ul>
 *   <li>{@link UdpSendMode#DIRECT} (default on epoll and io_uring): frames are built in a native arena and
 *   {@link #flush()} hands them to sendmmsg(2) straight from the engine thread: no thread hop, no copy, one system
 *   call per batch of up to 64 frames.</li>
 *   <li>{@link UdpSendMode#EVENT_LOOP} (the only mode on NIO): frames are built in a single-producer ring;
 *   {@code flush()} wakes the event loop once, which copies each payload into a pooled buffer, writes them all and
 *   flushes once (epoll: sendmmsg).</li>
 * </ul>
 *
 * <p><b>Receiving.</b> Each datagram gets a synthetic Ethernet + IPv4 + UDP header (source from the datagram's
 * sender, destination the bound address and port 4791, ID 0, DF) in front of its payload.
 * <ul>
 *   <li>{@link UdpReceiveMode#DIRECT} (default on epoll and io_uring): {@link #poll} calls recvmmsg(2) without
 *   blocking from the engine thread, up to 64 datagrams straight into a native arena behind room for the synthetic
 *   header, and hands them to the engine in place: no thread hop, no copy but the kernel's. Netty's event loop does
 *   not read (auto-read off).</li>
 *   <li>{@link UdpReceiveMode#EVENT_LOOP} (the only mode on NIO): Netty reads on its event loop (epoll: recvmmsg of
 *   up to 32 datagrams per call; io_uring: 32 recvmsg requests in flight) and copies each datagram into a lock-free
 *   single-producer single-consumer ring that {@link #poll} drains on the engine thread.</li>
 * </ul>
 * <b>Incoming ICRCs cannot be
 * checked on this path</b>: the real IP header (whose identification the sender's kernel chose) is not visible,
 * so {@link #verifiesIcrc()} is false and every delivered frame is also counted as
 * {@link LinkCounter#RECEIVE_UNVERIFIED}.
 *
 * <p><b>Counters.</b> {@link LinkCounter#RECEIVE_ERRORS} counts datagrams too long for the link, receive ring
 * overflow, and the kernel's own drops for this socket (SO_MEMINFO, read every 10 ms on native transports);
 * {@link LinkCounter#RECEIVE_FILTERED} counts datagrams too short to be RoCEv2. In event-loop receive mode the event
 * loop writes those two and the engine thread every other counter; in direct receive mode the engine thread writes
 * them all. So on an idle link, frames sent by peers = FRAMES_RECEIVED + RECEIVE_ERRORS +
 * RECEIVE_FILTERED (NIO cannot see the kernel's drops).
 *
 * <p><b>NIO.</b> JDK 17 cannot set IP_MTU_DISCOVER on a NIO socket, so the kernel would write a per-packet
 * identification that the ICRC cannot predict and rxe would drop every frame. The NIO transport therefore sets
 * {@code jdk.net.ExtendedSocketOptions.IP_DONTFRAGMENT} (JDK 19 and later, which sets IP_PMTUDISC_DO on Linux) and
 * refuses to start without it unless the spec says {@code icrc=unverified}.
 *
 * <p><b>Threading.</b> One engine thread calls claim/commit/flush/poll; in event-loop modes Netty's single
 * event-loop thread reads or writes, and they meet only in lock-free rings. {@link #counters()} may be read and
 * {@link #close()} called from any thread; after close the engine thread must not use the link.
 */
public final class UdpLink implements Link
{
    /** Largest IP MTU the link carries (a 9216-byte jumbo frame); the loopback's 65536 is capped to it. */
    public static final int MAX_IP_MTU = 9216;

    private static final System.Logger LOG = System.getLogger(UdpLink.class.getName());

    /** IPv4 header (no options) and UDP header in front of the payload. */
    private static final int IP_UDP_OVERHEAD = Ipv4Header.LENGTH + UdpHeader.LENGTH;
    /** Frames per sendmmsg batch in direct mode. */
    private static final int SEND_BATCH = 64;
    /** Native arena the engine builds frames in (direct mode): room for 64 jumbo frames plus alignment. */
    private static final int SEND_ARENA_BYTES = 1 << 20;
    /** Frames in the arena start on cache-line boundaries. */
    private static final int ARENA_ALIGNMENT = 64;
    /** Ring between the engine and the event loop in event-loop send mode. */
    private static final int SEND_RING_BYTES = 4 << 20;
    /** Ring of received frames: about 2,000 4 KiB frames or 60,000 small ones. */
    private static final int RECEIVE_RING_BYTES = 8 << 20;
    /** Datagrams per recvmmsg call (epoll) or recvmsg requests in flight (io_uring), event-loop receive mode. */
    private static final int RECEIVE_BATCH = 32;
    /** Datagrams per recvmmsg call in direct receive mode (the engine's default receive batch). */
    private static final int DIRECT_RECEIVE_SLOTS = 64;
    /** Datagrams read per event-loop wake-up before Netty checks other work. */
    private static final int MAX_MESSAGES_PER_READ = 1024;
    /** Socket send and receive buffers asked for (granted above net.core.[rw]mem_max only to root). */
    private static final int SOCKET_BUFFER_BYTES = 8 << 20;
    /** Record type in both rings. */
    private static final int FRAME_RECORD = 1;
    /** Event-loop send record: destination IPv4, destination port, payload offset, payload length. */
    private static final int SEND_RECORD_PREFIX = 16;
    /** How often the event loop reads the kernel's drop counter for the socket. */
    private static final long KERNEL_DROPS_PERIOD_MS = 10;

    /** IPPROTO_IP (netinet/in.h). */
    private static final int IPPROTO_IP = 0;
    /** IP_MTU_DISCOVER (linux/in.h). */
    private static final int IP_MTU_DISCOVER = 10;
    /** IP_PMTUDISC_DO (linux/in.h): always DF, never fragment; with it the kernel writes IPv4 ID 0. */
    private static final int IP_PMTUDISC_DO = 2;
    /** SOL_SOCKET (asm-generic/socket.h). */
    private static final int SOL_SOCKET = 1;
    /** SO_SNDBUFFORCE (asm-generic/socket.h): SO_SNDBUF beyond wmem_max, CAP_NET_ADMIN only. */
    private static final int SO_SNDBUFFORCE = 32;
    /** SO_RCVBUFFORCE (asm-generic/socket.h): SO_RCVBUF beyond rmem_max, CAP_NET_ADMIN only. */
    private static final int SO_RCVBUFFORCE = 33;
    /** SO_MEMINFO (asm-generic/socket.h): u32[SK_MEMINFO_VARS] of socket memory counters. */
    private static final int SO_MEMINFO = 55;
    /** SK_MEMINFO_VARS (linux/sock_diag.h). */
    private static final int SK_MEMINFO_VARS = 9;
    /** SK_MEMINFO_DROPS (linux/sock_diag.h): datagrams the kernel dropped for this socket (buffer full, ...). */
    private static final int SK_MEMINFO_DROPS = 8;
    /** EADDRINUSE on Linux (asm-generic/errno.h). */
    private static final int EADDRINUSE = 98;
    /** EADDRNOTAVAIL on Linux (asm-generic/errno.h). */
    private static final int EADDRNOTAVAIL = 99;

    private static final IntegerUnixChannelOption IP_MTU_DISCOVER_OPTION =
        new IntegerUnixChannelOption("IP_MTU_DISCOVER", IPPROTO_IP, IP_MTU_DISCOVER);
    private static final IntegerUnixChannelOption SO_RCVBUFFORCE_OPTION =
        new IntegerUnixChannelOption("SO_RCVBUFFORCE", SOL_SOCKET, SO_RCVBUFFORCE);
    private static final IntegerUnixChannelOption SO_SNDBUFFORCE_OPTION =
        new IntegerUnixChannelOption("SO_SNDBUFFORCE", SOL_SOCKET, SO_SNDBUFFORCE);

    private final UdpLinkConfig config;
    private final UdpTransport transport;
    private final UdpSendMode sendMode;
    private final UdpReceiveMode receiveMode;
    private final String name;
    private final LinkAddress address;
    private final int mtu;
    private final int maxFrameLength;
    private final int maxPayloadLength;
    private final LinkCounters counters = new LinkCounters();
    private final KernelHeaders outgoing;
    private final AtomicBoolean closed = new AtomicBoolean();

    // Engine thread: direct mode.
    private final UnsafeBuffer arena;
    private final LinuxSendmmsg batch;
    private final int[] batchFrameLengths;
    private int fd = -1;
    private int arenaPosition;
    private int batched;
    private int batchSent;
    private volatile boolean sending;

    // Engine thread: direct receive mode.
    private final UnsafeBuffer receiveArena;
    private final LinuxRecvmmsg receiveSlots;
    private final int receiveSlotBytes;
    private final KernelHeaders incoming;
    private volatile boolean receiving;
    private KernelDropsReader kernelDrops;
    private long nextKernelDropsNs;

    // Engine thread: event-loop mode.
    private final OneToOneRingBuffer sendRing;
    private final AtomicBoolean drainScheduled = new AtomicBoolean();
    private volatile long eventLoopSendErrors;
    private long eventLoopSendErrorsCounted;
    private boolean wakeEventLoop;

    // Engine thread: both modes.
    private int claimIndex = -1;
    private int claimLength;
    private int flushedSinceLastFlush;

    // Receive ring: event loop produces, engine consumes.
    private final OneToOneRingBuffer receiveRing;
    private final MessageHandler receiveDelivery = this::deliver;
    private FrameHandler frameHandler;

    private final MultiThreadIoEventLoopGroup group;
    private Channel channel;
    private ScheduledFuture<?> kernelDropsTask;

    private UdpLink(final UdpLinkConfig config, final UdpTransport transport, final UdpSendMode sendMode,
        final UdpReceiveMode receiveMode, final int mtu)
    {
        this.config = config;
        this.transport = transport;
        this.sendMode = sendMode;
        this.receiveMode = receiveMode;
        this.mtu = mtu;
        this.maxFrameLength = EthernetHeader.VLAN_LENGTH + mtu;
        this.maxPayloadLength = mtu - IP_UDP_OVERHEAD;
        this.name = "udp:" + config.addressText() + ":" + config.port() + "/" + transport.specName();
        this.address = new LinkAddress(0L, config.ipv4());
        this.outgoing = new KernelHeaders(config.ipv4(), config.port());
        if (UdpSendMode.DIRECT == sendMode)
        {
            arena = new UnsafeBuffer(ByteBuffer.allocateDirect(SEND_ARENA_BYTES));
            batch = new LinuxSendmmsg(SEND_BATCH);
            batchFrameLengths = new int[SEND_BATCH];
            sendRing = null;
        }
        else
        {
            arena = null;
            batch = null;
            batchFrameLengths = null;
            sendRing = new OneToOneRingBuffer(new UnsafeBuffer(
                ByteBuffer.allocateDirect(SEND_RING_BYTES + RingBufferDescriptor.TRAILER_LENGTH)));
        }
        if (UdpReceiveMode.DIRECT == receiveMode)
        {
            // Each slot: the synthetic header, then room for the largest payload plus one byte (a datagram that
            // fills it was truncated), rounded up to a cache line.
            receiveSlotBytes = align(KernelHeaders.INCOMING_HEADER_LENGTH + maxPayloadLength + 1);
            receiveArena = new UnsafeBuffer(ByteBuffer.allocateDirect(DIRECT_RECEIVE_SLOTS * receiveSlotBytes));
            receiveSlots = new LinuxRecvmmsg(DIRECT_RECEIVE_SLOTS);
            for (int i = 0; i < DIRECT_RECEIVE_SLOTS; i++)
            {
                receiveSlots.slot(i, receiveArena.addressOffset() + (long)i * receiveSlotBytes +
                    KernelHeaders.INCOMING_HEADER_LENGTH, maxPayloadLength + 1);
            }
            incoming = new KernelHeaders(config.ipv4(), config.port());
            receiveRing = null;
        }
        else
        {
            receiveSlotBytes = 0;
            receiveArena = null;
            receiveSlots = null;
            incoming = null;
            receiveRing = new OneToOneRingBuffer(new UnsafeBuffer(
                ByteBuffer.allocateDirect(RECEIVE_RING_BYTES + RingBufferDescriptor.TRAILER_LENGTH)));
        }
        group = new MultiThreadIoEventLoopGroup(
            1, new DefaultThreadFactory("roce4j-" + name, true), transport.newIoHandlerFactory());
    }

    /**
     * Open a link from a spec such as {@code udp:127.0.0.1} or {@code udp:10.0.0.1,transport=io_uring}.
     *
     * @param spec see {@link UdpLinkConfig#GRAMMAR}.
     * @return the open, bound link.
     * @throws IllegalArgumentException for a bad spec or an address that is not local.
     * @throws IllegalStateException    when the port is in use or the transport cannot run here.
     */
    public static UdpLink open(final String spec)
    {
        return open(UdpLinkConfig.parse(spec));
    }

    /**
     * Open a link.
     *
     * @param config parsed spec.
     * @return the open, bound link.
     * @throws IllegalArgumentException for an address that is not local.
     * @throws IllegalStateException    when the port is in use or the transport cannot run here.
     */
    public static UdpLink open(final UdpLinkConfig config)
    {
        final UdpTransport transport = resolveTransport(config);
        final UdpSendMode sendMode = resolveSendMode(config, transport);
        final UdpReceiveMode receiveMode = resolveReceiveMode(config, transport);
        final SocketOption<Boolean> dontFragment = UdpTransport.NIO == transport ? ipDontFragmentOption() : null;
        if (UdpTransport.NIO == transport && null == dontFragment && !config.allowUnmatchedIcrc())
        {
            throw new IllegalStateException("udp link " + config.spec() + ": the NIO transport cannot set " +
                "IP_MTU_DISCOVER on Java " + Runtime.version().feature() + " (jdk.net.ExtendedSocketOptions." +
                "IP_DONTFRAGMENT needs Java 19+), so the kernel would write IPv4 IDs the ICRC cannot predict and " +
                "peers that check ICRCs (rxe) would drop every frame. Use transport=epoll or io_uring, run on " +
                "Java 19+, or add icrc=unverified for peers that do not check ICRCs.");
        }
        final InetAddress bindAddress = toInetAddress(config.ipv4());
        final UdpLink link = new UdpLink(config, transport, sendMode, receiveMode, interfaceMtu(bindAddress));
        try
        {
            link.start(bindAddress, dontFragment);
        }
        catch (final RuntimeException ex)
        {
            link.close();
            throw ex;
        }
        return link;
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

    private void start(final InetAddress bindAddress, final SocketOption<Boolean> dontFragment)
    {
        final Channel channel = newChannel(transport);
        this.channel = channel;
        final ChannelFuture registration = new Bootstrap()
            .group(group)
            .channelFactory(() -> channel)
            .handler(new EventLoopHandler())
            .register()
            .awaitUninterruptibly();
        if (!registration.isSuccess())
        {
            throw new IllegalStateException("udp link " + name + ": cannot register the channel: " +
                registration.cause(), registration.cause());
        }
        configure(channel, dontFragment);
        warmUpReceiveBuffers(channel);

        final ChannelFuture bound = channel.bind(new InetSocketAddress(bindAddress, config.port()))
            .awaitUninterruptibly();
        if (!bound.isSuccess())
        {
            throw bindFailure(bound.cause());
        }
        if (UdpSendMode.DIRECT == sendMode || UdpReceiveMode.DIRECT == receiveMode)
        {
            fd = nativeSocket(channel).intValue();
        }
        if (UdpReceiveMode.DIRECT == receiveMode)
        {
            // Read by the engine thread on idle polls, so that every counter has one writer.
            kernelDrops = new KernelDropsReader(nativeSocket(channel));
        }
        else if (transport.isNative())
        {
            kernelDropsTask = channel.eventLoop().scheduleAtFixedRate(new KernelDropsReader(nativeSocket(channel)),
                KERNEL_DROPS_PERIOD_MS, KERNEL_DROPS_PERIOD_MS, TimeUnit.MILLISECONDS);
        }
    }

    private void configure(final Channel channel, final SocketOption<Boolean> dontFragment)
    {
        final int slot = maxPayloadLength + 1;
        if (transport.isNative())
        {
            channel.config().setOption(IP_MTU_DISCOVER_OPTION, IP_PMTUDISC_DO);
            final Integer check = channel.config().getOption(IP_MTU_DISCOVER_OPTION);
            if (null == check || IP_PMTUDISC_DO != check)
            {
                throw new IllegalStateException("udp link " + name + ": IP_MTU_DISCOVER reads back " + check +
                    " after setting IP_PMTUDISC_DO");
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
        }
        else
        {
            if (null != dontFragment)
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
    }

    /**
     * Allocate and free one receive buffer on the event loop before any datagram can arrive. Netty 4.2's adaptive
     * allocator reports chunk allocations as JFR events, so the first allocation in a JVM loads and registers
     * jdk.jfr's event metadata (io.netty.buffer.AllocateChunkEvent), whether or not a recording runs. Done by the
     * first read, that took 1 to 2.3 s on a busy two-core machine, during which no datagram reached the engine and
     * the peer (rxe, or another roce4j) retransmitted the first message of every connection 10 to 30 times (seen in
     * TapPingpongWithRxeTest's captures, explained by -Xlog:class+load). Done here, the cost is paid while opening.
     */
    private void warmUpReceiveBuffers(final Channel channel)
    {
        final int bytes = transport.isNative() ? (maxPayloadLength + 1) * RECEIVE_BATCH : maxPayloadLength + 1;
        channel.eventLoop().submit(() -> channel.alloc().directBuffer(bytes).release()).awaitUninterruptibly();
    }

    private static void setBufferSize(
        final Channel channel, final IntegerUnixChannelOption force, final ChannelOption<Integer> plain)
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

    private static Channel newChannel(final UdpTransport transport)
    {
        switch (transport)
        {
            case EPOLL:
                return new EpollDatagramChannel(SocketProtocolFamily.INET);
            case IO_URING:
                return new IoUringDatagramChannel(SocketProtocolFamily.INET);
            default:
                return new NioDatagramChannel(SocketProtocolFamily.INET);
        }
    }

    private static FileDescriptor nativeSocket(final Channel channel)
    {
        if (channel instanceof EpollDatagramChannel)
        {
            return ((EpollDatagramChannel)channel).fd();
        }
        return ((IoUringDatagramChannel)channel).fd();
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

    private static InetAddress toInetAddress(final int ipv4)
    {
        final byte[] bytes = {(byte)(ipv4 >>> 24), (byte)(ipv4 >>> 16), (byte)(ipv4 >>> 8), (byte)ipv4};
        try
        {
            return InetAddress.getByAddress(bytes);
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalArgumentException("bad IPv4 address", ex);
        }
    }

    /**
     * IP MTU of the interface holding the address: the loopback's for 127/8 (the kernel accepts every 127/8
     * address on lo), 1500 when the address is on no interface (bind will then fail with a clear message), capped
     * at {@link #MAX_IP_MTU}.
     */
    private static int interfaceMtu(final InetAddress address)
    {
        int mtu = 1500;
        try
        {
            NetworkInterface nic = NetworkInterface.getByInetAddress(address);
            if (null == nic && address.isLoopbackAddress())
            {
                // By name first: enumerating every interface fails on a thread that entered another network
                // namespace with setns(2) (the JDK lists names from the process's /proc/net, then queries them
                // through a socket of the thread's namespace), and the whole 127/8 is on lo.
                nic = NetworkInterface.getByName("lo");
            }
            if (null == nic && address.isLoopbackAddress())
            {
                final Enumeration<NetworkInterface> all = NetworkInterface.getNetworkInterfaces();
                while (null != all && all.hasMoreElements())
                {
                    final NetworkInterface candidate = all.nextElement();
                    if (candidate.isLoopback())
                    {
                        nic = candidate;
                        break;
                    }
                }
            }
            if (null != nic && nic.getMTU() > 0)
            {
                mtu = nic.getMTU();
            }
        }
        catch (final SocketException ex)
        {
            LOG.log(System.Logger.Level.DEBUG, "cannot read the MTU for " + address + ": " + ex);
        }
        return Math.min(mtu, MAX_IP_MTU);
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
     * @return e.g. {@code udp:127.0.0.1:4791/epoll}.
     */
    public String name()
    {
        return name;
    }

    /**
     * @return MAC 0 (the kernel owns layer 2) and the bound IPv4 address.
     */
    public LinkAddress address()
    {
        return address;
    }

    /**
     * @return the MTU of the interface holding the bound address, capped at {@link #MAX_IP_MTU}.
     */
    public int mtu()
    {
        return mtu;
    }

    /**
     * @return false: frames are rebuilt around the UDP payload, the sender's IP header is not visible.
     */
    public boolean verifiesIcrc()
    {
        return false;
    }

    /**
     * @return the transport the socket runs on.
     */
    public UdpTransport transport()
    {
        return transport;
    }

    /**
     * @return how datagrams reach the kernel.
     */
    public UdpSendMode sendMode()
    {
        return sendMode;
    }

    /**
     * @return how datagrams come from the kernel.
     */
    public UdpReceiveMode receiveMode()
    {
        return receiveMode;
    }

    /**
     * @return the bound UDP port.
     */
    public int port()
    {
        return config.port();
    }

    /**
     * {@inheritDoc}
     *
     * <p>One claim may be outstanding at a time. When the arena or the batch is full, committed frames are sent
     * first; -1 means the kernel's send buffer is full too.
     *
     * @throws IllegalStateException when a claim is outstanding or the link is closed.
     */
    public int tryClaim(final int maxLength)
    {
        if (maxLength <= 0 || maxLength > maxFrameLength)
        {
            throw new IllegalArgumentException("frame length " + maxLength + " outside 1.." + maxFrameLength +
                " (IP MTU " + mtu + " plus a tagged Ethernet header) on " + name);
        }
        if (claimIndex >= 0)
        {
            throw new IllegalStateException("a claim at " + claimIndex + " is still outstanding on " + name);
        }
        if (closed.get())
        {
            throw new IllegalStateException(name + " is closed");
        }
        final int index = UdpSendMode.DIRECT == sendMode ? claimArena(maxLength) : claimRing(maxLength);
        if (index < 0)
        {
            counters.increment(LinkCounter.SEND_BACK_PRESSURE);
            return -1;
        }
        claimIndex = index;
        claimLength = maxLength;
        return index;
    }

    private int claimArena(final int maxLength)
    {
        if (SEND_BATCH == batched || arenaPosition + maxLength > SEND_ARENA_BYTES)
        {
            sendBatch();
            if (SEND_BATCH == batched || arenaPosition + maxLength > SEND_ARENA_BYTES)
            {
                return -1;
            }
        }
        return arenaPosition;
    }

    private int claimRing(final int maxLength)
    {
        final int recordIndex = sendRing.tryClaim(FRAME_RECORD, SEND_RECORD_PREFIX + maxLength);
        if (recordIndex < 0)
        {
            wakeEventLoop = true;
            scheduleDrain();
            return -1;
        }
        return recordIndex + SEND_RECORD_PREFIX;
    }

    /**
     * @return the native arena (direct mode) or the send ring's buffer (event-loop mode).
     */
    public MutableDirectBuffer sendBuffer()
    {
        return UdpSendMode.DIRECT == sendMode ? arena : sendRing.buffer();
    }

    /**
     * {@inheritDoc}
     *
     * <p>Rewrites the IPv4/UDP fields the kernel will write and recomputes the ICRC. A frame that cannot go through
     * a kernel UDP socket (not IPv4, IPv4 options, not UDP, inconsistent lengths) is dropped and counted as
     * {@link LinkCounter#SEND_ERRORS}.
     */
    public void commit(final int index, final int length)
    {
        checkClaim(index);
        if (length < 0 || length > claimLength)
        {
            abort(index);
            throw new IllegalArgumentException("committed length " + length + " outside 0.." + claimLength);
        }
        claimIndex = -1;
        final MutableDirectBuffer buffer = sendBuffer();
        final int status = outgoing.prepareOutgoing(buffer, index, length);
        if (UdpSendMode.DIRECT == sendMode)
        {
            if (KernelHeaders.OK != status)
            {
                counters.increment(LinkCounter.SEND_ERRORS);
                return;
            }
            batch.set(batched, arena.addressOffset() + outgoing.payloadOffset(), outgoing.payloadLength(),
                outgoing.destinationIpv4(), outgoing.destinationPort());
            batchFrameLengths[batched] = length;
            batched++;
            arenaPosition = align(index + length);
        }
        else
        {
            final int recordIndex = index - SEND_RECORD_PREFIX;
            if (KernelHeaders.OK != status)
            {
                sendRing.abort(recordIndex);
                counters.increment(LinkCounter.SEND_ERRORS);
                return;
            }
            buffer.putInt(recordIndex, outgoing.destinationIpv4());
            buffer.putInt(recordIndex + 4, outgoing.destinationPort());
            buffer.putInt(recordIndex + 8, outgoing.payloadOffset() - recordIndex);
            buffer.putInt(recordIndex + 12, outgoing.payloadLength());
            sendRing.commit(recordIndex);
            counters.increment(LinkCounter.FRAMES_SENT);
            counters.add(LinkCounter.BYTES_SENT, length);
            flushedSinceLastFlush++;
            wakeEventLoop = true;
        }
    }

    /**
     * {@inheritDoc}
     */
    public void abort(final int index)
    {
        checkClaim(index);
        claimIndex = -1;
        if (UdpSendMode.EVENT_LOOP == sendMode)
        {
            sendRing.abort(index - SEND_RECORD_PREFIX);
        }
    }

    private void checkClaim(final int index)
    {
        if (index != claimIndex || index < 0)
        {
            throw new IllegalStateException("index " + index + " is not the outstanding claim (" + claimIndex +
                ") on " + name);
        }
    }

    private static int align(final int position)
    {
        return (position + ARENA_ALIGNMENT - 1) & -ARENA_ALIGNMENT;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Direct mode: sendmmsg of every committed frame from this thread; frames the kernel's buffer cannot take
     * stay queued for the next flush. Event-loop mode: wakes the event loop once for everything committed.
     */
    public int flush()
    {
        if (UdpSendMode.DIRECT == sendMode)
        {
            return sendBatch();
        }
        final int handed = flushedSinceLastFlush;
        flushedSinceLastFlush = 0;
        if (wakeEventLoop)
        {
            wakeEventLoop = false;
            scheduleDrain();
        }
        foldEventLoopSendErrors();
        return handed;
    }

    private int sendBatch()
    {
        int sentNow = 0;
        if (batchSent < batched)
        {
            sending = true;
            try
            {
                if (closed.get())
                {
                    return 0;
                }
                while (batchSent < batched)
                {
                    final int result = batch.send(fd, batchSent, batched - batchSent);
                    if (result > 0)
                    {
                        long bytes = 0;
                        for (int i = batchSent, end = batchSent + result; i < end; i++)
                        {
                            bytes += batchFrameLengths[i];
                        }
                        counters.add(LinkCounter.FRAMES_SENT, result);
                        counters.add(LinkCounter.BYTES_SENT, bytes);
                        batchSent += result;
                        sentNow += result;
                    }
                    else if (-LinuxSendmmsg.EAGAIN == result || -LinuxSendmmsg.ENOBUFS == result ||
                        -LinuxSendmmsg.EINTR == result)
                    {
                        break;
                    }
                    else
                    {
                        // EMSGSIZE (larger than the path MTU with DF), ENETUNREACH, EPERM (firewall), ...: this
                        // datagram can never go; drop it and go on with the next.
                        counters.increment(LinkCounter.SEND_ERRORS);
                        batchSent++;
                    }
                }
            }
            finally
            {
                sending = false;
            }
        }
        if (batchSent == batched && claimIndex < 0)
        {
            batched = 0;
            batchSent = 0;
            arenaPosition = 0;
        }
        return sentNow;
    }

    private void scheduleDrain()
    {
        if (!drainScheduled.get() && drainScheduled.compareAndSet(false, true))
        {
            channel.eventLoop().execute(drainTask);
        }
    }

    private void foldEventLoopSendErrors()
    {
        final long errors = eventLoopSendErrors;
        if (errors != eventLoopSendErrorsCounted)
        {
            counters.add(LinkCounter.SEND_ERRORS, errors - eventLoopSendErrorsCounted);
            eventLoopSendErrorsCounted = errors;
        }
    }

    /**
     * {@inheritDoc}
     */
    public int poll(final FrameHandler handler, final int maxFrames)
    {
        if (UdpReceiveMode.DIRECT == receiveMode)
        {
            final int delivered = receiveDirect(handler, maxFrames);
            if (UdpSendMode.EVENT_LOOP == sendMode)
            {
                foldEventLoopSendErrors();
            }
            return delivered;
        }
        frameHandler = handler;
        final int delivered = receiveRing.read(receiveDelivery, maxFrames);
        if (UdpSendMode.EVENT_LOOP == sendMode)
        {
            foldEventLoopSendErrors();
        }
        return delivered;
    }

    private int receiveDirect(final FrameHandler handler, final int maxFrames)
    {
        int delivered = 0;
        receiving = true;
        try
        {
            if (closed.get())
            {
                return 0;
            }
            while (delivered < maxFrames)
            {
                final int wanted = Math.min(maxFrames - delivered, DIRECT_RECEIVE_SLOTS);
                final int received = receiveSlots.receive(fd, wanted);
                if (received <= 0)
                {
                    if (0 == delivered)
                    {
                        onIdleReceive(received);
                    }
                    break;
                }
                for (int i = 0; i < received; i++)
                {
                    delivered += deliverSlot(handler, i);
                }
                if (received < wanted)
                {
                    break;
                }
            }
        }
        finally
        {
            receiving = false;
        }
        return delivered;
    }

    private void onIdleReceive(final int result)
    {
        if (result < 0 && -LinuxSendmmsg.EAGAIN != result && -LinuxSendmmsg.EINTR != result)
        {
            counters.increment(LinkCounter.RECEIVE_ERRORS);
            LOG.log(System.Logger.Level.DEBUG, "udp link " + name + ": recvmmsg errno " + -result);
        }
        final long now = System.nanoTime();
        if (now - nextKernelDropsNs >= 0)
        {
            nextKernelDropsNs = now + TimeUnit.MILLISECONDS.toNanos(KERNEL_DROPS_PERIOD_MS);
            kernelDrops.run();
        }
    }

    private int deliverSlot(final FrameHandler handler, final int slot)
    {
        final int payloadLength = receiveSlots.length(slot);
        if (receiveSlots.truncated(slot) || payloadLength > maxPayloadLength)
        {
            counters.increment(LinkCounter.RECEIVE_ERRORS);
            return 0;
        }
        if (payloadLength < KernelHeaders.MIN_ROCE_PAYLOAD)
        {
            counters.increment(LinkCounter.RECEIVE_FILTERED);
            return 0;
        }
        final int index = slot * receiveSlotBytes;
        incoming.writeIncomingHeaders(receiveArena, index, 0L, receiveSlots.sourceIpv4(slot),
            receiveSlots.sourcePort(slot), config.ipv4(), payloadLength);
        final int length = KernelHeaders.INCOMING_HEADER_LENGTH + payloadLength;
        counters.increment(LinkCounter.FRAMES_RECEIVED);
        counters.add(LinkCounter.BYTES_RECEIVED, length);
        counters.increment(LinkCounter.RECEIVE_UNVERIFIED);
        handler.onFrame(receiveArena, index, length);
        return 1;
    }

    private void deliver(final int msgTypeId, final MutableDirectBuffer buffer, final int index, final int length)
    {
        counters.increment(LinkCounter.FRAMES_RECEIVED);
        counters.add(LinkCounter.BYTES_RECEIVED, length);
        counters.increment(LinkCounter.RECEIVE_UNVERIFIED);
        frameHandler.onFrame(buffer, index, length);
    }

    /**
     * @return this link's counters.
     */
    public LinkCounters counters()
    {
        return counters;
    }

    /**
     * Close the socket and stop the event loop. Idempotent; waits for a send in progress on the engine thread.
     */
    public void close()
    {
        if (!closed.compareAndSet(false, true))
        {
            return;
        }
        while (sending || receiving)
        {
            Thread.onSpinWait();
        }
        if (null != kernelDropsTask)
        {
            kernelDropsTask.cancel(false);
        }
        if (null != channel)
        {
            channel.close().awaitUninterruptibly();
        }
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
    }

    /**
     * @return e.g. {@code udp:127.0.0.1:4791/epoll (send direct, recv direct)}.
     */
    public String toString()
    {
        return name + " (send " + sendMode.specName() + ", recv " + receiveMode.specName() + ")";
    }

    /**
     * Event-loop side: turns datagrams into synthetic frames in the receive ring, and handles write errors.
     */
    private final class EventLoopHandler extends ChannelInboundHandlerAdapter
    {
        private final KernelHeaders incoming = new KernelHeaders(config.ipv4(), config.port());
        private final UnsafeBuffer ring = null == receiveRing ? null : (UnsafeBuffer)receiveRing.buffer();

        public void channelRead(final ChannelHandlerContext ctx, final Object msg)
        {
            final DatagramPacket packet = (DatagramPacket)msg;
            try
            {
                if (null == receiveRing)
                {
                    // Direct receive mode: the engine thread reads; nothing reaches here with auto-read off.
                    return;
                }
                final ByteBuf content = packet.content();
                final int payloadLength = content.readableBytes();
                if (payloadLength > maxPayloadLength)
                {
                    // Filled its slot: longer than the link MTU allows, truncated by the read.
                    counters.increment(LinkCounter.RECEIVE_ERRORS);
                    return;
                }
                if (payloadLength < KernelHeaders.MIN_ROCE_PAYLOAD)
                {
                    counters.increment(LinkCounter.RECEIVE_FILTERED);
                    return;
                }
                final int index = receiveRing.tryClaim(FRAME_RECORD, KernelHeaders.INCOMING_HEADER_LENGTH +
                    payloadLength);
                if (index < 0)
                {
                    // The engine is not keeping up: the ring is full.
                    counters.increment(LinkCounter.RECEIVE_ERRORS);
                    return;
                }
                final InetSocketAddress sender = packet.sender();
                incoming.writeIncomingHeaders(ring, index, 0L, ipv4Of(sender.getAddress()), sender.getPort(),
                    config.ipv4(), payloadLength);
                final ByteBuffer source = content.internalNioBuffer(content.readerIndex(), payloadLength);
                ring.putBytes(index + KernelHeaders.INCOMING_HEADER_LENGTH, source, source.position(), payloadLength);
                receiveRing.commit(index);
            }
            finally
            {
                packet.release();
            }
        }

        public void channelWritabilityChanged(final ChannelHandlerContext ctx)
        {
            if (ctx.channel().isWritable() && null != sendRing)
            {
                drainTask.run();
            }
            ctx.fireChannelWritabilityChanged();
        }

        public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
        {
            // Failed writes through the void promise land here: count them, the engine folds them in.
            eventLoopSendErrors = eventLoopSendErrors + 1;
            LOG.log(System.Logger.Level.DEBUG, "udp link " + name + ": " + cause);
        }
    }

    private static int ipv4Of(final InetAddress address)
    {
        if (address instanceof Inet4Address)
        {
            final byte[] bytes = address.getAddress();
            return ((bytes[0] & 0xFF) << 24) | ((bytes[1] & 0xFF) << 16) | ((bytes[2] & 0xFF) << 8) |
                (bytes[3] & 0xFF);
        }
        return 0;
    }

    private final Runnable drainTask = new Runnable()
    {
        private final Long2ObjectHashMap<InetSocketAddress> recipients = new Long2ObjectHashMap<>();
        private final ControlledMessageHandler writer = this::write;

        public void run()
        {
            drainScheduled.set(false);
            final Channel channel = UdpLink.this.channel;
            if (null == sendRing || !channel.isActive())
            {
                return;
            }
            int written = 0;
            int read;
            do
            {
                read = sendRing.controlledRead(writer, RECEIVE_BATCH);
                written += read;
            }
            while (read > 0 && channel.isWritable());
            if (written > 0)
            {
                channel.flush();
            }
        }

        private ControlledMessageHandler.Action write(
            final int msgTypeId, final MutableDirectBuffer buffer, final int index, final int length)
        {
            final Channel channel = UdpLink.this.channel;
            if (!channel.isWritable())
            {
                return ControlledMessageHandler.Action.ABORT;
            }
            final int ipv4 = buffer.getInt(index);
            final int port = buffer.getInt(index + 4);
            final int payloadIndex = index + buffer.getInt(index + 8);
            final int payloadLength = buffer.getInt(index + 12);
            final ByteBuf datagram = channel.alloc().directBuffer(payloadLength);
            final ByteBuffer target = datagram.internalNioBuffer(0, payloadLength);
            buffer.getBytes(payloadIndex, target, target.position(), payloadLength);
            datagram.writerIndex(payloadLength);
            channel.write(new DatagramPacket(datagram, recipient(ipv4, port)), channel.voidPromise());
            return ControlledMessageHandler.Action.CONTINUE;
        }

        private InetSocketAddress recipient(final int ipv4, final int port)
        {
            final long key = ((ipv4 & 0xFFFF_FFFFL) << 16) | port;
            InetSocketAddress recipient = recipients.get(key);
            if (null == recipient)
            {
                recipient = new InetSocketAddress(toInetAddress(ipv4), port);
                recipients.put(key, recipient);
            }
            return recipient;
        }
    };

    /**
     * Reads the kernel's drop counter for the socket (datagrams that found its receive buffer full) and adds the
     * growth to {@link LinkCounter#RECEIVE_ERRORS}. Runs on the event loop.
     */
    private final class KernelDropsReader implements Runnable
    {
        private final FileDescriptor socket;
        private final ByteBuffer meminfo =
            ByteBuffer.allocateDirect(SK_MEMINFO_VARS * Integer.BYTES).order(ByteOrder.nativeOrder());
        private long reported;

        KernelDropsReader(final FileDescriptor socket)
        {
            this.socket = socket;
        }

        public void run()
        {
            if (!(socket instanceof Socket) || !socket.isOpen())
            {
                return;
            }
            try
            {
                meminfo.clear();
                ((Socket)socket).getRawOpt(SOL_SOCKET, SO_MEMINFO, meminfo);
                final long drops = meminfo.getInt(SK_MEMINFO_DROPS * Integer.BYTES) & 0xFFFF_FFFFL;
                if (drops != reported)
                {
                    counters.add(LinkCounter.RECEIVE_ERRORS, drops - reported);
                    reported = drops;
                }
            }
            catch (final IOException ex)
            {
                LOG.log(System.Logger.Level.DEBUG, "udp link " + name + ": SO_MEMINFO: " + ex);
            }
        }
    }
}
