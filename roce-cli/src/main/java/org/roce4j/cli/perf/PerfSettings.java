package org.roce4j.cli.perf;

import org.roce4j.cm.perftest.PerftestTcpConnector;
import org.roce4j.cm.perftest.PerftestVersion;
import org.roce4j.cm.perftest.PerftestVersionException;
import org.roce4j.ib.QpType;

/**
 * The parameters of one {@code roce perf} side, with perftest 4.5+0.17's defaults (init_perftest_params in
 * perftest_parameters.c) and, in {@link #resolve}, the adjustments perftest makes before a run (force_dependecies).
 * Fields hold what the user asked for; the resolved values are what both sides run with.
 */
public final class PerfSettings
{
    /** Largest message of a size sweep, and the buffer size -a allocates (MAX_SIZE, 8 MiB). */
    public static final long MAX_SIZE = 8_388_608;
    /** Fewest iterations perftest accepts (MIN_ITER). */
    public static final int MIN_ITERS = 5;
    /** Most iterations perftest accepts (MAX_ITER). */
    public static final int MAX_ITERS = 100_000_000;
    /** Default size of BW tests (DEF_SIZE_BW). */
    static final long DEFAULT_SIZE_BW = 65_536;
    /** Default size of latency tests (DEF_SIZE_LAT). */
    static final long DEFAULT_SIZE_LAT = 2;
    /** The only size of atomic tests (DEF_SIZE_ATOMIC). */
    static final long ATOMIC_SIZE = 8;
    /** Default iterations (DEF_ITERS), and of ib_write_bw (DEF_ITERS_WB). */
    static final int DEFAULT_ITERS = 1000;
    /** Default iterations of ib_write_bw (DEF_ITERS_WB). */
    static final int DEFAULT_ITERS_WRITE_BW = 5000;
    /** Default send queue depth of BW tests (DEF_TX_BW) and latency tests (DEF_TX_LAT). */
    static final int DEFAULT_TX_BW = 128;
    /** Default send queue depth of latency tests. */
    static final int DEFAULT_TX_LAT = 1;
    /** Default receive depth of SEND tests (DEF_RX_SEND) and of the others (DEF_RX_RDMA). */
    static final int DEFAULT_RX_SEND = 512;
    /** Default receive depth of RDMA tests. */
    static final int DEFAULT_RX_RDMA = 1;
    /** Most receives UC/UD tests keep posted by default (UC_MAX_RX). */
    static final int UC_MAX_RX = 16_000;
    /** Default completion moderation (DEF_CQ_MOD): one signaled WR in 100. */
    static final int DEFAULT_CQ_MOD = 100;
    /** Messages larger than this get a completion each unless -Q was given (MSG_SIZE_CQ_MOD_LIMIT). */
    static final long CQ_MOD_SIZE_LIMIT = 8192;
    /** Iterations above which perftest stops computing the peak (it is quadratic). */
    static final int PEAK_ITERS_LIMIT = 20_000;
    /** Default QP timeout exponent (DEF_QP_TIME): 4.096 us x 2^14, about 67 ms. */
    static final int DEFAULT_QP_TIMEOUT = 14;
    /** Largest send queue depth perftest accepts (MAX_TX). */
    static final int MAX_TX = 15_000;
    /** Largest GID index perftest accepts (MAX_GID_IX). */
    static final int MAX_GID_INDEX = 64;
    /** Largest number of QPs perftest accepts (MAX_QP_NUM). */
    static final int MAX_QPS = 16_384;

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
    int qpTimeout = DEFAULT_QP_TIMEOUT;
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
        final PerfTest.Verb verb = test.verb();
        final boolean lat = test.isLatency();
        if (port < 1 || port > 65_535)
        {
            throw new IllegalArgumentException("-p " + port + ": a TCP port is 1..65535");
        }
        if (-1 != iters && (iters < MIN_ITERS || iters > MAX_ITERS))
        {
            throw new IllegalArgumentException(" Iteration num should be between " + MIN_ITERS + " and " + MAX_ITERS);
        }
        if (-1 != txDepth && (txDepth < 1 || txDepth > MAX_TX))
        {
            throw new IllegalArgumentException(" Tx depth should be between 1 and " + MAX_TX);
        }
        if (-1 != gidIndex && (gidIndex < 0 || gidIndex > MAX_GID_INDEX))
        {
            throw new IllegalArgumentException(" Gid index should be between 0 and " + MAX_GID_INDEX);
        }
        if (qps < 1 || qps > MAX_QPS)
        {
            throw new IllegalArgumentException(" num of Qps should be between 1 and " + MAX_QPS);
        }
        if (qps > 1 && lat)
        {
            throw new IllegalArgumentException(" Multiple QPs only available on bw tests");
        }
        if (duplex && lat)
        {
            throw new IllegalArgumentException(" Bidirectional is only available in BW test");
        }
        if (noPeak && lat)
        {
            throw new IllegalArgumentException(" NoPeak only valid for BW tests");
        }
        if (QpType.UC == connection && (PerfTest.Verb.READ == verb || PerfTest.Verb.ATOMIC == verb))
        {
            throw new IllegalArgumentException(" UC connection not possible in READ/ATOMIC verbs");
        }
        if (QpType.UD == connection && PerfTest.Verb.SEND != verb)
        {
            throw new IllegalArgumentException(" UD connection only possible in SEND verb");
        }
        if (QpType.RC != connection && QpType.UC != connection && QpType.UD != connection)
        {
            throw new IllegalArgumentException(" Invalid Connection type. roce4j runs RC, UC and UD");
        }
        if (rdmaCm && QpType.UC == connection)
        {
            throw new IllegalArgumentException(" UC is not supported in librdmacm");
        }
        if (rdmaCm && QpType.UD == connection)
        {
            throw new IllegalArgumentException(" -R with UD (rdma_cm's RDMA_PS_UDP, SIDR) is not supported by " +
                "roce4j's rdma_cm, which connects RC only");
        }
        if (-1 != size && (size < 1 || size > 0xFFFF_FFFFL / 2))
        {
            throw new IllegalArgumentException(" Message Size should be between 1 and " + 0xFFFF_FFFFL / 2);
        }
        if (durationSec < 0)
        {
            throw new IllegalArgumentException(" Duration period must be positive");
        }
        if (outReads < 0)
        {
            throw new IllegalArgumentException(" Outstanding reads must be positive");
        }
        if (0 != outReads && PerfTest.Verb.READ != verb && PerfTest.Verb.ATOMIC != verb)
        {
            throw new IllegalArgumentException(" Setting Outstanding reads only available on READ verb");
        }
        if (-1 != cqMod && (cqMod < 1 || cqMod > 1024))
        {
            throw new IllegalArgumentException(" CQ moderation should be between 1 and 1024");
        }
        if (-1 != rxDepth && (rxDepth < 1 || rxDepth > 16_384))
        {
            throw new IllegalArgumentException(" Rx depth should be between 1 and 16384");
        }
        if (-1 != rxDepth && PerfTest.Verb.SEND != verb && rxDepth > DEFAULT_RX_RDMA)
        {
            throw new IllegalArgumentException(" On RDMA verbs rx depth can be only 1");
        }
        if (qpTimeout < 0 || qpTimeout > 31)
        {
            throw new IllegalArgumentException("-u " + qpTimeout + ": a QP timeout exponent is 0..31");
        }
        if (serviceLevel < 0 || serviceLevel > 15)
        {
            throw new IllegalArgumentException(" Only 15 Service levels");
        }

