package org.roce4j.bench.baseline;

import java.net.InetSocketAddress;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.socket.SocketProtocolFamily;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.unix.IntegerUnixChannelOption;
import io.netty.channel.uring.IoUringChannelOption;
import io.netty.channel.uring.IoUringDatagramChannel;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.HdrHistogram.Histogram;
import org.roce4j.bench.Measurement;
import org.roce4j.bench.Running;
import org.roce4j.bench.Window;
import org.roce4j.transport.link.Link;
import org.roce4j.transport.link.udp.UdpTransport;
import org.roce4j.wire.header.UdpHeader;

/**
 * Raw kernel UDP through Netty event loops: plain Netty datagram channels of one transport, set up as the udp link
 * sets up its socket (8 MiB socket buffers, recvmmsg of 32 datagrams on epoll / 32 recvmsg in flight on io_uring, IP
 * MTU discovery DO on the native transports): what the same kernel path delivers with no RoCE work at all, driven
 * the way a Netty application drives it. {@link RawUdpBusyPoll} is the other raw UDP baseline: JDK channels
 * busy-polled by a thread each, one datagram per call.
 *
 * <p>Throughput: side A's event loop writes batches of 32 datagrams and flushes once per batch (epoll: one
 * sendmmsg per batch), keeping at most {@code window} datagrams beyond what B has read (a transport window, so the
 * figure is datagrams delivered, not datagrams dropped at B's socket); B's event loop counts what it reads.
 * Latency: one datagram bounces between the event loops of A and B (each echoes in channelRead), as Netty
 * applications run by default (epoll_wait blocks between datagrams).
 */
public final class RawUdpEventLoop
{
    /** Datagrams per flush. */
    private static final int BATCH = 32;
    /** Datagrams per recvmmsg call / recvmsg requests in flight (as the udp link). */
    private static final int RECEIVE_BATCH = 32;
    /** Socket buffers (as the udp link). */
    private static final int SOCKET_BUFFER_BYTES = 8 << 20;
    /** Largest datagram read (a 9216-byte jumbo payload). */
    private static final int SLOT = Link.MAX_IP_MTU;
    /** A window that has not moved for this long lost datagrams in the kernel: reopen it. */
    private static final long STALL_NS = 20_000_000L;
    /** Rounds of BATCH datagrams written per event-loop task, before other tasks (reads) get a turn. */
    private static final int ROUNDS_PER_TASK = 8;
    /** IPPROTO_IP, IP_MTU_DISCOVER, IP_PMTUDISC_DO (linux/in.h), as the udp link sets them. */
    private static final IntegerUnixChannelOption IP_MTU_DISCOVER = new IntegerUnixChannelOption("IP_MTU_DISCOVER",
        0, 10);
    /** IPPROTO_IPV6, IPV6_MTU_DISCOVER (linux/in6.h), for an IPv6 medium, as the udp link sets it. */
    private static final IntegerUnixChannelOption IPV6_MTU_DISCOVER = new IntegerUnixChannelOption(
        "IPV6_MTU_DISCOVER", 41, 23);
    /** IPPROTO_IPV6, IPV6_AUTOFLOWLABEL (linux/in6.h): flow label 0, as the udp link (and rxe) send. */
    private static final IntegerUnixChannelOption IPV6_AUTOFLOWLABEL = new IntegerUnixChannelOption(
        "IPV6_AUTOFLOWLABEL", 41, 70);
    /** IP_PMTUDISC_DO and IPV6_PMTUDISC_DO (linux/in.h, in6.h): DF always, never fragment. */
    private static final int PMTUDISC_DO = 2;
    /** SOL_SOCKET, SO_RCVBUFFORCE (asm-generic/socket.h). */
    private static final IntegerUnixChannelOption SO_RCVBUFFORCE = new IntegerUnixChannelOption("SO_RCVBUFFORCE",
        1, 33);
    /** SOL_SOCKET, SO_SNDBUFFORCE (asm-generic/socket.h). */
    private static final IntegerUnixChannelOption SO_SNDBUFFORCE = new IntegerUnixChannelOption("SO_SNDBUFFORCE",
        1, 32);

    /** Runs channel creation where the socket must live (a namespace). */
    public interface Opener
    {
        /**
         * @param side 0 for A, 1 for B.
         * @param task creates and binds a channel.
         * @return the channel.
         */
        Channel open(int side, Callable<Channel> task);
    }

    /** Opens channels in this process's own network namespace. */
    public static final Opener HERE = (side, task) ->
    {
        try
        {
            return task.call();
        }
        catch (final Exception ex)
        {
            throw new IllegalStateException("cannot open a raw UDP channel: " + ex, ex);
        }
    };

