package org.roce4j.transport.engine;

import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.AsyncEventType;
import org.roce4j.ib.QpType;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.transport.TransportCounter;
import org.roce4j.transport.TransportCounters;
import org.roce4j.transport.engine.Responder.State;
import org.roce4j.wire.ExtHeader;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.Operation;
import org.roce4j.wire.Position;
import org.roce4j.wire.Psn;
import org.roce4j.wire.RoceFrameParser;
import org.roce4j.wire.header.AtomicEthHeader;
import org.roce4j.wire.header.FethHeader;
import org.roce4j.wire.header.RethHeader;

/**
 * The responder's request checks (rxe_resp.c check_psn, check_op_seq, check_op_valid, check_resource,
 * rxe_resp_check_length, check_rkey), in rxe's order. Each returns the next {@link Responder.State}: the next check,
 * {@link State#EXECUTE}, or the error state the failure maps to (IBA 9.9.3 classes B, C, D1); the {@link Responder}
 * runs the states.
 */
final class ResponderChecks
{
    /** Bytes an ATOMIC WRITE stores (IBA A19; rxe: sizeof(u64)). */
    static final long ATOMIC_WRITE_BYTES = 8;

    private final RoceEngine engine;
    private final TransportCounters counters;

    ResponderChecks(final RoceEngine engine)
    {
        this.engine = engine;
        this.counters = engine.counters();
    }

    /**
     * CHK_PSN: RC takes only the expected PSN (earlier ones are duplicates, later ones a sequence error NAKed once);
     * UC drops after a gap until a packet that starts a message.
     */
    State checkPsn(final QpContext qp, final Opcode opcode, final int psn)
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

    /**
     * CHK_OP_SEQ: a MIDDLE/LAST must continue the message in progress, a FIRST/ONLY must not interrupt one.
     */
    State checkOpSeq(final QpContext qp, final Opcode opcode)
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

