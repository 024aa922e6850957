package org.roce4j.cli.perf;

import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.agrona.concurrent.IdleStrategy;
import org.roce4j.cm.perftest.PerftestConnector;
import org.roce4j.cm.perftest.PerftestDest;
import org.roce4j.cm.perftest.PerftestReport;
import org.roce4j.cm.perftest.PerftestSession;
import org.roce4j.cm.perftest.PerftestSysData;
import org.roce4j.ib.Mtu;
import org.roce4j.ib.QpType;
import org.roce4j.wire.addr.Gid;
import org.roce4j.verbs.RdmaDevice;

/**
 * One side of a perftest run on a roce4j device: the exchange ({@link PerftestSession} over the given connector),
 * the resources, the QP connection, the traffic and the report, in the order each perftest 4.5+0.17 tool's main()
 * runs them (write_bw.c, read_bw.c, atomic_bw.c, send_bw.c, send_lat.c, write_lat.c, read_lat.c), so either side
 * can be the C tool. The barriers differ per tool and must match exactly, or the two sides read each other's
 * messages out of step.
 */
public final class PerfRun
{
    /** Largest exponent of a size sweep: -a runs 2^1 .. 2^23 bytes. */
    private static final int SWEEP_MAX_EXPONENT = 23;

    private final RdmaDevice device;
    private final PerfSettings settings;
    private final PerftestConnector connector;
    private final PrintWriter out;
    private final PrintWriter err;
    private final IdleStrategy idle;
    private final String deviceName;

    private PerfSettings.Resolved r;
    private PerftestSession session;
    private PerfResources res;
    private PerfTraffic traffic;
    private PerfLatency latencyLoops;
    private PerftestDest[] remote;
    private int mtuBytes;
    private final List<PerftestReport> bandwidth = new ArrayList<>();
    private final List<PerfStats.Latency> latency = new ArrayList<>();
    private final List<PerfStats.LatencyDuration> latencyDuration = new ArrayList<>();

    /**
     * @param device     an open device, its engine running on its own thread (DEDICATED), so it answers the peer
     *                   while this thread is in the exchange.
     * @param settings   what to run.
     * @param connector  opens the exchange's channel (TCP to/from settings' host and port, or another medium).
     * @param deviceName the name to print as "Device" (perftest prints its -d argument).
     * @param out        the report.
     * @param err        warnings perftest prints on stderr.
     * @param idle       how to wait between polls.
     */
    public PerfRun(final RdmaDevice device, final PerfSettings settings, final PerftestConnector connector,
        final String deviceName, final PrintWriter out, final PrintWriter err, final IdleStrategy idle)
    {
        this.device = device;
        this.settings = settings;
        this.connector = connector;
        this.deviceName = deviceName;
        this.out = out;
        this.err = err;
        this.idle = idle;
    }

    /**
     * Run the side.
     *
     * @return what was measured.
     * @throws IOException when the exchange or the traffic fails; the message says what happened.
     */
    public PerfOutcome run() throws IOException
    {
        r = settings.resolve(device.queryDevice().maxQpRdAtom());
        if (!r.client)
        {
            print(PerfReport.WAITING);
        }
        session = PerftestSession.open(connector, r.perftestVersion, Duration.ofMillis(r.timeoutMs));
        final int gidIndex;
        try
        {
            final PerftestSysData sys = session.exchangeSysData(PerftestSysData.DEFAULT);
            mtuBytes = Mtu.fromVerbsValue(session.exchangeMtu(localMtu().verbsValue())).bytes();
            if (session.negotiates())
            {
                final String capped = PerfNegotiation.capOutReads(r,
                    session.negotiate(PerfNegotiation.local(r, device.queryDevice())));
                if (null != capped)
                {
                    print(capped);
                }
            }
            checkUdSize(mtuBytes);
            gidIndex = r.gidIndex >= 0 ? r.gidIndex : bestGidIndex();
            res = new PerfResources(device, r, mtuBytes, gidIndex, sys.cycleBuffer(), sys.cacheLineSize());
            traffic = new PerfTraffic(res, idle);
            latencyLoops = new PerfLatency(traffic);
            if (r.rdmaCm)
            {
                PerfRdmaCm.connect(session, r, res, err);
            }
            print(PerfReport.testInfo(r, deviceName, mtuBytes, gidIndex), false);
            switch (r.test)
            {
                case WRITE_BW:
                case READ_BW:
                case ATOMIC_BW:
                    rdmaBandwidth();
                    break;
                case SEND_BW:
                    sendBandwidth();
                    break;
                case SEND_LAT:
                    sendLatency();
                    break;
                case WRITE_LAT:
                    writeLatency();
                    break;
                default:
                    readLatency();
                    break;
            }
        }
        finally
        {
            session.close();
        }
        out.flush();
        return new PerfOutcome(r, session.peerVersion(), mtuBytes, gidIndex, List.copyOf(bandwidth),
            List.copyOf(latency), List.copyOf(latencyDuration));
    }

    // ------------------------------------------------------------------------------------------------------------
    // The tools' flows
    // ------------------------------------------------------------------------------------------------------------

