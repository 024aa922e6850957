package org.roce4j.bench.engine;

import org.agrona.concurrent.BusySpinIdleStrategy;
import org.roce4j.cm.QpSetup;
import org.roce4j.cm.oob.QpInfo;
import org.roce4j.transport.Mtu;
import org.roce4j.transport.link.Link;
import org.roce4j.wire.addr.Gid;
import org.roce4j.verbs.ProgressGroup;
import org.roce4j.verbs.QueuePair;

/**
 * Two endpoints over one {@link LinkKind}, with N connected RC QP pairs (client QP i talks to server QP i).
 *
 * <p>Every QP gets {@link Options#recvDepth()} receives posted at once (see {@link Endpoint#postReceive(int)}).
 * QPs come up with the attributes of ibv_rc_pingpong (see {@link QpSetup}) except the path MTU (4096) and the
 * READ/atomic depth (16 outstanding each way, as perftest's default for ib_read_bw).
 */
public final class EndpointPair implements AutoCloseable
{
    /** READs/atomics in flight per QP (ORD and IRD). */
    public static final int READ_ATOMIC_DEPTH = 16;
    /** Starting PSN of client QPs. */
    private static final int CLIENT_PSN = 0x1000;
    /** Starting PSN of server QPs. */
    private static final int SERVER_PSN = 0x2000;

    private final LinkKind kind;
    private final Options options;
    private final Endpoint client;
    private final Endpoint server;
    private long connectNs;

    private EndpointPair(final LinkKind kind, final Options options)
    {
        this.kind = kind;
        this.options = options;
        final Link[] links = kind.openPair(options.memoryRingBytes());
        Endpoint opened = null;
        try
        {
            final ProgressGroup clientGroup = new ProgressGroup(new BusySpinIdleStrategy());
            final ProgressGroup serverGroup = options.sharedThread() ? clientGroup :
                new ProgressGroup(new BusySpinIdleStrategy());
            opened = new Endpoint(links[0], "bench-client", options, clientGroup);
            server = new Endpoint(links[1], "bench-server", options, serverGroup);
        }
        catch (final RuntimeException ex)
        {
            if (null != opened)
            {
                opened.close();
            }
            else
            {
                links[0].close();
            }
            links[1].close();
            throw ex;
        }
        client = opened;
    }

    /**
     * Open two endpoints and connect {@link Options#qps()} QP pairs.
     *
     * @param kind    the medium.
     * @param options sizes.
     * @return the pair, with {@link #connectNs()} set to the time creating and connecting the QPs took.
     */
    public static EndpointPair open(final LinkKind kind, final Options options)
    {
        final EndpointPair pair = new EndpointPair(kind, options);
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
        final QpSetup setup = new QpSetup().mtu(Mtu.MTU_4096).readAtomicDepth(READ_ATOMIC_DEPTH);
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
     * @return the medium.
     */
    public LinkKind kind()
    {
        return kind;
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
