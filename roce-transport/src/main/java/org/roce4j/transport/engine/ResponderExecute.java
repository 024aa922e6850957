package org.roce4j.transport.engine;

import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.ib.AsyncEventType;
import org.roce4j.ib.QpState;
import org.roce4j.ib.QpType;
import org.roce4j.ib.WcOpcode;
import org.roce4j.ib.WcStatus;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.transport.TransportCounter;
import org.roce4j.transport.TransportCounters;
import org.roce4j.transport.engine.Responder.State;
import org.roce4j.wire.ExtHeader;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.Operation;
import org.roce4j.wire.Psn;
import org.roce4j.wire.RoceFrameParser;
import org.roce4j.wire.header.AethHeader;
import org.roce4j.wire.header.AtomicEthHeader;
import org.roce4j.wire.header.Ipv4Header;
import org.roce4j.wire.header.Ipv6Header;
import org.roce4j.wire.header.RethHeader;

/**
 * The responder's execution of a checked request (rxe_resp.c execute, read_reply, atomic_reply,
 * atomic_write_reply, process_flush, do_complete): SEND
 * data scattered into the receive WQE (after the GRH area on UD), WRITE data placed in the region, a READ response
 * started and continued within a packet budget, an atomic executed and its original value kept for replays, and the
 * receive completion written. Each returns the next {@link Responder.State}.
 */
final class ResponderExecute
{
    /** Zero bytes placed before an IPv4 header in the GRH area (20 reserved + 20 IPv4 = 40, rxe execute()). */
    private static final UnsafeBuffer ZEROS = new UnsafeBuffer(new byte[WorkCompletion.GRH_BYTES]);

    private final RoceEngine engine;
    private final TransportCounters counters;
    private final ResponderAcks acks;

    ResponderExecute(final RoceEngine engine, final ResponderAcks acks)
    {
        this.engine = engine;
        this.counters = engine.counters();
        this.acks = acks;
    }

