package org.roce4j.transport.link.sim;

import java.util.ArrayList;
import java.util.List;

import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.wire.header.Ipv4Header;

import static java.nio.ByteOrder.BIG_ENDIAN;

/**
 * A simulated output-queued Ethernet switch for roce4j endpoints in one JVM, with timing: every attached endpoint
 * gets a {@link SwitchPort} (a {@link org.roce4j.transport.link.Link}) joined to the switch by a full-duplex link of
 * the switch's line rate and propagation delay; each port has an output queue toward its host with a buffer, RED/ECN
 * marking and tail drop. It is how congestion control is watched at work: N senders into one receiver fill one
 * output queue.
 *
 * <p>A frame's life: the sending host's NIC serializes it at the line rate (a transmit queue of {@code hostQueueFrames}
 * frames not yet fully serialized, 2 by default; a full one pushes back on the engine, {@code tryClaim} returning -1,
 * so that the engine's DCQCN pacer decides when frames go on the wire, as a NIC's rate limiter does); it reaches the
 * switch one propagation delay after its last bit; the switch routes it on its destination IP (IPv4, IPv4-mapped or
 * link-local IPv6 as the ports' GID tables hold them) and appends it to that port's output queue, or drops it when the
 * queue's frames would exceed {@code bufferBytes} (tail drop). The queue sends one frame at a time at the line rate; as
 * a frame starts to leave, an ECN-capable frame (ECT(0) or ECT(1)) is marked CE with the RED probability of the bytes
 * still queued behind it, q: 0 up to Kmin, Pmax * (q - Kmin) / (Kmax - Kmin) up to Kmax, 1 above (the DCQCN paper's
 * marking, as HPCC's simulator does it at dequeue, {@code switch-mmu.cc ShouldSendCN}); the IPv4 checksum is updated
 * (the ICRC masks the TOS byte, so it stays valid). Not-ECT frames are never marked, only tail-dropped. The frame
 * reaches the host one propagation delay after its last bit and waits there for the host's engine to poll it.
 *
 * <p>Defaults, after HPCC's simulator ({@code run.py}: KMIN_MAP 25000000000 100, KMAX_MAP 25000000000 400, PMAX_MAP
 * 0.2, thresholds in KB of 1000 bytes, {@code switch-mmu.cc ConfigEcn}): line rate 25 Gb/s, Kmin 100 KB and Kmax 400
 * KB per 25 Gb/s of line rate, Pmax 0.2; a buffer of four times Kmax per port; 1 µs of propagation delay per link.
 *
 * <p>Time is the injected {@link NanoClock}, the one the endpoints' engines use: the switch computes when each frame
 * arrives where and moves it then, whenever a port is polled, flushed or {@link #advance(long) advanced}. Nothing
 * depends on how fast the machine runs, so a run that drives every engine from one thread in invoker mode and
 * advances a {@link org.agrona.concurrent.CachedNanoClock} itself is deterministic for its seed (RED's random numbers
 * come from a seeded generator) and can simulate line rates far above what this machine could move in real time: a
 * simulated second takes as long as its packets take to build and parse. Marking, queue lengths and drops are exact
 * to the nanosecond; what the engines do happens at the instants their driver runs them.
 *
 * <p>The queue length of every port is sampled every {@code sampleIntervalNs} of simulated time
 * ({@link SwitchPort#queueSamples()}).
 *
 * <p>Threading: one thread drives the switch and every attached port (invoker mode). Allocation only when attaching
 * ports and when a sample array grows.
 */
