package org.roce4j.transport.link.udp;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.DatagramPacket;
import io.netty.util.concurrent.ScheduledFuture;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;
import org.roce4j.transport.link.FrameHandler;
import org.roce4j.transport.link.FrameTaps;
import org.roce4j.transport.link.LinkCounter;
import org.roce4j.transport.link.LinkCounters;
import org.roce4j.transport.link.host.SocketDrops;
import org.roce4j.wire.addr.Gid;

/**
 * The receive paths of the {@link UdpLink}: each datagram gets a synthetic Ethernet + IP + UDP header
 * ({@link KernelHeaders}) in front of its payload and goes to the engine.
 * <ul>
 *   <li>{@link UdpReceiveMode#DIRECT}: {@link #poll} calls recvmmsg(2) without blocking from the engine thread, up to
 *   64 datagrams straight into a native arena behind room for the synthetic header, and hands them to the engine in
 *   place: no thread hop, no copy but the kernel's. Netty's event loop does not read (auto-read off).</li>
 *   <li>{@link UdpReceiveMode#EVENT_LOOP}: Netty reads on its event loop (epoll: recvmmsg of up to 32 datagrams per
 *   call; io_uring: 32 recvmsg requests in flight) and copies each datagram into a lock-free single-producer
 *   single-consumer ring that {@link #poll} drains on the engine thread.</li>
 * </ul>
 * Datagrams too long for the link, ring overflow and the kernel's drops for the socket (SO_MEMINFO, at most every
 * 10 ms) count in {@link LinkCounter#RECEIVE_ERRORS}; datagrams too short to be RoCEv2 in
 * {@link LinkCounter#RECEIVE_FILTERED}. In event-loop mode the event loop writes those two counters and the engine
 * thread every other; in direct mode the engine thread writes them all. Every delivered frame also counts in
 * {@link LinkCounter#RECEIVE_UNVERIFIED}: its ICRC was computed over a header this path cannot see.
 */
final class UdpReceivePath
{
    private static final System.Logger LOG = System.getLogger(UdpReceivePath.class.getName());
    /** Ring of received frames: about 2,000 4 KiB frames or 60,000 small ones. */
    private static final int RECEIVE_RING_BYTES = 8 << 20;
    /** Datagrams per recvmmsg call in direct receive mode (the engine's default receive batch). */
    private static final int DIRECT_RECEIVE_SLOTS = 64;
    /** Record type in the ring. */
    private static final int FRAME_RECORD = 1;
    /** How often the kernel's drop counter for the socket is read. */
    private static final long KERNEL_DROPS_PERIOD_NS = TimeUnit.MILLISECONDS.toNanos(10);
    /** Receive slots and frames start on cache-line boundaries. */
    private static final int ALIGNMENT = 64;

    private final UdpReceiveMode mode;
    private final boolean ipv6;
    private final int maxPayloadLength;
    private final int headerLength;
    private final LinkCounters counters;
    private final FrameTaps taps;
    private final UdpLinkConfig config;

    private final UnsafeBuffer arena;
    private final LinuxRecvmmsg slots;
    private final int slotBytes;
    private final KernelHeaders incoming;
    /** Headers written on the event loop: a flyweight of its own (KernelHeaders is not thread safe). */
    private final KernelHeaders eventLoopHeaders;
    private volatile boolean receiving;
    private volatile boolean closed;
    private SocketDrops kernelDrops;
    private ScheduledFuture<?> kernelDropsTask;
    private int fd = -1;

    /** The bound address, the destination of the link's own socket's datagrams. */
    private final long boundHigh;
    private final long boundLow;
    /** Joined groups' sockets read in direct mode (engine thread): descriptors and groups, groupCount in use. */
    private int[] groupFds = new int[0];
    private long[] groupHighs = new long[0];
    private long[] groupLows = new long[0];
    private int groupCount;

    private final OneToOneRingBuffer ring;
    private final MessageHandler ringDelivery = this::deliver;
    private FrameHandler frameHandler;