    /**
     * CHK_OP_VALID: the QP's access flags must allow the operation.
     */
    State checkOpValid(final QpContext qp, final Opcode opcode, final RoceFrameParser pkt)
    {
        final int access = qp.attributes.qpAccessFlags;
        final Operation operation = opcode.operation();
        if (QpType.RC == qp.type)
        {
            // rxe check_qp_attr_access: ATOMIC_WRITE needs REMOTE_WRITE on the QP; a FLUSH needs the QP's flush
            // access for each placement type it asks for. A refusal is RESPST_ERR_UNSUPPORTED_OPCODE (class C).
            if ((Operation.RDMA_READ_REQUEST == operation && 0 == (access & AccessFlags.REMOTE_READ)) ||
                ((Operation.RDMA_WRITE == operation || Operation.ATOMIC_WRITE == operation) &&
                0 == (access & AccessFlags.REMOTE_WRITE)) ||
                ((Operation.COMPARE_SWAP == operation || Operation.FETCH_ADD == operation) &&
                0 == (access & AccessFlags.REMOTE_ATOMIC)) ||
                (Operation.FLUSH == operation && !flushAllowed(access, pkt.feth().placementType())))
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

    /**
     * @param access        QP or memory region access flags.
     * @param placementType a FLUSH's FETH placement type bits.
     * @return true when every placement type asked for has its flush access.
     */
    private static boolean flushAllowed(final int access, final int placementType)
    {
        final int needed = flushAccess(placementType);
        return needed == (access & needed);
    }

    /**
     * @param placementType a FLUSH's FETH placement type bits.
     * @return the access flags that placement type needs (rxe check_rkey: IB_FLUSH_GLOBAL asks for
     *     IB_ACCESS_FLUSH_GLOBAL, IB_FLUSH_PERSISTENT for IB_ACCESS_FLUSH_PERSISTENT; other bits for nothing).
     */
    private static int flushAccess(final int placementType)
    {
        int access = 0;
        if (0 != (placementType & FethHeader.PLACEMENT_GLOBAL))
        {
            access |= AccessFlags.FLUSH_GLOBAL;
        }
        if (0 != (placementType & FethHeader.PLACEMENT_PERSISTENT))
        {
            access |= AccessFlags.FLUSH_PERSISTENT;
        }
        return access;
    }

    /**
     * CHK_RESOURCE: a receive WQE for SEND and WRITE with immediate (RNR without one), a responder resource for READ
     * and atomics.
     */
    State checkResource(final QpContext qp, final Opcode opcode)
    {
        final ResponderState resp = qp.resp;
        if (opcode.usesResponderResource())
        {
            // rxe: "it is the requester's job to not send too many read/atomic ops, we just recycle". rxe leaves
            // FLUSH out of this check and then takes a slot of a ring of max_dest_rd_atomic entries; with none
            // there is no slot to take, so a FLUSH is refused here like the others.
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
            if (!wqe.sgl.resolve(engine.mrTable, qp.pdHandle, AccessFlags.LOCAL_WRITE))
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

    /**
     * CHK_LENGTH: packet lengths against the path MTU and the message length against the receive buffer.
     */
    State checkLength(final QpContext qp, final Opcode opcode, final RoceFrameParser pkt)
    {
        final ResponderState resp = qp.resp;
        final int payload = pkt.payloadLength();
        if (qp.type.isDatagram())
        {
            // IBA C9-92 / rxe: payload plus the 40-byte GRH area must fit the receive buffer.
            if (payload + WorkCompletion.GRH_BYTES > resp.recvWqe.sgl.totalLength())
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
            Operation.COMPARE_SWAP == operation || Operation.FETCH_ADD == operation ||
            Operation.FLUSH == operation || Operation.ATOMIC_WRITE == operation)
        {
            return State.CHK_RKEY;
        }
        return State.EXECUTE;
    }

    /**
     * CHK_RKEY: the rkey, range and permissions of a WRITE, READ or atomic; later packets of a WRITE continue the
     * region its FIRST found, if it is still valid.
     */
    State checkRkey(final QpContext qp, final Opcode opcode, final RoceFrameParser pkt)
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
        else if (Operation.FLUSH == operation || Operation.ATOMIC_WRITE == operation)
        {
            return checkFlushOrAtomicWriteRkey(qp, opcode, pkt);
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
                resp.writeWindow = null;
                resp.writeRkey = rkey;
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
            if (null != resp.writeRegion && (!resp.writeRegion.isValid() ||
                (null != resp.writeWindow && !resp.writeWindow.isValid(resp.writeRkey))))
            {
                // rxe check_rkey looks the rkey up again for every packet: a region deregistered (or invalidated),
                // or a window invalidated or deallocated, since the FIRST takes no more bytes (remote access error,
                // class C).
                return State.ERR_RKEY_VIOLATION;
            }
            return checkWriteLength(qp, pkt);
        }
        final MemoryRegionEntry mr = lookupRkey(qp, rkey, access, va, length, true);
        if (null == mr)
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

    /**
     * rxe check_rkey's lookup: when the rkey names a memory window, rxe_lookup_mw ({@link MwTable#lookup}: the window's
     * access flags, PD and for type 2B the QP) and then the window's region; otherwise rxe lookup_mr: the region the
     * rkey names, in the QP's protection domain, valid, with every access flag asked for ({@code (access &
     * mr->access) != access} refuses it). With {@code checkRange}, [va, va + length) must lie inside the window, or
     * the region (rxe mr_check_range checks a window's access against its whole region; roce4j against the window
     * the peer was given, which the bind placed inside the region).
     *
     * @return the region, or null for an rkey violation.
     */
    private MemoryRegionEntry lookupRkey(
        final QpContext qp, final int rkey, final int access, final long va, final long length,
            final boolean checkRange)
    {
        if (null != engine.mwTable.byRkey(rkey))
        {
            final MemoryWindowEntry mw = engine.mwTable.lookup(qp, rkey, access);
            if (null == mw || (checkRange && !mw.contains(va, length)))
            {
                return null;
            }
            qp.resp.writeWindow = mw;
            return mw.mr;
        }
        final MemoryRegionEntry mr = engine.mrTable.byRkey(rkey);
        if (null == mr || !mr.isValid() || mr.pdHandle() != qp.pdHandle || access != (mr.access() & access) ||
            (checkRange && !mr.contains(va, length)))
        {
            return null;
        }
        qp.resp.writeWindow = null;
        return mr;
    }

    /**
     * CHK_RKEY of a FLUSH or an ATOMIC_WRITE (rxe check_rkey). A FLUSH needs the region's flush access for its
     * placement types and, at selectivity level MR, no range check ("we will flush whole mr"); a zero length is not
     * exempt as it is for READ and WRITE. An ATOMIC_WRITE needs REMOTE_WRITE over its range and a payload of exactly
     * the RETH length with the matching pad; unlike rxe it must also be 8 bytes (IBA A19: the DMA length of an
     * ATOMIC WRITE is 8; rxe reads 8 bytes from whatever payload came, past its end when shorter).
     */
    private State checkFlushOrAtomicWriteRkey(final QpContext qp, final Opcode opcode, final RoceFrameParser pkt)
    {
        final RethHeader reth = pkt.reth();
        final long va = reth.va();
        final long length = reth.dmaLength();
        final boolean flush = Operation.FLUSH == opcode.operation();
        final int access = flush ? flushAccess(pkt.feth().placementType()) : AccessFlags.REMOTE_WRITE;
        final boolean wholeRegion = flush && FethHeader.SELECTIVITY_MR == pkt.feth().selectivityLevel();
        final MemoryRegionEntry mr = lookupRkey(qp, reth.rkey(), access, va, length, !wholeRegion);
        if (null == mr)
        {
            return State.ERR_RKEY_VIOLATION;
        }
        qp.resp.writeRegion = mr;
        if (flush)
        {
            return State.EXECUTE;
        }
        final int payload = pkt.payloadLength();
        if (length > qp.mtuBytes)
        {
            if (payload != qp.mtuBytes || 0 != pkt.padCount())
            {
                return State.ERR_LENGTH;
            }
        }
        else if (payload != length || pkt.padCount() != ((int)-length & 3))
        {
            return State.ERR_LENGTH;
        }
        return ATOMIC_WRITE_BYTES == length ? State.EXECUTE : State.ERR_LENGTH;
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
}
