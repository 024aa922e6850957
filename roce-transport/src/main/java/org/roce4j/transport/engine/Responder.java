package org.roce4j.transport.engine;

import org.roce4j.ib.AsyncEventType;
import org.roce4j.ib.QpType;
import org.roce4j.ib.WcOpcode;
import org.roce4j.ib.WcStatus;
import org.roce4j.transport.TransportCounter;
import org.roce4j.transport.TransportCounters;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RoceFrameParser;
import org.roce4j.wire.header.AethHeader;

/**
 * The responder (rxe_resp.c): executes request packets against local memory and receive queues, writes receive
 * completions, and answers with ACKs, NAKs, READ responses and atomic acknowledgements.
 *
 * <p>Every request runs the checks of {@link State} in rxe's order, each leading to the next or to an error
 * state that maps to the IBA error class:
 * <pre>
 *   CHK_PSN -&gt; CHK_OP_SEQ -&gt; CHK_OP_VALID -&gt; CHK_RESOURCE -&gt; CHK_LENGTH -&gt; CHK_RKEY -&gt; EXECUTE
 *     -&gt; READ_REPLY | ATOMIC_REPLY | ATOMIC_WRITE_REPLY | PROCESS_FLUSH | COMPLETE -&gt; ACKNOWLEDGE -&gt; CLEANUP
 *     -&gt; DONE
 *   CHK_PSN -&gt; DUPLICATE_REQUEST (re-ACK, READ replay, atomic replay from the stored result, ATOMIC WRITE and
 *     FLUSH answered again without executing them again)
 *   ERR_PSN_OUT_OF_SEQ (class B): one PSN-sequence NAK carrying the expected PSN, then silent drops
 *   ERR_RNR (class B): RNR NAK with min_rnr_timer (RC); drop (UC/UD)
 *   ERR_INVALID_REQUEST / ERR_RKEY_VIOLATION / ERR_LENGTH (class C): NAK, QP to ERR (RC); drop (UC/UD)
 *   ERR_MALFORMED_WQE (class A): remote operational error NAK, QP to ERR
 * </pre>
 * Differences from rxe, each deliberate: the ACKs requested within one QP's burst (its frames that arrive back to
 * back in a receive batch) are coalesced into one, sent when the burst ends (the last PSN acknowledges all before
 * it, IBA 9.7.5.1.1); a UC message broken by a new FIRST/ONLY is dropped but the
 * new message is accepted (rxe drops both; in both the broken message's SRQ WQE completes with REM_INV_REQ_ERR); a
 * receive buffer too small for a SEND completes with LOC_LEN_ERR (the libibverbs meaning) where rxe reports
 * REM_INV_REQ_ERR; a FLUSH on a QP without responder resources is NAKed as an invalid request (rxe does not check
 * and takes a slot of an empty ring); a FLUSH's responder resource remembers its PSN (rxe's rxe_prepare_res leaves
 * the slot's previous PSNs, so its duplicate lookup may miss or hit the wrong slot); an ATOMIC WRITE whose RETH
 * length is not 8 is NAKed as an invalid request (rxe stores the payload's first 8 bytes, read past its end when it
 * is shorter).
 *
 * <p>This class runs the states and handles the error states and the flush; the work of the others is split along
 * rxe_resp.c's seams: {@link ResponderChecks} (CHK_*), {@link ResponderExecute} (EXECUTE, READ_REPLY, ATOMIC_REPLY,
 * COMPLETE) and {@link ResponderAcks} (ACKNOWLEDGE, DUPLICATE_REQUEST, sending and coalescing ACKs).
 */
