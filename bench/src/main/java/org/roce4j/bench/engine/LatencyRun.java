package org.roce4j.bench.engine;

import java.util.concurrent.TimeUnit;

import org.HdrHistogram.Histogram;
import org.agrona.concurrent.AtomicBuffer;
import org.roce4j.bench.ServerLoop;
import org.roce4j.transport.WcStatus;
import org.roce4j.transport.WorkCompletion;
import org.roce4j.verbs.CompletionQueue;
import org.roce4j.verbs.MemoryRegion;
import org.roce4j.verbs.SendFlags;
import org.roce4j.verbs.SendWorkRequest;

/**
 * Round-trip latency on QP 0 of a pair, one message in flight, both sides busy-polling on threads of their own
 * (perftest's *_lat tools):
 * <ul>
 *   <li>SEND: ping-pong, the server answers each receive completion with a SEND of the same size;</li>
 *   <li>WRITE: ping-pong through memory, each side polls the last byte of the other's WRITE and writes back;</li>
 *   <li>READ and atomics: one-sided, the client waits for its own completion.</li>
 * </ul>
 * Each sample is one round trip measured on the client with System.nanoTime, recorded in an HdrHistogram.
 */
public final class LatencyRun
{
    /** Longest one round trip may take before the run is declared stuck. */
    private static final long STUCK_NS = TimeUnit.SECONDS.toNanos(10);
    /** Largest round trip the histogram records exactly: 1 s (longer ones are clamped). */
    private static final long HISTOGRAM_MAX_NS = TimeUnit.SECONDS.toNanos(1);
    /** Spins between clock reads while waiting. */
    private static final int SPINS_PER_CLOCK_READ = 1024;

    private final RcPair pair;
    private final WorkCompletion[] completions = ThroughputRun.newCompletions(16);
    private final WorkCompletion[] serverCompletions = ThroughputRun.newCompletions(16);
    private final SendWorkRequest wr = new SendWorkRequest(1);
    private final SendWorkRequest serverWr = new SendWorkRequest(1);

    /**
     * @param pair the endpoints; its QP 0 must be idle.
     */
    public LatencyRun(final RcPair pair)
    {
        this.pair = pair;
    }

    /**
     * What one run measured.
     *
     * @param op        the operation.
     * @param sizeBytes message size.
     * @param histogram round trips in nanoseconds.
     */
    public record Result(Op op, int sizeBytes, Histogram histogram)
    {
        /**
         * @param percentile 0..100.
         * @return that percentile in microseconds.
         */
        public double percentileUs(final double percentile)
        {
            return histogram.getValueAtPercentile(percentile) / 1e3;
        }

        /**
         * @return round trips measured.
         */
        public long samples()
        {
            return histogram.getTotalCount();
        }
    }

    /**
     * Measure round trips.
     *
     * @param op        the operation.
     * @param sizeBytes message size (8 for atomics).
     * @param warmupNs  time spent before recording.
     * @param measureNs time spent recording.
     * @return the histogram.
     */
    public Result run(final Op op, final int sizeBytes, final long warmupNs, final long measureNs)
    {
        if (op.isAtomic() && 8 != sizeBytes || sizeBytes < 1 || sizeBytes > pair.options().memoryBytes() / 4)
        {
            throw new IllegalArgumentException("bad latency run: " + op + " " + sizeBytes + " B");
        }
        final Histogram histogram = new Histogram(HISTOGRAM_MAX_NS, 3);
        // A WRITE ping-pong watches the last byte of each side's target: clear what earlier runs left there.
        pair.client().memory().buffer().putByte(sizeBytes - 1, (byte)0);
        pair.server().memory().buffer().putByte(sizeBytes - 1, (byte)0);
        final ServerLoop server = startServer(op, sizeBytes);
        try
        {
            final long startNs = System.nanoTime();
            final long recordFromNs = startNs + warmupNs;
            final long endNs = recordFromNs + measureNs;
            long nowNs = startNs;
            for (int i = 0; nowNs - endNs < 0; i++)
            {
                final long sentNs = System.nanoTime();
                roundTrip(op, sizeBytes, i, server);
                nowNs = System.nanoTime();
                if (nowNs - recordFromNs >= 0)
                {
                    histogram.recordValue(Math.min(nowNs - sentNs, HISTOGRAM_MAX_NS));
                }
            }
        }
        finally
        {
            server.close();
        }
        return new Result(op, sizeBytes, histogram);
    }

    /**
     * @return the byte value iteration i writes last into a WRITE ping-pong message: 1..127, never the previous.
     */
    private static byte marker(final int iteration)
    {
        return (byte)(iteration % 127 + 1);
    }