public final class SimSwitch
{
    /** 25 Gb/s: the line rate HPCC's thresholds are given per. */
    public static final long REFERENCE_RATE_BPS = 25_000_000_000L;
    /** Kmin per 25 Gb/s of line rate: 100 KB (HPCC's KMIN_MAP, in KB of 1000 bytes). */
    public static final long KMIN_BYTES_PER_REFERENCE_RATE = 100_000;
    /** Kmax per 25 Gb/s of line rate: 400 KB (HPCC's KMAX_MAP). */
    public static final long KMAX_BYTES_PER_REFERENCE_RATE = 400_000;
    /** Marking probability at Kmax: 0.2 (HPCC's PMAX_MAP). */
    public static final double DEFAULT_PMAX = 0.2;
    /** Default propagation delay of each host-switch link, one way: 1 µs (about 200 m of fibre). */
    public static final long DEFAULT_PROPAGATION_DELAY_NS = 1_000;
    /**
     * Default frames a host's NIC transmit queue holds (not yet fully serialized) before it pushes back on the engine:
     * 2, one on the wire and one ready, so the wire does not idle between two frames while no more than one frame
     * (at most 1.3 µs at 25 Gb/s with 4 KiB frames) escapes a rate cut of the engine's pacer. It was 32, a deep
     * queue after the pacer: 32 frames of 4 KiB (134 KB, 43 µs at 25 Gb/s) per sender went on at line rate after
     * DCQCN had cut the rate, and 8 such senders overran a 1.6 MB switch buffer before their cuts took effect.
     */
    public static final int DEFAULT_HOST_QUEUE_FRAMES = 2;
    /** Default interval between queue-length samples: 10 µs. */
    public static final long DEFAULT_SAMPLE_INTERVAL_NS = 10_000;
    /** Most ports a switch has. */
    public static final int MAX_PORTS = 64;
    /** Bytes a host's receive queue holds for frames its engine has not polled yet. */
    static final int HOST_RX_BYTES = 1 << 20;
    private static final long NS_PER_SECOND = 1_000_000_000L;
    private static final int INITIAL_SAMPLES = 4096;

    private final NanoClock clock;
    private final long lineRateBps;
    private final long bufferBytes;
    private final long propagationDelayNs;
    private final int hostQueueFrames;
    private final long sampleIntervalNs;
    private final RedMarker red;
    private final List<SwitchPort> ports = new ArrayList<>();
    private final FrameRouter router = new FrameRouter();
    private SwitchPort[] portArray = new SwitchPort[0];
    private long nextEventNs = Long.MAX_VALUE;
    private long nextSampleNs = Long.MIN_VALUE;
    private long firstSampleNs = Long.MIN_VALUE;
    private int sampleCount;
    private boolean advancing;

    private SimSwitch(final Builder b)
    {
        this.clock = b.clock;
        this.lineRateBps = b.lineRateBps;
        final double scale = (double)b.lineRateBps / REFERENCE_RATE_BPS;
        final long kminBytes = b.kminBytes >= 0 ? b.kminBytes : Math.round(KMIN_BYTES_PER_REFERENCE_RATE * scale);
        final long kmaxBytes = b.kmaxBytes >= 0 ? b.kmaxBytes : Math.round(KMAX_BYTES_PER_REFERENCE_RATE * scale);
        this.bufferBytes = b.bufferBytes > 0 ? b.bufferBytes : 4 * Math.max(kmaxBytes, 64 * 1024);
        this.propagationDelayNs = b.propagationDelayNs;
        this.hostQueueFrames = b.hostQueueFrames;
        this.sampleIntervalNs = b.sampleIntervalNs;
        if (kmaxBytes < kminBytes)
        {
            throw new IllegalArgumentException("Kmax (" + kmaxBytes + " bytes) is below Kmin (" + kminBytes + ")");
        }
        this.red = new RedMarker(kminBytes, kmaxBytes, b.pmax, b.seed);
    }

    /**
     * @return a builder with the defaults.
     */
    public static Builder builder()
    {
        return new Builder();
    }