    private RawUdpEventLoop()
    {
    }

    /**
     * Datagram throughput from A to B.
     *
     * @param transport      epoll, io_uring or nio.
     * @param opener         where sockets are created.
     * @param addressA       A's address.
     * @param addressB       B's address.
     * @param datagramBytes  UDP payload per datagram.
     * @param datagramWindow datagrams in flight at most.
     * @param window         warm-up and measurement durations.
     * @return datagrams delivered per second.
     */
    public static Measurement throughput(final UdpTransport transport, final Opener opener, final String addressA,
        final String addressB, final int datagramBytes, final int datagramWindow, final Window window)
    {
        final MultiThreadIoEventLoopGroup groupA = group(transport, "raw-a");
        final MultiThreadIoEventLoopGroup groupB = group(transport, "raw-b");
        final AtomicLong received = new AtomicLong();
        final Running running = new Running();
        try
        {
            final Channel receiver = opener.open(1, () -> bind(transport, groupB, addressB,
                new ChannelInboundHandlerAdapter()
                {
                    private long count;

                    public void channelRead(final ChannelHandlerContext ctx, final Object msg)
                    {
                        ((DatagramPacket)msg).release();
                        received.lazySet(++count);
                    }
                }));
            final Channel sender = opener.open(0, () -> bind(transport, groupA, addressA,
                new ChannelInboundHandlerAdapter()));
            final InetSocketAddress to = new InetSocketAddress(addressB, UdpHeader.ROCE_V2_PORT);
            final ByteBuf template = sender.alloc().directBuffer(datagramBytes).writeZero(datagramBytes);
            final Runnable pump = new Runnable()
            {
                private long sent;
                private long stalledSinceNs;

                public void run()
                {
                    final long delivered = received.get();
                    if (sent - delivered > datagramWindow - BATCH)
                    {
                        final long now = System.nanoTime();
                        if (0 == stalledSinceNs)
                        {
                            stalledSinceNs = now;
                        }
                        else if (now - stalledSinceNs > STALL_NS)
                        {
                            sent = delivered;
                            stalledSinceNs = 0;
                        }
                    }
                    else
                    {
                        stalledSinceNs = 0;
                    }
                    for (int round = 0; round < ROUNDS_PER_TASK && running.on && sender.isWritable() &&
                        sent - received.get() <= datagramWindow - BATCH; round++)
                    {
                        for (int i = 0; i < BATCH; i++)
                        {
                            sender.write(new DatagramPacket(template.retainedDuplicate(), to), sender.voidPromise());
                        }
                        sender.flush();
                        sent += BATCH;
                    }
                    if (running.on)
                    {
                        sender.eventLoop().execute(this);
                    }
                    else
                    {
                        running.senderDone = true;
                    }
                }
            };
            final Thread driver = new Thread(() -> sender.eventLoop().execute(pump), "raw-pump");
            final Thread peer = new Thread(() ->
            {
                // B's event loop does the counting; nothing to do here.
            }, "raw-count");
            final Measurement measurement = window.measure(driver, peer, running, received);
            sender.close().syncUninterruptibly();
            receiver.close().syncUninterruptibly();
            template.release();
            return measurement;
        }
        finally
        {
            groupA.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
            groupB.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    /**
     * Datagram round-trip time between A and B.
     *
     * @param transport     epoll, io_uring or nio.
     * @param opener        where sockets are created.
     * @param addressA      A's address.
     * @param addressB      B's address.
     * @param datagramBytes UDP payload per datagram.
     * @param window        warm-up and measurement durations.
     * @return round trips per second and the round-trip histogram.
     */
    public static Measurement latency(final UdpTransport transport, final Opener opener, final String addressA,
        final String addressB, final int datagramBytes, final Window window)
    {
        final MultiThreadIoEventLoopGroup groupA = group(transport, "raw-a");
        final MultiThreadIoEventLoopGroup groupB = group(transport, "raw-b");
        final AtomicLong pongs = new AtomicLong();
        final Running running = new Running();
        final Histogram histogram = new Histogram(3_600_000_000_000L, 3);
        final InetSocketAddress toA = new InetSocketAddress(addressA, UdpHeader.ROCE_V2_PORT);
        final InetSocketAddress toB = new InetSocketAddress(addressB, UdpHeader.ROCE_V2_PORT);
        try
        {
            final Channel b = opener.open(1, () -> bind(transport, groupB, addressB, new ChannelInboundHandlerAdapter()
            {
                public void channelRead(final ChannelHandlerContext ctx, final Object msg)
                {
                    final DatagramPacket packet = (DatagramPacket)msg;
                    ctx.writeAndFlush(new DatagramPacket(packet.content(), toA), ctx.voidPromise());
                }
            }));
            final long[] sentAtNs = new long[1];
            final Channel a = opener.open(0, () -> bind(transport, groupA, addressA, new ChannelInboundHandlerAdapter()
            {
                private long count;

                public void channelRead(final ChannelHandlerContext ctx, final Object msg)
                {
                    final DatagramPacket packet = (DatagramPacket)msg;
                    final long now = System.nanoTime();
                    if (running.measuring)
                    {
                        histogram.recordValue(now - sentAtNs[0]);
                    }
                    pongs.lazySet(++count);
                    if (running.on)
                    {
                        sentAtNs[0] = System.nanoTime();
                        ctx.writeAndFlush(new DatagramPacket(packet.content(), toB), ctx.voidPromise());
                    }
                    else
                    {
                        packet.release();
                        running.senderDone = true;
                    }
                }
            }));
            final Thread driver = new Thread(() -> a.eventLoop().execute(() ->
            {
                sentAtNs[0] = System.nanoTime();
                a.writeAndFlush(new DatagramPacket(a.alloc().directBuffer(datagramBytes).writeZero(datagramBytes),
                    toB), a.voidPromise());
            }), "raw-ping");
            final Thread peer = new Thread(() ->
            {
                // The event loops do the work.
            }, "raw-pong");
            final Measurement measurement = window.measure(driver, peer, running, pongs).withHistogram(histogram);
            a.close().syncUninterruptibly();
            b.close().syncUninterruptibly();
            return measurement;
        }
        finally
        {
            groupA.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
            groupB.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    private static MultiThreadIoEventLoopGroup group(final UdpTransport transport, final String name)
    {
        final IoHandlerFactory factory;
        switch (transport)
        {
            case EPOLL:
                factory = EpollIoHandler.newFactory();
                break;
            case IO_URING:
                factory = IoUringIoHandler.newFactory();
                break;
            default:
                factory = NioIoHandler.newFactory();
                break;
        }
        return new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory(name, true), factory);
    }

    private static Channel bind(final UdpTransport transport, final MultiThreadIoEventLoopGroup group,
        final String address, final ChannelInboundHandlerAdapter handler)
    {
        // An IPv6 literal (the veth6 medium) needs an AF_INET6 socket, as the udp link opens for udp:[...].
        final boolean ipv6 = address.indexOf(':') >= 0;
        final SocketProtocolFamily family = ipv6 ? SocketProtocolFamily.INET6 : SocketProtocolFamily.INET;
        final Channel channel;
        switch (transport)
        {
            case EPOLL:
                channel = new EpollDatagramChannel(family);
                break;
            case IO_URING:
                channel = new IoUringDatagramChannel(family);
                break;
            default:
                channel = new NioDatagramChannel(family);
                break;
        }
        new Bootstrap().group(group).channelFactory(() -> channel).handler(handler).register().syncUninterruptibly();
        if (UdpTransport.NIO == transport)
        {
            // java.nio cannot force buffers beyond net.core.[rw]mem_max nor set IP_MTU_DISCOVER (as the udp link).
            channel.config().setOption(ChannelOption.SO_RCVBUF, SOCKET_BUFFER_BYTES);
            channel.config().setOption(ChannelOption.SO_SNDBUF, SOCKET_BUFFER_BYTES);
            channel.config().setRecvByteBufAllocator(new FixedRecvByteBufAllocator(SLOT).maxMessagesPerRead(1024));
        }
        else
        {
            if (ipv6)
            {
                channel.config().setOption(IPV6_MTU_DISCOVER, PMTUDISC_DO);
                channel.config().setOption(IPV6_AUTOFLOWLABEL, 0);
            }
            else
            {
                channel.config().setOption(IP_MTU_DISCOVER, PMTUDISC_DO);
            }
            channel.config().setOption(SO_RCVBUFFORCE, SOCKET_BUFFER_BYTES);
            channel.config().setOption(SO_SNDBUFFORCE, SOCKET_BUFFER_BYTES);
            channel.config().setOption(UdpTransport.EPOLL == transport ? EpollChannelOption.MAX_DATAGRAM_PAYLOAD_SIZE :
                IoUringChannelOption.MAX_DATAGRAM_PAYLOAD_SIZE, SLOT);
            channel.config().setRecvByteBufAllocator(new FixedRecvByteBufAllocator(SLOT * RECEIVE_BATCH)
                .maxMessagesPerRead(1024));
        }
        return channel.bind(new InetSocketAddress(address, UdpHeader.ROCE_V2_PORT)).syncUninterruptibly().channel();
    }
}
