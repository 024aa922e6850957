package org.roce4j.transport.link.udp;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.socket.SocketProtocolFamily;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.unix.IntegerUnixChannelOption;
import io.netty.channel.uring.IoUringChannelOption;
import io.netty.channel.uring.IoUringDatagramChannel;
import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.transport.link.FrameHandler;
import org.roce4j.transport.link.LinkCounter;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RoceFrameBuilder;

/**
 * Quick throughput and latency figures for {@link UdpLink} against raw Netty datagram channels of the same
 * transport, measured in the same run on loopback. Not a test and not JMH: a harness for rough ratios
 * ({@code java -cp <test classpath> org.roce4j.transport.link.udp.UdpLinkBench [seconds]}).
 *
 * <p>Throughput: one thread sends the same prebuilt frame (UD SEND_ONLY) through the link as fast as the link
 * takes it, flushing every 32 frames and keeping at most 512 frames in flight (like a transport window, so the
 * figure is frames delivered, not frames the receiver's socket dropped); another thread polls the receiving link and counts. Raw: a Netty channel's
 * event loop writes batches of 32 datagrams of the same UDP payload size and flushes; a second channel counts what
 * it reads. Latency: one frame bounces between two links, each driven by its own spinning thread; raw: Netty
 * handlers echo in channelRead. Spinning threads yield when idle so the event loops get the CPU on small machines.
 */
public final class UdpLinkBench
{
    private static final int BATCH = 32;
    /** Frames in flight at most (the receiver's count is read through shared memory): measures delivery, not loss. */
    private static final int WINDOW = 512;
    /** A window that has not moved for this long lost frames the sender cannot see (raw sockets): reopen it. */
    private static final long STALL_NS = 20_000_000L;
    private static final int PINGS_WARMUP = 20_000;

    private UdpLinkBench()
    {
    }

    /**
     * @param args optional seconds per measurement (default 3).
     * @throws Exception on failure.
     */
    public static void main(final String[] args) throws Exception
    {
        final double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 3;
        final String only = args.length > 1 ? args[1] : "";
        final String[][] cases = {
            {"epoll", "transport=epoll"},
            {"epoll", "transport=epoll,send=eventloop"},
            {"io_uring", "transport=io_uring"},
            {"io_uring", "transport=io_uring,send=eventloop"},
            {"nio", "transport=nio,icrc=unverified"},
        };
        int subnet = 0;
        for (final int payload : new int[] {64, 4096})
        {
            for (final String[] c : cases)
            {
                if (!c[1].contains(only))
                {
                    continue;
                }
                subnet++;
                final double raw = rawThroughput(c[0], payload, seconds, subnet);
                final double[] link = linkThroughput(c[1], payload, seconds, subnet);
                System.out.printf("throughput payload=%5d %-35s link %,10.0f frames/s (%,7.1f MB/s, drops %,d)  " +
                    "raw netty %,10.0f dgrams/s  ratio %.2f%n", payload, c[1], link[0], link[0] * frameBytes(payload) / 1e6,
                    (long)link[1], raw, link[0] / raw);
            }
        }
        for (final String[] c : cases)
        {
            if (!c[1].contains(only))
            {
                continue;
            }
            subnet++;
            final double rawRtt = rawPingPong(c[0], 64, seconds, subnet);
            final double linkRtt = linkPingPong(c[1], 64, seconds, subnet);
            System.out.printf("latency payload=64 %-35s link rtt %6.2f us  raw netty rtt %6.2f us  ratio %.2f%n",
                c[1], linkRtt / 1e3, rawRtt / 1e3, linkRtt / rawRtt);
        }
        System.exit(0);
    }

    private static int frameBytes(final int payload)
    {
        return 14 + 20 + 8 + 12 + 8 + payload + 4;
    }

    private static String address(final int subnet, final int host)
    {
        return "127.99." + subnet + "." + host;
    }

    private static int buildFrame(final UnsafeBuffer buffer, final int from, final int to, final int payload)
    {
        final RoceFrameBuilder builder = new RoceFrameBuilder();
        builder.wrap(buffer, 0).ethernet(0, 0).ipv4(from, to).udp(0xC000).bth(Opcode.UD_SEND_ONLY, 0x11, 0);
        builder.deth().qkey(0x1111_1111).srcQp(0x22);
        return builder.payloadLength(payload).finish();
    }

