package org.roce4j.transport.engine;


import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.AsyncEventType;
import org.roce4j.ib.QpState;
import org.roce4j.ib.QpType;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WcStatus;
import org.roce4j.ib.WrOpcode;
import org.roce4j.transport.TransportCounter;
import org.roce4j.transport.TransportCounters;
import org.roce4j.transport.provider.EngineConfig;
import org.roce4j.wire.Psn;

/**
 * The requester (rxe_req.c): turns send WQEs into request packets.
 *
 * <p>For each QP it walks the send queue from its cursor and, per packet, decides in this order (the states a
 * requester waits in are {@link RequesterStall}):
 * <ol>
 *   <li>QP state: RTS sends; SQD finishes what was started but starts nothing new; ERR flushes every WQE with
 *   WR_FLUSH_ERR; other states wait.</li>
 *   <li>RNR wait, then a pending go-back-N retry (IBA 9.7.5.2.8 / 9.7.6.1.3; rxe req_retry).</li>
 *   <li>A local operation (BIND_MW, LOCAL_INV) runs once every earlier WQE has completed ({@link LocalOps}).</li>
 *   <li>Starting a WQE: validate the opcode for the QP type and the local SGEs (lkey, bounds, LOCAL_WRITE for
 *   READ/atomic targets); an oversized UD send completes successfully without sending (IBA C10-93.1.1, as rxe).</li>
 *   <li>ORD: a READ or atomic needs one of max_rd_atomic slots (IBA 9.4.4); a fenced WQE waits for every earlier
 *   READ/atomic to complete (IBA 10.8.3.3).</li>
 *   <li>Send window: at most {@link EngineConfig#sendWindow()} unacknowledged PSNs (RC).</li>
 *   <li>Segment at the path MTU: FIRST/MIDDLE/LAST/ONLY by remaining length, RETH on the first packet, ImmDt or
 *   IETH on the last, SE on the last when solicited, AckReq on the last and on every
 *   {@link EngineConfig#ackReqInterval()}-th packet (rxe RXE_MAX_PKT_PER_ACK); a READ request uses one PSN per
 *   expected response packet.</li>
 *   <li>Rate: with DCQCN, a rate-limited QP waits for its pacer ({@link CongestionPoints#maySend}).</li>
 * </ol>
 * RC WQEs then wait for the {@link Completer}; UC and UD WQEs complete as soon as their last packet is sent. The
 * packets themselves (segmenting, headers, AckReq, PSNs) are built in {@link RequesterPackets}.
 */
final class Requester
{
    /** Largest message (IBA: 2^31 bytes; rxe RXE_PORT_MAX_MSG_SZ). */
    static final long MAX_MESSAGE_BYTES = 1L << 31;

    private final RoceEngine engine;
    private final Completer completer;
    private final TransportCounters counters;
    private final LocalOps localOps;
    private final RequesterPackets packets;

    Requester(final RoceEngine engine, final Completer completer)
    {
        this.engine = engine;
        this.completer = completer;
        this.counters = engine.counters();
        this.localOps = new LocalOps(engine, this, completer);
        this.packets = new RequesterPackets(engine, completer);
    }

    /**
     * Send what the QP may send now.
     *
     * @param qp     the QP.
     * @param budget most packets to send.
     * @return packets sent (or WQEs flushed).
     */
    int run(final QpContext qp, final int budget)
    {
        final QpState state = qp.state();
        final RequesterState req = qp.req;
        if (QpState.ERR == state)
        {
            return flush(qp);
        }
        if (QpState.RTS != state && QpState.SQD != state)
        {
            req.stall = RequesterStall.STATE;
            return 0;
        }
        if (req.waitingRnrTimer)
        {
            req.stall = RequesterStall.RNR_TIMER;
            return 0;
        }
        if (req.needRetry)
        {
            retry(qp);
        }
        final SendQueue sq = qp.sendQueue;
        final EngineConfig config = engine.config;
        int sent = 0;
        req.stall = RequesterStall.NONE;
        while (true)
        {
            if (sent >= budget)
            {
                req.stall = RequesterStall.BUDGET;
                break;
            }
            if (sq.requester >= sq.publishedIndex())
            {
                completer.checkSqDrained(qp);
                break;
            }
            final SendWqe wqe = sq.at(sq.requester);
            if (WqeState.POSTED == wqe.state)
            {
                if (!wqe.started)
                {
                    if (QpState.SQD == state)
                    {
                        req.stall = RequesterStall.STATE;
                        break;
                    }
                    if (wqe.opcode.isLocal())
                    {
                        if (sq.at(sq.completer) != wqe)
                        {
                            req.stall = RequesterStall.LOCAL_OP;
                            break;
                        }
                        if (!localOps.execute(qp, wqe))
                        {
                            break;
                        }
                        continue;
                    }
                    if (!start(qp, wqe))
                    {
                        if (QpState.ERR == qp.state())
                        {
                            break;
                        }
                        continue;
                    }
                }
                if (wqe.opcode.usesOrd() && !wqe.holdsOrd)
                {
                    if (req.readAtomicOutstanding >= qp.maxRdAtomic)
                    {
                        req.stall = RequesterStall.ORD;
                        counters.increment(TransportCounter.ORD_STALLS);
                        break;
                    }
                    req.readAtomicOutstanding++;
                    wqe.holdsOrd = true;
                }
                if (0 != (wqe.flags & SendFlags.FENCE) &&
                    req.readAtomicOutstanding - (wqe.holdsOrd ? 1 : 0) > 0 && -1 == req.lastOpcode)
                {
                    req.stall = RequesterStall.FENCE;
                    counters.increment(TransportCounter.FENCE_STALLS);
                    break;
                }
            }
            if (qp.isReliable() && Psn.diff(req.psn, qp.comp.psn) >= config.sendWindow())
            {
                req.stall = RequesterStall.WINDOW;
                counters.increment(TransportCounter.WINDOW_STALLS);
                break;
            }
            if (!wqe.isInline() && !wqe.opcode.isReadOrAtomic() && !wqe.sgl.regionsValid())
            {
                // rxe copy_data looks every SGE's lkey up again per packet: memory deregistered after the WQE
                // started is never read again (IB_WC_LOC_PROT_ERR), as the application may free it.
                fail(qp, wqe, WcStatus.LOC_PROT_ERR);
                break;
            }
            if (!engine.congestion.maySend(qp))
            {
                req.stall = RequesterStall.RATE;
                break;
            }
            if (!packets.send(qp, wqe))
            {
                req.stall = RequesterStall.LINK;
                engine.schedule(qp);
                break;
            }
            engine.congestion.onSent(qp);
            sent++;
        }
        return sent;
    }

