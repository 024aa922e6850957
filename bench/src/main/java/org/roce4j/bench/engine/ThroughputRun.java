package org.roce4j.bench.engine;

import org.roce4j.bench.ServerLoop;
import org.roce4j.transport.TransportCounter;
import org.roce4j.transport.WcStatus;
import org.roce4j.transport.WorkCompletion;
import org.roce4j.transport.link.LinkCounter;
import org.roce4j.verbs.CompletionQueue;
import org.roce4j.verbs.MemoryRegion;
import org.roce4j.verbs.QueuePair;
import org.roce4j.verbs.SendFlags;
import org.roce4j.verbs.SendWorkRequest;

/**
 * Streams one operation over the first {@code qps} QPs of a pair, as perftest's *_bw tools do: every QP keeps
 * {@code depth} signaled WRs outstanding, the client thread reposts one for each completion it polls, and a server
 * thread runs the server's engine (reposting receives for SEND). Messages completed between the end of the warm-up
 * and the end of the measurement count.
 *
 * <p>Both threads busy-poll: the client by polling its send CQ (which runs its engine, INVOKER mode), the server
 * by polling its receive CQ. Every completion must be SUCCESS, else the run fails with the device counters.
 */
public final class ThroughputRun
{
    /** Completions taken per poll. */
    private static final int POLL_BATCH = 64;
    /** Longest the outstanding WRs may take to complete after the measurement. */
    private static final long DRAIN_TIMEOUT_NS = 10_000_000_000L;
    /** Length of the slices the peak rate is taken over: 2 ms, a few scheduler ticks shorter than a time slice. */
    public static final long SLICE_NS = 2_000_000L;
    /** Offset of the 8-byte atomic target and result in each buffer. */
    private static final int ATOMIC_OFFSET = 0;

    private final RcPair pair;
    private final WorkCompletion[] completions = newCompletions(POLL_BATCH);
    private final WorkCompletion[] serverCompletions = newCompletions(POLL_BATCH);
    private final SendWorkRequest wr = new SendWorkRequest(1);

    /**
     * @param pair the endpoints; its QPs must be idle.
     */
    public ThroughputRun(final RcPair pair)
    {
        this.pair = pair;
    }

    /**
     * What one run measured.
     *
     * @param op            the operation.
     * @param sizeBytes     message size.
     * @param qps           QPs streaming.
     * @param depth         WRs outstanding per QP.
     * @param messages      messages completed in the measured interval.
     * @param elapsedNs     length of the measured interval.
     * @param retransmitted packets the client resent during the whole run (0 when nothing was lost).
     * @param linkDrops     frames the links refused or lost during the whole run, both sides.
     * @param cpuNs         CPU time the client and server threads used in the measured interval (link threads not
     *                      included): unlike the elapsed time, it does not grow while other processes hold the cores.
     * @param peakMessagesPerSecond the best rate over any {@link #SLICE_NS} slice of the measured interval: on a
     *                      machine shared with other work, the slices no other process interrupted.
     */
    public record Result(
        Op op,
        int sizeBytes,
        int qps,
        int depth,
        long messages,
        long elapsedNs,
        long retransmitted,
        long linkDrops,
        long cpuNs,
        double peakMessagesPerSecond)
    {
        /**
         * @return CPU nanoseconds per message, both sides together.
         */
        public double cpuNsPerMessage()
        {
            return (double)cpuNs / Math.max(1, messages);
        }

        /**
         * @return messages per second.
         */
        public double messagesPerSecond()
        {
            return messages * 1e9 / elapsedNs;
        }

        /**
         * @return payload bytes per second.
         */
        public double bytesPerSecond()
        {
            return messagesPerSecond() * sizeBytes;
        }

        /**
         * @return nanoseconds per message.
         */
        public double nsPerMessage()
        {
            return (double)elapsedNs / Math.max(1, messages);
        }
    }

    /**
     * Stream and measure.
     *
     * @param op        the operation.
     * @param sizeBytes message size (8 for atomics).
     * @param qps       QPs to use, at most the pair's.
     * @param depth     WRs outstanding per QP, at most the QPs' send depth (and the READ/atomic depth for those).
     * @param warmupNs  time before measuring.
     * @param measureNs time measured.
     * @return what was measured.
     */
    public Result run(
        final Op op, final int sizeBytes, final int qps, final int depth, final long warmupNs, final long measureNs)
    {
        final Endpoint client = pair.client();
        final Endpoint server = pair.server();
        if (qps < 1 || qps > client.qpCount() || depth < 1 || depth > pair.options().sendDepth() ||
            (op.isAtomic() || Op.READ == op) && depth > RcPair.READ_ATOMIC_DEPTH ||
            op.isAtomic() && 8 != sizeBytes || sizeBytes > pair.options().memoryBytes() / 2)
        {
            throw new IllegalArgumentException("bad run: " + op + " " + sizeBytes + " B on " + qps + " QPs of " +
                client.qpCount() + " with depth " + depth);
        }
        final long retransmitBefore = client.device().counters().get(TransportCounter.PACKETS_RETRANSMITTED);
        final long dropsBefore = linkDrops(client) + linkDrops(server);
        final ServerLoop serverLoop = startServer(op);
        final long[] measured = new long[4];
        try
        {
            stream(op, sizeBytes, qps, depth, warmupNs, measureNs, measured, serverLoop);
        }
        finally
        {
            serverLoop.close();
        }
        return new Result(op, sizeBytes, qps, depth, measured[0], measured[1],
            client.device().counters().get(TransportCounter.PACKETS_RETRANSMITTED) - retransmitBefore,
            linkDrops(client) + linkDrops(server) - dropsBefore, measured[2], Double.longBitsToDouble(measured[3]));
    }

