package org.roce4j.transport.engine;

import org.roce4j.ib.WcStatus;
import org.roce4j.ib.WrOpcode;
import org.roce4j.transport.TransportCounter;
import org.roce4j.transport.TransportCounters;
import org.roce4j.transport.engine.Completer.State;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.Psn;
import org.roce4j.wire.RoceFrameParser;
import org.roce4j.wire.header.AethHeader;

/**
 * The completer's checks of a response against the oldest outstanding WQE (rxe_comp.c check_psn and check_ack): where
 * its PSN lies (a later PSN completes a pending SEND/WRITE implicitly, or is an implied NAK past a READ/atomic; an
 * earlier one is a duplicate), whether its opcode fits the response sequence and the WQE, and what its AETH syndrome
 * means (ACK, RNR NAK, sequence NAK, other NAKs). Each returns the next {@link Completer.State}; the
 * {@link Completer} runs the states.
 */
final class CompleterChecks
{
    private final TransportCounters counters;
    private final Completer completer;

    CompleterChecks(final RoceEngine engine, final Completer completer)
    {
        this.counters = engine.counters();
        this.completer = completer;
    }

    /**
     * rxe check_psn: relate the response PSN to the WQE and to the oldest unacknowledged PSN.
     */
    State checkPsn(
        final QpContext qp, final SendWqe wqe, final int psn, final Opcode opcode, final RoceFrameParser pkt)
    {
        if (Psn.compare(psn, wqe.lastPsn) > 0)
        {
            if (WqeState.PENDING == wqe.state)
            {
                if (wqe.opcode.isReadOrAtomic())
                {
                    // IBA 9.7.5.1.2: a response past a READ/atomic that got no response is an implied NAK.
                    counters.increment(TransportCounter.IMPLIED_NAKS);
                    return State.ERROR_RETRY;
                }
                Completer.resetRetryCounters(qp);
                return State.COMP_WQE;
            }
            counters.increment(TransportCounter.DROP_STRAY_RESPONSE);
            return State.DONE;
        }
        final int diff = Psn.compare(psn, qp.comp.psn);
        if (diff < 0)
        {
            // Most likely a retransmitted response: it completes the WQE if it is its last, else it is dropped.
            if (psn == wqe.lastPsn && WqeState.PENDING == wqe.state && !wqe.opcode.isReadOrAtomic())
            {
                return State.COMP_ACK;
            }
            if (Opcode.RC_ACKNOWLEDGE == opcode && isReadResponseInProgress(qp.comp.lastOpcode) &&
                AethHeader.TYPE_ACK != AethHeader.type(pkt.aeth().syndrome()) && Psn.compare(psn, wqe.firstPsn) >= 0)
            {
                // rxe: a NAK (say a remote access error) may end a READ response in progress; rxe's carries the
                // READ request's PSN, so it is inside the READ's range, never before it. A plain ACK with an old
                // PSN is only a late, reordered ACK: taking it would end the READ's response sequence.
                return State.CHECK_ACK;
            }
            counters.increment(TransportCounter.DROP_STRAY_RESPONSE);
            return State.DONE;
        }
        if (diff > 0 && wqe.opcode.isReadOrAtomic())
        {
            // A gap inside a READ response: wait for the retransmit timer (newer rxe drops here too).
            counters.increment(TransportCounter.DROP_STRAY_RESPONSE);
            return State.DONE;
        }
        return State.CHECK_ACK;
    }

    private static boolean isReadResponseInProgress(final int lastOpcode)
    {
        return Opcode.RC_RDMA_READ_RESPONSE_FIRST.code() == lastOpcode ||
            Opcode.RC_RDMA_READ_RESPONSE_MIDDLE.code() == lastOpcode;
    }

