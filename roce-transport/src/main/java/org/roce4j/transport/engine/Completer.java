package org.roce4j.transport.engine;

import java.nio.ByteOrder;

import org.roce4j.ib.AsyncEventType;
import org.roce4j.ib.QpState;
import org.roce4j.ib.WcOpcode;
import org.roce4j.ib.WcStatus;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.transport.TransportCounter;
import org.roce4j.transport.TransportCounters;
import org.roce4j.transport.provider.EngineConfig;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.Psn;
import org.roce4j.wire.RoceFrameParser;
import org.roce4j.wire.header.AethHeader;

/**
 * The completer (rxe_comp.c): turns ACKs, NAKs, READ responses and atomic acknowledgements into send completions,
 * and decides retries.
 *
 * <p>Each response runs the state machine of {@link State} against the oldest outstanding WQE:
 * <pre>
 *   GET_WQE -&gt; CHECK_PSN -&gt; CHECK_ACK -&gt; READ | ATOMIC | WRITE_SEND -&gt; COMP_ACK -&gt; UPDATE_COMP
 *                                                                          -&gt; DONE
 *                  |              \-&gt; ERROR_RETRY (PSN-sequence NAK) | RNR_RETRY (RNR NAK) | ERROR (other NAKs)
 *                  \-&gt; COMP_WQE -&gt; GET_WQE   (a later PSN implicitly acknowledges a pending SEND/WRITE)
 * </pre>
 * A response beyond a pending READ or atomic is an implied NAK (IBA 9.7.5.1.2): retry. Retries are go-back-N from
 * the oldest unacknowledged PSN, at most retry_cnt times (IBA 9.7.6.1.3: a peer that stops answering fails the WQE
 * with RETRY_EXC_ERR after about local ACK timeout x (retry_cnt + 1)), RNR NAKs at most rnr_retry times, where 7
 * means forever (IBA 9.7.5.2.8). rxe also takes a retry_cnt of 7 as forever; roce4j does not unless
 * {@link EngineConfig#retryCountSevenForever(boolean)} asks for it, or a dead peer would never be noticed (perftest
 * and ibv_rc_pingpong ask for 7). The retransmit timer (4.096 µs × 2^timeout) is pushed
 * forward by every response that passes the PSN check while packets are outstanding, like rxe's reset_retry_timer.
 *
 * <p>Ghost responses: only a response whose PSN lies in the outstanding range [oldest unacknowledged PSN, highest PSN
 * sent] may act on the completer; a READ's range ends at its last response PSN. A response beyond the highest PSN
 * sent answers nothing this QP sent (a ghost: qib and hfi1 rc.c "Ignore invalid responses", a PSN at or after
 * s_next_psn): it is dropped and counted in {@link TransportCounter#GHOST_RESPONSES}, and touches neither the WQEs
 * nor the retry state nor the timer. rxe has no such check: its check_psn takes a response beyond a WQE's last PSN as
 * completing it, so a spoofed ACK ahead of everything completed WQEs whose packets never arrived. A response before
 * the oldest unacknowledged PSN is a duplicate (a repeated ACK of the last acknowledged PSN, a late response) and is
 * dropped as {@link TransportCounter#DROP_STRAY_RESPONSE}, as before; it may only complete a WQE whose every PSN was
 * already acknowledged.
 *
 * <p>The PSN and ACK checks (CHECK_PSN, CHECK_ACK) are in {@link CompleterChecks}; this class runs the states, the
 * retries and the retransmit timer, and writes the completions.
 */