    /** write_bw.c, read_bw.c, atomic_bw.c. */
    private void rdmaBandwidth() throws IOException
    {
        final PerftestDest[] local = res.local;
        remote = session.exchangeDests(local);
        connect();
        printAddresses();
        session.handShake(local[0]);
        print(PerfReport.RESULT_LINE);
        print(PerfReport.bwHeader(r.reportGbits));
        if (!r.client && !r.duplex)
        {
            // The one-way server only answers: it waits for the client's run, then prints the client's report.
            awaitPeerRun(() -> session.handShake(local[0]));
            session.readTimeout(Duration.ofMillis(r.timeoutMs));
            final PerftestReport theirs = session.exchangeReport(new PerftestReport(0, 0, 0, 0, 0));
            report(theirs);
            session.close(local[0]);
            print(PerfReport.RESULT_LINE);
            return;
        }
        PerftestReport mine = null;
        for (final long size : sizes(PerfTest.Verb.ATOMIC != r.test.verb()))
        {
            traffic.prepareSends(size, remote);
            if (r.duplex)
            {
                session.handShake(local[0]);
            }
            mine = traffic.bwClient(size);
            if (r.duplex && r.all)
            {
                // write_bw.c/read_bw.c: a barrier after each size of a bidirectional sweep (perftest >= 4.6).
                session.handShake(local[0]);
            }
            if (r.duplex)
            {
                report(PerfStats.sum(mine, session.exchangeReport(mine)));
            }
            else
            {
                report(mine);
            }
        }
        print(PerfReport.RESULT_LINE);
        if (r.client && !r.duplex)
        {
            session.handShake(local[0]);
            session.exchangeReport(mine);
        }
        session.close(local[0]);
    }

    /** send_bw.c. */
    private void sendBandwidth() throws IOException
    {
        final PerftestDest[] local = res.local;
        remote = session.exchangeDests(local);
        connect();
        session.handShake(local[0]);
        printAddresses();
        print(PerfReport.RESULT_LINE);
        print(PerfReport.bwHeader(r.reportGbits));
        for (final long size : sizes(true))
        {
            if (r.client || r.duplex)
            {
                traffic.prepareSends(size, remote);
            }
            if (!r.client || r.duplex)
            {
                traffic.postReceives(size);
            }
            session.handShake(local[0]);
            final PerftestReport mine = r.duplex ? traffic.bwBidirectional(size) :
                (r.client ? traffic.bwClient(size) : traffic.bwServer(size));
            if (!r.duplex || r.duration)
            {
                report(mine);
            }
            else
            {
                report(PerfStats.sum(mine, session.exchangeReport(mine)));
            }
            if (r.all)
            {
                session.handShake(local[0]);
            }
        }
        print(PerfReport.RESULT_LINE);
        session.close(local[0]);
    }

    /** send_lat.c. */
    private void sendLatency() throws IOException
    {
        final PerftestDest[] local = res.local;
        remote = session.exchangeDests(local);
        connect();
        session.handShake(local[0]);
        printAddresses();
        printLatencyHeader();
        for (final long size : sizes(true))
        {
            traffic.prepareSends(size, remote);
            traffic.postReceives(size);
            session.handShake(local[0]);
            latencyLoops.send(size);
            reportLatency(size, 2);
        }
        print(PerfReport.RESULT_LINE);
        session.close(local[0]);
    }

    /** write_lat.c: no closing handshake; both sides just close. */
    private void writeLatency() throws IOException
    {
        final PerftestDest[] local = res.local;
        session.handShake(local[0]);
        remote = session.exchangeDests(local);
        connect();
        printAddresses();
        session.handShake(local[0]);
        printLatencyHeader();
        for (final long size : sizes(true))
        {
            traffic.prepareSends(size, remote);
            latencyLoops.write(size);
            reportLatency(size, 2);
        }
        print(PerfReport.RESULT_LINE);
    }

    /** read_lat.c: the server only answers and waits in the closing handshake. */
    private void readLatency() throws IOException
    {
        final PerftestDest[] local = res.local;
        session.handShake(local[0]);
        remote = session.exchangeDests(local);
        connect();
        printAddresses();
        session.handShake(local[0]);
        if (!r.client)
        {
            awaitPeerRun(() -> session.close(local[0]));
            print(PerfReport.RESULT_LINE);
            return;
        }
        printLatencyHeader();
        for (final long size : sizes(true))
        {
            traffic.prepareSends(size, remote);
            latencyLoops.read(size);
            reportLatency(size, 1);
        }
        session.close(local[0]);
        print(PerfReport.RESULT_LINE);
    }

    // ------------------------------------------------------------------------------------------------------------
    // Steps shared by the flows
    // ------------------------------------------------------------------------------------------------------------

