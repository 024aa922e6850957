package org.roce4j.bench.baseline;

import java.io.File;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

import io.aeron.Aeron;
import io.aeron.CommonContext;
import io.aeron.ExclusivePublication;
import io.aeron.Publication;
import io.aeron.Subscription;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.aeron.logbuffer.BufferClaim;
import io.aeron.logbuffer.FragmentHandler;
import io.aeron.logbuffer.Header;
import io.aeron.protocol.DataHeaderFlyweight;
import org.HdrHistogram.Histogram;
import org.agrona.BitUtil;
import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.AgentInvoker;
import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.bench.ServerLoop;

/**
 * Aeron, the reference for reliable messaging in Java, as the peer measured in the same run as roce4j (issue 15,
 * point 5): an embedded {@link MediaDriver} and one {@link Aeron} client in this JVM, over IPC (the shared-memory
 * log, Aeron's counterpart of roce4j's memory fabric) or UDP unicast on 127.0.0.1 (the counterpart of the udp
 * link). Each side of a figure is one busy-polling thread, as in roce4j's {@code RcPair}: the caller's thread pings
 * or publishes, a {@link ServerLoop} thread answers or consumes; the driver runs its agents on threads of its own
 * ({@link Threading}).
 *
 * <ul>
 *   <li>round trip: one message in flight, as Aeron's {@code EmbeddedPingPong} measures it: offer a ping on one
 *   stream, the other side claims a pong of the same length on a second stream and copies the ping into it, the
 *   pinger polls until its pong (matched by sequence number) arrives;</li>
 *   <li>throughput: as Aeron's {@code EmbeddedThroughput}, one exclusive publication offering as fast as it may,
 *   retrying on back pressure ({@link Publication#BACK_PRESSURED}, {@link Publication#ADMIN_ACTION}: the
 *   subscriber's window is full, counted), the subscriber polls up to {@value #FRAGMENT_LIMIT} messages at a time;
 *   the figure is what the subscriber received in the window.</li>
 * </ul>
 * Every message carries its sequence number in its first 8 bytes and the receiving side checks it (a mismatch is
 * counted, it should never happen over a reliable, ordered stream). Messages fit one frame (MTU {@value #MTU_BYTES}:
 * a 4 KiB message goes as one datagram, as the udp link sends a 4 KiB payload at IB MTU 4096), so no fragment
 * reassembly is needed. The driver's directory lives under {@code /dev/shm} when there is one (else java.io.tmpdir)
 * and is deleted on close.
 */
public final class AeronPeer implements AutoCloseable
{
    /** Frame MTU of IPC and UDP publications: a 4 KiB message and its 32-byte header in one frame. */
    public static final int MTU_BYTES = 8192;
    /** Largest message: one unfragmented frame. */
    public static final int MAX_MESSAGE_BYTES = MTU_BYTES - DataHeaderFlyweight.HEADER_LENGTH;
    /** Term length of IPC and UDP publications: Aeron's UDP default (IPC's 64 MiB is more than a benchmark needs). */
    private static final int TERM_BYTES = 16 * 1024 * 1024;
    /** Messages the consuming side takes per poll (Aeron's samples' fragment limit is 10; 256 drains a burst). */
    private static final int FRAGMENT_LIMIT = 256;
    /** Largest round trip the histogram records exactly: 1 s, as the other baselines. */
    private static final long HISTOGRAM_MAX_NS = TimeUnit.SECONDS.toNanos(1);
    /** A round trip, a connection or a drain that takes longer than this means the peer is broken. */
    private static final long STUCK_NS = TimeUnit.SECONDS.toNanos(10);
    /** How long the client waits for the heartbeat of an invoker-mode driver that no figure runs: 1 hour. */
    private static final long STILL_DRIVER_TIMEOUT_MS = TimeUnit.HOURS.toMillis(1);
    /** Stream of the pings. */
    private static final int PING_STREAM_ID = 1001;
    /** Stream of the pongs. */
    private static final int PONG_STREAM_ID = 1002;
    /** Stream of the throughput figure. */
    private static final int STREAM_STREAM_ID = 1003;