    /**
     * Attach an endpoint.
     *
     * @param address its MAC and IPv4 address; the IPv4 address must be free.
     * @param mtu     its IP MTU (68 to 65535).
     * @return its port.
     * @throws IllegalArgumentException for a bad MTU.
     * @throws IllegalStateException    when the address is taken.
     */
    public SwitchPort attach(final LinkAddress address, final int mtu)
    {
        if (mtu < 68 || mtu > 0xFFFF)
        {
            throw new IllegalArgumentException("MTU " + mtu + " is outside 68..65535");
        }
        if (ports.size() >= MAX_PORTS)
        {
            throw new IllegalStateException("a switch has at most " + MAX_PORTS + " ports");
        }
        if (router.has(address))
        {
            throw new IllegalStateException(Ipv4Header.addressToString(address.ipv4()) + " is already attached");
        }
        final long wireBytes = propagationDelayNs * lineRateBps / NS_PER_SECOND / 8 + 1;
        final SwitchPort port = new SwitchPort(this, ports.size(), address, mtu, hostQueueFrames, wireBytes,
            bufferBytes, HOST_RX_BYTES);
        ports.add(port);
        portArray = ports.toArray(new SwitchPort[0]);
        router.add(port);
        return port;
    }

    void detach(final SwitchPort port)
    {
        router.remove(port);
    }

    /**
     * Move every frame as far as the time allows: arrivals at the switch, departures from the output queues (with
     * marking), arrivals at hosts, and queue samples, in time order (at equal times: arrivals before departures, lower
     * port numbers first). Ports call it when polled, flushed and when their frames on the wire fill their ring.
     *
     * @param nowNs the clock's time.
     */
    public void advance(final long nowNs)
    {
        if (advancing)
        {
            return;
        }
        if (Long.MIN_VALUE == nextSampleNs)
        {
            firstSampleNs = nowNs;
            nextSampleNs = nowNs;
        }
        if (nowNs < nextEventNs && nowNs < nextSampleNs)
        {
            return;
        }
        advancing = true;
        try
        {
            run(nowNs);
        }
        finally
        {
            advancing = false;
        }
    }

    private void run(final long nowNs)
    {
        final SwitchPort[] all = portArray;
        while (true)
        {
            long best = Long.MAX_VALUE;
            int kind = 0;
            SwitchPort at = null;
            for (final SwitchPort port : all)
            {
                if (!port.up.isEmpty() && port.up.headTime() < best)
                {
                    best = port.up.headTime();
                    kind = 1;
                    at = port;
                }
            }
            for (final SwitchPort port : all)
            {
                if (!port.queue.isEmpty())
                {
                    final long start = Math.max(port.portFreeNs, port.queue.headTime());
                    if (start < best)
                    {
                        best = start;
                        kind = 2;
                        at = port;
                    }
                }
            }
            if (nextSampleNs < best && nextSampleNs <= nowNs)
            {
                sample();
                continue;
            }
            nextEventNs = best;
            if (best > nowNs)
            {
                return;
            }
            if (1 == kind)
            {
                arrive(at, best);
            }
            else
            {
                depart(at, best);
            }
        }
    }

    private void arrive(final SwitchPort from, final long timeNs)
    {
        final FrameFifo up = from.up;
        final UnsafeBuffer frame = up.buffer();
        final int index = up.headIndex();
        final int length = up.headLength();
        final SwitchPort to = router.route(frame, index, length);
        if (null == to)
        {
            from.switchCounters.increment(SwitchCounter.UNROUTABLE);
        }
        else
        {
            // The switch owns layer 2: the frame leaves with its destination host's MAC.
            frame.putInt(index, (int)(to.address().mac() >>> 16), BIG_ENDIAN);
            frame.putShort(index + 4, (short)to.address().mac(), BIG_ENDIAN);
            if (to.queue.frameBytes() + length > bufferBytes ||
                !to.queue.offer(timeNs, frame, index, length, from.number()))
            {
                to.switchCounters.increment(SwitchCounter.TAIL_DROPS);
                to.switchCounters.add(SwitchCounter.TAIL_DROP_BYTES, length);
            }
            else if (to.queue.frameBytes() > to.maxQueueBytes)
            {
                to.maxQueueBytes = to.queue.frameBytes();
            }
        }
        up.pop();
    }

