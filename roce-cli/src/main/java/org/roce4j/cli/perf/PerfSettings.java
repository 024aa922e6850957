package org.roce4j.cli.perf;

import org.roce4j.cm.perftest.PerftestTcpConnector;
import org.roce4j.cm.perftest.PerftestVersion;
import org.roce4j.cm.perftest.PerftestVersionException;
import org.roce4j.ib.QpType;

/**
 * The parameters of one {@code roce perf} side, with perftest 4.5+0.17's defaults (init_perftest_params in
 * perftest_parameters.c) and, in {@link #resolve}, the checks and adjustments perftest makes before a run
 * (force_dependecies; {@link PerfResolution} holds them). Fields hold what the user asked for; the resolved values
 * are what both sides run with.
 */
public final class PerfSettings
{
    /** Largest message of a size sweep, and the buffer size -a allocates (MAX_SIZE, 8 MiB). */
    public static final long MAX_SIZE = 8_388_608;
    /** Fewest iterations perftest accepts (MIN_ITER). */
    public static final int MIN_ITERS = 5;
    /** Most iterations perftest accepts (MAX_ITER). */
    public static final int MAX_ITERS = 100_000_000;
    /** The two atomic operations (AtomicType). */
    public enum AtomicType
    {
        /** Compare and swap (compare 0, swap 0, as perftest). */
        CMP_AND_SWAP,
        /** Fetch and add 1 (ATOMIC_ADD_VALUE). */
        FETCH_AND_ADD
    }

    PerfTest test = PerfTest.WRITE_BW;
    String server;
    int port = PerftestTcpConnector.DEFAULT_PORT;
    String deviceName;
    long size = -1;
    int iters = -1;
    boolean all;
    int durationSec;
    int marginSec = -1;
    int qps = 1;
    int mtuBytes;
    int gidIndex = -1;
    QpType connection = QpType.RC;
    int txDepth = -1;
    int rxDepth = -1;
    int cqMod = -1;
    AtomicType atomicType = AtomicType.FETCH_AND_ADD;
    boolean reportGbits;
    boolean duplex;
    boolean noPeak;
    int outReads;
    int qpTimeout = PerfResolution.DEFAULT_QP_TIMEOUT;
    int serviceLevel;
    int trafficClass = -1;
    boolean json;
    boolean rdmaCm;
    long timeoutMs = 30_000;
    String perftestVersion = PerftestVersion.LOCAL;

    /**
     * @return an independent copy.
     */
    public PerfSettings copy()
    {
        final PerfSettings c = new PerfSettings();
        c.test = test;
        c.server = server;
        c.port = port;
        c.deviceName = deviceName;
        c.size = size;
        c.iters = iters;
        c.all = all;
        c.durationSec = durationSec;
        c.marginSec = marginSec;
        c.qps = qps;
        c.mtuBytes = mtuBytes;
        c.gidIndex = gidIndex;
        c.connection = connection;
        c.txDepth = txDepth;
        c.rxDepth = rxDepth;
        c.cqMod = cqMod;
        c.atomicType = atomicType;
        c.reportGbits = reportGbits;
        c.duplex = duplex;
        c.noPeak = noPeak;
        c.outReads = outReads;
        c.qpTimeout = qpTimeout;
        c.serviceLevel = serviceLevel;
        c.trafficClass = trafficClass;
        c.json = json;
        c.rdmaCm = rdmaCm;
        c.timeoutMs = timeoutMs;
        c.perftestVersion = perftestVersion;
        return c;
    }

    /**
     * @return true on the side that connects.
     */
    public boolean isClient()
    {
        return null != server;
    }

    /**
     * @return the test.
     */
    public PerfTest test()
    {
        return test;
    }

    /**
     * @param server host to connect to, or null to be the server.
     * @return this.
     */
    public PerfSettings server(final String server)
    {
        this.server = server;
        return this;
    }

    /**
     * @param port TCP port of the exchange.
     * @return this.
     */
    public PerfSettings port(final int port)
    {
        this.port = port;
        return this;
    }

    /**
     * @return the timeout in milliseconds.
     */
    public long timeoutMs()
    {
        return timeoutMs;
    }