    private void roundTrip(final Op op, final int sizeBytes, final int iteration, final ServerLoop server)
    {
        final Endpoint client = pair.client();
        final MemoryRegion local = client.memory();
        final MemoryRegion remote = pair.server().memory();
        final SendWorkRequest wr = this.wr.reset().wrId(iteration).opcode(op.opcode());
        final int half = local.length() / 2;
        switch (op)
        {
            case SEND:
                wr.addSge(local, half, sizeBytes);
                client.qp(0).postSend(wr);
                awaitCompletion(client.recvCq(), server, op);
                client.postReceive(0);
                return;
            case WRITE:
            {
                final byte marker = marker(iteration);
                local.buffer().putByte(half + sizeBytes - 1, marker);
                wr.addSge(local, half, sizeBytes).rdma(remote.address(0), remote.rkey());
                client.qp(0).postSend(wr);
                awaitByte(local.buffer(), sizeBytes - 1, marker, server);
                return;
            }
            case READ:
                wr.sendFlags(SendFlags.SIGNALED).addSge(local, half, sizeBytes).rdma(remote.address(0), remote.rkey());
                break;
            case FETCH_ADD:
                wr.sendFlags(SendFlags.SIGNALED).addSge(local, half, 8).atomic(remote.address(0), remote.rkey(), 1, 0);
                break;
            default:
                wr.sendFlags(SendFlags.SIGNALED).addSge(local, half, 8).atomic(remote.address(0), remote.rkey(), 0, 0);
                break;
        }
        client.qp(0).postSend(wr);
        awaitCompletion(client.sendCq(), server, op);
    }

    private void awaitCompletion(final CompletionQueue cq, final ServerLoop server, final Op op)
    {
        final long startNs = System.nanoTime();
        int spins = 0;
        int n;
        while (0 == (n = cq.poll(completions, 0, 1)))
        {
            server.poke();
            if (++spins == SPINS_PER_CLOCK_READ)
            {
                spins = 0;
                checkStuck(startNs, server, op);
            }
        }
        if (WcStatus.SUCCESS != completions[0].status() || 1 != n)
        {
            throw new IllegalStateException(op + " completion " + completions[0] + "\n" + describeBoth());
        }
    }

    private void awaitByte(final AtomicBuffer buffer, final int index, final byte value, final ServerLoop server)
    {
        final Endpoint client = pair.client();
        final long startNs = System.nanoTime();
        int spins = 0;
        while (value != buffer.getByteVolatile(index))
        {
            client.progress();
            server.poke();
            if (++spins == SPINS_PER_CLOCK_READ)
            {
                spins = 0;
                checkStuck(startNs, server, Op.WRITE);
            }
        }
    }

    private void checkStuck(final long startNs, final ServerLoop server, final Op op)
    {
        if (System.nanoTime() - startNs > STUCK_NS || !server.isHealthy())
        {
            throw new IllegalStateException(op + " round trip did not finish (server " +
                (server.isHealthy() ? "running" : "failed") + ")\n" + describeBoth());
        }
    }

    private String describeBoth()
    {
        return pair.client().device().describeCounters() + "\n" + pair.server().device().describeCounters();
    }

    private ServerLoop startServer(final Op op, final int sizeBytes)
    {
        final Endpoint server = pair.server();
        final MemoryRegion local = server.memory();
        final MemoryRegion remote = pair.client().memory();
        final int half = local.length() / 2;
        final boolean inline = pair.options().sharedThread();
        if (Op.SEND == op)
        {
            final CompletionQueue recvCq = server.recvCq();
            return new ServerLoop("bench-server", () ->
            {
                final int n = recvCq.poll(serverCompletions, 0, 1);
                if (n > 0)
                {
                    final WorkCompletion wc = serverCompletions[0];
                    if (WcStatus.SUCCESS != wc.status())
                    {
                        throw new IllegalStateException("server receive " + wc);
                    }
                    server.postReceive(0);
                    server.qp(0).postSend(serverWr.reset().opcode(op.opcode()).addSge(local, half, sizeBytes));
                }
            }, inline);
        }
        if (Op.WRITE == op)
        {
            final AtomicBuffer buffer = local.buffer();
            final int[] iteration = new int[1];
            return new ServerLoop("bench-server", () ->
            {
                server.progress();
                final byte marker = marker(iteration[0]);
                if (marker == buffer.getByteVolatile(sizeBytes - 1))
                {
                    buffer.putByte(half + sizeBytes - 1, marker);
                    server.qp(0).postSend(serverWr.reset().opcode(op.opcode()).addSge(local, half, sizeBytes)
                        .rdma(remote.address(0), remote.rkey()));
                    iteration[0]++;
                }
            }, inline);
        }
        return new ServerLoop("bench-server", inline ? () -> { } : server::progress, inline);
    }
}