final class Completer
{
    /** rxe's completer states (enum comp_state), minus the ones that only exist for its packet queue. */
    enum State
    {
        /** Find the oldest outstanding WQE. */
        GET_WQE,
        /** Place the response's PSN relative to that WQE and the expected PSN. */
        CHECK_PSN,
        /** Check the opcode sequence and the AETH syndrome. */
        CHECK_ACK,
        /** Copy READ response data into the WQE's buffers. */
        READ,
        /** Store the atomic's original value into the WQE's buffer. */
        ATOMIC,
        /** A plain ACK: does it complete the WQE? */
        WRITE_SEND,
        /** The response completes the WQE. */
        COMP_ACK,
        /** A later response completes a pending SEND/WRITE implicitly. */
        COMP_WQE,
        /** Advance the expected PSN. */
        UPDATE_COMP,
        /** Start a go-back-N retry (or fail with RETRY_EXC_ERR). */
        ERROR_RETRY,
        /** Wait the RNR timer then retry (or fail with RNR_RETRY_EXC_ERR). */
        RNR_RETRY,
        /** Complete the WQE with an error and move the QP to ERR. */
        ERROR,
        /** Finished with this response. */
        DONE
    }

    /**
     * The 3-bit count meaning "retry forever": always for rnr_retry (IBA 9.7.5.2.8); for retry_cnt, seven retries
     * (IBA 9.7.6.1.3) unless {@link EngineConfig#retryCountSevenForever(boolean)} makes it forever as in rxe.
     */
    static final int RETRY_FOREVER = 7;

    private final RoceEngine engine;
    private final TransportCounters counters;
    private final CompleterChecks checks;
    private State lastFinalState = State.DONE;

    Completer(final RoceEngine engine)
    {
        this.engine = engine;
        this.counters = engine.counters();
        this.checks = new CompleterChecks(engine, this);
    }