    UdpReceivePath(final UdpReceiveMode mode, final UdpLinkConfig config, final int maxPayloadLength,
        final LinkCounters counters, final FrameTaps taps)
    {
        this.mode = mode;
        this.config = config;
        this.ipv6 = config.ipv6();
        this.maxPayloadLength = maxPayloadLength;
        this.counters = counters;
        this.taps = taps;
        this.incoming = new KernelHeaders(config.address(), config.port());
        this.eventLoopHeaders = new KernelHeaders(config.address(), config.port());
        this.headerLength = incoming.incomingHeaderLength();
        this.boundHigh = config.address().high();
        this.boundLow = config.address().low();
        if (UdpReceiveMode.DIRECT == mode)
        {
            // Each slot: the synthetic header, then room for the largest payload plus one byte (a datagram that
            // fills it was truncated), rounded up to a cache line.
            slotBytes = (headerLength + maxPayloadLength + 1 + ALIGNMENT - 1) & -ALIGNMENT;
            arena = new UnsafeBuffer(ByteBuffer.allocateDirect(DIRECT_RECEIVE_SLOTS * slotBytes));
            slots = new LinuxRecvmmsg(DIRECT_RECEIVE_SLOTS, ipv6);
            for (int i = 0; i < DIRECT_RECEIVE_SLOTS; i++)
            {
                slots.slot(i, arena.addressOffset() + (long)i * slotBytes + headerLength, maxPayloadLength + 1);
            }
            ring = null;
        }
        else
        {
            slotBytes = 0;
            arena = null;
            slots = null;
            ring = new OneToOneRingBuffer(new UnsafeBuffer(
                ByteBuffer.allocateDirect(RECEIVE_RING_BYTES + RingBufferDescriptor.TRAILER_LENGTH)));
        }
    }

    /**
     * @param socket the bound socket.
     */
    void attach(final UdpSocket socket)
    {
        fd = socket.fd();
        kernelDrops = socket.drops();
        if (UdpReceiveMode.EVENT_LOOP == mode && null != kernelDrops)
        {
            // The event loop writes RECEIVE_ERRORS in this mode, so it reads the kernel's drops too.
            final SocketDrops drops = kernelDrops;
            kernelDropsTask = socket.channel().eventLoop().scheduleAtFixedRate(
                () -> drops.countInto(counters, System.nanoTime(), 0), KERNEL_DROPS_PERIOD_NS, KERNEL_DROPS_PERIOD_NS,
                TimeUnit.NANOSECONDS);
        }
    }

    /**
     * @param handler   given each frame.
     * @param maxFrames the most frames to deliver.
     * @return frames delivered.
     */
    int poll(final FrameHandler handler, final int maxFrames)
    {
        if (UdpReceiveMode.DIRECT == mode)
        {
            return receiveDirect(handler, maxFrames);
        }
        frameHandler = handler;
        return ring.read(ringDelivery, maxFrames);
    }

    private int receiveDirect(final FrameHandler handler, final int maxFrames)
    {
        int delivered = 0;
        receiving = true;
        try
        {
            if (closed)
            {
                return 0;
            }
            delivered = receiveFrom(fd, boundHigh, boundLow, handler, maxFrames);
            for (int g = 0; g < groupCount && delivered < maxFrames; g++)
            {
                delivered += receiveFrom(groupFds[g], groupHighs[g], groupLows[g], handler, maxFrames - delivered);
            }
            if (0 == delivered && null != kernelDrops)
            {
                kernelDrops.countInto(counters, System.nanoTime(), KERNEL_DROPS_PERIOD_NS);
            }
        }
        finally
        {
            receiving = false;
        }
        return delivered;
    }

    /**
     * recvmmsg from one socket (the link's, or a joined group's) until it is empty or maxFrames are delivered.
     *
     * @param destinationHigh the address the socket receives (bound address or group), for the synthetic header.
     * @param destinationLow  low 64 bits of it.
     */
    private int receiveFrom(final int socket, final long destinationHigh, final long destinationLow,
        final FrameHandler handler, final int maxFrames)
    {
        int delivered = 0;
        while (delivered < maxFrames)
        {
            final int wanted = Math.min(maxFrames - delivered, DIRECT_RECEIVE_SLOTS);
            final int received = slots.receive(socket, wanted);
            if (received <= 0)
            {
                if (received < 0 && -LinuxSendmmsg.EAGAIN != received && -LinuxSendmmsg.EINTR != received)
                {
                    counters.increment(LinkCounter.RECEIVE_ERRORS);
                    LOG.log(System.Logger.Level.DEBUG, "udp link " + config.spec() + ": recvmmsg errno " + -received);
                }
                break;
            }
            for (int i = 0; i < received; i++)
            {
                delivered += deliverSlot(handler, i, destinationHigh, destinationLow);
            }
            if (received < wanted)
            {
                break;
            }
        }
        return delivered;
    }