    private void depart(final SwitchPort port, final long startNs)
    {
        final FrameFifo queue = port.queue;
        final UnsafeBuffer frame = queue.buffer();
        final int index = queue.headIndex();
        final int length = queue.headLength();
        // RED on what stays queued behind this frame (HPCC: the egress bytes after this frame left).
        final long behind = queue.frameBytes() - length;
        if (red.markProbability(behind) > 0)
        {
            final int ipVersion = router.ipVersion(frame, index, length);
            if (red.markCe(frame, router.ipOffset(), ipVersion, behind))
            {
                port.switchCounters.increment(SwitchCounter.ECN_MARKED);
            }
        }
        final long doneNs = startNs + txNs(length);
        port.portFreeNs = doneNs;
        if (!port.down.offer(doneNs + propagationDelayNs, frame, index, length, queue.headTag()))
        {
            port.switchCounters.increment(SwitchCounter.HOST_RX_DROPS);
        }
        port.forwardedBySource[queue.headTag()] += length;
        port.switchCounters.increment(SwitchCounter.FRAMES_FORWARDED);
        port.switchCounters.add(SwitchCounter.BYTES_FORWARDED, length);
        queue.pop();
    }

    /**
     * @param queuedBytes bytes in the queue.
     * @return the RED marking probability at that length.
     */
    double markProbability(final long queuedBytes)
    {
        return red.markProbability(queuedBytes);
    }

    private void sample()
    {
        for (final SwitchPort port : portArray)
        {
            port.addSample(port.queue.frameBytes(), sampleCount, INITIAL_SAMPLES);
        }
        sampleCount++;
        nextSampleNs += sampleIntervalNs;
    }

    /**
     * @return the earliest time something is due in the switch after the last {@link #advance}: a frame reaching the
     *     switch, leaving an output queue or reaching a host, or a full NIC queue taking frames again
     *     ({@link SwitchPort#nicRoomNs()}, when after the clock's time); Long.MAX_VALUE when nothing is in flight. A
     *     driver of simulated time jumps the clock there when its engines are idle. Looks at every port.
     */
    public long nextEventNs()
    {
        final long nowNs = clock.nanoTime();
        long next = Long.MAX_VALUE;
        for (final SwitchPort port : portArray)
        {
            final long roomNs = port.nicRoomNs();
            if (roomNs > nowNs)
            {
                next = Math.min(next, roomNs);
            }
            if (!port.up.isEmpty())
            {
                next = Math.min(next, port.up.headTime());
            }
            if (!port.queue.isEmpty())
            {
                next = Math.min(next, Math.max(port.portFreeNs, port.queue.headTime()));
            }
            if (!port.down.isEmpty())
            {
                next = Math.min(next, port.down.headTime());
            }
        }
        return next;
    }

    /**
     * A host sent a frame that reaches the switch at {@code arrivalNs}.
     */
    void scheduled(final long arrivalNs)
    {
        if (arrivalNs < nextEventNs)
        {
            nextEventNs = arrivalNs;
        }
    }

    /**
     * @param frameBytes a frame's length.
     * @return the time it takes on the wire at the line rate, ns (rounded up).
     */
    long txNs(final int frameBytes)
    {
        return (frameBytes * 8L * NS_PER_SECOND + lineRateBps - 1) / lineRateBps;
    }

    NanoClock clock()
    {
        return clock;
    }

    long propagationDelayNs()
    {
        return propagationDelayNs;
    }

    /**
     * @return the line rate of every link, bits per second.
     */
    public long lineRateBps()
    {
        return lineRateBps;
    }

    /**
     * @return bytes an output queue holds before it tail-drops.
     */
    public long bufferBytes()
    {
        return bufferBytes;
    }

    /**
     * @return RED's Kmin, bytes.
     */
    public long kminBytes()
    {
        return red.kminBytes();
    }

    /**
     * @return RED's Kmax, bytes.
     */
    public long kmaxBytes()
    {
        return red.kmaxBytes();
    }

    /**
     * @return RED's marking probability at Kmax.
     */
    public double pmax()
    {
        return red.pmax();
    }

    /**
     * @return the one-way propagation delay of each link, ns.
     */
    public long propagationDelay()
    {
        return propagationDelayNs;
    }

    /**
     * @return simulated ns between queue samples.
     */
    public long sampleIntervalNs()
    {
        return sampleIntervalNs;
    }