    private static long linkDrops(final Endpoint endpoint)
    {
        return endpoint.device().counters().get(LinkCounter.SEND_BACK_PRESSURE) +
            endpoint.device().counters().get(LinkCounter.SEND_ERRORS) +
            endpoint.device().counters().get(LinkCounter.RECEIVE_ERRORS);
    }

    private ServerLoop startServer(final Op op)
    {
        final Endpoint server = pair.server();
        final boolean inline = pair.options().sharedThread();
        if (Op.SEND != op)
        {
            // Shared thread: the client's polls already run the server's engine.
            return new ServerLoop("bench-server", inline ? () -> { } : server::progress, inline);
        }
        final CompletionQueue recvCq = server.recvCq();
        final WorkCompletion[] wcs = serverCompletions;
        return new ServerLoop("bench-server", () ->
        {
            final int n = recvCq.poll(wcs);
            for (int i = 0; i < n; i++)
            {
                final WorkCompletion wc = wcs[i];
                if (WcStatus.SUCCESS != wc.status())
                {
                    throw new IllegalStateException("server receive completion " + wc + "\n" +
                        server.device().describeCounters());
                }
                server.postReceive(server.indexOf(wc.qpNum()));
            }
        }, inline);
    }

    private void stream(
        final Op op,
        final int sizeBytes,
        final int qps,
        final int depth,
        final long warmupNs,
        final long measureNs,
        final long[] measured,
        final ServerLoop serverLoop)
    {
        final Endpoint client = pair.client();
        final CompletionQueue cq = client.sendCq();
        final WorkCompletion[] wcs = completions;
        for (int d = 0; d < depth; d++)
        {
            for (int q = 0; q < qps; q++)
            {
                post(op, sizeBytes, q);
            }
        }
        long outstanding = (long)qps * depth;
        long completed = 0;
        final long startNs = System.nanoTime();
        final long measureStartNs = startNs + warmupNs;
        final long endNs = measureStartNs + measureNs;
        long completedAtStart = -1;
        long actualStartNs = 0;
        long cpuAtStartNs = 0;
        long sliceStartNs = 0;
        long sliceStartCompleted = 0;
        double peak = 0;
        boolean posting = true;
        while (outstanding > 0)
        {
            serverLoop.poke();
            final int n = cq.poll(wcs);
            final long nowNs = System.nanoTime();
            if (posting && nowNs - endNs >= 0)
            {
                posting = false;
                measured[0] = completed - completedAtStart;
                measured[1] = nowNs - actualStartNs;
                measured[2] = ServerLoop.currentThreadCpuTimeNs() + serverLoop.cpuTimeNs() - cpuAtStartNs;
                measured[3] = Double.doubleToRawLongBits(peak);
            }
            else if (completedAtStart < 0 && nowNs - measureStartNs >= 0)
            {
                completedAtStart = completed;
                actualStartNs = nowNs;
                cpuAtStartNs = ServerLoop.currentThreadCpuTimeNs() + serverLoop.cpuTimeNs();
                sliceStartNs = nowNs;
                sliceStartCompleted = completed;
            }
            else if (posting && completedAtStart >= 0 && nowNs - sliceStartNs >= SLICE_NS)
            {
                peak = Math.max(peak, (completed - sliceStartCompleted) * 1e9 / (nowNs - sliceStartNs));
                sliceStartNs = nowNs;
                sliceStartCompleted = completed;
            }
            for (int i = 0; i < n; i++)
            {
                final WorkCompletion wc = wcs[i];
                if (WcStatus.SUCCESS != wc.status())
                {
                    throw new IllegalStateException(op + " completion " + wc + "\n" +
                        client.device().describeCounters() + "\n" + pair.server().device().describeCounters());
                }
                completed++;
                if (posting)
                {
                    post(op, sizeBytes, (int)wc.wrId());
                }
                else
                {
                    outstanding--;
                }
            }
            if (0 == n && (!posting && nowNs - endNs > DRAIN_TIMEOUT_NS || !serverLoop.isHealthy()))
            {
                throw new IllegalStateException(outstanding + " " + op + " WRs did not complete (server " +
                    (serverLoop.isHealthy() ? "running" : "failed") + ")\n" + client.device().describeCounters() +
                    "\n" + pair.server().device().describeCounters());
            }
        }
    }

    private void post(final Op op, final int sizeBytes, final int qpIndex)
    {
        final Endpoint client = pair.client();
        final MemoryRegion local = client.memory();
        final MemoryRegion remote = pair.server().memory();
        final QueuePair qp = client.qp(qpIndex);
        final SendWorkRequest wr = this.wr.reset().wrId(qpIndex).opcode(op.opcode()).sendFlags(SendFlags.SIGNALED);
        switch (op)
        {
            case WRITE:
            case READ:
                wr.addSge(local, 0, sizeBytes).rdma(remote.address(0), remote.rkey());
                break;
            case SEND:
                wr.addSge(local, 0, sizeBytes);
                break;
            case FETCH_ADD:
                wr.addSge(local, ATOMIC_OFFSET, 8).atomic(remote.address(ATOMIC_OFFSET), remote.rkey(), 1, 0);
                break;
            default:
                wr.addSge(local, ATOMIC_OFFSET, 8).atomic(remote.address(ATOMIC_OFFSET), remote.rkey(), 0, 0);
                break;
        }
        qp.postSend(wr);
    }

    static WorkCompletion[] newCompletions(final int count)
    {
        final WorkCompletion[] wcs = new WorkCompletion[count];
        for (int i = 0; i < count; i++)
        {
            wcs[i] = new WorkCompletion();
        }
        return wcs;
    }
}