    /**
     * Process one response packet for a QP.
     *
     * @param qp  the QP.
     * @param pkt the parsed packet (valid during this call).
     */
    void onResponse(final QpContext qp, final RoceFrameParser pkt)
    {
        final RequesterState req = qp.req;
        final CompleterState comp = qp.comp;
        final int psn = pkt.bth().psn();
        if (Psn.compare(psn, req.highestPsnSent) > 0)
        {
            // A ghost: nothing this QP sent has this PSN yet, so no responder can have answered it.
            counters.increment(TransportCounter.GHOST_RESPONSES);
            lastFinalState = State.DONE;
            return;
        }
        if (req.needRetry)
        {
            // rxe defers responses until the requester has restarted; here the restart happens first.
            engine.requester.retry(qp);
        }
        final Opcode opcode = pkt.opcode();
        final SendQueue sq = qp.sendQueue;
        SendWqe wqe = null;
        WcStatus errorStatus = WcStatus.BAD_RESP_ERR;
        State state = State.GET_WQE;
        while (State.DONE != state)
        {
            switch (state)
            {
                case GET_WQE:
                    wqe = sq.completer < sq.publishedIndex() ? sq.at(sq.completer) : null;
                    if (null == wqe || WqeState.POSTED == wqe.state)
                    {
                        counters.increment(TransportCounter.DROP_STRAY_RESPONSE);
                        state = State.DONE;
                    }
                    else
                    {
                        state = State.CHECK_PSN;
                    }
                    break;

                case CHECK_PSN:
                    state = checks.checkPsn(qp, wqe, psn, opcode, pkt);
                    break;

                case CHECK_ACK:
                    state = checks.checkAck(qp, wqe, psn, opcode, pkt);
                    if (State.ERROR == state)
                    {
                        errorStatus = CompleterChecks.nakStatus(pkt, opcode);
                    }
                    break;

                case READ:
                {
                    final int length = pkt.payloadLength();
                    if (length > wqe.resid)
                    {
                        // More data than the READ asked for.
                        errorStatus = WcStatus.BAD_RESP_ERR;
                        state = State.ERROR;
                        break;
                    }
                    if (!wqe.sgl.regionsValid())
                    {
                        // The landing buffer was deregistered after the READ started: rxe do_read's copy_data
                        // fails the lkey lookup, IB_WC_LOC_PROT_ERR.
                        errorStatus = WcStatus.LOC_PROT_ERR;
                        state = State.ERROR;
                        break;
                    }
                    wqe.sgl.scatter(wqe.length - wqe.resid, pkt.buffer(), pkt.payloadOffset(), length);
                    wqe.resid -= length;
                    counters.add(TransportCounter.PAYLOAD_BYTES_RECEIVED, length);
                    if (opcode.position().isEnd())
                    {
                        if (0 != wqe.resid)
                        {
                            errorStatus = WcStatus.BAD_RESP_ERR;
                            state = State.ERROR;
                        }
                        else
                        {
                            state = State.COMP_ACK;
                        }
                    }
                    else
                    {
                        state = State.UPDATE_COMP;
                    }
                    break;
                }

                case ATOMIC:
                {
                    final long original = pkt.atomicAckEth().originalData();
                    final MemoryRegionEntry mr = wqe.sgl.firstRegion();
                    if (!mr.isValid())
                    {
                        // As for a READ: the result buffer was deregistered after the atomic started (rxe do_atomic).
                        errorStatus = WcStatus.LOC_PROT_ERR;
                        state = State.ERROR;
                        break;
                    }
                    // The result lands in host byte order, as a 64-bit integer the application reads.
                    mr.memory().putLong(mr.indexOf(wqe.sgl.address(0)), original, ByteOrder.nativeOrder());
                    state = State.COMP_ACK;
                    break;
                }

                case WRITE_SEND:
                    if (wqe.opcode.isReadOrAtomic() && Psn.compare(psn, comp.psn) >= 0)
                    {
                        // A plain ACK at the PSN of a READ/atomic still waiting for its response carries no data:
                        // taking it as progress would skip the response for good. Implied NAK, as for a
                        // response past the READ/atomic (IBA 9.7.5.1.2).
                        counters.increment(TransportCounter.IMPLIED_NAKS);
                        state = State.ERROR_RETRY;
                        break;
                    }
                    state = WqeState.PENDING == wqe.state && wqe.lastPsn == psn && !wqe.opcode.isReadOrAtomic() ?
                        State.COMP_ACK : State.UPDATE_COMP;
                    break;

                case COMP_ACK:
                    complete(qp, wqe, WcStatus.SUCCESS);
                    state = Psn.compare(psn, comp.psn) >= 0 ? State.UPDATE_COMP : State.DONE;
                    break;

                case COMP_WQE:
                    if (WqeState.PENDING == wqe.state && Psn.compare(wqe.lastPsn, comp.psn) >= 0)
                    {
                        comp.psn = Psn.next(wqe.lastPsn);
                        comp.lastOpcode = -1;
                    }
                    complete(qp, wqe, WcStatus.SUCCESS);
                    wakeRequester(qp);
                    state = State.GET_WQE;
                    break;

                case UPDATE_COMP:
                    if (Psn.compare(psn, comp.psn) >= 0)
                    {
                        comp.lastOpcode = opcode.position().isEnd() ? -1 : opcode.code();
                        comp.psn = Psn.next(psn);
                    }
                    wakeRequester(qp);
                    state = State.DONE;
                    break;

                case ERROR_RETRY:
                    errorRetry(qp, wqe, false);
                    state = State.DONE;
                    break;

                case RNR_RETRY:
                    rnrRetry(qp, wqe, pkt.aeth().syndrome());
                    state = State.DONE;
                    break;

                case ERROR:
                    fail(qp, wqe, errorStatus);
                    state = State.DONE;
                    break;

                default:
                    state = State.DONE;
                    break;
            }
        }
        lastFinalState = state;
        resetRetransmitTimer(qp);
    }

    /**
     * The retransmit timer expired (rxe retransmit_timer + the completer's EXIT → ERROR_RETRY path).
     *
     * @param qp the QP.
     */
    void onRetransmitTimeout(final QpContext qp)
    {
        if (QpState.RTS != qp.state() && QpState.SQD != qp.state())
        {
            return;
        }
        final SendQueue sq = qp.sendQueue;
        final SendWqe wqe = sq.completer < sq.publishedIndex() ? sq.at(sq.completer) : null;
        if (null == wqe || WqeState.POSTED == wqe.state || Psn.compare(qp.req.psn, qp.comp.psn) <= 0)
        {
            return;
        }
        if (qp.req.waitingRnrTimer)
        {
            // rxe: a retransmit timeout during an RNR wait waits for the RNR timer instead.
            resetRetransmitTimer(qp);
            return;
        }
        counters.increment(TransportCounter.RETRANSMIT_TIMEOUTS);
        errorRetry(qp, wqe, true);
    }

