package org.roce4j.cli.perf;

import org.roce4j.ib.QpType;

/**
 * perftest's defaults (init_perftest_params in perftest_parameters.c), the checks its parser makes, and the
 * adjustments it makes before a run (force_dependecies): how {@link PerfSettings#resolve} turns what the user asked
 * for into what both sides run with. Messages are perftest's where it has one, leading space included.
 */
final class PerfResolution
{
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

    private PerfResolution()
    {
    }

    /**
     * Check every value and derive what the run uses, as perftest's parser and force_dependecies do.
     *
     * @param s              what the user asked for.
     * @param deviceMaxReads the device's max_qp_rd_atom (out_reads of READ and atomic tests unless -o).
     * @return the resolved parameters.
     * @throws IllegalArgumentException with perftest's reason when a combination is not allowed.
     */
    static PerfSettings.Resolved resolve(final PerfSettings s, final int deviceMaxReads)
    {
        final PerfTest.Verb verb = s.test.verb();
        final boolean lat = s.test.isLatency();
        if (s.port < 1 || s.port > 65_535)
        {
            throw new IllegalArgumentException("-p " + s.port + ": a TCP port is 1..65535");
        }
        if (-1 != s.iters && (s.iters < PerfSettings.MIN_ITERS || s.iters > PerfSettings.MAX_ITERS))
        {
            throw new IllegalArgumentException(" Iteration num should be between " + PerfSettings.MIN_ITERS + " and " +
                PerfSettings.MAX_ITERS);
        }
        if (-1 != s.txDepth && (s.txDepth < 1 || s.txDepth > MAX_TX))
        {
            throw new IllegalArgumentException(" Tx depth should be between 1 and " + MAX_TX);
        }
        if (-1 != s.gidIndex && (s.gidIndex < 0 || s.gidIndex > MAX_GID_INDEX))
        {
            throw new IllegalArgumentException(" Gid index should be between 0 and " + MAX_GID_INDEX);
        }
        if (s.qps < 1 || s.qps > MAX_QPS)
        {
            throw new IllegalArgumentException(" num of Qps should be between 1 and " + MAX_QPS);
        }
        if (s.qps > 1 && lat)
        {
            throw new IllegalArgumentException(" Multiple QPs only available on bw tests");
        }
        if (s.duplex && lat)
        {
            throw new IllegalArgumentException(" Bidirectional is only available in BW test");
        }
        if (s.noPeak && lat)
        {
            throw new IllegalArgumentException(" NoPeak only valid for BW tests");
        }
        if (QpType.UC == s.connection && (PerfTest.Verb.READ == verb || PerfTest.Verb.ATOMIC == verb))
        {
            throw new IllegalArgumentException(" UC connection not possible in READ/ATOMIC verbs");
        }
        if (QpType.UD == s.connection && PerfTest.Verb.SEND != verb)
        {
            throw new IllegalArgumentException(" UD connection only possible in SEND verb");
        }
        if (QpType.RC != s.connection && QpType.UC != s.connection && QpType.UD != s.connection)
        {
            throw new IllegalArgumentException(" Invalid Connection type. roce4j runs RC, UC and UD");
        }
        if (s.rdmaCm && QpType.UC == s.connection)
        {
            throw new IllegalArgumentException(" UC is not supported in librdmacm");
        }
        if (-1 != s.size && (s.size < 1 || s.size > 0xFFFF_FFFFL / 2))
        {
            throw new IllegalArgumentException(" Message Size should be between 1 and " + 0xFFFF_FFFFL / 2);
        }
        if (s.durationSec < 0)
        {
            throw new IllegalArgumentException(" Duration period must be positive");
        }
        if (s.outReads < 0)
        {
            throw new IllegalArgumentException(" Outstanding reads must be positive");
        }
        if (0 != s.outReads && PerfTest.Verb.READ != verb && PerfTest.Verb.ATOMIC != verb)
        {
            throw new IllegalArgumentException(" Setting Outstanding reads only available on READ verb");
        }
        if (-1 != s.cqMod && (s.cqMod < 1 || s.cqMod > 1024))
        {
            throw new IllegalArgumentException(" CQ moderation should be between 1 and 1024");
        }
        if (-1 != s.rxDepth && (s.rxDepth < 1 || s.rxDepth > 16_384))
        {
            throw new IllegalArgumentException(" Rx depth should be between 1 and 16384");
        }
        if (-1 != s.rxDepth && PerfTest.Verb.SEND != verb && s.rxDepth > DEFAULT_RX_RDMA)
        {
            throw new IllegalArgumentException(" On RDMA verbs rx depth can be only 1");
        }
        if (s.qpTimeout < 0 || s.qpTimeout > 31)
        {
            throw new IllegalArgumentException("-u " + s.qpTimeout + ": a QP timeout exponent is 0..31");
        }
        if (s.serviceLevel < 0 || s.serviceLevel > 15)
        {
            throw new IllegalArgumentException(" Only 15 Service levels");
        }

        final PerfSettings.Resolved r = new PerfSettings.Resolved();
        r.test = s.test;
        r.client = s.isClient();
        r.server = s.server;
        r.port = s.port;
        r.connection = s.connection;
        r.qps = s.qps;
        r.duplex = s.duplex;
        r.atomicType = s.atomicType;
        r.reportGbits = s.reportGbits;
        r.qpTimeout = s.qpTimeout;
        r.serviceLevel = s.serviceLevel;
        r.trafficClass = s.trafficClass;
        r.json = s.json;
        r.rdmaCm = s.rdmaCm;
        r.timeoutMs = s.timeoutMs;
        r.perftestVersion = s.perftestVersion;
        r.requestedMtu = s.mtuBytes;
        r.gidIndex = s.gidIndex;
        r.sizeRequested = -1 != s.size;
        r.size = -1 != s.size ? s.size : (PerfTest.Verb.ATOMIC == verb ? ATOMIC_SIZE :
            (lat ? DEFAULT_SIZE_LAT : DEFAULT_SIZE_BW));
        r.iters = -1 != s.iters ? s.iters : (PerfTest.WRITE_BW == s.test ? DEFAULT_ITERS_WRITE_BW : DEFAULT_ITERS);
        r.all = s.all;
        r.duration = s.durationSec > 0;
        r.durationSec = s.durationSec;
        r.txDepth = -1 != s.txDepth ? s.txDepth : (lat ? DEFAULT_TX_LAT : DEFAULT_TX_BW);
        r.rxDepth = -1 != s.rxDepth ? s.rxDepth : (PerfTest.Verb.SEND == verb ? DEFAULT_RX_SEND : DEFAULT_RX_RDMA);
        r.cqMod = -1 != s.cqMod ? s.cqMod : DEFAULT_CQ_MOD;
        r.noPeak = s.noPeak;
        r.outReads = PerfTest.Verb.READ == verb || PerfTest.Verb.ATOMIC == verb ?
            (0 == s.outReads || s.outReads > deviceMaxReads ? deviceMaxReads : s.outReads) : 1;

        if (!r.duration)
        {
            r.txDepth = Math.min(r.txDepth, r.iters);
            if (PerfTest.Verb.SEND == verb)
            {
                r.rxDepth = Math.min(r.rxDepth, r.iters);
            }
            if ((QpType.UD == s.connection || QpType.UC == s.connection) && DEFAULT_RX_SEND == r.rxDepth)
            {
                r.rxDepth = Math.min(r.iters, UC_MAX_RX);
            }
        }
        // Large messages get a completion each: moderation would make the measured time too coarse.
        if (r.size > CQ_MOD_SIZE_LIMIT && QpType.UD != s.connection && !s.all && -1 == s.cqMod)
        {
            r.cqMod = 1;
        }
        r.cqMod = Math.min(r.cqMod, r.txDepth);
        if (s.all)
        {
            if (PerfTest.Verb.ATOMIC == verb)
            {
                throw new IllegalArgumentException("Message size cannot be changed for Atomic tests");
            }
            r.size = PerfSettings.MAX_SIZE;
        }
        if (PerfTest.Verb.ATOMIC == verb && ATOMIC_SIZE != r.size)
        {
            throw new IllegalArgumentException("Message size cannot be changed for Atomic tests");
        }
        if (r.duration)
        {
            if (s.all)
            {
                throw new IllegalArgumentException("Duration mode currently doesn't support running on all sizes.");
            }
            r.iters = 0;
            r.noPeak = true;
            r.marginSec = s.marginSec >= 0 ? s.marginSec : s.durationSec / 4;
            if (!(s.durationSec > 2 * r.marginSec))
            {
                throw new IllegalArgumentException("please check that DURATION > 2*MARGIN");
            }
        }
        if (PerfTest.Verb.SEND == verb && !lat && !r.client && !s.duplex)
        {
            r.noPeak = true;
        }
        // Work around an odd receive depth in SEND tests, as perftest does.
        if (PerfTest.Verb.SEND == verb && 1 == r.rxDepth % 2 && !s.all)
        {
            r.rxDepth += 1;
        }
        if (!r.duration && r.iters > PEAK_ITERS_LIMIT && !lat)
        {
            r.noPeak = true;
        }
        return r;
    }
}