final class Responder
{
    /** rxe's responder states (enum resp_states), the subset that applies without a packet queue. */
    enum State
    {
        /** Compare the PSN with the expected PSN. */
        CHK_PSN,
        /** Check FIRST/MIDDLE/LAST sequencing against the previous packet. */
        CHK_OP_SEQ,
        /** Check the QP allows the operation (access flags). */
        CHK_OP_VALID,
        /** Find a receive WQE (SEND, WRITE with immediate) or a responder resource (READ, atomic). */
        CHK_RESOURCE,
        /** Check packet and message lengths. */
        CHK_LENGTH,
        /** Check the rkey, the range and the permissions. */
        CHK_RKEY,
        /** Place data, start a READ reply or an atomic. */
        EXECUTE,
        /** Send the READ response. */
        READ_REPLY,
        /** Execute the atomic and keep its result. */
        ATOMIC_REPLY,
        /** Store an ATOMIC WRITE's 8 bytes and answer with a zero-length READ response. */
        ATOMIC_WRITE_REPLY,
        /** Carry out a FLUSH and answer with a zero-length READ response. */
        PROCESS_FLUSH,
        /** Write the receive completion. */
        COMPLETE,
        /** Send or queue the ACK / NAK / atomic ACK. */
        ACKNOWLEDGE,
        /** Done with the packet. */
        CLEANUP,
        /** The PSN was already executed. */
        DUPLICATE_REQUEST,
        /** Class B: PSN ahead of the expected one. */
        ERR_PSN_OUT_OF_SEQ,
        /** Class C: invalid request (sequence, opcode not allowed, no resources, misaligned atomic). */
        ERR_INVALID_REQUEST,
        /** UC class D1/E: a message lost its LAST; drop it. */
        ERR_MISSING_LAST_UC,
        /** Class B: receiver not ready (no receive WQE). */
        ERR_RNR,
        /** Class C: rkey, range or permission violation. */
        ERR_RKEY_VIOLATION,
        /** Class J: SEND_WITH_INV named an rkey that cannot be invalidated. */
        ERR_INVALIDATE_RKEY,
        /** Class C: length violation. */
        ERR_LENGTH,
        /** Class A: the receive WQE's buffers are unusable. */
        ERR_MALFORMED_WQE,
        /** Class G: the receive CQ is full. */
        ERR_CQ_OVERFLOW,
        /** Move the QP to ERR. */
        ERROR,
        /** Finished. */
        DONE
    }

    private final RoceEngine engine;
    private final TransportCounters counters;
    private final ResponderChecks checks;
    private final ResponderAcks acks;
    private final ResponderExecute execute;
    private State lastFinalState = State.DONE;