    private void errorRetry(final QpContext qp, final SendWqe wqe, final boolean timeout)
    {
        final CompleterState comp = qp.comp;
        if (null == wqe || WqeState.POSTED == wqe.state)
        {
            return;
        }
        if (comp.startedRetry && !timeout)
        {
            // Already retrying because of this gap; more NAKs/implied NAKs for it change nothing (rxe).
            return;
        }
        if (comp.retryLeft > 0)
        {
            // IBA 9.7.6.1.3: each retry uses one of retry_cnt, 7 included, unless configured to do as rxe does.
            if (RETRY_FOREVER != qp.attributes.retryCnt || !engine.config.retryCountSevenForever())
            {
                comp.retryLeft--;
            }
            if (Psn.compare(qp.req.psn, comp.psn) > 0)
            {
                qp.req.needRetry = true;
                comp.startedRetry = true;
                engine.schedule(qp);
            }
        }
        else
        {
            counters.increment(TransportCounter.RETRY_EXCEEDED);
            fail(qp, wqe, WcStatus.RETRY_EXC_ERR);
        }
    }

    private void rnrRetry(final QpContext qp, final SendWqe wqe, final int syndrome)
    {
        final CompleterState comp = qp.comp;
        if (comp.rnrRetryLeft > 0)
        {
            if (RETRY_FOREVER != qp.attributes.rnrRetry)
            {
                comp.rnrRetryLeft--;
            }
            counters.increment(TransportCounter.RNR_RETRIES);
            final RequesterState req = qp.req;
            req.waitingRnrTimer = true;
            req.rnrDeadlineNs = engine.nowNs() + AethHeader.rnrTimerNs(AethHeader.value(syndrome));
            engine.timers.arm(qp, req.rnrDeadlineNs);
        }
        else
        {
            counters.increment(TransportCounter.RNR_RETRY_EXCEEDED);
            fail(qp, wqe, WcStatus.RNR_RETRY_EXC_ERR);
        }
    }

    /**
     * An error completion and the move to the error state (rxe_comp.c COMPST_ERROR: do_complete, rxe_qp_error), the
     * state first: a consumer that polls the error completion and then queries the QP sees ERR (IBA 10.3.1: the QP
     * is in the error state once a WR completes in error). The rest of the queue is flushed on the QP's next run.
     */
    private void fail(final QpContext qp, final SendWqe wqe, final WcStatus status)
    {
        engine.qpControl.error(qp, AsyncEventType.QP_FATAL);
        complete(qp, wqe, status);
    }

    /**
     * A response got through: the retry budgets count retries in a row again from full (rxe comp.retry_cnt reset).
     *
     * @param qp the QP.
     */
    static void resetRetryCounters(final QpContext qp)
    {
        final CompleterState comp = qp.comp;
        comp.retryLeft = qp.attributes.retryCnt;
        comp.rnrRetryLeft = qp.attributes.rnrRetry;
        comp.startedRetry = false;
    }

    /**
     * Schedule the requester if it waits for what a response may have freed (window, ORD slot, fence, the turn of a
     * local operation).
     *
     * @param qp the QP.
     */
    void wakeRequester(final QpContext qp)
    {
        final RequesterStall stall = qp.req.stall;
        if (RequesterStall.WINDOW == stall || RequesterStall.ORD == stall || RequesterStall.FENCE == stall ||
            RequesterStall.LOCAL_OP == stall)
        {
            engine.schedule(qp);
        }
    }

    /**
     * Start the retransmit timer if it is not running (the requester calls this after sending a packet that needs
     * an answer).
     *
     * @param qp the QP.
     */
    void armRetransmitTimer(final QpContext qp)
    {
        if (0 != qp.timeoutNs && 0 == qp.comp.retransmitDeadlineNs)
        {
            final long deadline = engine.nowNs() + qp.timeoutNs;
            qp.comp.retransmitDeadlineNs = deadline;
            engine.timers.arm(qp, deadline);
        }
    }

