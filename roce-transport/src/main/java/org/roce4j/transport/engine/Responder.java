package org.roce4j.transport.engine;

import java.nio.ByteOrder;

import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.transport.AccessFlags;
import org.roce4j.transport.AsyncEventType;
import org.roce4j.transport.QpState;
import org.roce4j.transport.QpType;
import org.roce4j.transport.TransportCounter;
import org.roce4j.transport.TransportCounters;
import org.roce4j.transport.WcOpcode;
import org.roce4j.transport.WcStatus;
import org.roce4j.transport.WorkCompletion;
import org.roce4j.wire.ExtHeader;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.Operation;
import org.roce4j.wire.Position;
import org.roce4j.wire.Psn;
import org.roce4j.wire.RoceFrameParser;
import org.roce4j.wire.header.AethHeader;
import org.roce4j.wire.header.AtomicEthHeader;
import org.roce4j.wire.header.Ipv4Header;
import org.roce4j.wire.header.Ipv6Header;
import org.roce4j.wire.header.RethHeader;

/**
 * The responder (rxe_resp.c): executes request packets against local memory and receive queues, writes receive
 * completions, and answers with ACKs, NAKs, READ responses and atomic acknowledgements.
 *
 * <p>Every request runs the checks of {@link State} in rxe's order, each leading to the next or to an error
 * state that maps to the IBA error class:
 * <pre>
 *   CHK_PSN -&gt; CHK_OP_SEQ -&gt; CHK_OP_VALID -&gt; CHK_RESOURCE -&gt; CHK_LENGTH -&gt; CHK_RKEY -&gt; EXECUTE
 *     -&gt; READ_REPLY | ATOMIC_REPLY | COMPLETE -&gt; ACKNOWLEDGE -&gt; CLEANUP -&gt; DONE
 *   CHK_PSN -&gt; DUPLICATE_REQUEST (re-ACK, READ replay, atomic replay from the stored result)
 *   ERR_PSN_OUT_OF_SEQ (class B): one PSN-sequence NAK carrying the expected PSN, then silent drops
 *   ERR_RNR (class B): RNR NAK with min_rnr_timer (RC); drop (UC/UD)
 *   ERR_INVALID_REQUEST / ERR_RKEY_VIOLATION / ERR_LENGTH (class C): NAK, QP to ERR (RC); drop (UC/UD)
 *   ERR_MALFORMED_WQE (class A): remote operational error NAK, QP to ERR
 * </pre>
 * Differences from rxe, each deliberate: ACKs requested within one receive batch are coalesced into one (the
 * last PSN acknowledges all before it, IBA 9.7.5.1.1); a UC message broken by a new FIRST/ONLY is dropped but the
 * new message is accepted (rxe drops both; in both the broken message's SRQ WQE completes with REM_INV_REQ_ERR); a
 * receive buffer too small for a SEND completes with LOC_LEN_ERR (the libibverbs meaning) where rxe reports
 * REM_INV_REQ_ERR; FLUSH and ATOMIC WRITE are not offered and are NAKed as invalid requests.
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

    /** Size of the GRH area at the start of every UD receive buffer (union rdma_network_hdr, ib_verbs.h). */
    static final int GRH_BYTES = WorkCompletion.GRH_BYTES;
    /** Zero bytes placed before an IPv4 header in the GRH area (20 reserved + 20 IPv4 = 40, rxe execute()). */
    private static final UnsafeBuffer ZEROS = new UnsafeBuffer(new byte[GRH_BYTES]);

    private final RoceEngine engine;
    private final TransportCounters counters;
    private State lastFinalState = State.DONE;

    Responder(final RoceEngine engine)
    {
        this.engine = engine;
        this.counters = engine.countersInternal();
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
            continueRead(qp, Integer.MAX_VALUE);
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
                    state = checkPsn(qp, opcode, psn);
                    break;
                case CHK_OP_SEQ:
                    state = checkOpSeq(qp, opcode);
                    break;
                case CHK_OP_VALID:
                    state = checkOpValid(qp, opcode);
                    break;
                case CHK_RESOURCE:
                    state = checkResource(qp, opcode);
                    break;
                case CHK_LENGTH:
                    state = checkLength(qp, opcode, pkt);
                    break;
                case CHK_RKEY:
                    state = checkRkey(qp, opcode, pkt);
                    break;
                case EXECUTE:
                    state = execute(qp, opcode, pkt, psn);
                    break;
                case READ_REPLY:
                    state = startReadReply(qp, pkt, psn);
                    break;
                case ATOMIC_REPLY:
                    state = atomicReply(qp, opcode, pkt, psn);
                    break;
                case COMPLETE:
                    state = complete(qp, opcode, pkt);
                    break;
                case ACKNOWLEDGE:
                    state = acknowledge(qp, opcode, pkt, psn);
                    break;
                case CLEANUP:
                    state = null != resp.gotoError ? State.ERROR : State.DONE;
                    break;
                case DUPLICATE_REQUEST:
                    state = duplicateRequest(qp, opcode, pkt, psn);
                    break;
                case ERR_PSN_OUT_OF_SEQ:
                    // Class B (IBA 9.9.3.1.2): NAK with the PSN we expect; the requester goes back to it.
                    counters.increment(TransportCounter.NAK_SEQUENCE_SENT);
                    sendAckNow(qp, AethHeader.NakCode.PSN_SEQUENCE_ERROR.syndrome(), resp.psn);
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
                        sendAckNow(qp, AethHeader.TYPE_RNR_NAK | (qp.attributes.minRnrTimer & AethHeader.VALUE_MASK),
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
                    engine.qpError(qp, event);
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

    // ---- checks ------------------------------------------------------------------------------------------------

    private State checkPsn(final QpContext qp, final Opcode opcode, final int psn)
    {
        final ResponderState resp = qp.resp;
        final int diff = Psn.compare(psn, resp.psn);
        if (QpType.RC == qp.type)
        {
            if (diff > 0)
            {
                if (resp.sentPsnNak)
                {
                    counters.increment(TransportCounter.DROP_OUT_OF_SEQUENCE);
                    return State.CLEANUP;
                }
                resp.sentPsnNak = true;
                return State.ERR_PSN_OUT_OF_SEQ;
            }
            if (diff < 0)
            {
                counters.increment(TransportCounter.DUPLICATE_REQUESTS);
                return State.DUPLICATE_REQUEST;
            }
            resp.sentPsnNak = false;
            return State.CHK_OP_SEQ;
        }
        // UC (IBA 9.8.2): after a gap, drop until the next packet that starts a message.
        if (resp.ucDropping || 0 != diff)
        {
            if (opcode.position().isStart())
            {
                resp.ucDropping = false;
                return State.CHK_OP_SEQ;
            }
            resp.ucDropping = true;
            counters.increment(TransportCounter.DROP_UC_MESSAGE);
            return State.CLEANUP;
        }
        return State.CHK_OP_SEQ;
    }

    private State checkOpSeq(final QpContext qp, final Opcode opcode)
    {
        final ResponderState resp = qp.resp;
        final boolean reliable = QpType.RC == qp.type;
        final Opcode previous = -1 == resp.lastOpcode ? null : Opcode.of(resp.lastOpcode);
        final boolean inSend = null != previous && Operation.SEND == previous.operation() &&
            !previous.position().isEnd();
        final boolean inWrite = null != previous && Operation.RDMA_WRITE == previous.operation() &&
            !previous.position().isEnd();
        final Position position = opcode.position();
        if (inSend || inWrite)
        {
            final Operation expected = inSend ? Operation.SEND : Operation.RDMA_WRITE;
            if (expected == opcode.operation() && !position.isStart())
            {
                return State.CHK_OP_VALID;
            }
            // IBA 9.9.3.1.3 class C (RC) / 9.8.2 class D1 (UC): a message ended without its LAST.
            return reliable ? State.ERR_INVALID_REQUEST : State.ERR_MISSING_LAST_UC;
        }
        if (!position.isStart())
        {
            // MIDDLE/LAST without a FIRST.
            if (reliable)
            {
                return State.ERR_INVALID_REQUEST;
            }
            resp.ucDropping = true;
            counters.increment(TransportCounter.DROP_UC_MESSAGE);
            return State.CLEANUP;
        }
        return State.CHK_OP_VALID;
    }

    private State checkOpValid(final QpContext qp, final Opcode opcode)
    {
        final int access = qp.attributes.qpAccessFlags;
        final Operation operation = opcode.operation();
        if (QpType.RC == qp.type)
        {
            if ((Operation.RDMA_READ_REQUEST == operation && 0 == (access & AccessFlags.REMOTE_READ)) ||
                (Operation.RDMA_WRITE == operation && 0 == (access & AccessFlags.REMOTE_WRITE)) ||
                ((Operation.COMPARE_SWAP == operation || Operation.FETCH_ADD == operation) &&
                0 == (access & AccessFlags.REMOTE_ATOMIC)) ||
                Operation.FLUSH == operation || Operation.ATOMIC_WRITE == operation)
            {
                return State.ERR_INVALID_REQUEST;
            }
        }
        else if (QpType.UC == qp.type && Operation.RDMA_WRITE == operation &&
            0 == (access & AccessFlags.REMOTE_WRITE))
        {
            qp.resp.ucDropping = true;
            counters.increment(TransportCounter.DROP_UC_MESSAGE);
            return State.CLEANUP;
        }
        return State.CHK_RESOURCE;
    }

    private State checkResource(final QpContext qp, final Opcode opcode)
    {
        final ResponderState resp = qp.resp;
        if (opcode.usesResponderResource())
        {
            // rxe: "it is the requester's job to not send too many read/atomic ops, we just recycle".
            return resp.resources.length > 0 ? State.CHK_LENGTH : State.ERR_INVALID_REQUEST;
        }
        if (needsReceiveWqe(opcode))
        {
            final ReceiveQueue queue = qp.consumedQueue();
            final RecvWqe head = queue.peek();
            if (null == head)
            {
                return State.ERR_RNR;
            }
            RecvWqe wqe = head;
            if (null != qp.srq)
            {
                // The SRQ slot may be refilled as soon as it is consumed: work on a copy (rxe copies too).
                final RecvWqe copy = qp.srqCopy;
                copy.reset(head.wrId);
                copy.sgl.copyFrom(head.sgl);
                if (queue.consume())
                {
                    engine.raise(AsyncEventType.SRQ_LIMIT_REACHED, queue.handle());
                }
                wqe = copy;
            }
            resp.recvWqe = wqe;
            resp.recvQueue = queue;
            if (!wqe.sgl.resolve(engine.mrTable(), qp.pdHandle, AccessFlags.LOCAL_WRITE))
            {
                return State.ERR_MALFORMED_WQE;
            }
            if (Operation.SEND == opcode.operation())
            {
                resp.messageOffset = 0;
            }
        }
        return State.CHK_LENGTH;
    }

    private static boolean needsReceiveWqe(final Opcode opcode)
    {
        // rxe RXE_RWR_MASK: the packets that take a receive WQE.
        return (Operation.SEND == opcode.operation() && opcode.position().isStart()) ||
            (Operation.RDMA_WRITE == opcode.operation() && opcode.hasImmediate());
    }

    private State checkLength(final QpContext qp, final Opcode opcode, final RoceFrameParser pkt)
    {
        final ResponderState resp = qp.resp;
        final int payload = pkt.payloadLength();
        if (qp.type.isDatagram())
        {
            // IBA C9-92 / rxe: payload plus the 40-byte GRH area must fit the receive buffer.
            if (payload + GRH_BYTES > resp.recvWqe.sgl.totalLength())
            {
                return State.ERR_LENGTH;
            }
            return State.EXECUTE;
        }
        if (opcode.hasPayload())
        {
            final int mtu = qp.mtuBytes;
            final Position position = opcode.position();
            if (Position.ONLY == position)
            {
                if (payload > mtu)
                {
                    return State.ERR_LENGTH;
                }
            }
            else if (Position.FIRST == position || Position.MIDDLE == position)
            {
                if (payload != mtu)
                {
                    return State.ERR_LENGTH;
                }
            }
            else if (0 == payload || payload > mtu)
            {
                return State.ERR_LENGTH;
            }
        }
        if (opcode.has(ExtHeader.RETH) && pkt.reth().dmaLength() > Requester.MAX_MESSAGE_BYTES)
        {
            // IBA C9-94.
            return State.ERR_LENGTH;
        }
        if (Operation.SEND == opcode.operation() && resp.messageOffset + payload > resp.recvWqe.sgl.totalLength())
        {
            return State.ERR_LENGTH;
        }
        final Operation operation = opcode.operation();
        if (Operation.RDMA_WRITE == operation || Operation.RDMA_READ_REQUEST == operation ||
            Operation.COMPARE_SWAP == operation || Operation.FETCH_ADD == operation)
        {
            return State.CHK_RKEY;
        }
        return State.EXECUTE;
    }

    private State checkRkey(final QpContext qp, final Opcode opcode, final RoceFrameParser pkt)
    {
        final ResponderState resp = qp.resp;
        final Operation operation = opcode.operation();
        final long va;
        final int rkey;
        final long length;
        final int access;
        if (Operation.COMPARE_SWAP == operation || Operation.FETCH_ADD == operation)
        {
            final AtomicEthHeader atomic = pkt.atomicEth();
            va = atomic.va();
            rkey = atomic.rkey();
            length = 8;
            access = AccessFlags.REMOTE_ATOMIC;
            if (0 != (va & 7))
            {
                // IBA 9.4.5 / rxe: the atomic target must be 8-byte aligned.
                return State.ERR_INVALID_REQUEST;
            }
        }
        else if (opcode.has(ExtHeader.RETH))
        {
            final RethHeader reth = pkt.reth();
            va = reth.va();
            rkey = reth.rkey();
            length = reth.dmaLength();
            access = Operation.RDMA_READ_REQUEST == operation ? AccessFlags.REMOTE_READ : AccessFlags.REMOTE_WRITE;
            if (Operation.RDMA_WRITE == operation)
            {
                resp.writeLength = length;
                resp.writeVa = va;
                resp.writeResid = length;
                resp.writeRegion = null;
            }
            if (0 == length)
            {
                // C9-88: a zero-length READ or WRITE need not carry a valid address or rkey. The length rule of
                // check_rkey (payload == resid) still holds: a WRITE that announces 0 bytes must carry none.
                return 0 == pkt.payloadLength() ? State.EXECUTE : State.ERR_LENGTH;
            }
        }
        else
        {
            // WRITE MIDDLE/LAST: continue the region found by the FIRST.
            if (0 == resp.writeResid && null == resp.writeRegion)
            {
                return pkt.payloadLength() == 0 ? State.EXECUTE : State.ERR_LENGTH;
            }
            if (null != resp.writeRegion && !resp.writeRegion.isValid())
            {
                // rxe check_rkey looks the rkey up again for every packet: a region deregistered (or invalidated)
                // since the FIRST takes no more bytes (remote access error, class C).
                return State.ERR_RKEY_VIOLATION;
            }
            return checkWriteLength(qp, pkt);
        }
        final MemoryRegionEntry mr = engine.mrTable().byRkey(rkey);
        if (null == mr || !mr.isValid() || mr.pdHandle() != qp.pdHandle || 0 == (mr.access() & access) ||
            !mr.contains(va, length))
        {
            return State.ERR_RKEY_VIOLATION;
        }
        if (Operation.RDMA_WRITE == operation)
        {
            resp.writeRegion = mr;
            return checkWriteLength(qp, pkt);
        }
        resp.writeRegion = mr;
        return State.EXECUTE;
    }

    private static State checkWriteLength(final QpContext qp, final RoceFrameParser pkt)
    {
        final ResponderState resp = qp.resp;
        final int payload = pkt.payloadLength();
        final int mtu = qp.mtuBytes;
        // rxe check_rkey: a packet of a longer WRITE is exactly one MTU with no pad; the last carries the rest.
        if (resp.writeResid > mtu)
        {
            if (payload != mtu || 0 != pkt.padCount())
            {
                return State.ERR_LENGTH;
            }
        }
        else if (payload != resp.writeResid || pkt.padCount() != ((int)-resp.writeResid & 3))
        {
            return State.ERR_LENGTH;
        }
        return State.EXECUTE;
    }

    // ---- execution ----------------------------------------------------------------------------------------------

    private State execute(final QpContext qp, final Opcode opcode, final RoceFrameParser pkt, final int psn)
    {
        final ResponderState resp = qp.resp;
        final Operation operation = opcode.operation();
        final int payload = pkt.payloadLength();
        if (Operation.SEND == operation)
        {
            final Sgl sgl = resp.recvWqe.sgl;
            if (!sgl.regionsValid())
            {
                // rxe copy_data looks every SGE's lkey up again per packet: a receive buffer deregistered since the
                // SEND's FIRST takes no more bytes (send_data_in fails: RESPST_ERR_MALFORMED_WQE, class A).
                return State.ERR_MALFORMED_WQE;
            }
            if (qp.type.isDatagram())
            {
                placeGrh(sgl, pkt);
                resp.messageOffset = GRH_BYTES;
            }
            sgl.scatter(resp.messageOffset, pkt.buffer(), pkt.payloadOffset(), payload);
            resp.messageOffset += payload;
        }
        else if (Operation.RDMA_WRITE == operation)
        {
            if (payload > 0)
            {
                final MemoryRegionEntry mr = resp.writeRegion;
                mr.memory().putBytes(mr.indexOf(resp.writeVa), pkt.buffer(), pkt.payloadOffset(), payload);
                resp.writeVa += payload;
                resp.writeResid -= payload;
            }
        }
        else if (Operation.RDMA_READ_REQUEST == operation)
        {
            // C9-148: the MSN counts a READ as soon as it is accepted.
            resp.msn = Psn.next(resp.msn);
            return State.READ_REPLY;
        }
        else
        {
            return State.ATOMIC_REPLY;
        }
        if (payload > 0)
        {
            counters.add(TransportCounter.PAYLOAD_BYTES_RECEIVED, payload);
        }
        if (opcode.hasInvalidate())
        {
            final int rkey = pkt.ieth().rkey();
            final MemoryRegionEntry mr = engine.mrTable().byRkey(rkey);
            // Only memory registered for remote invalidation (rxe: fast-registration MRs, IB_MR_TYPE_MEM_REG, and
            // memory windows; rxe_invalidate_mr refuses every other MR) may be invalidated by a peer; otherwise a
            // peer holding an ordinary rkey could disable the region for every other user. Class J.
            if (null == mr || mr.pdHandle() != qp.pdHandle || 0 == (mr.access() & AccessFlags.REMOTE_INVALIDATE))
            {
                return State.ERR_INVALIDATE_RKEY;
            }
            mr.invalidate();
            resp.invalidatedRkey = rkey;
        }
        if (opcode.position().isEnd())
        {
            resp.msn = Psn.next(resp.msn);
        }
        resp.psn = Psn.next(psn);
        resp.ackPsnNext = resp.psn;
        resp.lastOpcode = opcode.code();
        if (opcode.position().isEnd() && (Operation.SEND == operation || opcode.hasImmediate()))
        {
            return State.COMPLETE;
        }
        return QpType.RC == qp.type ? State.ACKNOWLEDGE : State.CLEANUP;
    }

    private static void placeGrh(final Sgl sgl, final RoceFrameParser pkt)
    {
        if (4 == pkt.ipVersion())
        {
            // union rdma_network_hdr for IPv4: 20 reserved (zero) bytes, then the IPv4 header.
            sgl.scatter(0, ZEROS, 0, GRH_BYTES - Ipv4Header.LENGTH);
            sgl.scatter(GRH_BYTES - Ipv4Header.LENGTH, pkt.buffer(), pkt.ipOffset(), Ipv4Header.LENGTH);
        }
        else
        {
            sgl.scatter(0, pkt.buffer(), pkt.ipOffset(), Ipv6Header.LENGTH);
        }
    }

    private State startReadReply(final QpContext qp, final RoceFrameParser pkt, final int psn)
    {
        final ResponderState resp = qp.resp;
        final RethHeader reth = pkt.reth();
        final ResponderResource res = prepareResource(resp, ResponderResource.READ);
        final long length = reth.dmaLength();
        final int packets = Requester.packetCount(length, qp.mtuBytes);
        res.firstPsn = psn;
        res.lastPsn = Psn.add(psn, packets - 1);
        res.vaOriginal = reth.va();
        res.va = reth.va();
        res.length = length;
        res.resid = length;
        res.rkey = reth.rkey();
        res.replyPsn = psn;
        res.replyStarted = false;
        res.replying = true;
        resp.activeRead = res;
        // The READ consumes its whole PSN range now; the reply goes out in order before any later request.
        resp.psn = Psn.add(psn, packets);
        resp.lastOpcode = -1;
        sendPendingAck(qp);
        continueRead(qp, Integer.MAX_VALUE);
        if (null != resp.activeRead && resp.activeRead.replying)
        {
            engine.schedule(qp);
        }
        return State.CLEANUP;
    }

    private static ResponderResource prepareResource(final ResponderState resp, final int type)
    {
        // rxe_prepare_res: take the next slot and overwrite the oldest resource.
        final ResponderResource res = resp.resources[resp.resourceHead];
        resp.resourceHead = (resp.resourceHead + 1) % resp.resources.length;
        res.type = type;
        res.replying = false;
        return res;
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
        final ResponderState resp = qp.resp;
        final ResponderResource res = resp.activeRead;
        if (null == res || !res.replying)
        {
            return 0;
        }
        if (QpState.ERR == qp.state() || QpState.RESET == qp.state())
        {
            res.replying = false;
            resp.activeRead = null;
            return 0;
        }
        final int mtu = qp.mtuBytes;
        final PacketSender sender = engine.sender();
        int sent = 0;
        while (sent < budget && res.replying)
        {
            final Opcode opcode;
            if (!res.replyStarted)
            {
                opcode = res.resid <= mtu ? Opcode.RC_RDMA_READ_RESPONSE_ONLY : Opcode.RC_RDMA_READ_RESPONSE_FIRST;
            }
            else
            {
                opcode = res.resid > mtu ? Opcode.RC_RDMA_READ_RESPONSE_MIDDLE : Opcode.RC_RDMA_READ_RESPONSE_LAST;
            }
            final int payload = (int)Math.min(res.resid, mtu);
            MemoryRegionEntry mr = null;
            if (payload > 0)
            {
                // rxe_recheck_mr: look the region up again, it may have been deregistered meanwhile.
                mr = engine.mrTable().byRkey(res.rkey);
                if (null == mr || !mr.isValid() || !mr.contains(res.va, payload))
                {
                    res.replying = false;
                    resp.activeRead = null;
                    counters.increment(TransportCounter.NAK_REMOTE_ACCESS_SENT);
                    sendAckNow(qp, AethHeader.NakCode.REMOTE_ACCESS_ERROR.syndrome(), res.replyPsn);
                    engine.qpError(qp, AsyncEventType.QP_ACCESS_ERR);
                    return sent;
                }
            }
            if (!sender.begin(qp.address, opcode, qp.attributes.destQpNum, res.replyPsn, payload))
            {
                break;
            }
            if (opcode.has(ExtHeader.AETH))
            {
                sender.builder().aeth().syndrome(AethHeader.SYNDROME_ACK_UNLIMITED).msn(resp.msn);
            }
            if (payload > 0)
            {
                sender.builder().ethernetHeader().buffer()
                    .putBytes(sender.builder().payloadOffset(), mr.memory(), mr.indexOf(res.va), payload);
            }
            sender.builder().payloadLength(payload);
            sender.end(payload);
            sent++;
            res.replyStarted = true;
            res.va += payload;
            res.resid -= payload;
            res.replyPsn = Psn.next(res.replyPsn);
            if (0 == res.resid)
            {
                res.replying = false;
                resp.activeRead = null;
            }
        }
        return sent;
    }

    private State atomicReply(final QpContext qp, final Opcode opcode, final RoceFrameParser pkt, final int psn)
    {
        final ResponderState resp = qp.resp;
        final AtomicEthHeader atomic = pkt.atomicEth();
        final MemoryRegionEntry mr = resp.writeRegion;
        final int index = mr.indexOf(atomic.va());
        // The target is a 64-bit integer in host byte order; operands arrive big-endian in the AtomicETH.
        final long original = mr.memory().getLong(index, ByteOrder.nativeOrder());
        if (Opcode.RC_COMPARE_SWAP == opcode)
        {
            if (original == atomic.compare())
            {
                mr.memory().putLong(index, atomic.swapAdd(), ByteOrder.nativeOrder());
            }
        }
        else
        {
            mr.memory().putLong(index, original + atomic.swapAdd(), ByteOrder.nativeOrder());
        }
        final ResponderResource res = prepareResource(resp, ResponderResource.ATOMIC);
        res.firstPsn = psn;
        res.lastPsn = psn;
        res.atomicOriginal = original;
        resp.msn = Psn.next(resp.msn);
        resp.psn = Psn.next(psn);
        resp.ackPsnNext = resp.psn;
        resp.lastOpcode = opcode.code();
        sendPendingAck(qp);
        sendAtomicAck(qp, psn, original);
        return State.CLEANUP;
    }

    private State complete(final QpContext qp, final Opcode opcode, final RoceFrameParser pkt)
    {
        final ResponderState resp = qp.resp;
        final RecvWqe wqe = resp.recvWqe;
        if (null != wqe)
        {
            final WcStatus status = resp.status;
            final boolean writeWithImm = Operation.RDMA_WRITE == opcode.operation();
            int flags = 0;
            int srcQp = 0;
            if (qp.type.isDatagram())
            {
                flags |= WorkCompletion.FLAG_GRH;
                srcQp = pkt.deth().srcQp();
            }
            if (opcode.hasImmediate())
            {
                flags |= WorkCompletion.FLAG_WITH_IMM;
            }
            if (opcode.hasInvalidate() && WcStatus.SUCCESS == status)
            {
                flags |= WorkCompletion.FLAG_WITH_INV;
            }
            final int byteLen = writeWithImm ? (int)resp.writeLength : (int)resp.messageOffset;
            final long wrId = wqe.wrId;
            // Free the slot before the completion is visible (rxe's do_complete advances the receive queue's
            // consumer, then posts the CQE): a poster that reposts on seeing the completion finds room for it. The
            // slot may be refilled at once, so nothing of the WQE is read after this.
            if (null == qp.srq)
            {
                resp.recvQueue.consume();
            }
            final boolean posted = qp.recvCq.offer(wrId, status,
                writeWithImm ? WcOpcode.RECV_RDMA_WITH_IMM : WcOpcode.RECV, byteLen,
                opcode.hasImmediate() ? pkt.immDt().immediate() : 0, qp.qpn, srcQp, flags,
                0 != (flags & WorkCompletion.FLAG_WITH_INV) ? resp.invalidatedRkey : 0);
            resp.recvWqe = null;
            resp.messageOffset = 0;
            if (!posted)
            {
                return State.ERR_CQ_OVERFLOW;
            }
            counters.increment(WcStatus.SUCCESS == status ?
                TransportCounter.RECEIVE_COMPLETIONS : TransportCounter.ERROR_COMPLETIONS);
        }
        if (QpState.ERR == qp.state())
        {
            return State.CLEANUP;
        }
        return QpType.RC == qp.type ? State.ACKNOWLEDGE : State.CLEANUP;
    }

    private State acknowledge(final QpContext qp, final Opcode opcode, final RoceFrameParser pkt, final int psn)
    {
        final ResponderState resp = qp.resp;
        if (QpType.RC != qp.type)
        {
            return State.CLEANUP;
        }
        if (AethHeader.SYNDROME_ACK_UNLIMITED != resp.syndrome)
        {
            countNak(resp.syndrome);
            sendAckNow(qp, resp.syndrome, psn);
        }
        else if (pkt.bth().ackReq())
        {
            queueAck(qp, psn);
        }
        return State.CLEANUP;
    }

    private State duplicateRequest(final QpContext qp, final Opcode opcode, final RoceFrameParser pkt, final int psn)
    {
        final ResponderState resp = qp.resp;
        final Operation operation = opcode.operation();
        if (Operation.SEND == operation || Operation.RDMA_WRITE == operation)
        {
            // C9-105: acknowledge the duplicate again (even without AckReq) and drop its data. The ACK carries the
            // duplicate's own PSN: acknowledging up to the newest executed PSN, as rxe does with ack_psn - 1,
            // could step over a READ or atomic whose response the requester never got.
            queueAck(qp, psn);
            return State.CLEANUP;
        }
        final ResponderResource res = findResource(resp, psn);
        if (null == res)
        {
            // Class D: no resource remembers this request.
            counters.increment(TransportCounter.DROP_STALE_DUPLICATE);
            return State.CLEANUP;
        }
        if (Operation.RDMA_READ_REQUEST == operation && ResponderResource.READ == res.type)
        {
            final RethHeader reth = pkt.reth();
            final long va = reth.va();
            final long length = reth.dmaLength();
            // The duplicate must ask for the same range or a part of it, with the same rkey (rxe). Compared by
            // offsets: a range ending exactly at 2^64 has an end address that wraps to 0.
            final long offset = va - res.vaOriginal;
            if (Long.compareUnsigned(offset, res.length) > 0 || length > res.length - offset || reth.rkey() != res.rkey)
            {
                counters.increment(TransportCounter.DROP_STALE_DUPLICATE);
                return State.CLEANUP;
            }
            counters.increment(TransportCounter.READ_REPLAYS);
            res.va = va;
            res.resid = length;
            res.replyPsn = psn;
            res.replyStarted = psn != res.firstPsn;
            res.replying = true;
            resp.activeRead = res;
            sendPendingAck(qp);
            continueRead(qp, Integer.MAX_VALUE);
            if (null != resp.activeRead && resp.activeRead.replying)
            {
                engine.schedule(qp);
            }
            return State.CLEANUP;
        }
        if ((Opcode.RC_COMPARE_SWAP == opcode || Opcode.RC_FETCH_ADD == opcode) && ResponderResource.ATOMIC == res.type)
        {
            // rxe replays the stored atomic result without executing it again.
            counters.increment(TransportCounter.ATOMIC_REPLAYS);
            sendPendingAck(qp);
            sendAtomicAck(qp, psn, res.atomicOriginal);
            return State.CLEANUP;
        }
        counters.increment(TransportCounter.DROP_STALE_DUPLICATE);
        return State.CLEANUP;
    }

    private static ResponderResource findResource(final ResponderState resp, final int psn)
    {
        for (final ResponderResource res : resp.resources)
        {
            if (res.contains(psn))
            {
                return res;
            }
        }
        return null;
    }

    private static void classAcError(
        final QpContext qp, final int syndrome, final WcStatus status, final AsyncEventType event)
    {
        final ResponderState resp = qp.resp;
        resp.syndrome = syndrome;
        resp.status = status;
        resp.gotoError = event;
    }

    // ---- ACK sending ---------------------------------------------------------------------------------------------

    private void queueAck(final QpContext qp, final int psn)
    {
        final ResponderState resp = qp.resp;
        if (!engine.config().coalesceAcks())
        {
            sendAckNow(qp, AethHeader.SYNDROME_ACK_UNLIMITED, psn);
            return;
        }
        if (resp.ackPending)
        {
            counters.increment(TransportCounter.ACKS_COALESCED);
            if (Psn.compare(psn, resp.ackPsn) < 0)
            {
                // The pending ACK already acknowledges this PSN.
                return;
            }
        }
        resp.ackPending = true;
        resp.ackPsn = psn;
        resp.ackSyndrome = AethHeader.SYNDROME_ACK_UNLIMITED;
        resp.ackMsn = resp.msn;
        engine.listAck(qp);
    }

    /**
     * Send the coalesced ACK of a QP, if one is pending (end of a receive batch, or before any other response so
     * responses stay in PSN order).
     *
     * @param qp the QP.
     */
    void sendPendingAck(final QpContext qp)
    {
        final ResponderState resp = qp.resp;
        if (resp.ackPending)
        {
            if (sendAck(qp, resp.ackSyndrome, resp.ackPsn, resp.ackMsn))
            {
                resp.ackPending = false;
            }
            else
            {
                engine.listAck(qp);
            }
        }
    }

    private void sendAckNow(final QpContext qp, final int syndrome, final int psn)
    {
        sendPendingAck(qp);
        sendAck(qp, syndrome, psn);
    }

    private boolean sendAck(final QpContext qp, final int syndrome, final int psn)
    {
        return sendAck(qp, syndrome, psn, qp.resp.msn);
    }

    private boolean sendAck(final QpContext qp, final int syndrome, final int psn, final int msn)
    {
        final PacketSender sender = engine.sender();
        if (!sender.begin(qp.address, Opcode.RC_ACKNOWLEDGE, qp.attributes.destQpNum, psn, 0))
        {
            return false;
        }
        sender.builder().aeth().syndrome(syndrome).msn(msn);
        sender.builder().payloadLength(0);
        sender.end(0);
        if (AethHeader.TYPE_ACK == AethHeader.type(syndrome))
        {
            counters.increment(TransportCounter.ACKS_SENT);
        }
        return true;
    }

    private void sendAtomicAck(final QpContext qp, final int psn, final long original)
    {
        final PacketSender sender = engine.sender();
        if (!sender.begin(qp.address, Opcode.RC_ATOMIC_ACKNOWLEDGE, qp.attributes.destQpNum, psn, 0))
        {
            return;
        }
        sender.builder().aeth().syndrome(AethHeader.SYNDROME_ACK_UNLIMITED).msn(qp.resp.msn);
        sender.builder().atomicAckEth().originalData(original);
        sender.builder().payloadLength(0);
        sender.end(0);
    }

    private void countNak(final int syndrome)
    {
        final AethHeader.NakCode code = AethHeader.NakCode.of(AethHeader.value(syndrome));
        if (AethHeader.NakCode.INVALID_REQUEST == code)
        {
            counters.increment(TransportCounter.NAK_INVALID_REQUEST_SENT);
        }
        else if (AethHeader.NakCode.REMOTE_ACCESS_ERROR == code)
        {
            counters.increment(TransportCounter.NAK_REMOTE_ACCESS_SENT);
        }
        else
        {
            counters.increment(TransportCounter.NAK_REMOTE_OPERATIONAL_SENT);
        }
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