    /**
     * The medium of a figure.
     */
    public enum Medium
    {
        /** Aeron IPC: publisher and subscriber share the log in memory (beside roce4j's memory fabric). */
        IPC("ipc"),
        /** Aeron UDP unicast on 127.0.0.1 (beside roce4j's udp link on loopback). */
        UDP("udp");

        private final String label;

        Medium(final String label)
        {
            this.label = label;
        }

        /**
         * @return the name used on the command line and in reports.
         */
        public String label()
        {
            return label;
        }

        /**
         * @param labels comma-separated, as {@link #label()} prints them.
         * @return the media, in that order.
         * @throws IllegalArgumentException naming the valid labels.
         */
        public static List<Medium> listOf(final String labels)
        {
            final List<Medium> media = new ArrayList<>();
            for (final String label : labels.split(","))
            {
                media.add(Arrays.stream(values()).filter((medium) -> medium.label.equals(label.trim()))
                    .findFirst().orElseThrow(() ->
                        new IllegalArgumentException("unknown Aeron medium '" + label + "' (ipc, udp)")));
            }
            return media;
        }
    }

    /**
     * How the media driver runs its agents (Aeron's {@link ThreadingMode}). The data-path agents (sender, receiver,
     * or the shared agent) busy-spin when {@code busySpin}; the conductor, off the data path, backs off as in Aeron's
     * {@code EmbeddedPingPong}.
     */
    public enum Threading
    {
        /** Conductor, sender and receiver on three threads. */
        DEDICATED(ThreadingMode.DEDICATED, 3),
        /** Conductor on one thread, sender and receiver on another. */
        SHARED_NETWORK(ThreadingMode.SHARED_NETWORK, 2),
        /** All three agents on one thread. */
        SHARED(ThreadingMode.SHARED, 1),
        /**
         * No driver thread: the pinging or publishing side's thread runs the driver's agents in its loop, as each
         * roce4j side's thread runs its engine, so Aeron's figures take two busy threads, as roce4j's do.
         */
        INVOKER(ThreadingMode.INVOKER, 0);

        private final ThreadingMode mode;
        private final int driverThreads;

        Threading(final ThreadingMode mode, final int driverThreads)
        {
            this.mode = mode;
            this.driverThreads = driverThreads;
        }

        /**
         * @return the driver's own threads in this mode (the two sides' threads come on top).
         */
        public int driverThreads()
        {
            return driverThreads;
        }

        /**
         * @return the name used on the command line ({@code dedicated}, {@code shared-network}, {@code shared}).
         */
        public String label()
        {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }

        /**
         * @param label as {@link #label()} prints it.
         * @return the mode.
         * @throws IllegalArgumentException naming the valid labels.
         */
        public static Threading of(final String label)
        {
            for (final Threading threading : values())
            {
                if (threading.label().equals(label))
                {
                    return threading;
                }
            }
            throw new IllegalArgumentException("unknown Aeron threading '" + label +
                "' (dedicated, shared-network, shared, invoker)");
        }
    }

    /**
     * A round-trip figure.
     *
     * @param histogram  round trips recorded after the warm-up, in nanoseconds.
     * @param mismatches pongs whose sequence number was not the ping's (0 on a working peer).
     */
    public record RoundTrips(Histogram histogram, long mismatches)
    {
    }

    /**
     * A throughput figure.
     *
     * @param sizeBytes        message size.
     * @param windowMessages   messages received in the measured window.
     * @param elapsedNs        length of the window.
     * @param sent             messages published in the whole run (warm-up included).
     * @param received         messages received in the whole run, all of them once the run drained.
     * @param backPressured    offers refused for back pressure (retried).
     * @param sequenceErrors   messages received out of sequence (0 on a working peer).
     */
    public record Throughput(
        int sizeBytes, long windowMessages, long elapsedNs, long sent, long received, long backPressured,
        long sequenceErrors)
    {
        /**
         * @return messages per second in the window.
         */
        public double messagesPerSecond()
        {
            return windowMessages * 1e9 / Math.max(1, elapsedNs);
        }

        /**
         * @return payload bytes per second in the window.
         */
        public double bytesPerSecond()
        {
            return messagesPerSecond() * sizeBytes;
        }
    }