    /**
     * ctx_check_gid_compatibility and ctx_connect.
     */
    private void connect() throws IOException
    {
        if (r.rdmaCm)
        {
            // -R: rdma_cm connected the QPs already; perftest skips ctx_check_gid_compatibility and ctx_connect.
            return;
        }
        if (res.local[0].isIpv4MappedGid() != remote[0].isIpv4MappedGid())
        {
            throw new IOException("Found Incompatibility issue with GID types. Please Try to use a different IP " +
                "version (local GID index " + res.gidIndex + ", peer GID " + remote[0] + ")");
        }
        res.connect(remote);
    }

    /**
     * Print this side's records, then exchange them once more QP by QP and print the peer's (as the tools do after
     * connecting).
     */
    private void printAddresses() throws IOException
    {
        for (final PerftestDest dest : res.local)
        {
            print(PerfReport.address("local", r.test.verb(), dest), false);
        }
        for (int i = 0; i < res.local.length; i++)
        {
            remote[i] = session.handShake(res.local[i]);
            print(PerfReport.address("remote", r.test.verb(), remote[i]), false);
        }
    }

    private void printLatencyHeader()
    {
        print(PerfReport.RESULT_LINE);
        print(r.duration ? PerfReport.LAT_DURATION_HEADER : PerfReport.LAT_HEADER);
    }

    private void report(final PerftestReport report)
    {
        bandwidth.add(report);
        print(PerfReport.bwLine(report, r.reportGbits));
    }

    private void reportLatency(final long size, final int rttFactor)
    {
        if (r.duration)
        {
            final PerfStats.LatencyDuration lat = PerfStats.latencyDuration(size,
                traffic.completed[0] - traffic.posted[0], traffic.counted, rttFactor);
            latencyDuration.add(lat);
            print(PerfReport.latDurationLine(lat));
        }
        else
        {
            final PerfStats.Latency lat = PerfStats.latency(size, traffic.posted, r.iters, rttFactor);
            latency.add(lat);
            print(PerfReport.latLine(lat));
        }
    }

    /**
     * The message sizes of the run: the size, or with -a 2, 4, ... 8 MiB (UD SEND: up to the MTU).
     */
    private long[] sizes(final boolean sweepable)
    {
        if (!r.all || !sweepable)
        {
            return new long[] {r.size};
        }
        // UD: up to one MTU (send_bw.c/send_lat.c: size_max_pow = log2(MTU) + 1).
        final int maxExponent = QpType.UD == r.connection ? Integer.numberOfTrailingZeros(mtuBytes) :
            SWEEP_MAX_EXPONENT;
        final long[] sizes = new long[maxExponent];
        for (int i = 1; i <= maxExponent; i++)
        {
            sizes[i - 1] = 1L << i;
        }
        return sizes;
    }

    private Mtu localMtu()
    {
        final Mtu active = device.activeMtu();
        if (0 == r.requestedMtu)
        {
            return active;
        }
        Mtu requested;
        try
        {
            requested = Mtu.fromBytes(r.requestedMtu);
        }
        catch (final IllegalArgumentException ex)
        {
            err.println(" Invalid MTU - " + r.requestedMtu + " ");
            err.println(" Please choose mtu from {256,512,1024,2048,4096}");
            err.println(" Will run with the port active mtu - " + active.verbsValue());
            requested = active;
        }
        if (requested.verbsValue() > active.verbsValue())
        {
            print("Requested mtu is higher than active mtu ");
            print("Changing to active mtu - " + active.verbsValue());
            requested = active;
        }
        return requested;
    }

    /**
     * check_mtu for UD: a message must fit one packet.
     */
    private void checkUdSize(final int mtuBytes)
    {
        if (QpType.UD == r.connection && r.size > mtuBytes)
        {
            if (r.all || !r.sizeRequested)
            {
                err.println(" Max msg size in UD is MTU " + mtuBytes);
                err.println(" Changing to this MTU");
                r.size = mtuBytes;
            }
            else
            {
                throw new IllegalArgumentException(" Max message size in UD cannot be greater than MTU (" +
                    mtuBytes + ")");
            }
        }
    }

    /**
     * get_best_gid_index: the first IPv4-mapped GID (perftest prefers IPv4 unless --ipv6), else index 0.
     */
    private int bestGidIndex()
    {
        final int length = device.queryPort().gidTblLen();
        for (int i = 0; i < length; i++)
        {
            final Gid gid = device.queryGid(i);
            if (gid.isIpv4Mapped())
            {
                return i;
            }
        }
        return 0;
    }

    /** A step that waits for the peer's whole run. */
    @FunctionalInterface
    private interface PeerWait
    {
        void run() throws IOException;
    }

    /**
     * Run a step that returns only when the peer has finished its run (perftest blocks on the socket without a
     * limit there): wait without a timeout; a peer that dies closes the connection, which ends the wait.
     */
    private void awaitPeerRun(final PeerWait step) throws IOException
    {
        session.readTimeout(Duration.ZERO);
        step.run();
    }

    private void print(final String text)
    {
        print(text, true);
    }

    private void print(final String text, final boolean newline)
    {
        if (r.json)
        {
            return;
        }
        if (newline)
        {
            out.println(text);
        }
        else
        {
            out.print(text);
        }
        out.flush();
    }
}