    /**
     * rxe reset_retry_timer: while packets are outstanding, every response pushes the deadline forward.
     */
    private void resetRetransmitTimer(final QpContext qp)
    {
        if (0 != qp.timeoutNs && Psn.compare(qp.req.psn, qp.comp.psn) > 0 &&
            (QpState.RTS == qp.state() || QpState.SQD == qp.state()))
        {
            final long deadline = engine.nowNs() + qp.timeoutNs;
            qp.comp.retransmitDeadlineNs = deadline;
            engine.timers.arm(qp, deadline);
        }
        else
        {
            qp.comp.retransmitDeadlineNs = 0;
        }
    }

    /**
     * Complete the WQE at the head of the send queue: write a completion if it is signaled or failed (IBA 10.7.3.1:
     * errors always complete), release its ORD slot and retire the slot.
     *
     * @param qp     the QP.
     * @param wqe    the WQE at the send queue's completer cursor.
     * @param status its status.
     */
    void complete(final QpContext qp, final SendWqe wqe, final WcStatus status)
    {
        if (wqe.holdsOrd)
        {
            wqe.holdsOrd = false;
            qp.req.readAtomicOutstanding--;
            wakeRequester(qp);
        }
        wqe.status = status;
        wqe.state = WcStatus.SUCCESS == status ? WqeState.DONE : WqeState.ERROR;
        final boolean signal = qp.signalAll || wqe.isSignaled() || WcStatus.SUCCESS != status;
        final long wrId = wqe.wrId;
        final int flags = wqe.opcode.hasImmediate() ? WorkCompletion.FLAG_WITH_IMM : 0;
        final WcOpcode opcode = wqe.opcode.completionOpcode();
        final int length = (int)wqe.length;
        // Retire before publishing the completion (libibverbs: a polled completion has freed its send queue slot
        // and those of the unsignaled WRs before it). A poster on another thread that sees the completion may
        // then post a full queue at once; the slot may be reused from here on, hence the fields read above.
        qp.sendQueue.retireOne();
        if (signal)
        {
            if (qp.sendCq.offer(wrId, status, opcode, length, 0, qp.qpn, 0, flags, 0))
            {
                counters.increment(WcStatus.SUCCESS == status ?
                    TransportCounter.SEND_COMPLETIONS : TransportCounter.ERROR_COMPLETIONS);
            }
            else
            {
                cqOverflow(qp, qp.sendCq);
            }
        }
        checkSqDrained(qp);
    }

    /**
     * IBA 11.4.2.1 (class G): a completion queue overflow is an error for the QP and for the CQ.
     *
     * @param qp the QP whose completion did not fit.
     * @param cq the full completion queue.
     */
    void cqOverflow(final QpContext qp, final CompletionRing cq)
    {
        counters.increment(TransportCounter.CQ_OVERFLOWS);
        engine.raise(AsyncEventType.CQ_ERR, cq.handle());
        engine.qpControl.error(qp, AsyncEventType.QP_FATAL);
    }

    /**
     * Raise SQ_DRAINED once a QP in SQD has nothing outstanding.
     *
     * @param qp the QP.
     */
    void checkSqDrained(final QpContext qp)
    {
        if (qp.sqDraining && QpState.SQD == qp.state() && qp.sendQueue.completer == qp.sendQueue.requester &&
            !hasStartedWqe(qp))
        {
            qp.sqDraining = false;
            engine.raise(AsyncEventType.SQ_DRAINED, qp.qpn);
        }
    }

    private static boolean hasStartedWqe(final QpContext qp)
    {
        final SendQueue sq = qp.sendQueue;
        return sq.completer < sq.publishedIndex() && sq.at(sq.completer).started &&
            WqeState.POSTED != sq.at(sq.completer).state;
    }

    /**
     * @return the state the last response ended in (for tests).
     */
    State lastFinalState()
    {
        return lastFinalState;
    }
}
