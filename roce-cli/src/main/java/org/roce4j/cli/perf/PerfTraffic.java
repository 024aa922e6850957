package org.roce4j.cli.perf;

import java.io.IOException;
import java.util.Locale;

import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.IdleStrategy;
import org.roce4j.cm.perftest.PerftestDest;
import org.roce4j.cm.perftest.PerftestReport;
import org.roce4j.ib.QpType;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WcStatus;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.ib.WrOpcode;
import org.roce4j.verbs.CompletionQueue;
import org.roce4j.verbs.RecvWorkRequest;
import org.roce4j.verbs.SendWorkRequest;

/**
 * The traffic loops of perftest's tools (perftest_resources.c), on roce4j verbs: run_iter_bw (the BW client, and
 * both sides of a bidirectional WRITE/READ/atomic test), run_iter_bw_server (the SEND BW server) and run_iter_bi
 * (bidirectional SEND BW) here, the latency loops in {@link PerfLatency} over this class's WRs, timings and waits
 * (ctx_set_send_wqes, ctx_set_recv_wqes, the completion and byte polls). Same posting window
 * (tx depth), same signaling (every cqMod-th WR and the last), same counting (each completion stands for cqMod
 * messages), same receive reposting, same timestamps; timestamps are System.nanoTime() instead of CPU cycles.
 *
 * <p>Every wait gives up after the timeout without progress, naming what it waited for. No allocation per message.
 */
final class PerfTraffic
{
    /** Completions taken per poll (CTX_POLL_BATCH). */
    static final int POLL_BATCH = 16;
    /** FETCH_AND_ADD's addend (ATOMIC_ADD_VALUE); CMP_AND_SWAP compares with 0 and swaps in 0. */
    static final long ATOMIC_ADD = 1;

    final PerfResources res;
    final PerfSettings.Resolved r;
    private final IdleStrategy idle;
    private final long timeoutNs;
    private final WorkCompletion[] wc = new WorkCompletion[POLL_BATCH];
    final SendWorkRequest[] sends;
    final RecvWorkRequest[] receives;
    private final long[] scnt;
    private final long[] ccnt;
    private final long[] postedRecv;

    /** Post times of the last run (or [0] = start of the measurement). */
    long[] posted;
    /** Completion times of the last run (or [0] = end of the measurement). */
    long[] completed;
    /** Messages counted in the sample window of a duration run. */
    long counted;

    PerfTraffic(final PerfResources res, final IdleStrategy idle)
    {
        this.res = res;
        this.r = res.r;
        this.idle = idle;
        this.timeoutNs = r.timeoutMs * 1_000_000L;
        for (int i = 0; i < POLL_BATCH; i++)
        {
            wc[i] = new WorkCompletion();
        }
        sends = new SendWorkRequest[r.qps];
        receives = new RecvWorkRequest[r.qps];
        scnt = new long[r.qps];
        ccnt = new long[r.qps];
        postedRecv = new long[r.qps];
    }