    private static double[] linkThroughput(final String options, final int payload, final double seconds,
        final int subnet) throws Exception
    {
        try (UdpLink sender = UdpLink.open("udp:" + address(subnet, 1) + "," + options);
            UdpLink receiver = UdpLink.open("udp:" + address(subnet, 2) + "," + options))
        {
            final UnsafeBuffer frame = new UnsafeBuffer(new byte[9000]);
            final int length = buildFrame(frame, sender.address().ipv4(), receiver.address().ipv4(), payload);
            final AtomicBoolean running = new AtomicBoolean(true);
            final AtomicLong received = new AtomicLong();
            final Thread send = new Thread(() ->
            {
                int n = 0;
                long sent = 0;
                long stalledSinceNs = 0;
                while (running.get())
                {
                    final long delivered = received.get() + receiver.counters().get(LinkCounter.RECEIVE_ERRORS);
                    if (sent - delivered > WINDOW)
                    {
                        sender.flush();
                        Thread.yield();
                        final long now = System.nanoTime();
                        if (0 == stalledSinceNs)
                        {
                            stalledSinceNs = now;
                        }
                        else if (now - stalledSinceNs > STALL_NS)
                        {
                            sent = delivered;
                        }
                        continue;
                    }
                    stalledSinceNs = 0;
                    if (sender.send(frame, 0, length) && ++sent > 0)
                    {
                        if (0 == (++n & (BATCH - 1)))
                        {
                            sender.flush();
                        }
                    }
                    else
                    {
                        sender.flush();
                        Thread.yield();
                    }
                }
            });
            final Thread receive = new Thread(() ->
            {
                final long[] count = {0};
                final FrameHandler handler = (b, o, l) -> count[0]++;
                while (running.get())
                {
                    if (receiver.poll(handler, 256) > 0)
                    {
                        received.lazySet(count[0]);
                    }
                    else
                    {
                        Thread.yield();
                    }
                }
            });
            send.start();
            receive.start();
            Thread.sleep((long)(seconds * 300));
            final long start = received.get();
            final long startNs = System.nanoTime();
            Thread.sleep((long)(seconds * 1000));
            final long end = received.get();
            final long endNs = System.nanoTime();
            running.set(false);
            send.join();
            receive.join();
            return new double[] {(end - start) * 1e9 / (endNs - startNs),
                receiver.counters().get(LinkCounter.RECEIVE_ERRORS)};
        }
    }

    private static double linkPingPong(final String options, final int payload, final double seconds,
        final int subnet) throws Exception
    {
        try (UdpLink a = UdpLink.open("udp:" + address(subnet, 1) + "," + options);
            UdpLink b = UdpLink.open("udp:" + address(subnet, 2) + "," + options))
        {
            final UnsafeBuffer ping = new UnsafeBuffer(new byte[9000]);
            final int pingLength = buildFrame(ping, a.address().ipv4(), b.address().ipv4(), payload);
            final UnsafeBuffer pong = new UnsafeBuffer(new byte[9000]);
            final int pongLength = buildFrame(pong, b.address().ipv4(), a.address().ipv4(), payload);
            final AtomicBoolean running = new AtomicBoolean(true);
            final Thread echo = new Thread(() ->
            {
                final FrameHandler handler = (buf, o, l) ->
                {
                    while (!b.send(pong, 0, pongLength))
                    {
                        b.flush();
                    }
                    b.flush();
                };
                while (running.get())
                {
                    if (0 == b.poll(handler, 16))
                    {
                        Thread.yield();
                    }
                }
            });
            echo.start();
            final int[] got = {0};
            final FrameHandler counter = (buf, o, l) -> got[0]++;
            long pings = 0;
            long startNs = 0;
            final long warmupEnd = System.nanoTime() + (long)(seconds * 3e8);
            long endNs = 0;
            boolean measuring = false;
            while (true)
            {
                got[0] = 0;
                a.send(ping, 0, pingLength);
                a.flush();
                while (0 == got[0])
                {
                    if (0 == a.poll(counter, 16))
                    {
                        Thread.yield();
                    }
                }
                final long now = System.nanoTime();
                if (!measuring && now - warmupEnd > 0 && pings > PINGS_WARMUP / 10)
                {
                    measuring = true;
                    startNs = now;
                    pings = 0;
                }
                pings++;
                if (measuring && now - startNs > seconds * 1e9)
                {
                    endNs = now;
                    break;
                }
            }
            running.set(false);
            echo.join();
            return (endNs - startNs) / (double)pings;
        }
    }

