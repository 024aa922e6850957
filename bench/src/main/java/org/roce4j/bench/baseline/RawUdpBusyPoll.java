package org.roce4j.bench.baseline;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.HdrHistogram.Histogram;
import org.roce4j.bench.ServerLoop;

/**
 * Raw kernel UDP, busy-polled: what the JDK's own non-blocking {@link DatagramChannel} moves over loopback between
 * two threads that each spin on their channel, with no protocol on top: the suite's raw UDP baseline, and the
 * links set's round-trip baseline (the udp link busy-polls its non-blocking socket on the engine thread in the same
 * way; {@link RawUdpEventLoop} is the one driven by Netty event loops, the links set's WRITE baseline). A message
 * of S bytes travels as ceil(S / segment) datagrams of at most a segment each, one {@code send} system call each:
 * the suite's segment is 4096 bytes (the payload of one RoCE packet at MTU 4096), the links set's is the link's
 * datagram, so a message is one datagram as on the link.
 * <ul>
 *   <li>stream: one thread sends as fast as it can, the other busy-polls {@code receive}; the figure is what
 *   arrived (loopback drops what the receiver cannot keep up with);</li>
 *   <li>ping-pong: one message in flight, the server returns it whole, both sides busy-poll.</li>
 * </ul>
 */
public final class RawUdpBusyPoll implements AutoCloseable
{
    /** Largest datagram payload: one RoCE packet's payload at MTU 4096. */
    public static final int SEGMENT_BYTES = 4096;
    /** A ping-pong round trip lost on loopback (socket buffer full) is abandoned after this long. */
    private static final long LOST_NS = TimeUnit.MILLISECONDS.toNanos(200);
    /** Socket buffer size asked for (the kernel caps it at net.core.[rw]mem_max). */
    private static final int SOCKET_BUFFER_BYTES = 4 << 20;

    private final int segmentBytes;
    private final DatagramChannel client;
    private final DatagramChannel server;
    private final InetSocketAddress clientAddress;
    private final InetSocketAddress serverAddress;
    private final ByteBuffer clientBuffer;
    private final ByteBuffer serverBuffer;

    /**
     * Where the two channels are opened: the links set opens each inside its side's network namespace.
     */
    @FunctionalInterface
    public interface Opener
    {
        /**
         * @param side 0 for the client, 1 for the server.
         * @param task opens the channel.
         * @return the channel, opened where the side lives.
         */
        DatagramChannel open(int side, Callable<DatagramChannel> task);
    }

    /**
     * Open two non-blocking channels on 127.0.0.1, on free ports, sending messages in datagrams of at most
     * {@link #SEGMENT_BYTES}.
     */
    public RawUdpBusyPoll()
    {
        this((side, task) ->
        {
            try
            {
                return task.call();
            }
            catch (final Exception ex)
            {
                throw new IllegalStateException(ex);
            }
        }, "127.0.0.1", "127.0.0.1", SEGMENT_BYTES);
    }

    /**
     * Open two non-blocking channels on free ports of the given addresses.
     *
     * @param opener        where each channel is opened.
     * @param clientIp      the client's IPv4 address.
     * @param serverIp      the server's IPv4 address.
     * @param segmentBytes  largest datagram payload: a message goes as ceil(size / segmentBytes) datagrams (the
     *                      links set passes the link's datagram size, so a message is one datagram as on the link).
     */
    public RawUdpBusyPoll(final Opener opener, final String clientIp, final String serverIp, final int segmentBytes)
    {
        this.segmentBytes = segmentBytes;
        clientBuffer = ByteBuffer.allocateDirect(segmentBytes);
        serverBuffer = ByteBuffer.allocateDirect(segmentBytes);
        DatagramChannel openedClient = null;
        DatagramChannel openedServer = null;
        try
        {
            openedClient = opener.open(0, () -> open(clientIp));
            openedServer = opener.open(1, () -> open(serverIp));
            clientAddress = (InetSocketAddress)openedClient.getLocalAddress();
            serverAddress = (InetSocketAddress)openedServer.getLocalAddress();
        }
        catch (final IOException | RuntimeException ex)
        {
            closeQuietly(openedClient);
            closeQuietly(openedServer);
            throw new IllegalStateException("cannot open the raw UDP baseline sockets: " + ex.getMessage(), ex);
        }
        client = openedClient;
        server = openedServer;
    }