    /**
     * Direct receive mode, engine thread: read a joined group's socket too from the next {@link #poll}.
     *
     * @param socket the group socket's descriptor.
     * @param group  the group, written as each of its datagrams' destination (the engine looks the group up by it).
     */
    void addGroup(final int socket, final Gid group)
    {
        if (groupCount == groupFds.length)
        {
            groupFds = Arrays.copyOf(groupFds, groupCount + 1);
            groupHighs = Arrays.copyOf(groupHighs, groupCount + 1);
            groupLows = Arrays.copyOf(groupLows, groupCount + 1);
        }
        groupFds[groupCount] = socket;
        groupHighs[groupCount] = group.high();
        groupLows[groupCount] = group.low();
        groupCount++;
    }

    /**
     * Direct receive mode, engine thread: stop reading a group's socket (before it is closed).
     *
     * @param socket the group socket's descriptor.
     */
    void removeGroup(final int socket)
    {
        for (int g = 0; g < groupCount; g++)
        {
            if (socket == groupFds[g])
            {
                groupCount--;
                groupFds[g] = groupFds[groupCount];
                groupHighs[g] = groupHighs[groupCount];
                groupLows[g] = groupLows[groupCount];
                return;
            }
        }
    }

    private int deliverSlot(final FrameHandler handler, final int slot, final long destinationHigh,
        final long destinationLow)
    {
        final int payloadLength = slots.length(slot);
        if (slots.truncated(slot) || payloadLength > maxPayloadLength)
        {
            counters.increment(LinkCounter.RECEIVE_ERRORS);
            return 0;
        }
        if (payloadLength < KernelHeaders.MIN_ROCE_PAYLOAD)
        {
            counters.increment(LinkCounter.RECEIVE_FILTERED);
            return 0;
        }
        final long sourceHigh = ipv6 ? slots.sourceIpv6High(slot) : Gid.IPV4_MAPPED_HIGH;
        final long sourceLow = ipv6 ? slots.sourceIpv6Low(slot) : Gid.ipv4MappedLow(slots.sourceIpv4(slot));
        if (isOwnGroupEcho(destinationHigh, destinationLow, sourceHigh, sourceLow, slots.sourcePort(slot)))
        {
            counters.increment(LinkCounter.RECEIVE_FILTERED);
            return 0;
        }
        final int index = slot * slotBytes;
        if (ipv6)
        {
            incoming.writeIncomingIpv6Headers(arena, index, slots.sourceIpv6High(slot), slots.sourceIpv6Low(slot),
                slots.sourcePort(slot), destinationHigh, destinationLow, payloadLength);
        }
        else
        {
            incoming.writeIncomingHeaders(arena, index, 0L, slots.sourceIpv4(slot), slots.sourcePort(slot),
                (int)destinationLow, payloadLength);
        }
        deliverFrame(handler, arena, index, headerLength + payloadLength);
        return 1;
    }

    /**
     * A group's datagram this link sent itself, looped back by the kernel (IP_MULTICAST_LOOP, on so that other links
     * of this host can be members): dropped, as rxe never receives its own multicast (rxe_mcast_add joins the group
     * at layer 2 only, so the IP layer loops nothing back to it) and as roce4j's other links never do.
     */
    private boolean isOwnGroupEcho(final long destinationHigh, final long destinationLow, final long sourceHigh,
        final long sourceLow, final int sourcePort)
    {
        return (destinationHigh != boundHigh || destinationLow != boundLow) && sourceHigh == boundHigh &&
            sourceLow == boundLow && sourcePort == config.port();
    }