    /**
     * @return the clock time of the first sample (the first {@link #advance}), or Long.MIN_VALUE before it.
     */
    public long firstSampleNs()
    {
        return firstSampleNs;
    }

    /**
     * @return samples taken per port.
     */
    public int sampleCount()
    {
        return sampleCount;
    }

    /**
     * @return the attached ports, in attach order.
     */
    public List<SwitchPort> ports()
    {
        return List.copyOf(ports);
    }

    /**
     * Settings of a {@link SimSwitch}.
     */
    public static final class Builder
    {
        private NanoClock clock;
        private long lineRateBps = REFERENCE_RATE_BPS;
        private long bufferBytes;
        private long kminBytes = -1;
        private long kmaxBytes = -1;
        private double pmax = DEFAULT_PMAX;
        private long propagationDelayNs = DEFAULT_PROPAGATION_DELAY_NS;
        private int hostQueueFrames = DEFAULT_HOST_QUEUE_FRAMES;
        private long sampleIntervalNs = DEFAULT_SAMPLE_INTERVAL_NS;
        private long seed = 1;

        private Builder()
        {
        }

        /**
         * @param clock the engines' clock (required).
         * @return this.
         */
        public Builder clock(final NanoClock clock)
        {
            this.clock = clock;
            return this;
        }

        /**
         * @param bps line rate of every link, bits per second (default 25 Gb/s).
         * @return this.
         */
        public Builder lineRateBps(final long bps)
        {
            this.lineRateBps = positive(bps, "line rate");
            return this;
        }

        /**
         * @param bytes bytes each output queue holds before tail drop (default four times Kmax, at least 256 KiB).
         * @return this.
         */
        public Builder bufferBytes(final long bytes)
        {
            this.bufferBytes = positive(bytes, "buffer");
            return this;
        }

        /**
         * @param kmin RED's Kmin, bytes (default 100 KB per 25 Gb/s).
         * @param kmax RED's Kmax, bytes (default 400 KB per 25 Gb/s).
         * @param p    marking probability at Kmax, 0..1 (default 0.2).
         * @return this.
         */
        public Builder red(final long kmin, final long kmax, final double p)
        {
            if (kmin < 0 || kmax < kmin || !(p >= 0 && p <= 1))
            {
                throw new IllegalArgumentException("RED needs 0 <= Kmin <= Kmax and 0 <= Pmax <= 1: Kmin " + kmin +
                    ", Kmax " + kmax + ", Pmax " + p);
            }
            this.kminBytes = kmin;
            this.kmaxBytes = kmax;
            this.pmax = p;
            return this;
        }

        /**
         * @param ns one-way propagation delay of each link (default 1 µs).
         * @return this.
         */
        public Builder propagationDelayNs(final long ns)
        {
            if (ns < 0)
            {
                throw new IllegalArgumentException("propagation delay must be >= 0 ns: " + ns);
            }
            this.propagationDelayNs = ns;
            return this;
        }

        /**
         * @param frames frames a host's NIC transmit queue holds before they are fully serialized (default 2).
         * @return this.
         */
        public Builder hostQueueFrames(final int frames)
        {
            this.hostQueueFrames = (int)positive(frames, "host queue");
            return this;
        }

        /**
         * @param ns simulated time between queue samples (default 10 µs).
         * @return this.
         */
        public Builder sampleIntervalNs(final long ns)
        {
            this.sampleIntervalNs = positive(ns, "sample interval");
            return this;
        }

        /**
         * @param seed of RED's random numbers (default 1).
         * @return this.
         */
        public Builder seed(final long seed)
        {
            this.seed = seed;
            return this;
        }

        /**
         * @return the switch.
         * @throws IllegalArgumentException without a clock.
         */
        public SimSwitch build()
        {
            if (null == clock)
            {
                throw new IllegalArgumentException("a SimSwitch needs the engines' clock");
            }
            return new SimSwitch(this);
        }

        private static long positive(final long value, final String what)
        {
            if (value < 1)
            {
                throw new IllegalArgumentException(what + " must be positive: " + value);
            }
            return value;
        }
    }
}