    Responder(final RoceEngine engine)
    {
        this.engine = engine;
        this.counters = engine.counters();
        this.checks = new ResponderChecks(engine);
        this.acks = new ResponderAcks(engine);
        this.execute = new ResponderExecute(engine, acks);
    }
    /**
     * Process one request packet.
     *
     * @param qp  the QP it is for.
     * @param pkt the parsed packet (valid during this call).
     */
    void onRequest(final QpContext qp, final RoceFrameParser pkt)
    {
        final ResponderState resp = qp.resp;
        if (null != resp.activeRead && resp.activeRead.replying)
        {
            // Later requests are answered after the READ response in progress (responses stay in PSN order).
            execute.continueRead(qp, Integer.MAX_VALUE);
            if (null != resp.activeRead && resp.activeRead.replying)
            {
                counters.increment(TransportCounter.LINK_BACK_PRESSURE);
                return;
            }
        }
        final Opcode opcode = pkt.opcode();
        final int psn = pkt.bth().psn();
        resp.syndrome = AethHeader.SYNDROME_ACK_UNLIMITED;
        resp.status = WcStatus.SUCCESS;
        resp.gotoError = null;
        State state = qp.type.isDatagram() ? State.CHK_RESOURCE : State.CHK_PSN;
        while (State.DONE != state)
        {
            switch (state)
            {
                case CHK_PSN:
                    state = checks.checkPsn(qp, opcode, psn);
                    break;
                case CHK_OP_SEQ:
                    state = checks.checkOpSeq(qp, opcode);
                    break;
                case CHK_OP_VALID:
                    state = checks.checkOpValid(qp, opcode, pkt);
                    break;
                case CHK_RESOURCE:
                    state = checks.checkResource(qp, opcode);
                    break;
                case CHK_LENGTH:
                    state = checks.checkLength(qp, opcode, pkt);
                    break;
                case CHK_RKEY:
                    state = checks.checkRkey(qp, opcode, pkt);
                    break;
                case EXECUTE:
                    state = execute.execute(qp, opcode, pkt, psn);
                    break;
                case READ_REPLY:
                    state = execute.startReadReply(qp, pkt, psn);
                    break;
                case ATOMIC_REPLY:
                    state = execute.atomicReply(qp, opcode, pkt, psn);
                    break;
                case ATOMIC_WRITE_REPLY:
                    state = execute.atomicWriteReply(qp, opcode, pkt, psn);
                    break;
                case PROCESS_FLUSH:
                    state = execute.processFlush(qp, opcode, psn);
                    break;
                case COMPLETE:
                    state = execute.complete(qp, opcode, pkt);
                    break;
                case ACKNOWLEDGE:
                    state = acks.acknowledge(qp, opcode, pkt, psn);
                    break;
                case CLEANUP:
                    state = null != resp.gotoError ? State.ERROR : State.DONE;
                    break;
                case DUPLICATE_REQUEST:
                    state = acks.duplicateRequest(qp, opcode, pkt, psn);
                    break;
                case ERR_PSN_OUT_OF_SEQ:
                    // Class B (IBA 9.9.3.1.2): NAK with the PSN we expect; the requester goes back to it.
                    counters.increment(TransportCounter.NAK_SEQUENCE_SENT);
                    acks.sendAckNow(qp, AethHeader.NakCode.PSN_SEQUENCE_ERROR.syndrome(), resp.psn);
                    state = State.CLEANUP;
                    break;
                case ERR_INVALID_REQUEST:
                    classAcError(qp, AethHeader.NakCode.INVALID_REQUEST.syndrome(), WcStatus.REM_INV_REQ_ERR,
                        AsyncEventType.QP_REQ_ERR);
                    state = State.COMPLETE;
                    break;
                case ERR_MISSING_LAST_UC:
                    // Class D1 (UC): the previous message lost its end; forget it and take this packet afresh.
                    counters.increment(TransportCounter.DROP_UC_MESSAGE);
                    resp.lastOpcode = -1;
                    resp.writeRegion = null;
                    state = releaseBrokenUcWqe(qp) ? State.CHK_OP_SEQ : State.ERR_CQ_OVERFLOW;
                    break;
                case ERR_RNR:
                    if (QpType.RC == qp.type)
                    {
                        counters.increment(TransportCounter.NAK_RNR_SENT);
                        acks.sendAckNow(qp,
                            AethHeader.TYPE_RNR_NAK | (qp.attributes.minRnrTimer & AethHeader.VALUE_MASK),
                            psn);
                    }
                    else
                    {
                        counters.increment(TransportCounter.DROP_NO_RECEIVE);
                        resp.ucDropping = QpType.UC == qp.type;
                    }
                    state = State.CLEANUP;
                    break;
                case ERR_RKEY_VIOLATION:
                    if (QpType.RC == qp.type)
                    {
                        classAcError(qp, AethHeader.NakCode.REMOTE_ACCESS_ERROR.syndrome(), WcStatus.REM_ACCESS_ERR,
                            AsyncEventType.QP_ACCESS_ERR);
                        state = State.COMPLETE;
                    }
                    else
                    {
                        counters.increment(TransportCounter.DROP_UC_MESSAGE);
                        resp.ucDropping = true;
                        resp.status = WcStatus.REM_ACCESS_ERR;
                        state = null != qp.srq && null != resp.recvWqe ? State.COMPLETE : State.CLEANUP;
                    }
                    break;
                case ERR_INVALIDATE_RKEY:
                    // Class J: complete with an error and go to ERR; the ACK itself is still sent (rxe).
                    resp.gotoError = AsyncEventType.QP_REQ_ERR;
                    resp.status = WcStatus.REM_INV_REQ_ERR;
                    state = State.COMPLETE;
                    break;
                case ERR_LENGTH:
                    if (QpType.RC == qp.type)
                    {
                        classAcError(qp, AethHeader.NakCode.INVALID_REQUEST.syndrome(), WcStatus.LOC_LEN_ERR,
                            AsyncEventType.QP_REQ_ERR);
                        state = State.COMPLETE;
                    }
                    else
                    {
                        counters.increment(qp.type.isDatagram() ?
                            TransportCounter.DROP_UD_TOO_LONG : TransportCounter.DROP_UC_MESSAGE);
                        resp.ucDropping = QpType.UC == qp.type;
                        resp.status = WcStatus.LOC_LEN_ERR;
                        state = null != qp.srq && null != resp.recvWqe ? State.COMPLETE : State.CLEANUP;
                    }
                    break;
                case ERR_MALFORMED_WQE:
                    // Class A: the receive WQE's buffers failed their lkey/bounds/access check, or were deregistered
                    // mid-message; rxe completes it with IB_WC_LOC_QP_OP_ERR.
                    classAcError(qp, AethHeader.NakCode.REMOTE_OPERATIONAL_ERROR.syndrome(), WcStatus.LOC_QP_OP_ERR,
                        AsyncEventType.QP_FATAL);
                    state = State.COMPLETE;
                    break;
                case ERR_CQ_OVERFLOW:
                    counters.increment(TransportCounter.CQ_OVERFLOWS);
                    engine.raise(AsyncEventType.CQ_ERR, qp.recvCq.handle());
                    resp.gotoError = AsyncEventType.QP_FATAL;
                    state = State.ERROR;
                    break;
                case ERROR:
                {
                    final AsyncEventType event = null != resp.gotoError ? resp.gotoError : AsyncEventType.QP_FATAL;
                    resp.gotoError = null;
                    engine.qpControl.error(qp, event);
                    state = State.DONE;
                    break;
                }
                default:
                    state = State.DONE;
                    break;
            }
        }
        lastFinalState = state;
    }