    /**
     * rxe check_ack: the opcode must fit the sequence and the WQE, and the syndrome decides the outcome.
     */
    State checkAck(
        final QpContext qp, final SendWqe wqe, final int psn, final Opcode opcode, final RoceFrameParser pkt)
    {
        final CompleterState comp = qp.comp;
        if (-1 == comp.lastOpcode)
        {
            if (!opcode.position().isStart())
            {
                counters.increment(TransportCounter.DROP_BAD_RESPONSE);
                return State.ERROR;
            }
        }
        else if (Opcode.RC_ACKNOWLEDGE != opcode && Opcode.RC_RDMA_READ_RESPONSE_MIDDLE != opcode &&
            Opcode.RC_RDMA_READ_RESPONSE_LAST != opcode)
        {
            // A READ retry may restart the response with FIRST (or ONLY for a one-packet remainder).
            final boolean restart = (psn == wqe.firstPsn && Opcode.RC_RDMA_READ_RESPONSE_FIRST == opcode) ||
                (wqe.firstPsn == wqe.lastPsn && Opcode.RC_RDMA_READ_RESPONSE_ONLY == opcode);
            if (!restart)
            {
                counters.increment(TransportCounter.DROP_BAD_RESPONSE);
                return State.ERROR;
            }
        }

        switch (opcode)
        {
            case RC_RDMA_READ_RESPONSE_FIRST:
            case RC_RDMA_READ_RESPONSE_LAST:
            case RC_RDMA_READ_RESPONSE_ONLY:
                if (AethHeader.TYPE_ACK != AethHeader.type(pkt.aeth().syndrome()))
                {
                    counters.increment(TransportCounter.DROP_BAD_RESPONSE);
                    return State.ERROR;
                }
                if (WrOpcode.ATOMIC_WRITE == wqe.opcode || WrOpcode.FLUSH == wqe.opcode)
                {
                    if (0 != pkt.payloadLength())
                    {
                        // The answer is zero-length (rxe send_read_response_ack); data for a WQE that asked for
                        // none has nowhere to go.
                        counters.increment(TransportCounter.DROP_BAD_RESPONSE);
                        return State.ERROR;
                    }
                    // rxe check_ack: the zero-length READ response answering an ATOMIC_WRITE goes to
                    // COMPST_WRITE_SEND; one answering a FLUSH goes through COMPST_READ, which copies nothing and
                    // reaches COMPST_COMP_ACK the same way. Either completes the WQE whose last PSN it carries.
                    Completer.resetRetryCounters(qp);
                    return State.WRITE_SEND;
                }
                return readResponse(qp, wqe);
            case RC_RDMA_READ_RESPONSE_MIDDLE:
                return readResponse(qp, wqe);
            case RC_ATOMIC_ACKNOWLEDGE:
                if (AethHeader.TYPE_ACK != AethHeader.type(pkt.aeth().syndrome()) || !wqe.opcode.isAtomic())
                {
                    counters.increment(TransportCounter.DROP_BAD_RESPONSE);
                    return State.ERROR;
                }
                Completer.resetRetryCounters(qp);
                return State.ATOMIC;
            case RC_ACKNOWLEDGE:
                return acknowledge(qp, pkt.aeth().syndrome(), psn);
            default:
                counters.increment(TransportCounter.DROP_BAD_RESPONSE);
                return State.ERROR;
        }
    }

    private State readResponse(final QpContext qp, final SendWqe wqe)
    {
        if (WrOpcode.RDMA_READ != wqe.opcode)
        {
            counters.increment(TransportCounter.DROP_BAD_RESPONSE);
            return State.ERROR;
        }
        Completer.resetRetryCounters(qp);
        return State.READ;
    }

    private State acknowledge(final QpContext qp, final int syndrome, final int psn)
    {
        switch (AethHeader.type(syndrome))
        {
            case AethHeader.TYPE_ACK:
                counters.increment(TransportCounter.ACKS_RECEIVED);
                Completer.resetRetryCounters(qp);
                return State.WRITE_SEND;
            case AethHeader.TYPE_RNR_NAK:
                counters.increment(TransportCounter.NAK_RNR_RECEIVED);
                return State.RNR_RETRY;
            case AethHeader.TYPE_NAK:
                if (AethHeader.NakCode.PSN_SEQUENCE_ERROR.syndrome() == syndrome)
                {
                    counters.increment(TransportCounter.NAK_SEQUENCE_RECEIVED);
                    // IBA 9.7.5.1.2 (coalesced acknowledges): a sequence NAK acknowledges every earlier PSN.
                    if (Psn.compare(psn, qp.comp.psn) > 0)
                    {
                        qp.comp.psn = psn;
                        // That is progress, as a completion is: the retry budget counts retries in a row that got
                        // nothing through, so a dead peer exhausts it while a lossy one that keeps acknowledging
                        // part of a long message does not (rxe resets it on ACKs only, but never gives up at 7).
                        Completer.resetRetryCounters(qp);
                        completer.wakeRequester(qp);
                    }
                    return State.ERROR_RETRY;
                }
                counters.increment(TransportCounter.NAK_ERROR_RECEIVED);
                return State.ERROR;
            default:
                counters.increment(TransportCounter.DROP_BAD_RESPONSE);
                return State.ERROR;
        }
    }

    static WcStatus nakStatus(final RoceFrameParser pkt, final Opcode opcode)
    {
        if (Opcode.RC_ACKNOWLEDGE != opcode)
        {
            return WcStatus.BAD_RESP_ERR;
        }
        final int syndrome = pkt.aeth().syndrome();
        if (AethHeader.TYPE_NAK != AethHeader.type(syndrome))
        {
            return WcStatus.BAD_RESP_ERR;
        }
        final AethHeader.NakCode code = AethHeader.NakCode.of(AethHeader.value(syndrome));
        if (AethHeader.NakCode.INVALID_REQUEST == code)
        {
            return WcStatus.REM_INV_REQ_ERR;
        }
        if (AethHeader.NakCode.REMOTE_ACCESS_ERROR == code)
        {
            return WcStatus.REM_ACCESS_ERR;
        }
        // Remote operational error, and (as rxe) any other NAK code.
        return WcStatus.REM_OP_ERR;
    }
}
