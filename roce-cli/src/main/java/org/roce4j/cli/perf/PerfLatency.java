package org.roce4j.cli.perf;

import java.io.IOException;

import org.agrona.concurrent.AtomicBuffer;
import org.roce4j.cli.perf.PerfTraffic.DurationClock;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.verbs.SendWorkRequest;

/**
 * The latency loops of perftest's tools (perftest_resources.c), on {@link PerfTraffic}'s WRs, timings and waits:
 * run_iter_lat_send (SEND ping-pong), run_iter_lat_write (WRITE ping-pong on the buffers' last bytes) and
 * run_iter_lat (one READ at a time). Each leaves the post times (or the duration's window) in the traffic's
 * {@code posted}, {@code completed} and {@code counted}.
 */
final class PerfLatency
{
    private final PerfTraffic t;
    private final PerfResources res;
    private final PerfSettings.Resolved r;

    PerfLatency(final PerfTraffic traffic)
    {
        this.t = traffic;
        this.res = traffic.res;
        this.r = traffic.r;
    }


    /**
     * run_iter_lat_send: ping-pong SENDs; the client sends first, each side sends after each receive.
     *
     * @param size message size.
     * @throws IOException on a failed completion or a stall.
     */
    void send(final long size) throws IOException
    {
        final SendWorkRequest wr = t.sends[0];
        t.posted = new long[Math.max(1, r.iters)];
        t.completed = new long[1];
        t.counted = 0;
        DurationClock clock = null;
        boolean firstRx = true;
        long sent = 0;
        long rcnt = 0;
        while (sent < r.iters || rcnt < r.iters || (r.duration && (null == clock || !clock.ended(System.nanoTime()))))
        {
            if ((rcnt < r.iters || r.duration) && !(sent < 1 && r.client))
            {
                final WorkCompletion completion = t.await(res.recvCq, clock, "the peer's message " + (rcnt + 1));
                if (null == completion)
                {
                    break;
                }
                t.checkRecv(completion, rcnt);
                if (firstRx)
                {
                    firstRx = false;
                    if (r.duration)
                    {
                        clock = new DurationClock(System.nanoTime(), r);
                    }
                }
                rcnt++;
                if (null != clock && clock.sampling(System.nanoTime()))
                {
                    t.counted++;
                }
                if (r.duration || rcnt + r.rxDepth <= r.iters)
                {
                    res.qps[0].postRecv(t.receives[0]);
                }
            }
            if (sent < r.iters || (r.duration && !(null != clock && clock.ended(System.nanoTime()))))
            {
                if (!r.duration)
                {
                    t.posted[(int)sent] = System.nanoTime();
                }
                sent++;
                final boolean signaled = 0 == sent % r.cqMod || (!r.duration && sent == r.iters);
                wr.sendFlags(signaled ? SendFlags.SIGNALED : 0);
                res.qps[0].postSend(wr);
                if (signaled)
                {
                    final WorkCompletion completion = t.await(res.sendCq, null, "the completion of send " + sent);
                    t.checkSend(completion, sent, sent);
                }
            }
        }
        if (null != clock)
        {
            t.finishTimes(clock);
        }
    }

    /**
     * run_iter_lat_write: ping-pong RDMA WRITEs; each side writes a counter into the last byte of the peer's buffer
     * and polls the last byte of its own. The server writes first.
     *
     * @param size message size.
     * @throws IOException on a failed completion or a stall.
     */
    void write(final long size) throws IOException
    {
        final SendWorkRequest wr = t.sends[0].sendFlags(SendFlags.SIGNALED);
        final AtomicBuffer buffer = res.mrs[0].buffer();
        final int postIndex = (int)size - 1;
        final int pollIndex = (int)(res.buffSize + size - 1);
        t.posted = new long[Math.max(1, r.iters)];
        t.completed = new long[1];
        t.counted = 0;
        final DurationClock clock = r.duration ? new DurationClock(System.nanoTime(), r) : null;
        long sent = 0;
        long done = 0;
        long rcnt = 0;
        while (sent < r.iters || done < r.iters || rcnt < r.iters ||
            (null != clock && !clock.ended(System.nanoTime())))
        {
            if ((rcnt < r.iters || r.duration) && !(sent < 1 && !r.client))
            {
                rcnt++;
                if (!t.awaitByte(buffer, pollIndex, (byte)rcnt, clock))
                {
                    break;
                }
            }
            if (sent < r.iters || r.duration)
            {
                if (!r.duration)
                {
                    t.posted[(int)sent] = System.nanoTime();
                }
                buffer.putByteVolatile(postIndex, (byte)++sent);
                res.qps[0].postSend(wr);
            }
            if (null != clock && clock.ended(System.nanoTime()))
            {
                break;
            }
            if (done < r.iters || r.duration)
            {
                t.checkSend(t.await(res.sendCq, null, "the completion of write " + sent), sent, done);
                done++;
                if (null != clock && clock.sampling(System.nanoTime()))
                {
                    t.counted++;
                }
            }
        }
        if (null != clock)
        {
            t.finishTimes(clock);
        }
    }

    /**
     * run_iter_lat: one RDMA READ at a time, each waited for.
     *
     * @param size message size.
     * @throws IOException on a failed completion or a stall.
     */
    void read(final long size) throws IOException
    {
        final SendWorkRequest wr = t.sends[0].sendFlags(SendFlags.SIGNALED);
        t.posted = new long[Math.max(1, r.iters)];
        t.completed = new long[1];
        t.counted = 0;
        final DurationClock clock = r.duration ? new DurationClock(System.nanoTime(), r) : null;
        long sent = 0;
        while (sent < r.iters || (null != clock && !clock.ended(System.nanoTime())))
        {
            if (!r.duration)
            {
                t.posted[(int)sent] = System.nanoTime();
            }
            sent++;
            res.qps[0].postSend(wr);
            if (null != clock && clock.ended(System.nanoTime()))
            {
                break;
            }
            t.checkSend(t.await(res.sendCq, null, "the completion of read " + sent), sent, sent);
            if (null != clock && clock.sampling(System.nanoTime()))
            {
                t.counted++;
            }
        }
        if (null != clock)
        {
            t.finishTimes(clock);
        }
    }
}