    private static void classAcError(
        final QpContext qp, final int syndrome, final WcStatus status, final AsyncEventType event)
    {
        final ResponderState resp = qp.resp;
        resp.syndrome = syndrome;
        resp.status = status;
        resp.gotoError = event;
    }

    /**
     * Send more of the READ response in progress, if any.
     *
     * @param qp     the QP.
     * @param budget most packets to send.
     * @return packets sent.
     */
    int continueRead(final QpContext qp, final int budget)
    {
        return execute.continueRead(qp, budget);
    }

    /**
     * A frame for {@code qp} is about to be handled (engine thread, receive path): it ends the burst of any other QP,
     * whose coalesced ACK leaves now ({@link ResponderAcks#onFrameFor(QpContext)}).
     *
     * @param qp the QP the frame is for.
     */
    void onFrameFor(final QpContext qp)
    {
        acks.onFrameFor(qp);
    }

    /**
     * Send the ACKs still coalesced at the end of the receive batch just processed (engine thread, once per duty
     * cycle).
     */
    void flushAcks()
    {
        acks.flushAcks();
    }

    /**
     * @return QPs whose coalesced ACK could not be sent yet (the link had no room).
     */
    int unsentAcks()
    {
        return acks.unsentAcks();
    }

    // ---- flush ---------------------------------------------------------------------------------------------------

    /**
     * Complete every posted receive WQE of a QP in ERR with WR_FLUSH_ERR (rxe flush_recv_queue). A QP on an SRQ
     * only flushes the WQE it had taken for a message in progress; the SRQ's others belong to other QPs.
     *
     * @param qp the QP.
     * @return WQEs flushed.
     */
    int flushReceiveQueue(final QpContext qp)
    {
        final ResponderState resp = qp.resp;
        int flushed = 0;
        if (null != qp.srq)
        {
            if (null != resp.recvWqe)
            {
                flushOne(qp, resp.recvWqe.wrId);
                flushed++;
            }
        }
        else
        {
            final ReceiveQueue queue = qp.receiveQueue;
            RecvWqe wqe;
            while (null != (wqe = queue.peek()))
            {
                // Consume first, as complete() does: the completion must not show before the slot is free.
                final long wrId = wqe.wrId;
                queue.consume();
                flushOne(qp, wrId);
                flushed++;
            }
        }
        resp.recvWqe = null;
        resp.messageOffset = 0;
        resp.activeRead = null;
        return flushed;
    }

    private void flushOne(final QpContext qp, final long wrId)
    {
        if (!errorCompletion(qp, wrId, WcStatus.WR_FLUSH_ERR))
        {
            counters.increment(TransportCounter.CQ_OVERFLOWS);
        }
    }

    /**
     * A UC message broke (class D1/E): the receive WQE taken for it must not be lost. A QP's own receive queue
     * still holds it at its head (it is consumed on completion only), so the next message reuses it, as rxe resets
     * it (class D1). An SRQ WQE was consumed when the message began: it is completed with REM_INV_REQ_ERR, as rxe
     * does for class E (do_class_d1e_error), or the SRQ would lose it for good.
     *
     * @return false when the receive CQ had no room for the completion.
     */
    private boolean releaseBrokenUcWqe(final QpContext qp)
    {
        final ResponderState resp = qp.resp;
        final RecvWqe wqe = resp.recvWqe;
        resp.recvWqe = null;
        resp.messageOffset = 0;
        if (null == wqe || null == qp.srq)
        {
            return true;
        }
        return errorCompletion(qp, wqe.wrId, WcStatus.REM_INV_REQ_ERR);
    }

    /**
     * Write a receive completion carrying only a status, wr_id and QPN (rxe do_complete fills nothing else for an
     * error).
     *
     * @return false when the receive CQ is full.
     */
    private boolean errorCompletion(final QpContext qp, final long wrId, final WcStatus status)
    {
        if (qp.recvCq.offer(wrId, status, WcOpcode.RECV, 0, 0, qp.qpn, 0, 0, 0))
        {
            counters.increment(TransportCounter.ERROR_COMPLETIONS);
            return true;
        }
        return false;
    }

    /**
     * @return the state the last request ended in (for tests).
     */
    State lastFinalState()
    {
        return lastFinalState;
    }
}