    /**
     * @param gidIndex GID index, -1 to pick the best (IPv4-mapped, as perftest does on Ethernet ports).
     * @return this.
     */
    public PerfSettings gidIndex(final int gidIndex)
    {
        this.gidIndex = gidIndex;
        return this;
    }

    /**
     * @param test the tool to play.
     * @return a builder with perftest's defaults.
     */
    public static Builder builder(final PerfTest test)
    {
        return new Builder(test);
    }

    /**
     * Fills a {@link PerfSettings} from command-line values; -1 (or 0 where noted) means "perftest's default".
     */
    public static final class Builder
    {
        private final PerfSettings s = new PerfSettings();

        private Builder(final PerfTest test)
        {
            s.test = test;
        }

        /**
         * @param server host to connect to, or null to be the server.
         * @return this.
         */
        public Builder server(final String server)
        {
            s.server = server;
            return this;
        }

        /**
         * @param port TCP port (-p).
         * @return this.
         */
        public Builder port(final int port)
        {
            s.port = port;
            return this;
        }

        /**
         * @param size message size (-s), -1 for the default.
         * @return this.
         */
        public Builder size(final long size)
        {
            s.size = size;
            return this;
        }

        /**
         * @param iters iterations (-n), -1 for the default.
         * @return this.
         */
        public Builder iters(final int iters)
        {
            s.iters = iters;
            return this;
        }

        /**
         * @param all run sizes 2 .. 2^23 (-a).
         * @return this.
         */
        public Builder all(final boolean all)
        {
            s.all = all;
            return this;
        }

        /**
         * @param seconds run time (-D), 0 to count iterations.
         * @param margin  seconds left out at each end (-f), -1 for duration / 4.
         * @return this.
         */
        public Builder duration(final int seconds, final int margin)
        {
            s.durationSec = seconds;
            s.marginSec = margin;
            return this;
        }

        /**
         * @param qps number of QPs (-q).
         * @return this.
         */
        public Builder qps(final int qps)
        {
            s.qps = qps;
            return this;
        }

        /**
         * @param mtuBytes MTU (-m), 0 for the port's active MTU.
         * @return this.
         */
        public Builder mtu(final int mtuBytes)
        {
            s.mtuBytes = mtuBytes;
            return this;
        }

        /**
         * @param index GID index (-x), -1 to pick the IPv4-mapped GID.
         * @return this.
         */
        public Builder gidIndex(final int index)
        {
            s.gidIndex = index;
            return this;
        }

        /**
         * @param type RC, UC or UD (-c).
         * @return this.
         */
        public Builder connection(final QpType type)
        {
            s.connection = type;
            return this;
        }

        /**
         * @param depth send queue depth (-t), -1 for the default.
         * @return this.
         */
        public Builder txDepth(final int depth)
        {
            s.txDepth = depth;
            return this;
        }

        /**
         * @param depth receives posted (-r), -1 for the default.
         * @return this.
         */
        public Builder rxDepth(final int depth)
        {
            s.rxDepth = depth;
            return this;
        }

        /**
         * @param cqMod completion moderation (-Q), -1 for the default.
         * @return this.
         */
        public Builder cqMod(final int cqMod)
        {
            s.cqMod = cqMod;
            return this;
        }

        /**
         * @param type atomic operation (-A).
         * @return this.
         */
        public Builder atomicType(final AtomicType type)
        {
            s.atomicType = type;
            return this;
        }

        /**
         * @param gbits report in Gb/s (--report_gbits).
         * @return this.
         */
        public Builder reportGbits(final boolean gbits)
        {
            s.reportGbits = gbits;
            return this;
        }

        /**
         * @param duplex bidirectional (-b).
         * @return this.
         */
        public Builder duplex(final boolean duplex)
        {
            s.duplex = duplex;
            return this;
        }

        /**
         * @param noPeak skip the peak (-N).
         * @return this.
         */
        public Builder noPeak(final boolean noPeak)
        {
            s.noPeak = noPeak;
            return this;
        }

        /**
         * @param outReads outstanding reads/atomics (-o), 0 for the device's maximum.
         * @return this.
         */
        public Builder outReads(final int outReads)
        {
            s.outReads = outReads;
            return this;
        }