        final Resolved r = new Resolved();
        r.test = test;
        r.client = isClient();
        r.server = server;
        r.port = port;
        r.connection = connection;
        r.qps = qps;
        r.duplex = duplex;
        r.atomicType = atomicType;
        r.reportGbits = reportGbits;
        r.qpTimeout = qpTimeout;
        r.serviceLevel = serviceLevel;
        r.trafficClass = trafficClass;
        r.json = json;
        r.rdmaCm = rdmaCm;
        r.timeoutMs = timeoutMs;
        r.perftestVersion = perftestVersion;
        r.requestedMtu = mtuBytes;
        r.gidIndex = gidIndex;
        r.sizeRequested = -1 != size;
        r.size = -1 != size ? size : (PerfTest.Verb.ATOMIC == verb ? ATOMIC_SIZE :
            (lat ? DEFAULT_SIZE_LAT : DEFAULT_SIZE_BW));
        r.iters = -1 != iters ? iters : (PerfTest.WRITE_BW == test ? DEFAULT_ITERS_WRITE_BW : DEFAULT_ITERS);
        r.all = all;
        r.duration = durationSec > 0;
        r.durationSec = durationSec;
        r.txDepth = -1 != txDepth ? txDepth : (lat ? DEFAULT_TX_LAT : DEFAULT_TX_BW);
        r.rxDepth = -1 != rxDepth ? rxDepth : (PerfTest.Verb.SEND == verb ? DEFAULT_RX_SEND : DEFAULT_RX_RDMA);
        r.cqMod = -1 != cqMod ? cqMod : DEFAULT_CQ_MOD;
        r.noPeak = noPeak;
        r.outReads = PerfTest.Verb.READ == verb || PerfTest.Verb.ATOMIC == verb ?
            (0 == outReads || outReads > deviceMaxReads ? deviceMaxReads : outReads) : 1;

        if (!r.duration)
        {
            r.txDepth = Math.min(r.txDepth, r.iters);
            if (PerfTest.Verb.SEND == verb)
            {
                r.rxDepth = Math.min(r.rxDepth, r.iters);
            }
            if ((QpType.UD == connection || QpType.UC == connection) && DEFAULT_RX_SEND == r.rxDepth)
            {
                r.rxDepth = Math.min(r.iters, UC_MAX_RX);
            }
        }
        // Large messages get a completion each: moderation would make the measured time too coarse.
        if (r.size > CQ_MOD_SIZE_LIMIT && QpType.UD != connection && !all && -1 == cqMod)
        {
            r.cqMod = 1;
        }
        r.cqMod = Math.min(r.cqMod, r.txDepth);
        if (all)
        {
            if (PerfTest.Verb.ATOMIC == verb)
            {
                throw new IllegalArgumentException("Message size cannot be changed for Atomic tests");
            }
            r.size = MAX_SIZE;
        }
        if (PerfTest.Verb.ATOMIC == verb && ATOMIC_SIZE != r.size)
        {
            throw new IllegalArgumentException("Message size cannot be changed for Atomic tests");
        }
        if (r.duration)
        {
            if (all)
            {
                throw new IllegalArgumentException("Duration mode currently doesn't support running on all sizes.");
            }
            r.iters = 0;
            r.noPeak = true;
            r.marginSec = marginSec >= 0 ? marginSec : durationSec / 4;
            if (!(durationSec > 2 * r.marginSec))
            {
                throw new IllegalArgumentException("please check that DURATION > 2*MARGIN");
            }
        }
        if (PerfTest.Verb.SEND == verb && !lat && !r.client && !duplex)
        {
            r.noPeak = true;
        }
        // Work around an odd receive depth in SEND tests, as perftest does.
        if (PerfTest.Verb.SEND == verb && 1 == r.rxDepth % 2 && !all)
        {
            r.rxDepth += 1;
        }
        if (!r.duration && r.iters > PEAK_ITERS_LIMIT && !lat)
        {
            r.noPeak = true;
        }
        return r;
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