    private final Threading threading;
    private final MediaDriver driver;
    /** Runs the driver's agents in INVOKER mode; null when the driver has threads of its own. */
    private final AgentInvoker driverInvoker;
    private final Aeron aeron;
    /** Runs the client's conductor in INVOKER mode; null when it has a thread of its own. */
    private final AgentInvoker clientInvoker;
    private final UnsafeBuffer sendBuffer =
        new UnsafeBuffer(BufferUtil.allocateDirectAligned(MAX_MESSAGE_BYTES, BitUtil.CACHE_LINE_LENGTH));

    /**
     * Launch an embedded media driver and connect a client to it.
     *
     * @param threading how the driver runs its agents.
     * @param busySpin  true: the data-path agents busy-spin (benchmarks); false: they back off (tests on a shared
     *                  machine).
     */
    public AeronPeer(final Threading threading, final boolean busySpin)
    {
        this.threading = threading;
        final MediaDriver.Context context = new MediaDriver.Context()
            .aeronDirectoryName(directory())
            .dirDeleteOnStart(true)
            .dirDeleteOnShutdown(true)
            .threadingMode(threading.mode)
            .conductorIdleStrategy(new BackoffIdleStrategy())
            .senderIdleStrategy(idle(busySpin))
            .receiverIdleStrategy(idle(busySpin))
            .sharedNetworkIdleStrategy(idle(busySpin))
            .sharedIdleStrategy(idle(busySpin))
            .mtuLength(MTU_BYTES)
            .ipcMtuLength(MTU_BYTES)
            .publicationTermBufferLength(TERM_BYTES)
            .ipcTermBufferLength(TERM_BYTES);
        if (ThreadingMode.INVOKER == threading.mode)
        {
            // Nothing runs the driver or the client between figures (while roce4j's are measured): neither may
            // time the other out meanwhile. The unblock timeout must exceed the liveness timeout (Aeron checks).
            context.clientLivenessTimeoutNs(TimeUnit.MILLISECONDS.toNanos(STILL_DRIVER_TIMEOUT_MS))
                .publicationUnblockTimeoutNs(TimeUnit.MILLISECONDS.toNanos(2 * STILL_DRIVER_TIMEOUT_MS));
        }
        driver = MediaDriver.launch(context);
        driverInvoker = driver.sharedAgentInvoker();
        try
        {
            // An invoker-mode driver runs only while a figure runs (the client's own calls invoke it too): between
            // figures, while roce4j's are measured, it is still, and its heartbeat with it.
            aeron = Aeron.connect(new Aeron.Context().aeronDirectoryName(driver.aeronDirectoryName())
                .driverAgentInvoker(driverInvoker)
                .useConductorAgentInvoker(null != driverInvoker)
                .driverTimeoutMs(null == driverInvoker ? CommonContext.DRIVER_TIMEOUT_MS : STILL_DRIVER_TIMEOUT_MS));
            clientInvoker = aeron.conductorAgentInvoker();
        }
        catch (final RuntimeException ex)
        {
            driver.close();
            throw ex;
        }
    }

    private static IdleStrategy idle(final boolean busySpin)
    {
        return busySpin ? new BusySpinIdleStrategy() : new BackoffIdleStrategy();
    }

    private static String directory()
    {
        final File shm = new File("/dev/shm");
        final String parent = shm.isDirectory() && shm.canWrite() ? shm.getPath() :
            System.getProperty("java.io.tmpdir");
        return new File(parent, "roce4j-aeron-" + ProcessHandle.current().pid() + "-" + System.nanoTime()).getPath();
    }

    /**
     * @return how the driver runs its agents.
     */
    public Threading threading()
    {
        return threading;
    }

