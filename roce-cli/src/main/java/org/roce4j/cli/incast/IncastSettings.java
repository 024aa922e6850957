package org.roce4j.cli.incast;

import java.util.Locale;

import org.roce4j.transport.cc.CongestionControl;

/**
 * What {@code roce incast} simulates: N senders, each with one RC QP writing to one receiver through a
 * {@link org.roce4j.transport.link.sim.SimSwitch}, the switch's settings, when each flow is active, and how results are
 * binned. Times are simulated nanoseconds from the start of the run.
 */
public final class IncastSettings
{
    /** Most senders. */
    public static final int MAX_SENDERS = 16;

    /** When flows are active. */
    public enum Schedule
    {
        /** Every flow from the start to the end. */
        TOGETHER,
        /** Flow i joins at i * stagger and leaves at duration - i * stagger: 1, 2, ... N, ... 2, 1 flows. */
        STAGGERED
    }

    int senders = 4;
    CongestionControl congestionControl = CongestionControl.NONE;
    int trafficClass;
    long lineRateBps = 25_000_000_000L;
    long durationNs = 50_000_000L;
    Schedule schedule = Schedule.TOGETHER;
    long staggerNs = -1;
    long bufferBytes = -1;
    long kminBytes = -1;
    long kmaxBytes = -1;
    double pmax = -1;
    long propagationDelayNs = 1_000;
    int pathMtu = 4096;
    int messageBytes = 16 * 1024;
    int depth = 64;
    long binNs = 500_000L;
    long queueSampleNs = 10_000L;
    long seed = 1;

    /**
     * @param n senders, 1 to {@link #MAX_SENDERS}.
     * @return this.
     */
    public IncastSettings senders(final int n)
    {
        if (n < 1 || n > MAX_SENDERS)
        {
            throw new IllegalArgumentException("-n " + n + ": 1 to " + MAX_SENDERS + " senders");
        }
        this.senders = n;
        return this;
    }

    /**
     * @param cc congestion control of every device (its line_rate is set to the switch's).
     * @return this.
     */
    public IncastSettings congestionControl(final CongestionControl cc)
    {
        this.congestionControl = cc;
        return this;
    }

    /**
     * @param tclass IP traffic class of the flows' packets.
     * @return this.
     */
    public IncastSettings trafficClass(final int tclass)
    {
        this.trafficClass = tclass;
        return this;
    }

    /**
     * @param gbps line rate of every link, Gb/s (1 to 400).
     * @return this.
     */
    public IncastSettings lineRateGbps(final double gbps)
    {
        if (!(gbps >= 1 && gbps <= 400))
        {
            throw new IllegalArgumentException("--rate " + gbps + ": 1 to 400 Gb/s");
        }
        this.lineRateBps = Math.round(gbps * 1e9);
        return this;
    }

    /**
     * @param ms simulated time of the run (1 to 10000 ms).
     * @return this.
     */
    public IncastSettings durationMs(final double ms)
    {
        if (!(ms >= 1 && ms <= 10_000))
        {
            throw new IllegalArgumentException("--duration " + ms + ": 1 to 10000 ms of simulated time");
        }
        this.durationNs = Math.round(ms * 1e6);
        return this;
    }

    /**
     * @param value together or staggered.
     * @return this.
     */
    public IncastSettings schedule(final String value)
    {
        try
        {
            this.schedule = Schedule.valueOf(value.trim().toUpperCase(Locale.ROOT));
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException("--schedule " + value + ": together or staggered", ex);
        }
        return this;
    }

    /**
     * @param ms time between joins (and leaves) of a staggered schedule; default duration / (2 * senders).
     * @return this.
     */
    public IncastSettings staggerMs(final double ms)
    {
        if (!(ms > 0))
        {
            throw new IllegalArgumentException("--stagger " + ms + ": must be positive");
        }
        this.staggerNs = Math.round(ms * 1e6);
        return this;
    }

