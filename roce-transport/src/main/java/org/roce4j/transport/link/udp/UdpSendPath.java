package org.roce4j.transport.link.udp;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.socket.DatagramPacket;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.ControlledMessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;
import org.roce4j.transport.link.LinkCounter;
import org.roce4j.transport.link.LinkCounters;
import org.roce4j.wire.addr.Gid;

import static java.nio.ByteOrder.BIG_ENDIAN;

/**
 * The send paths of the {@link UdpLink}: where the engine builds frames and how their UDP payloads reach the kernel.
 * <ul>
 *   <li>{@link UdpSendMode#DIRECT}: frames are built in a native arena and {@link #flush()} hands them to
 *   sendmmsg(2) straight from the engine thread: no thread hop, no copy, one system call per batch of up to 64
 *   frames ({@link LinuxSendmmsg}, sockaddr_in or sockaddr_in6 by the socket's family).</li>
 *   <li>{@link UdpSendMode#EVENT_LOOP}: frames are built in a single-producer ring; {@link #flush()} wakes the event
 *   loop once, which copies each payload into a pooled buffer, writes them all and flushes once (epoll: sendmmsg).
 *   Write errors come back through the channel's exception handler and are folded into SEND_ERRORS by the engine
 *   thread.</li>
 * </ul>
 * The frame's IP and UDP header is rewritten to what the kernel sends before it is queued ({@link KernelHeaders});
 * a frame the kernel cannot send is counted in SEND_ERRORS. Engine thread, except the drain task (event loop).
 */
final class UdpSendPath
{
    /** Frames per sendmmsg batch in direct mode. */
    private static final int SEND_BATCH = 64;
    /** Native arena the engine builds frames in (direct mode): room for 64 jumbo frames plus alignment. */
    private static final int SEND_ARENA_BYTES = 1 << 20;
    /** Frames in the arena start on cache-line boundaries. */
    private static final int ARENA_ALIGNMENT = 64;
    /** Ring between the engine and the event loop in event-loop send mode. */
    private static final int SEND_RING_BYTES = 4 << 20;
    /** Record type in the ring. */
    private static final int FRAME_RECORD = 1;
    /**
     * Event-loop send record: destination as a GID (16 bytes: IPv4-mapped for IPv4), destination port, payload
     * offset, payload length, padding to 32 so the frame stays 8-byte aligned.
     */
    static final int SEND_RECORD_PREFIX = 32;
    /** Destinations the drain task keeps socket addresses for (a link has a handful of peers). */
    private static final int RECIPIENTS = 64;

    private final UdpSendMode mode;
    private final boolean ipv6;
    private final LinkCounters counters;
    private final KernelHeaders outgoing;

    private final UnsafeBuffer arena;
    private final LinuxSendmmsg batch;
    private final int[] batchFrameLengths;
    private int arenaPosition;
    private int batched;
    private int batchSent;
    private volatile boolean sending;

    private final OneToOneRingBuffer ring;
    private final AtomicBoolean drainScheduled = new AtomicBoolean();
    private final DrainTask drainTask;
    private volatile long eventLoopErrors;
    private long eventLoopErrorsCounted;
    private boolean wakeEventLoop;
    private int handedSinceFlush;
    private Channel channel;
    private int fd = -1;
    private volatile boolean closed;

    UdpSendPath(final UdpSendMode mode, final UdpLinkConfig config, final LinkCounters counters)
    {
        this.mode = mode;
        this.ipv6 = config.ipv6();
        this.counters = counters;
        this.outgoing = new KernelHeaders(config.address(), config.port());
        if (UdpSendMode.DIRECT == mode)
        {
            arena = new UnsafeBuffer(ByteBuffer.allocateDirect(SEND_ARENA_BYTES));
            batch = new LinuxSendmmsg(SEND_BATCH, ipv6);
            batchFrameLengths = new int[SEND_BATCH];
            ring = null;
            drainTask = null;
        }
        else
        {
            arena = null;
            batch = null;
            batchFrameLengths = null;
            ring = new OneToOneRingBuffer(new UnsafeBuffer(
                ByteBuffer.allocateDirect(SEND_RING_BYTES + RingBufferDescriptor.TRAILER_LENGTH)));
            drainTask = new DrainTask();
        }
    }