    /**
     * Ping-pong one message at a time.
     *
     * @param medium    IPC or UDP.
     * @param sizeBytes message size, 8 to {@link #MAX_MESSAGE_BYTES}.
     * @param warmupNs  time before recording.
     * @param measureNs time recording (at least one round trip is made and recorded when the warm-up is 0).
     * @return the round trips.
     */
    public RoundTrips roundTrips(final Medium medium, final int sizeBytes, final long warmupNs, final long measureNs)
    {
        checkSize(sizeBytes);
        final String channel = channel(medium);
        try (Subscription pings = aeron.addSubscription(channel, PING_STREAM_ID);
            Subscription pongs = aeron.addSubscription(channel, PONG_STREAM_ID);
            ExclusivePublication pingOut = aeron.addExclusivePublication(resolved(pings), PING_STREAM_ID);
            ExclusivePublication pongOut = aeron.addExclusivePublication(resolved(pongs), PONG_STREAM_ID))
        {
            await("ping-pong over " + medium.label(), () ->
                pingOut.isConnected() && pongOut.isConnected() && pings.isConnected() && pongs.isConnected());
            final BufferClaim claim = new BufferClaim();
            final FragmentHandler echo = (buffer, offset, length, header) ->
            {
                long result;
                while ((result = pongOut.tryClaim(length, claim)) <= 0)
                {
                    checkOffer(result, "pong");
                }
                claim.putBytes(buffer, offset, length).commit();
            };
            final PongCatcher catcher = new PongCatcher();
            final ServerLoop ponger = new ServerLoop("aeron-pong-" + medium.label(), () -> pings.poll(echo, 1));
            try
            {
                return new RoundTrips(Baselines.recordRoundTrips(warmupNs, measureNs, () ->
                {
                    final long sequence = catcher.expected + 1;
                    catcher.expected = sequence;
                    sendBuffer.putLong(0, sequence);
                    long result;
                    while ((result = pingOut.offer(sendBuffer, 0, sizeBytes)) < 0)
                    {
                        checkOffer(result, "ping");
                        runDriver();
                    }
                    final long sentNs = System.nanoTime();
                    while (catcher.caught != sequence)
                    {
                        runDriver();
                        if (0 == pongs.poll(catcher, 1) && System.nanoTime() - sentNs > STUCK_NS)
                        {
                            throw new IllegalStateException("no pong over " + medium.label() + " within 10 s" +
                                (ponger.isHealthy() ? "" : " (the pong thread failed)"));
                        }
                    }
                    return true;
                }), catcher.mismatches);
            }
            finally
            {
                ponger.close();
            }
        }
    }

    /**
     * The pinger's fragment handler: takes the pong, counts it when it is not the one expected.
     */
    private static final class PongCatcher implements FragmentHandler
    {
        long expected;
        long caught;
        long mismatches;

        @Override
        public void onFragment(final DirectBuffer buffer, final int offset, final int length, final Header header)
        {
            caught = buffer.getLong(offset);
            if (caught != expected)
            {
                mismatches++;
                caught = expected;
            }
        }
    }

    /**
     * Publish as fast as the subscriber takes, and count what arrives.
     *
     * @param medium    IPC or UDP.
     * @param sizeBytes message size, 8 to {@link #MAX_MESSAGE_BYTES}.
     * @param warmupNs  time before counting.
     * @param measureNs time counted (at least one message is published in each phase, and the run drains).
     * @return what was measured.
     */
    public Throughput throughput(final Medium medium, final int sizeBytes, final long warmupNs, final long measureNs)
    {
        checkSize(sizeBytes);
        try (Subscription in = aeron.addSubscription(channel(medium), STREAM_STREAM_ID);
            ExclusivePublication out = aeron.addExclusivePublication(resolved(in), STREAM_STREAM_ID))
        {
            await("stream over " + medium.label(), () -> out.isConnected() && in.isConnected());
            final SequenceCounter counter = new SequenceCounter();
            final ServerLoop consumer = new ServerLoop("aeron-subscriber-" + medium.label(),
                () -> in.poll(counter, FRAGMENT_LIMIT));
            final Publisher publisher = new Publisher(out, sizeBytes);
            try
            {
                publisher.publishUntil(System.nanoTime() + warmupNs);
                final long startCount = counter.received.getAcquire();
                final long startNs = System.nanoTime();
                publisher.publishUntil(startNs + measureNs);
                final long endCount = counter.received.getAcquire();
                final long endNs = System.nanoTime();
                await("the subscriber to drain over " + medium.label(),
                    () -> counter.received.getAcquire() == publisher.sent || !consumer.isHealthy());
                return new Throughput(sizeBytes, endCount - startCount, endNs - startNs, publisher.sent,
                    counter.received.getAcquire(), publisher.backPressured, counter.sequenceErrors);
            }
            finally
            {
                consumer.close();
            }
        }
    }