    /**
     * EXECUTE: place SEND or WRITE data, or hand a READ or atomic on to its reply state.
     */
    State execute(final QpContext qp, final Opcode opcode, final RoceFrameParser pkt, final int psn)
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
                resp.messageOffset = WorkCompletion.GRH_BYTES;
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
        else if (Operation.ATOMIC_WRITE == operation)
        {
            return State.ATOMIC_WRITE_REPLY;
        }
        else if (Operation.FLUSH == operation)
        {
            return State.PROCESS_FLUSH;
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
            // rxe invalidate_rkey: a bound type 2B window, or memory registered for remote invalidation (rxe:
            // fast-registration MRs; rxe_invalidate_mr refuses every other MR), may be invalidated by a peer;
            // otherwise a peer holding an ordinary rkey could disable the region for every other user. Class J.
            if (!engine.mwTable.invalidate(qp, rkey))
            {
                return State.ERR_INVALIDATE_RKEY;
            }
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
            sgl.scatter(0, ZEROS, 0, WorkCompletion.GRH_BYTES - Ipv4Header.LENGTH);
            sgl.scatter(WorkCompletion.GRH_BYTES - Ipv4Header.LENGTH, pkt.buffer(), pkt.ipOffset(), Ipv4Header.LENGTH);
        }
        else
        {
            sgl.scatter(0, pkt.buffer(), pkt.ipOffset(), Ipv6Header.LENGTH);
        }
    }

    /**
     * READ_REPLY: take a responder resource for the READ and start its response (rxe read_reply).
     */
    State startReadReply(final QpContext qp, final RoceFrameParser pkt, final int psn)
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
        acks.sendPendingAck(qp);
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
        final PacketSender sender = engine.sender;
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
                // rxe_recheck_mr: look the region (or window) up again, it may have been deregistered, invalidated
                // or unbound meanwhile.
                mr = engine.mwTable.recheck(res.rkey, res.va, payload);
                if (null == mr)
                {
                    res.replying = false;
                    resp.activeRead = null;
                    counters.increment(TransportCounter.NAK_REMOTE_ACCESS_SENT);
                    acks.sendAckNow(qp, AethHeader.NakCode.REMOTE_ACCESS_ERROR.syndrome(), res.replyPsn);
                    engine.qpControl.error(qp, AsyncEventType.QP_ACCESS_ERR);
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

    /**
     * ATOMIC_REPLY: execute the atomic on the 8-byte target, keep the original value for replays, answer it.
     */
    State atomicReply(final QpContext qp, final Opcode opcode, final RoceFrameParser pkt, final int psn)
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
        executedOnePsn(qp, opcode, psn, ResponderResource.ATOMIC).atomicOriginal = original;
        acks.sendAtomicAck(qp, psn, original);
        return State.CLEANUP;
    }

    /**
     * ATOMIC_WRITE_REPLY (rxe atomic_write_reply, rxe_mr_do_atomic_write): store the 8 bytes at the VA as one
     * release store ("do atomic write after all prior operations have completed", smp_store_release), remember the
     * request for duplicates and answer with a zero-length RDMA READ response. The region is looked at again first
     * (oA19-28: invalid, remote access error) and the VA must be 8-byte aligned (IBA A19.4.2: invalid request).
     */
    State atomicWriteReply(final QpContext qp, final Opcode opcode, final RoceFrameParser pkt, final int psn)
    {
        final ResponderState resp = qp.resp;
        final MemoryRegionEntry mr = resp.writeRegion;
        final long va = pkt.reth().va();
        if (!mr.isValid())
        {
            return State.ERR_RKEY_VIOLATION;
        }
        if (0 != (va & 7))
        {
            // rxe checks the iova's offset in its page: the VA itself must be 8-byte aligned.
            return State.ERR_INVALID_REQUEST;
        }
        final UnsafeBuffer memory = mr.memory();
        final int index = mr.indexOf(va);
        // The payload's 8 bytes land as they came (rxe copies them as a u64, so byte order does not change them).
        final long value = pkt.buffer().getLong(pkt.payloadOffset(), ByteOrder.nativeOrder());
        if (0 == ((memory.addressOffset() + index) & 7))
        {
            memory.putLongOrdered(index, value);
        }
        else
        {
            // A VA aligned in the region but a buffer that is not (an iova chosen apart from the address): one
            // plain store, as the hardware could not do better.
            memory.putLong(index, value, ByteOrder.nativeOrder());
        }
        counters.add(TransportCounter.PAYLOAD_BYTES_RECEIVED, ResponderChecks.ATOMIC_WRITE_BYTES);
        return answerWithReadResponse(qp, opcode, psn, ResponderResource.ATOMIC_WRITE);
    }

    /**
     * PROCESS_FLUSH (rxe process_flush): a region of ordinary memory has nothing to write back, so global
     * visibility and persistence come down to the memory barrier rxe issues (wmb); the request is remembered for
     * duplicates (oA19-14, oA19-15) and answered with a zero-length RDMA READ response. Persistence is never asked
     * of memory that could not give it: no region holds FLUSH_PERSISTENT access unless its memory is persistent.
     */
    State processFlush(final QpContext qp, final Opcode opcode, final int psn)
    {
        VarHandle.fullFence();
        counters.increment(TransportCounter.FLUSHES_EXECUTED);
        return answerWithReadResponse(qp, opcode, psn, ResponderResource.FLUSH);
    }

    private State answerWithReadResponse(final QpContext qp, final Opcode opcode, final int psn, final int type)
    {
        executedOnePsn(qp, opcode, psn, type);
        acks.sendReadResponseAck(qp, psn);
        return State.CLEANUP;
    }

    /**
     * The bookkeeping after a one-PSN request that keeps a responder resource was executed (an atomic, an ATOMIC
     * WRITE, a FLUSH): remember it for duplicates, count it in the MSN, expect the next PSN, and send the pending
     * coalesced ACK so the answer that follows stays in PSN order.
     *
     * @return the responder resource, for the caller to complete.
     */
    private ResponderResource executedOnePsn(final QpContext qp, final Opcode opcode, final int psn, final int type)
    {
        final ResponderState resp = qp.resp;
        final ResponderResource res = prepareResource(resp, type);
        res.firstPsn = psn;
        res.lastPsn = psn;
        resp.msn = Psn.next(resp.msn);
        resp.psn = Psn.next(psn);
        resp.ackPsnNext = resp.psn;
        resp.lastOpcode = opcode.code();
        acks.sendPendingAck(qp);
        return res;
    }

    /**
     * COMPLETE: write the receive completion of a SEND or WRITE with immediate (rxe do_complete).
     */
    State complete(final QpContext qp, final Opcode opcode, final RoceFrameParser pkt)
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
}