    private void deliver(final int msgTypeId, final MutableDirectBuffer buffer, final int index, final int length)
    {
        deliverFrame(frameHandler, buffer, index, length);
    }

    private void deliverFrame(final FrameHandler handler, final MutableDirectBuffer buffer, final int index,
        final int length)
    {
        if (!taps.isEmpty())
        {
            taps.onFrame(false, buffer, index, length);
        }
        counters.increment(LinkCounter.FRAMES_RECEIVED);
        counters.add(LinkCounter.BYTES_RECEIVED, length);
        counters.increment(LinkCounter.RECEIVE_UNVERIFIED);
        handler.onFrame(buffer, index, length);
    }

    /**
     * Stop receiving; waits for a receive in progress on the engine thread.
     */
    void close()
    {
        closed = true;
        while (receiving)
        {
            Thread.onSpinWait();
        }
        if (null != kernelDropsTask)
        {
            kernelDropsTask.cancel(false);
        }
    }

    /**
     * Event loop, event-loop receive mode: turns datagrams into synthetic frames in the ring.
     *
     * @param packet          a datagram read by Netty (released by the caller).
     * @param destinationHigh the address its socket receives (bound address or joined group), high 64 bits.
     * @param destinationLow  low 64 bits of it.
     */
    void onDatagram(final DatagramPacket packet, final long destinationHigh, final long destinationLow)
    {
        if (null == ring)
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
        final InetSocketAddress sender = packet.sender();
        final InetAddress source = sender.getAddress();
        final Gid from = Gid.of(source);
        if (isOwnGroupEcho(destinationHigh, destinationLow, from.high(), from.low(), sender.getPort()))
        {
            counters.increment(LinkCounter.RECEIVE_FILTERED);
            return;
        }
        final int index = ring.tryClaim(FRAME_RECORD, headerLength + payloadLength);
        if (index < 0)
        {
            // The engine is not keeping up: the ring is full.
            counters.increment(LinkCounter.RECEIVE_ERRORS);
            return;
        }
        final UnsafeBuffer buffer = (UnsafeBuffer)ring.buffer();
        if (ipv6)
        {
            eventLoopHeaders.writeIncomingIpv6Headers(buffer, index, from.high(), from.low(), sender.getPort(),
                destinationHigh, destinationLow, payloadLength);
        }
        else
        {
            eventLoopHeaders.writeIncomingHeaders(buffer, index, 0L, from.ipv4(), sender.getPort(),
                (int)destinationLow, payloadLength);
        }
        final ByteBuffer bytes = content.internalNioBuffer(content.readerIndex(), payloadLength);
        buffer.putBytes(index + headerLength, bytes, bytes.position(), payloadLength);
        ring.commit(index);
    }

    /**
     * The event loop's inbound handler of one socket (the link's or a joined group's): datagrams, writability, write
     * errors.
     */
    static final class EventLoopHandler extends ChannelInboundHandlerAdapter
    {
        private final UdpReceivePath receive;
        private final UdpSendPath send;
        private final long destinationHigh;
        private final long destinationLow;

        /**
         * @param receive     where datagrams go.
         * @param send        told of writability and write errors.
         * @param destination the address the socket receives: the bound address or a joined group.
         */
        EventLoopHandler(final UdpReceivePath receive, final UdpSendPath send, final Gid destination)
        {
            this.receive = receive;
            this.send = send;
            this.destinationHigh = destination.high();
            this.destinationLow = destination.low();
        }

        public void channelRead(final ChannelHandlerContext ctx, final Object msg)
        {
            final DatagramPacket packet = (DatagramPacket)msg;
            try
            {
                receive.onDatagram(packet, destinationHigh, destinationLow);
            }
            finally
            {
                packet.release();
            }
        }

        public void channelWritabilityChanged(final ChannelHandlerContext ctx)
        {
            if (ctx.channel().isWritable())
            {
                send.onWritable();
            }
            ctx.fireChannelWritabilityChanged();
        }

        public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
        {
            // Failed writes through the void promise land here: count them, the engine folds them in.
            send.onEventLoopError();
            LOG.log(System.Logger.Level.DEBUG, "udp link: " + cause);
        }
    }
}