    /**
     * The publishing side of the throughput figure.
     */
    private final class Publisher
    {
        private final ExclusivePublication out;
        private final int sizeBytes;
        long sent;
        long backPressured;

        Publisher(final ExclusivePublication out, final int sizeBytes)
        {
            this.out = out;
            this.sizeBytes = sizeBytes;
        }

        void publishUntil(final long untilNs)
        {
            do
            {
                sendBuffer.putLong(0, sent + 1);
                final long result = out.offer(sendBuffer, 0, sizeBytes);
                if (result > 0)
                {
                    sent++;
                }
                else
                {
                    checkOffer(result, "stream");
                    backPressured++;
                }
                runDriver();
            }
            while (System.nanoTime() - untilNs < 0);
        }
    }

    /**
     * The subscriber's fragment handler: counts messages and checks their sequence numbers.
     */
    private static final class SequenceCounter implements FragmentHandler
    {
        final AtomicLong received = new AtomicLong();
        volatile long sequenceErrors;

        @Override
        public void onFragment(final DirectBuffer buffer, final int offset, final int length, final Header header)
        {
            final long count = received.getPlain() + 1;
            if (buffer.getLong(offset) != count)
            {
                sequenceErrors = sequenceErrors + 1;
            }
            received.setRelease(count);
        }
    }

    /**
     * A refused offer or claim: back pressure and admin actions are retried; anything else is a broken peer.
     */
    private static void checkOffer(final long result, final String what)
    {
        if (Publication.BACK_PRESSURED != result && Publication.ADMIN_ACTION != result)
        {
            throw new IllegalStateException("Aeron refused the " + what + " message: " +
                Publication.errorString(result));
        }
    }

    private static void checkSize(final int sizeBytes)
    {
        if (sizeBytes < Long.BYTES || sizeBytes > MAX_MESSAGE_BYTES)
        {
            throw new IllegalArgumentException("message size " + sizeBytes + " B outside 8.." + MAX_MESSAGE_BYTES +
                " (one unfragmented frame at MTU " + MTU_BYTES + ")");
        }
    }

    private static String channel(final Medium medium)
    {
        // Port 0: the subscription binds a free port, which resolved() reads back for the publication.
        return Medium.IPC == medium ? CommonContext.IPC_CHANNEL : "aeron:udp?endpoint=127.0.0.1:0";
    }

    /**
     * @return the channel a publication to this subscription uses: the same for IPC, the bound endpoint for UDP.
     */
    private String resolved(final Subscription subscription)
    {
        if (CommonContext.IPC_CHANNEL.equals(subscription.channel()))
        {
            return subscription.channel();
        }
        final String[] channel = new String[1];
        await("the UDP subscription to bind a port", () ->
            null != (channel[0] = subscription.tryResolveChannelEndpointPort()));
        return channel[0];
    }

    /**
     * Wait, running the driver in invoker mode and yielding otherwise, for a condition that setting up or draining a
     * stream makes true within {@link #STUCK_NS}.
     */
    private void await(final String what, final BooleanSupplier condition)
    {
        final long startNs = System.nanoTime();
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() - startNs > STUCK_NS)
            {
                throw new IllegalStateException("Aeron: timed out waiting for " + what);
            }
            if (null == driverInvoker)
            {
                Thread.yield();
            }
            runDriver();
        }
    }

    /**
     * Run the driver's agents and the client's conductor once when they have no threads of their own (only ever
     * from the caller's thread).
     */
    private void runDriver()
    {
        if (null != driverInvoker)
        {
            driverInvoker.invoke();
            clientInvoker.invoke();
        }
    }

    /**
     * Close the client and the driver, which deletes its directory.
     */
    public void close()
    {
        try
        {
            aeron.close();
        }
        finally
        {
            driver.close();
        }
    }
}
