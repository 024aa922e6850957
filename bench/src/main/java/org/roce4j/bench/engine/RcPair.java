package org.roce4j.bench.engine;

import org.agrona.concurrent.BusySpinIdleStrategy;
import org.roce4j.cm.QpSetup;
import org.roce4j.cm.oob.QpInfo;
import org.roce4j.ib.Mtu;
import org.roce4j.wire.addr.Gid;
import org.roce4j.transport.TransportCounter;
import org.roce4j.transport.link.Link;
import org.roce4j.transport.link.LinkCounter;
import org.roce4j.verbs.ProgressGroup;
import org.roce4j.verbs.QueuePair;

/**
 * The RC-pair harness of every engine-level benchmark: two endpoints (roce4j devices) over any pair of links, with N
 * connected RC QP pairs (client QP i talks to server QP i). {@link #open(LinkKind, Options)} opens the in-process
 * media ({@link LinkKind}: memory fabric, udp on loopback, tunnel); {@link #open(Link, Link, Options)} takes links
 * opened elsewhere (the link benchmarks open udp and pcap links inside network namespaces).
 *
 * <p>Every QP gets {@link Options#recvDepth()} receives posted at once (see {@link Endpoint#postReceive(int)}).
 * QPs come up with the attributes of ibv_rc_pingpong (see {@link QpSetup}) except the path MTU (the smaller active
 * MTU of the two devices: 4096 on every medium the benchmarks use) and the READ/atomic depth (16 outstanding each
 * way, as perftest's default for ib_read_bw).
 */
public final class RcPair implements AutoCloseable
{
    /** READs/atomics in flight per QP (ORD and IRD). */
    public static final int READ_ATOMIC_DEPTH = 16;
    /** Starting PSN of client QPs. */
    private static final int CLIENT_PSN = 0x1000;
    /** Starting PSN of server QPs. */
    private static final int SERVER_PSN = 0x2000;

    private final Options options;
    private final Endpoint client;
    private final Endpoint server;
    private long connectNs;

    private RcPair(final Link clientLink, final Link serverLink, final Options options)
    {
        this.options = options;
        Endpoint opened = null;
        try
        {
            final ProgressGroup clientGroup = new ProgressGroup(new BusySpinIdleStrategy());
            final ProgressGroup serverGroup = options.sharedThread() ? clientGroup :
                new ProgressGroup(new BusySpinIdleStrategy());
            opened = new Endpoint(clientLink, "bench-client", options, clientGroup);
            server = new Endpoint(serverLink, "bench-server", options, serverGroup);
        }
        catch (final RuntimeException ex)
        {
            if (null != opened)
            {
                opened.close();
            }
            else
            {
                clientLink.close();
            }
            serverLink.close();
            throw ex;
        }
        client = opened;
    }

    /**
     * Open two endpoints over a medium of this process and connect {@link Options#qps()} QP pairs.
     *
     * @param kind    the medium.
     * @param options sizes.
     * @return the pair, with {@link #connectNs()} set to the time creating and connecting the QPs took.
     */
    public static RcPair open(final LinkKind kind, final Options options)
    {
        final Link[] links = kind.openPair(options.memoryRingBytes());
        return open(links[0], links[1], options);
    }

    /**
     * Open an endpoint on each link and connect {@link Options#qps()} QP pairs.
     *
     * @param clientLink the posting side's link (the pair owns both links from now on, also when this fails).
     * @param serverLink the answering side's link.
     * @param options    sizes ({@link Options#memoryRingBytes()} only matters to memory fabric links).
     * @return the pair, with {@link #connectNs()} set to the time creating and connecting the QPs took.
     */
    public static RcPair open(final Link clientLink, final Link serverLink, final Options options)
    {
        final RcPair pair = new RcPair(clientLink, serverLink, options);
        try
        {
            pair.connectNs = pair.connect(options.qps());
        }
        catch (final RuntimeException ex)
        {
            pair.close();
            throw ex;
        }
        return pair;
    }