    /**
     * First look at a WQE: validate it against the QP and resolve its local memory.
     *
     * @return true to send it; false when it was completed here (error, or an oversized UD send).
     */
    private boolean start(final QpContext qp, final SendWqe wqe)
    {
        final WrOpcode op = wqe.opcode;
        final QpType type = qp.type;
        final boolean allowed;
        switch (type)
        {
            case UD:
            case GSI:
                allowed = WrOpcode.SEND == op || WrOpcode.SEND_WITH_IMM == op;
                break;
            case UC:
                allowed = WrOpcode.SEND == op || WrOpcode.SEND_WITH_IMM == op || op.isWrite();
                break;
            default:
                allowed = true;
                break;
        }
        // Inline data is for SEND and WRITE only; FLUSH and ATOMIC WRITE take their data from the WR itself.
        if (!allowed || (wqe.isInline() && (op.usesOrd() || WrOpcode.FLUSH == op)))
        {
            return fail(qp, wqe, WcStatus.LOC_QP_OP_ERR);
        }
        if (!wqe.isInline())
        {
            final int access = op.isReadOrAtomic() ? AccessFlags.LOCAL_WRITE : 0;
            if (!wqe.sgl.resolve(engine.mrTable, qp.pdHandle, access))
            {
                return fail(qp, wqe, WcStatus.LOC_PROT_ERR);
            }
        }
        final long length = wqe.postedLength();
        if (op.isAtomic() && 8 != wqe.sgl.totalLength())
        {
            // An atomic returns the 8-byte original value into exactly one 8-byte local buffer.
            return fail(qp, wqe, WcStatus.LOC_LEN_ERR);
        }
        if (length > MAX_MESSAGE_BYTES)
        {
            return fail(qp, wqe, WcStatus.LOC_LEN_ERR);
        }
        wqe.length = length;
        wqe.resid = length;
        wqe.remoteOffset = 0;
        wqe.started = true;
        if (type.isDatagram() && length > engine.activeMtu().bytes())
        {
            // IBA C10-93.1.1 and rxe: a UD message larger than the MTU is silently "sent": it completes with
            // success and no packet leaves.
            counters.increment(TransportCounter.UD_OVERSIZE_SENDS);
            completer.complete(qp, wqe, WcStatus.SUCCESS);
            qp.sendQueue.requester = qp.sendQueue.completer;
            return false;
        }
        return true;
    }

    /**
     * Complete a WQE with an error status (in send queue order) and move the QP to the error state.
     *
     * @return false.
     */
    boolean fail(final QpContext qp, final SendWqe wqe, final WcStatus status)
    {
        wqe.started = true;
        final SendQueue sq = qp.sendQueue;
        if (sq.at(sq.completer) == wqe)
        {
            completer.complete(qp, wqe, status);
            sq.requester = sq.completer;
        }
        else
        {
            // Earlier WQEs still wait for their ACKs and completions leave in send queue order: this one keeps its
            // status and gets it when the flush reaches it (rxe marks it wqe_state_error for its completer).
            wqe.state = WqeState.ERROR;
            wqe.status = status;
        }
        engine.qpControl.error(qp, AsyncEventType.QP_FATAL);
        return false;
    }

    /**
     * Go back N (rxe req_retry): see {@link RequesterRetry#rewind}; counted in {@link TransportCounter#RETRIES}.
     *
     * @param qp the QP whose unacknowledged WQEs are sent again.
     */
    void retry(final QpContext qp)
    {
        RequesterRetry.rewind(qp);
        counters.increment(TransportCounter.RETRIES);
    }

    /**
     * In ERR: complete every outstanding send WQE with WR_FLUSH_ERR and flush the receive queue (IBA 10.3.1,
     * rxe flush_send_queue / flush_recv_queue).
     */
    private int flush(final QpContext qp)
    {
        int flushed = 0;
        final SendQueue sq = qp.sendQueue;
        final long published = sq.publishedIndex();
        while (sq.completer < published)
        {
            final SendWqe wqe = sq.at(sq.completer);
            // A WQE the requester failed behind unacknowledged ones completes with its own status (see fail).
            completer.complete(qp, wqe, WqeState.ERROR == wqe.state ? wqe.status : WcStatus.WR_FLUSH_ERR);
            flushed++;
        }
        sq.requester = sq.completer;
        qp.req.readAtomicOutstanding = 0;
        qp.req.stall = RequesterStall.STATE;
        flushed += engine.responder.flushReceiveQueue(qp);
        return flushed;
    }

    /**
     * @param bytes remaining bytes.
     * @param mtu   path MTU.
     * @return packets needed, at least 1 (a zero-length message is one packet).
     */
    static int packetCount(final long bytes, final int mtu)
    {
        return (int)Math.max(1, (bytes + mtu - 1) / mtu);
    }
}