        /**
         * @param timeout QP timeout exponent (-u).
         * @return this.
         */
        public Builder qpTimeout(final int timeout)
        {
            s.qpTimeout = timeout;
            return this;
        }

        /**
         * @param sl service level (-S).
         * @return this.
         */
        public Builder serviceLevel(final int sl)
        {
            s.serviceLevel = sl;
            return this;
        }

        /**
         * @param version the perftest version to announce (6.28 and later add the parameter negotiation).
         * @return this.
         * @throws IllegalArgumentException when it is not a version perftest accepts (5.70 or later).
         */
        public Builder perftestVersion(final String version)
        {
            try
            {
                PerftestVersion.checkCompatible(version);
            }
            catch (final PerftestVersionException ex)
            {
                throw new IllegalArgumentException("--perftest-version: " + ex.getMessage(), ex);
            }
            s.perftestVersion = version;
            return this;
        }

        /**
         * @param tclass IP traffic class of the QPs' packets (--tclass), 0..255, or -1 for perftest's default (0, and
         *               no TOS option on rdma_cm identifiers).
         * @return this.
         */
        public Builder trafficClass(final int tclass)
        {
            s.trafficClass = tclass;
            return this;
        }

        /**
         * @param json print JSON instead of the table.
         * @return this.
         */
        public Builder json(final boolean json)
        {
            s.json = json;
            return this;
        }

        /**
         * @param rdmaCm connect the QPs and run the exchange over rdma_cm (-R).
         * @return this.
         */
        public Builder rdmaCm(final boolean rdmaCm)
        {
            s.rdmaCm = rdmaCm;
            return this;
        }

        /**
         * @param timeoutMs longest wait without progress.
         * @return this.
         */
        public Builder timeoutMs(final long timeoutMs)
        {
            s.timeoutMs = timeoutMs;
            return this;
        }

        /**
         * @return the settings.
         */
        public PerfSettings build()
        {
            return s;
        }
    }

    /**
     * Check every value and derive what the run uses, as perftest's parser and force_dependecies do.
     *
     * @param deviceMaxReads the device's max_qp_rd_atom (out_reads of READ and atomic tests unless -o).
     * @return the resolved parameters.
     * @throws IllegalArgumentException with perftest's reason when a combination is not allowed.
     */
    public Resolved resolve(final int deviceMaxReads)
    {
        return PerfResolution.resolve(this, deviceMaxReads);
    }

    /**
     * What one side runs with, after {@link #resolve}; the MTU, GID index and sizes that depend on the device and the
     * peer are filled in later.
     */
    public static final class Resolved
    {
        PerfTest test;
        boolean client;
        String server;
        int port;
        QpType connection;
        int qps;
        boolean duplex;
        AtomicType atomicType;
        boolean reportGbits;
        int qpTimeout;
        int serviceLevel;
        /** --tclass, or -1 when not given. */
        int trafficClass;
        boolean json;
        boolean rdmaCm;
        long timeoutMs;
        String perftestVersion;
        int requestedMtu;
        int gidIndex;
        boolean sizeRequested;
        long size;
        int iters;
        boolean all;
        boolean duration;
        int durationSec;
        int marginSec;
        int txDepth;
        int rxDepth;
        int cqMod;
        boolean noPeak;
        int outReads;

        /**
         * @return the test.
         */
        public PerfTest test()
        {
            return test;
        }

        /**
         * @return true on the connecting side.
         */
        public boolean isClient()
        {
            return client;
        }

        /**
         * @return message size (the largest of a sweep).
         */
        public long size()
        {
            return size;
        }

        /**
         * @return iterations per size (0 in duration mode).
         */
        public int iters()
        {
            return iters;
        }

        /**
         * @return send queue depth.
         */
        public int txDepth()
        {
            return txDepth;
        }

        /**
         * @return receives kept posted.
         */
        public int rxDepth()
        {
            return rxDepth;
        }

        /**
         * @return one signaled WR in this many.
         */
        public int cqMod()
        {
            return cqMod;
        }

        /**
         * @return true when the peak bandwidth is not computed.
         */
        public boolean noPeak()
        {
            return noPeak;
        }
    }
}