    private static Channel rawChannel(final String transport, final MultiThreadIoEventLoopGroup group,
        final String address, final ChannelInboundHandlerAdapter handler, final int payload)
    {
        final Bootstrap bootstrap = new Bootstrap().group(group).handler(handler);
        final int slot = 9000;
        switch (transport)
        {
            case "epoll":
                bootstrap.channelFactory(() -> new EpollDatagramChannel(SocketProtocolFamily.INET));
                break;
            case "io_uring":
                bootstrap.channelFactory(() -> new IoUringDatagramChannel(SocketProtocolFamily.INET));
                break;
            default:
                bootstrap.channelFactory(() -> new NioDatagramChannel(SocketProtocolFamily.INET));
                break;
        }
        final Channel channel = bootstrap.register().syncUninterruptibly().channel();
        if ("epoll".equals(transport))
        {
            channel.config().setOption(EpollChannelOption.MAX_DATAGRAM_PAYLOAD_SIZE, slot);
        }
        else if ("io_uring".equals(transport))
        {
            channel.config().setOption(IoUringChannelOption.MAX_DATAGRAM_PAYLOAD_SIZE, slot);
        }
        channel.config().setRecvByteBufAllocator(
            new FixedRecvByteBufAllocator("nio".equals(transport) ? slot : slot * BATCH).maxMessagesPerRead(1024));
        if ("nio".equals(transport))
        {
            channel.config().setOption(ChannelOption.SO_RCVBUF, 8 << 20);
            channel.config().setOption(ChannelOption.SO_SNDBUF, 8 << 20);
        }
        else
        {
            // As UdpLink does (root): SO_RCVBUFFORCE / SO_SNDBUFFORCE beyond net.core.[rw]mem_max.
            channel.config().setOption(new IntegerUnixChannelOption("SO_RCVBUFFORCE", 1, 33), 8 << 20);
            channel.config().setOption(new IntegerUnixChannelOption("SO_SNDBUFFORCE", 1, 32), 8 << 20);
        }
        return channel.bind(new InetSocketAddress(address, 4791)).syncUninterruptibly().channel();
    }

    private static MultiThreadIoEventLoopGroup group(final String transport)
    {
        return new MultiThreadIoEventLoopGroup(1, UdpTransport.fromSpecName(transport).newIoHandlerFactory());
    }