    /**
     * ctx_set_send_wqes: one reusable WR per QP for this size (the opcode, remote address and key of the test).
     *
     * @param size   message size.
     * @param remote the peer's records.
     */
    void prepareSends(final long size, final PerftestDest[] remote)
    {
        for (int i = 0; i < r.qps; i++)
        {
            final SendWorkRequest wr = new SendWorkRequest().wrId(i).addSge(res.mrs[i], 0, (int)size);
            switch (r.test.verb())
            {
                case SEND:
                    wr.opcode(WrOpcode.SEND);
                    if (QpType.UD == r.connection)
                    {
                        wr.ud(res.ahs[i], res.udRemoteQpn(i, remote[i]), res.udRemoteQkey(i));
                    }
                    break;
                case WRITE:
                    wr.opcode(WrOpcode.RDMA_WRITE).rdma(remote[i].vaddr(), remote[i].rkey());
                    break;
                case READ:
                    wr.opcode(WrOpcode.RDMA_READ).rdma(remote[i].vaddr(), remote[i].rkey());
                    break;
                default:
                    if (PerfSettings.AtomicType.FETCH_AND_ADD == r.atomicType)
                    {
                        wr.opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).atomic(remote[i].vaddr(), remote[i].rkey(),
                            ATOMIC_ADD, 0);
                    }
                    else
                    {
                        wr.opcode(WrOpcode.ATOMIC_CMP_AND_SWP).atomic(remote[i].vaddr(), remote[i].rkey(), 0, 0);
                    }
                    break;
            }
            sends[i] = wr;
        }
    }

    /**
     * ctx_set_recv_wqes: post rx depth receives on every QP for this size (UD: 40 more bytes for the GRH).
     *
     * @param size message size.
     */
    void postReceives(final long size)
    {
        final int length = (int)size + (QpType.UD == r.connection ? WorkCompletion.GRH_BYTES : 0);
        for (int i = 0; i < r.qps; i++)
        {
            receives[i] = new RecvWorkRequest().wrId(i).addSge(res.mrs[i], res.buffSize, length);
            for (int j = 0; j < r.rxDepth; j++)
            {
                res.qps[i].postRecv(receives[i]);
            }
            postedRecv[i] = r.rxDepth;
        }
    }

    // ------------------------------------------------------------------------------------------------------------
    // Bandwidth
    // ------------------------------------------------------------------------------------------------------------

    /**
     * run_iter_bw: keep up to tx depth WRs outstanding on every QP until iters were posted and completed (or the
     * duration ended), then compute the report.
     *
     * @param size message size.
     * @return this side's figures.
     * @throws IOException on a failed completion or a stall.
     */
    PerftestReport bwClient(final long size) throws IOException
    {
        final long total = (long)r.iters * r.qps;
        startTimes(total);
        final DurationClock clock = r.duration ? new DurationClock(System.nanoTime(), r) : null;
        long totscnt = 0;
        long totccnt = 0;
        long lastProgressNs = System.nanoTime();
        while (totscnt < total || totccnt < total || (null != clock && !clock.ended(System.nanoTime())))
        {
            int work = 0;
            for (int q = 0; q < r.qps; q++)
            {
                while ((scnt[q] < r.iters || r.duration) && scnt[q] - ccnt[q] + 1 <= r.txDepth)
                {
                    if (null != clock && clock.ended(System.nanoTime()))
                    {
                        break;
                    }
                    postOne(q, totscnt);
                    totscnt++;
                    work++;
                }
            }
            if (totccnt < total || (r.duration && totccnt < totscnt))
            {
                final int n = res.sendCq.poll(wc, 0, POLL_BATCH);
                for (int i = 0; i < n; i++)
                {
                    checkSend(wc[i], totscnt, totccnt);
                    ccnt[(int)wc[i].wrId()] += r.cqMod;
                    totccnt += r.cqMod;
                    stampCompletion(totccnt, total, clock);
                }
                work += n;
            }
            lastProgressNs = progress(work, lastProgressNs, "send completions", totccnt, total);
        }
        finishTimes(clock);
        return PerfStats.bandwidth(size, r.duration ? counted : r.iters, r.qps, posted, completed, r.cqMod,
            r.noPeak, r.duration, r.reportGbits);
    }

    /**
     * run_iter_bw_server: count receives, reposting while more are due, from the first arrival to the last.
     *
     * @param size message size.
     * @return this side's figures (no peak: the server cannot see posts).
     * @throws IOException on a failed completion or a stall.
     */
    PerftestReport bwServer(final long size) throws IOException
    {
        final long total = (long)r.iters * r.qps;
        posted = new long[1];
        completed = new long[1];
        counted = 0;
        DurationClock clock = null;
        boolean firstRx = true;
        long rcnt = 0;
        long lastProgressNs = System.nanoTime();
        while (rcnt < total || (r.duration && (null == clock || !clock.ended(System.nanoTime()))))
        {
            final int n = res.recvCq.poll(wc, 0, POLL_BATCH);
            if (n > 0 && firstRx)
            {
                firstRx = false;
                if (r.duration)
                {
                    clock = new DurationClock(System.nanoTime(), r);
                }
                else
                {
                    posted[0] = System.nanoTime();
                }
            }
            for (int i = 0; i < n; i++)
            {
                checkRecv(wc[i], rcnt);
                rcnt++;
                if (null != clock && clock.sampling(System.nanoTime()))
                {
                    counted++;
                }
                repost((int)wc[i].wrId());
            }
            lastProgressNs = progress(n, lastProgressNs, "messages", rcnt, total);
        }
        if (null != clock)
        {
            finishTimes(clock);
        }
        else
        {
            completed[0] = System.nanoTime();
        }
        return PerfStats.bandwidth(size, r.duration ? counted : r.iters, r.qps, posted, completed, r.cqMod, true,
            r.duration, r.reportGbits);
    }

    /**
     * run_iter_bi: send and receive at once; the server starts sending only after its first receive.
     *
     * @param size message size.
     * @return this side's send figures.
     * @throws IOException on a failed completion or a stall.
     */
    PerftestReport bwBidirectional(final long size) throws IOException
    {
        final long total = (long)r.iters * r.qps;
        startTimes(total);
        DurationClock clock = r.client && r.duration ? new DurationClock(System.nanoTime(), r) : null;
        boolean beforeFirstRx = !r.client;
        long totscnt = 0;
        long totccnt = 0;
        long totrcnt = 0;
        long lastProgressNs = System.nanoTime();
        while ((r.duration && (null == clock || !clock.ended(System.nanoTime()))) || totccnt < total ||
            totrcnt < total)
        {
            int work = 0;
            for (int q = 0; q < r.qps && !beforeFirstRx; q++)
            {
                while ((scnt[q] < r.iters || r.duration) && scnt[q] - ccnt[q] + 1 <= r.txDepth)
                {
                    if (null != clock && clock.ended(System.nanoTime()))
                    {
                        break;
                    }
                    postOne(q, totscnt);
                    totscnt++;
                    work++;
                }
            }
            final int received = res.recvCq.poll(wc, 0, POLL_BATCH);
            if (received > 0 && beforeFirstRx)
            {
                beforeFirstRx = false;
                if (r.duration)
                {
                    clock = new DurationClock(System.nanoTime(), r);
                }
            }
            for (int i = 0; i < received; i++)
            {
                checkRecv(wc[i], totrcnt);
                totrcnt++;
                if (null != clock && clock.sampling(System.nanoTime()))
                {
                    counted++;
                }
                repost((int)wc[i].wrId());
            }
            final int sent = res.sendCq.poll(wc, 0, POLL_BATCH);
            for (int i = 0; i < sent; i++)
            {
                checkSend(wc[i], totscnt, totccnt);
                ccnt[(int)wc[i].wrId()] += r.cqMod;
                totccnt += r.cqMod;
                stampCompletion(totccnt, total, clock);
            }
            work += received + sent;
            lastProgressNs = progress(work, lastProgressNs, "completions", Math.min(totccnt, totrcnt), total);
        }
        finishTimes(clock);
        return PerfStats.bandwidth(size, r.duration ? counted : r.iters, r.qps, posted, completed, r.cqMod,
            r.noPeak, r.duration, r.reportGbits);
    }

    // ------------------------------------------------------------------------------------------------------------
    // Helpers
    // ------------------------------------------------------------------------------------------------------------

    private void startTimes(final long total)
    {
        final int slots = r.noPeak || r.duration ? 1 : (int)total;
        posted = new long[slots];
        completed = new long[slots];
        counted = 0;
        java.util.Arrays.fill(scnt, 0);
        java.util.Arrays.fill(ccnt, 0);
        if (r.noPeak && !r.duration)
        {
            posted[0] = System.nanoTime();
        }
    }

    void finishTimes(final DurationClock clock)
    {
        if (null != clock)
        {
            posted[0] = clock.sampleStartNs;
            completed[0] = clock.sampleEndNs;
        }
        else if (r.noPeak)
        {
            completed[0] = System.nanoTime();
        }
    }

    /**
     * Post the next WR of QP q, signaled when it is the cqMod-th or (in iteration mode) the last.
     */
    private void postOne(final int q, final long totscnt)
    {
        final long m = scnt[q];
        final boolean signaled = r.cqMod - 1 == m % r.cqMod || (!r.duration && m == r.iters - 1);
        if (!r.noPeak)
        {
            posted[(int)totscnt] = System.nanoTime();
        }
        final SendWorkRequest wr = sends[q];
        wr.sendFlags(signaled ? SendFlags.SIGNALED : 0);
        res.qps[q].postSend(wr);
        scnt[q]++;
    }

    private void stampCompletion(final long totccnt, final long total, final DurationClock clock)
    {
        if (!r.noPeak)
        {
            completed[(int)(Math.min(totccnt, total) - 1)] = System.nanoTime();
        }
        if (null != clock && clock.sampling(System.nanoTime()))
        {
            counted += r.cqMod;
        }
    }

    private void repost(final int q)
    {
        if (r.duration || postedRecv[q] + 1 <= r.iters)
        {
            res.qps[q].postRecv(receives[q]);
            postedRecv[q]++;
        }
    }

    private long progress(final int work, final long lastProgressNs, final String what, final long done,
        final long total) throws IOException
    {
        if (work > 0)
        {
            idle.reset();
            return System.nanoTime();
        }
        if (System.nanoTime() - lastProgressNs > timeoutNs)
        {
            throw new IOException(String.format(Locale.ROOT, "no progress for %d ms: %d of %d %s; is the peer " +
                "still running?", r.timeoutMs, done, total, what));
        }
        idle.idle();
        return lastProgressNs;
    }

    /**
     * Wait for one completion on a CQ; null when the duration ended first.
     */
    WorkCompletion await(final CompletionQueue cq, final DurationClock clock, final String what)
        throws IOException
    {
        final long startNs = System.nanoTime();
        idle.reset();
        while (true)
        {
            if (1 == cq.poll(wc, 0, 1))
            {
                return wc[0];
            }
            final long nowNs = System.nanoTime();
            if (null != clock && clock.ended(nowNs))
            {
                return null;
            }
            if (nowNs - startNs > timeoutNs)
            {
                throw new IOException("no progress for " + r.timeoutMs + " ms waiting for " + what +
                    "; is the peer still running?");
            }
            idle.idle();
        }
    }

    boolean awaitByte(final AtomicBuffer buffer, final int index, final byte value, final DurationClock clock)
        throws IOException
    {
        final long startNs = System.nanoTime();
        idle.reset();
        while (value != buffer.getByteVolatile(index))
        {
            final long nowNs = System.nanoTime();
            if (null != clock && clock.ended(nowNs))
            {
                return false;
            }
            if (nowNs - startNs > timeoutNs)
            {
                throw new IOException("no progress for " + r.timeoutMs + " ms waiting for the peer's write " +
                    (value & 0xFF) + " (mod 256); is the peer still running?");
            }
            idle.idle();
        }
        return true;
    }

    /**
     * A failed completion ends the run at once, reported as perftest reports it (see {@link PerfCompletionError}).
     */
    void checkSend(final WorkCompletion completion, final long sent, final long done) throws IOException
    {
        if (WcStatus.SUCCESS != completion.status())
        {
            throw PerfCompletionError.send(r, completion, sent, done);
        }
    }

    void checkRecv(final WorkCompletion completion, final long received) throws IOException
    {
        if (WcStatus.SUCCESS != completion.status())
        {
            throw PerfCompletionError.receive(r, completion, received);
        }
    }

    /**
     * perftest's duration states (catch_alarm): a warm-up margin, the sample window, a cool-down margin, the end.
     */
    static final class DurationClock
    {
        final long sampleStartNs;
        final long sampleEndNs;
        final long endNs;

        DurationClock(final long startNs, final PerfSettings.Resolved r)
        {
            sampleStartNs = startNs + r.marginSec * 1_000_000_000L;
            sampleEndNs = startNs + (r.durationSec - r.marginSec) * 1_000_000_000L;
            endNs = startNs + r.durationSec * 1_000_000_000L;
        }

        boolean sampling(final long nowNs)
        {
            return nowNs - sampleStartNs >= 0 && nowNs - sampleEndNs < 0;
        }

        boolean ended(final long nowNs)
        {
            return nowNs - endNs >= 0;
        }
    }
}