    /**
     * Create and connect more QP pairs.
     *
     * @param count pairs to add.
     * @return nanoseconds it took.
     */
    public long connect(final int count)
    {
        final Mtu clientMtu = client.device().activeMtu();
        final Mtu serverMtu = server.device().activeMtu();
        final QpSetup setup = new QpSetup().mtu(clientMtu.bytes() <= serverMtu.bytes() ? clientMtu : serverMtu)
            .readAtomicDepth(READ_ATOMIC_DEPTH);
        final Gid clientGid = client.device().queryGid(1);
        final Gid serverGid = server.device().queryGid(1);
        final long startNs = System.nanoTime();
        for (int i = 0; i < count; i++)
        {
            final QueuePair a = client.createQp(options);
            final QueuePair b = server.createQp(options);
            setup.toInit(a);
            setup.toInit(b);
            setup.toRts(a, CLIENT_PSN, QpInfo.of(0, b.qpNum(), SERVER_PSN, serverGid.high(), serverGid.low()));
            setup.toRts(b, SERVER_PSN, QpInfo.of(0, a.qpNum(), CLIENT_PSN, clientGid.high(), clientGid.low()));
        }
        final long elapsedNs = System.nanoTime() - startNs;
        for (int i = client.qpCount() - count; i < client.qpCount(); i++)
        {
            for (int r = 0; r < options.recvDepth(); r++)
            {
                client.postReceive(i);
                server.postReceive(i);
            }
        }
        return elapsedNs;
    }

    /**
     * @return the sizes it was opened with.
     */
    public Options options()
    {
        return options;
    }

    /**
     * @return the side that posts work.
     */
    public Endpoint client()
    {
        return client;
    }

    /**
     * @return the side that answers.
     */
    public Endpoint server()
    {
        return server;
    }

    /**
     * @return nanoseconds creating and connecting the initial QPs took (both sides, INIT, RTR, RTS).
     */
    public long connectNs()
    {
        return connectNs;
    }

    /**
     * @return the anomalies so far, for a benchmark's log: MTUs, client retransmissions, link receive errors on both
     * sides, ACKs the server sent.
     */
    public String anomalies()
    {
        return "mtu " + client.device().link().mtu() + "/" + server.device().link().mtu() + " active " +
            client.device().activeMtu() + ", retransmitted A " +
            client.device().counters().get(TransportCounter.PACKETS_RETRANSMITTED) + ", rx errors A/B " +
            client.device().counters().get(LinkCounter.RECEIVE_ERRORS) + "/" +
            server.device().counters().get(LinkCounter.RECEIVE_ERRORS) + ", acks sent B " +
            server.device().counters().get(TransportCounter.ACKS_SENT);
    }

    /**
     * @return every non-zero counter of both devices.
     */
    public String describeCounters()
    {
        return "A:\n" + client.device().describeCounters() + "\nB:\n" + server.device().describeCounters();
    }

    /**
     * Close both endpoints.
     */
    public void close()
    {
        try
        {
            client.close();
        }
        finally
        {
            server.close();
        }
    }

    /**
     * Sizes of an endpoint pair.
     *
     * @param qps             connected QP pairs.
     * @param sendDepth       max_send_wr of each QP.
     * @param recvDepth       max_recv_wr of each QP.
     * @param cqDepth         depth of each CQ (shared by all QPs of a side).
     * @param memoryBytes     size of each side's registered buffer.
     * @param memoryRingBytes inbound ring of each memory fabric port (power of two).
     * @param sharedThread    true: one thread drives both endpoints (one progress group runs both engines), so a
     *                        figure is the CPU cost of both sides on one core, free of thread hand-offs; false: a
     *                        thread per endpoint.
     */
    public record Options(
        int qps, int sendDepth, int recvDepth, int cqDepth, int memoryBytes, int memoryRingBytes, boolean sharedThread)
    {
        /**
         * @param qpCount QPs of the copy.
         * @return a copy with that many QPs.
         */
        public Options withQps(final int qpCount)
        {
            return new Options(qpCount, sendDepth, recvDepth, cqDepth, memoryBytes, memoryRingBytes, sharedThread);
        }

        /**
         * @param shared whether one thread drives both endpoints.
         * @return a copy with that setting.
         */
        public Options withSharedThread(final boolean shared)
        {
            return new Options(qps, sendDepth, recvDepth, cqDepth, memoryBytes, memoryRingBytes, shared);
        }

        /**
         * Checks the values.
         *
         * @throws IllegalArgumentException naming a bad value.
         */
        public Options
        {
            if (qps < 1 || sendDepth < 1 || recvDepth < 1 || cqDepth < 1 || memoryBytes < 4096)
            {
                throw new IllegalArgumentException("bad endpoint options: " + qps + " QPs, send depth " + sendDepth +
                    ", recv depth " + recvDepth + ", CQ depth " + cqDepth + ", memory " + memoryBytes);
            }
        }
    }
}