    /**
     * @param socket the bound socket.
     */
    void attach(final UdpSocket socket)
    {
        this.channel = socket.channel();
        this.fd = socket.fd();
    }

    /**
     * @return the buffer frames are built in.
     */
    MutableDirectBuffer buffer()
    {
        return UdpSendMode.DIRECT == mode ? arena : ring.buffer();
    }

    /**
     * @param maxLength the most bytes the frame needs.
     * @return the index to build at, or -1 when the arena (after sending what it holds) or the ring is full.
     */
    int claim(final int maxLength)
    {
        if (UdpSendMode.DIRECT == mode)
        {
            if (SEND_BATCH == batched || arenaPosition + maxLength > SEND_ARENA_BYTES)
            {
                sendBatch(false);
                if (SEND_BATCH == batched || arenaPosition + maxLength > SEND_ARENA_BYTES)
                {
                    return -1;
                }
            }
            return arenaPosition;
        }
        final int recordIndex = ring.tryClaim(FRAME_RECORD, SEND_RECORD_PREFIX + maxLength);
        if (recordIndex < 0)
        {
            wakeEventLoop = true;
            scheduleDrain();
            return -1;
        }
        return recordIndex + SEND_RECORD_PREFIX;
    }

    /**
     * Rewrite a committed frame's headers to the kernel's and queue its payload.
     *
     * @param index  of the frame.
     * @param length of the frame.
     * @return true when queued; false when the kernel cannot send it (counted in SEND_ERRORS).
     */
    boolean commit(final int index, final int length)
    {
        final MutableDirectBuffer buffer = buffer();
        final int status = outgoing.prepareOutgoing(buffer, index, length);
        if (UdpSendMode.DIRECT == mode)
        {
            if (KernelHeaders.OK != status)
            {
                counters.increment(LinkCounter.SEND_ERRORS);
                return false;
            }
            final long payload = arena.addressOffset() + outgoing.payloadOffset();
            if (ipv6)
            {
                batch.setIpv6(batched, payload, outgoing.payloadLength(), outgoing.destinationHigh(),
                    outgoing.destinationLow(), outgoing.destinationPort());
            }
            else
            {
                batch.set(batched, payload, outgoing.payloadLength(), outgoing.destinationIpv4(),
                    outgoing.destinationPort());
            }
            batchFrameLengths[batched] = length;
            batched++;
            arenaPosition = align(index + length);
            return true;
        }
        final int recordIndex = index - SEND_RECORD_PREFIX;
        if (KernelHeaders.OK != status)
        {
            ring.abort(recordIndex);
            counters.increment(LinkCounter.SEND_ERRORS);
            return false;
        }
        if (ipv6)
        {
            Gid.write(buffer, recordIndex, outgoing.destinationHigh(), outgoing.destinationLow());
        }
        else
        {
            Gid.write(buffer, recordIndex, Gid.IPV4_MAPPED_HIGH, Gid.ipv4MappedLow(outgoing.destinationIpv4()));
        }
        buffer.putInt(recordIndex + 16, outgoing.destinationPort());
        buffer.putInt(recordIndex + 20, outgoing.payloadOffset() - recordIndex);
        buffer.putInt(recordIndex + 24, outgoing.payloadLength());
        ring.commit(recordIndex);
        counters.increment(LinkCounter.FRAMES_SENT);
        counters.add(LinkCounter.BYTES_SENT, length);
        handedSinceFlush++;
        wakeEventLoop = true;
        return true;
    }

    /**
     * @param index of a claim to give up.
     */
    void abort(final int index)
    {
        if (UdpSendMode.EVENT_LOOP == mode)
        {
            ring.abort(index - SEND_RECORD_PREFIX);
        }
    }

    /**
     * Direct mode: sendmmsg of every committed frame from this thread; frames the kernel's buffer cannot take stay
     * queued for the next flush. Event-loop mode: wakes the event loop once for everything committed.
     *
     * @param claimOpen true while a claim is outstanding (the arena must not be reset under it).
     * @return frames handed to the kernel (direct) or to the event loop.
     */
    int flush(final boolean claimOpen)
    {
        if (UdpSendMode.DIRECT == mode)
        {
            return sendBatch(claimOpen);
        }
        final int handed = handedSinceFlush;
        handedSinceFlush = 0;
        if (wakeEventLoop)
        {
            wakeEventLoop = false;
            scheduleDrain();
        }
        foldEventLoopErrors();
        return handed;
    }