    /**
     * @param kb output buffer of each switch port, KB of 1000 bytes (default four times Kmax).
     * @return this.
     */
    public IncastSettings bufferKb(final double kb)
    {
        this.bufferBytes = positiveBytes(kb, "--buffer");
        return this;
    }

    /**
     * @param kmin RED Kmin, KB (default 100 per 25 Gb/s).
     * @param kmax RED Kmax, KB (default 400 per 25 Gb/s).
     * @param p    RED Pmax (default 0.2).
     * @return this.
     */
    public IncastSettings red(final double kmin, final double kmax, final double p)
    {
        this.kminBytes = kmin < 0 ? -1 : Math.round(kmin * 1000);
        this.kmaxBytes = kmax < 0 ? -1 : Math.round(kmax * 1000);
        this.pmax = p;
        return this;
    }

    /**
     * @param us one-way propagation delay of each link, µs.
     * @return this.
     */
    public IncastSettings propagationDelayUs(final double us)
    {
        if (!(us >= 0 && us <= 10_000))
        {
            throw new IllegalArgumentException("--delay " + us + ": 0 to 10000 µs");
        }
        this.propagationDelayNs = Math.round(us * 1000);
        return this;
    }

    /**
     * @param mtu path MTU of the QPs: 256, 512, 1024, 2048 or 4096.
     * @return this.
     */
    public IncastSettings pathMtu(final int mtu)
    {
        this.pathMtu = mtu;
        return this;
    }

    /**
     * @param bytes size of each RDMA WRITE.
     * @param outstanding WRITEs each sender keeps posted.
     * @return this.
     */
    public IncastSettings messages(final int bytes, final int outstanding)
    {
        if (bytes < 1 || bytes > 16 * 1024 * 1024 || outstanding < 1 || outstanding > 4096)
        {
            throw new IllegalArgumentException("--size " + bytes + " / --depth " + outstanding + ": 1 B to 16 MiB, " +
                "1 to 4096 outstanding");
        }
        this.messageBytes = bytes;
        this.depth = outstanding;
        return this;
    }

    /**
     * @param us width of a throughput bin, µs.
     * @return this.
     */
    public IncastSettings binUs(final double us)
    {
        if (!(us >= 1))
        {
            throw new IllegalArgumentException("--bin " + us + ": at least 1 µs");
        }
        this.binNs = Math.round(us * 1000);
        return this;
    }

    /**
     * @param seed of the switch's RED draws and the QPs' PSNs.
     * @return this.
     */
    public IncastSettings seed(final long seed)
    {
        this.seed = seed;
        return this;
    }

    /**
     * @return senders.
     */
    public int senders()
    {
        return senders;
    }

    /**
     * @return the seed.
     */
    public long seed()
    {
        return seed;
    }

    /**
     * @param flow a flow's index.
     * @return when it joins, ns from the start.
     */
    long startNs(final int flow)
    {
        return Schedule.TOGETHER == schedule ? 0 : flow * stagger();
    }

    /**
     * @param flow a flow's index.
     * @return when it leaves, ns from the start.
     */
    long endNs(final int flow)
    {
        return Schedule.TOGETHER == schedule ? durationNs : durationNs - flow * stagger();
    }

    long stagger()
    {
        return staggerNs > 0 ? staggerNs : durationNs / (2L * senders);
    }

    private static long positiveBytes(final double kb, final String option)
    {
        if (!(kb > 0))
        {
            throw new IllegalArgumentException(option + " " + kb + ": must be positive");
        }
        return Math.round(kb * 1000);
    }

    /**
     * @return a one-line description of the run.
     */
    String describe()
    {
        return String.format(Locale.ROOT, "%d sender%s -> 1 receiver, --cc %s, %s%s, %.0f ms simulated, seed %d",
            senders, 1 == senders ? "" : "s", congestionControl, schedule.name().toLowerCase(Locale.ROOT),
            Schedule.STAGGERED == schedule ? String.format(Locale.ROOT, " every %.2f ms", stagger() / 1e6) : "",
            durationNs / 1e6, seed);
    }
}
