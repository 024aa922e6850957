package org.roce4j.bench.link;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.bench.Measurement;
import org.roce4j.bench.Window;
import org.roce4j.bench.baseline.RawUdpEventLoop;
import org.roce4j.transport.link.FrameHandler;
import org.roce4j.transport.link.LinkCounter;
import org.roce4j.transport.link.udp.UdpLink;
import org.roce4j.transport.link.udp.UdpTransport;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RoceFrameBuilder;

/**
 * The udp link alone, on frames (no engine): throughput and latency of {@link UdpLink} for each transport and send
 * path, against raw Netty datagram channels of the same transport ({@link RawUdpEventLoop}) measured in the same
 * run on loopback. A harness for rough ratios, run by hand:
 * <pre>
 * java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -cp bench/target/benchmarks.jar \
 *     org.roce4j.bench.link.UdpLinkFrameBench [seconds] [only cases whose options contain this]
 * </pre>
 *
 * <p>Throughput: one thread sends the same prebuilt frame (UD SEND_ONLY) through the link as fast as the link
 * takes it, flushing every 32 frames and keeping at most 512 frames in flight (like a transport window, so the
 * figure is frames delivered, not frames the receiver's socket dropped); another thread polls the receiving link
 * and counts. Raw: a Netty channel's event loop writes batches of 32 datagrams of the same UDP payload size and
 * flushes; a second channel counts what it reads. Latency: one frame bounces between two links, each driven by its
 * own spinning thread; raw: Netty handlers echo in channelRead. Spinning threads yield when idle so the event loops
 * get the CPU on small machines. The engine-level link benchmarks are {@link LinkBench}.
 */
public final class UdpLinkFrameBench
{
    private static final int BATCH = 32;
    /** Frames in flight at most (the receiver's count is read through shared memory): measures delivery, not loss. */
    private static final int WINDOW = 512;
    /** A window that has not moved for this long lost frames the sender cannot see: reopen it. */
    private static final long STALL_NS = 20_000_000L;
    /** Round trips before the latency measurement may start. */
    private static final int PINGS_WARMUP = 20_000;

    private UdpLinkFrameBench()
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
                final double raw = RawUdpEventLoop.throughput(UdpTransport.fromSpecName(c[0]), RawUdpEventLoop.HERE,
                    address(subnet, 1), address(subnet, 2), datagramBytes(payload), WINDOW, window(seconds))
                    .opsPerSecond();
                final double[] link = linkThroughput(c[1], payload, seconds, subnet);
                System.out.printf("throughput payload=%5d %-35s link %,10.0f frames/s (%,7.1f MB/s, drops %,d)  " +
                    "raw netty %,10.0f dgrams/s  ratio %.2f%n", payload, c[1], link[0],
                    link[0] * frameBytes(payload) / 1e6,
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
            final Measurement rawPingPong = RawUdpEventLoop.latency(UdpTransport.fromSpecName(c[0]),
                RawUdpEventLoop.HERE, address(subnet, 1), address(subnet, 2), datagramBytes(64), window(seconds));
            final double rawRtt = rawPingPong.meanRttUs() * 1e3;
            final double linkRtt = linkPingPong(c[1], 64, seconds, subnet);
            System.out.printf("latency payload=64 %-35s link rtt %6.2f us  raw netty rtt %6.2f us  ratio %.2f%n",
                c[1], linkRtt / 1e3, rawRtt / 1e3, linkRtt / rawRtt);
        }
        System.exit(0);
    }

    private static Window window(final double seconds)
    {
        return new Window(seconds * 0.3, seconds);
    }

    /**
     * @return UDP payload of a UD SEND_ONLY frame: BTH 12 + DETH 8 + payload + ICRC 4.
     */
    private static int datagramBytes(final int payload)
    {
        return 12 + 8 + payload + 4;
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
}