    private static double rawThroughput(final String transport, final int payload, final double seconds,
        final int subnet) throws Exception
    {
        final int datagram = 12 + 8 + payload + 4;
        final MultiThreadIoEventLoopGroup sendGroup = group(transport);
        final MultiThreadIoEventLoopGroup receiveGroup = group(transport);
        final AtomicLong received = new AtomicLong();
        final AtomicBoolean running = new AtomicBoolean(true);
        try
        {
            final Channel receiver = rawChannel(transport, receiveGroup, address(subnet, 2),
                new ChannelInboundHandlerAdapter()
                {
                    private long count;

                    public void channelRead(final ChannelHandlerContext ctx, final Object msg)
                    {
                        ((DatagramPacket)msg).release();
                        received.lazySet(++count);
                    }
                }, payload);
            final InetSocketAddress to = new InetSocketAddress(address(subnet, 2), 4791);
            final byte[] bytes = new byte[datagram];
            final Channel[] sender = new Channel[1];
            final long[] sent = {0};
            final long[] stalledSinceNs = {0};
            final Runnable pump = new Runnable()
            {
                public void run()
                {
                    final Channel ch = sender[0];
                    if (sent[0] - received.get() > WINDOW)
                    {
                        final long now = System.nanoTime();
                        if (0 == stalledSinceNs[0])
                        {
                            stalledSinceNs[0] = now;
                        }
                        else if (now - stalledSinceNs[0] > STALL_NS)
                        {
                            sent[0] = received.get();
                        }
                    }
                    else
                    {
                        stalledSinceNs[0] = 0;
                    }
                    for (int round = 0; round < 8 && running.get() && ch.isWritable() &&
                        sent[0] - received.get() <= WINDOW; round++)
                    {
                        sent[0] += BATCH;
                        for (int i = 0; i < BATCH; i++)
                        {
                            final ByteBuf buf = ch.alloc().directBuffer(datagram).writeBytes(bytes);
                            ch.write(new DatagramPacket(buf, to), ch.voidPromise());
                        }
                        ch.flush();
                    }
                    if (running.get())
                    {
                        ch.eventLoop().execute(this);
                    }
                }
            };
            final AtomicLong sendErrors = new AtomicLong();
            sender[0] = rawChannel(transport, sendGroup, address(subnet, 1), new ChannelInboundHandlerAdapter()
            {
                public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
                {
                    if (0 == sendErrors.getAndIncrement())
                    {
                        System.err.println("raw " + transport + " send error: " + cause);
                    }
                }
            }, payload);
            sender[0].eventLoop().execute(pump);
            Thread.sleep((long)(seconds * 300));
            final long start = received.get();
            final long startNs = System.nanoTime();
            Thread.sleep((long)(seconds * 1000));
            final long end = received.get();
            final long endNs = System.nanoTime();
            running.set(false);
            sender[0].close().syncUninterruptibly();
            receiver.close().syncUninterruptibly();
            return (end - start) * 1e9 / (endNs - startNs);
        }
        finally
        {
            sendGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
            receiveGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    private static double rawPingPong(final String transport, final int payload, final double seconds,
        final int subnet) throws Exception
    {
        final int datagram = 12 + 8 + payload + 4;
        final MultiThreadIoEventLoopGroup groupA = group(transport);
        final MultiThreadIoEventLoopGroup groupB = group(transport);
        final AtomicLong pongs = new AtomicLong();
        final AtomicBoolean running = new AtomicBoolean(true);
        final InetSocketAddress addressA = new InetSocketAddress(address(subnet, 1), 4791);
        final InetSocketAddress addressB = new InetSocketAddress(address(subnet, 2), 4791);
        try
        {
            final Channel b = rawChannel(transport, groupB, address(subnet, 2), new ChannelInboundHandlerAdapter()
            {
                public void channelRead(final ChannelHandlerContext ctx, final Object msg)
                {
                    final DatagramPacket packet = (DatagramPacket)msg;
                    ctx.writeAndFlush(new DatagramPacket(packet.content(), addressA), ctx.voidPromise());
                }
            }, payload);
            final Channel a = rawChannel(transport, groupA, address(subnet, 1), new ChannelInboundHandlerAdapter()
            {
                private long count;

                public void channelRead(final ChannelHandlerContext ctx, final Object msg)
                {
                    final DatagramPacket packet = (DatagramPacket)msg;
                    pongs.lazySet(++count);
                    if (running.get())
                    {
                        ctx.writeAndFlush(new DatagramPacket(packet.content(), addressB), ctx.voidPromise());
                    }
                    else
                    {
                        packet.release();
                    }
                }
            }, payload);
            a.eventLoop().execute(() -> a.writeAndFlush(new DatagramPacket(
                a.alloc().directBuffer(datagram).writeBytes(new byte[datagram]), addressB), a.voidPromise()));
            Thread.sleep((long)(seconds * 300));
            final long start = pongs.get();
            final long startNs = System.nanoTime();
            Thread.sleep((long)(seconds * 1000));
            final long end = pongs.get();
            final long endNs = System.nanoTime();
            running.set(false);
            a.close().syncUninterruptibly();
            b.close().syncUninterruptibly();
            return (endNs - startNs) / (double)(end - start);
        }
        finally
        {
            groupA.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
            groupB.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