    /**
     * Send the batch; once all of it went and no claim is open, start the arena again from its beginning.
     */
    private int sendBatch(final boolean claimOpen)
    {
        final int sent = batchSent < batched ? sendBatched() : 0;
        if (batchSent == batched && !claimOpen)
        {
            batched = 0;
            batchSent = 0;
            arenaPosition = 0;
        }
        return sent;
    }

    private int sendBatched()
    {
        int sentNow = 0;
        sending = true;
        try
        {
            if (closed)
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
        return sentNow;
    }

    /**
     * Fold the event loop's write errors into SEND_ERRORS (engine thread).
     */
    void foldEventLoopErrors()
    {
        final long errors = eventLoopErrors;
        if (errors != eventLoopErrorsCounted)
        {
            counters.add(LinkCounter.SEND_ERRORS, errors - eventLoopErrorsCounted);
            eventLoopErrorsCounted = errors;
        }
    }

    /**
     * A write failed on the event loop (called there).
     */
    void onEventLoopError()
    {
        eventLoopErrors = eventLoopErrors + 1;
    }

    /**
     * The socket can take writes again (event loop): go on draining.
     */
    void onWritable()
    {
        if (null != drainTask)
        {
            drainTask.run();
        }
    }

    /**
     * Stop sending; waits for a send in progress on the engine thread.
     */
    void close()
    {
        closed = true;
        while (sending)
        {
            Thread.onSpinWait();
        }
    }

    private void scheduleDrain()
    {
        if (!drainScheduled.get() && drainScheduled.compareAndSet(false, true))
        {
            channel.eventLoop().execute(drainTask);
        }
    }

    private static int align(final int position)
    {
        return (position + ARENA_ALIGNMENT - 1) & -ARENA_ALIGNMENT;
    }

    /**
     * Event loop: writes the ring's datagrams while the channel takes them, then flushes once.
     */
    private final class DrainTask implements Runnable
    {
        private final ControlledMessageHandler writer = this::write;
        private final long[] recipientHigh = new long[RECIPIENTS];
        private final long[] recipientLow = new long[RECIPIENTS];
        private final int[] recipientPort = new int[RECIPIENTS];
        private final InetSocketAddress[] recipients = new InetSocketAddress[RECIPIENTS];
        private int nextRecipient;

        public void run()
        {
            drainScheduled.set(false);
            if (!channel.isActive())
            {
                return;
            }
            int written = 0;
            int read;
            do
            {
                read = ring.controlledRead(writer, UdpSocket.RECEIVE_BATCH);
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
            if (!channel.isWritable())
            {
                return ControlledMessageHandler.Action.ABORT;
            }
            final long high = buffer.getLong(index, BIG_ENDIAN);
            final long low = buffer.getLong(index + 8, BIG_ENDIAN);
            final int port = buffer.getInt(index + 16);
            final int payloadIndex = index + buffer.getInt(index + 20);
            final int payloadLength = buffer.getInt(index + 24);
            final ByteBuf datagram = channel.alloc().directBuffer(payloadLength);
            final ByteBuffer target = datagram.internalNioBuffer(0, payloadLength);
            buffer.getBytes(payloadIndex, target, target.position(), payloadLength);
            datagram.writerIndex(payloadLength);
            channel.write(new DatagramPacket(datagram, recipient(high, low, port)), channel.voidPromise());
            return ControlledMessageHandler.Action.CONTINUE;
        }

        /**
         * The socket address of a destination, made once per destination (up to {@link #RECIPIENTS}, then reused
         * round-robin).
         */
        private InetSocketAddress recipient(final long high, final long low, final int port)
        {
            for (int i = 0; i < RECIPIENTS && null != recipients[i]; i++)
            {
                if (recipientHigh[i] == high && recipientLow[i] == low && recipientPort[i] == port)
                {
                    return recipients[i];
                }
            }
            final int slot = nextRecipient;
            nextRecipient = (slot + 1) % RECIPIENTS;
            recipientHigh[slot] = high;
            recipientLow[slot] = low;
            recipientPort[slot] = port;
            recipients[slot] = new InetSocketAddress(new Gid(high, low).toInetAddress(), port);
            return recipients[slot];
        }
    }
}