    private static DatagramChannel open(final String ip) throws IOException
    {
        final DatagramChannel channel = DatagramChannel.open();
        channel.setOption(StandardSocketOptions.SO_RCVBUF, SOCKET_BUFFER_BYTES);
        channel.setOption(StandardSocketOptions.SO_SNDBUF, SOCKET_BUFFER_BYTES);
        channel.bind(new InetSocketAddress(ip, 0));
        channel.configureBlocking(false);
        return channel;
    }

    private static void closeQuietly(final DatagramChannel channel)
    {
        if (null != channel)
        {
            try
            {
                channel.close();
            }
            catch (final IOException ignored)
            {
                // Already failing: the first error is the one reported.
            }
        }
    }

    /**
     * Stream messages one way.
     *
     * @param sizeBytes message size.
     * @param warmupNs  time before measuring.
     * @param measureNs time measured.
     * @return payload bytes received per second.
     */
    public double streamBytesPerSecond(final int sizeBytes, final long warmupNs, final long measureNs)
    {
        final AtomicLong received = new AtomicLong();
        final ServerLoop receiver = new ServerLoop("raw-udp-receiver", () ->
        {
            serverBuffer.clear();
            if (null != receive(server, serverBuffer))
            {
                received.setRelease(received.getPlain() + serverBuffer.position());
            }
        });
        final long[] snapshot = new long[2];
        try
        {
            final long startNs = System.nanoTime();
            sendUntil(sizeBytes, startNs + warmupNs);
            snapshot[0] = received.getAcquire();
            final long measureStartNs = System.nanoTime();
            sendUntil(sizeBytes, measureStartNs + measureNs);
            snapshot[1] = received.getAcquire();
            return (snapshot[1] - snapshot[0]) * 1e9 / (System.nanoTime() - measureStartNs);
        }
        finally
        {
            receiver.close();
        }
    }

    private void sendUntil(final int sizeBytes, final long untilNs)
    {
        while (System.nanoTime() - untilNs < 0)
        {
            sendMessage(client, clientBuffer, serverAddress, sizeBytes, segmentBytes);
        }
    }

    /**
     * Ping-pong one message at a time.
     *
     * @param sizeBytes message size.
     * @param warmupNs  time before recording.
     * @param measureNs time recording.
     * @return round trips in nanoseconds.
     */
    public Histogram roundTrips(final int sizeBytes, final long warmupNs, final long measureNs)
    {
        final int segments = segments(sizeBytes, segmentBytes);
        final int[] serverGot = new int[1];
        final ServerLoop echo = new ServerLoop("raw-udp-echo", () ->
        {
            serverBuffer.clear();
            if (null != receive(server, serverBuffer) && ++serverGot[0] == segments)
            {
                serverGot[0] = 0;
                sendMessage(server, serverBuffer, clientAddress, sizeBytes, segmentBytes);
            }
        });
        try
        {
            return Baselines.recordRoundTrips(warmupNs, measureNs, () ->
            {
                final long sentNs = System.nanoTime();
                sendMessage(client, clientBuffer, serverAddress, sizeBytes, segmentBytes);
                int got = 0;
                while (got < segments)
                {
                    clientBuffer.clear();
                    if (null != receive(client, clientBuffer))
                    {
                        got++;
                    }
                    else if (System.nanoTime() - sentNs > LOST_NS)
                    {
                        return false;
                    }
                }
                return true;
            });
        }
        finally
        {
            echo.close();
        }
    }

    private static int segments(final int sizeBytes, final int segmentBytes)
    {
        return Math.max(1, (sizeBytes + segmentBytes - 1) / segmentBytes);
    }

    private static void sendMessage(final DatagramChannel channel, final ByteBuffer buffer,
        final InetSocketAddress to, final int sizeBytes, final int segmentBytes)
    {
        int left = sizeBytes;
        do
        {
            final int segment = Math.min(left, segmentBytes);
            buffer.clear().limit(segment);
            try
            {
                channel.send(buffer, to);
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException(ex);
            }
            left -= segment;
        }
        while (left > 0);
    }

    private static Object receive(final DatagramChannel channel, final ByteBuffer buffer)
    {
        try
        {
            return channel.receive(buffer);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * Close both channels.
     */
    public void close()
    {
        try
        {
            client.close();
            server.close();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }
}
