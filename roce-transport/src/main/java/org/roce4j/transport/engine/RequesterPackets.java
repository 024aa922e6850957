package org.roce4j.transport.engine;

import java.nio.ByteOrder;

import org.agrona.MutableDirectBuffer;
import org.roce4j.ib.QpType;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WcStatus;
import org.roce4j.ib.WrOpcode;
import org.roce4j.transport.TransportCounter;
import org.roce4j.transport.TransportCounters;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.Position;
import org.roce4j.wire.Psn;
import org.roce4j.wire.RoceFrameBuilder;
import org.roce4j.wire.header.BthHeader;
import org.roce4j.wire.header.DethHeader;

/**
 * The requester's packets (rxe_req.c init_req_packet, finish_packet, update_wqe_psn, update_state): for the WQE the
 * {@link Requester}'s state machine chose, the next packet by QP type and opcode (SEND/WRITE segments, a READ
 * request, a one-PSN atomic, FLUSH or ATOMIC WRITE, a datagram), its AckReq, the PSN and retransmission accounting,
 * and what follows a WQE's last packet (RC: wait for the {@link Completer}; UC, UD: complete).
 */
final class RequesterPackets
{
    private final RoceEngine engine;
    private final Completer completer;
    private final TransportCounters counters;

    RequesterPackets(final RoceEngine engine, final Completer completer)
    {
        this.engine = engine;
        this.completer = completer;
        this.counters = engine.counters();
    }

    /**
     * Build and send the WQE's next packet (or, for a READ, its request).
     *
     * @param qp  the QP.
     * @param wqe the WQE at the requester's cursor, started.
     * @return true when a packet went out; false when the link had no room (nothing changed).
     */
    boolean send(final QpContext qp, final SendWqe wqe)
    {
        if (qp.type.isDatagram())
        {
            return sendDatagram(qp, wqe);
        }
        if (WrOpcode.RDMA_READ == wqe.opcode)
        {
            return sendReadRequest(qp, wqe);
        }
        if (wqe.opcode.isAtomic() || WrOpcode.FLUSH == wqe.opcode || WrOpcode.ATOMIC_WRITE == wqe.opcode)
        {
            return sendOnePsnRequest(qp, wqe);
        }
        return sendSendOrWrite(qp, wqe);
    }

    private boolean sendSendOrWrite(final QpContext qp, final SendWqe wqe)
    {
        final RequesterState req = qp.req;
        final int mtu = qp.mtuBytes;
        final boolean fits = wqe.resid <= mtu;
        final boolean inMessage = -1 != req.lastOpcode;
        final int position = inMessage ? (fits ? RequestOpcodes.LAST : RequestOpcodes.MIDDLE) :
            (fits ? RequestOpcodes.ONLY : RequestOpcodes.FIRST);
        final Opcode opcode = RequestOpcodes.next(QpType.RC == qp.type, wqe.opcode, position);
        final int payload = (int)Math.min(wqe.resid, mtu);
        final int psn = req.psn;
        final PacketSender sender = engine.sender;
        if (!sender.begin(qp.address, opcode, qp.attributes.destQpNum, psn, payload))
        {
            return false;
        }
        final RoceFrameBuilder builder = sender.builder();
        final BthHeader bth = builder.bthHeader();
        final Position place = opcode.position();
        if (place.isEnd() && 0 != (wqe.flags & SendFlags.SOLICITED) &&
            (wqe.opcode.isSend() || WrOpcode.RDMA_WRITE_WITH_IMM == wqe.opcode))
        {
            bth.solicitedEvent(true);
        }
        if (QpType.RC == qp.type)
        {
            // Also on the packet that fills the send window: without it a window smaller than ackReqInterval
            // would only reopen through the retransmit timeout (rxe's fixed 128-PSN window never meets its 64).
            final boolean fillsWindow = Psn.diff(Psn.next(psn), qp.comp.psn) >= engine.config.sendWindow();
            bth.ackReq(ackRequested(req, place.isEnd() || fillsWindow));
        }
        if (opcode.has(org.roce4j.wire.ExtHeader.RETH))
        {
            builder.reth().va(wqe.remoteAddress + wqe.remoteOffset).rkey(wqe.rkey).dmaLength(wqe.length);
        }
        if (opcode.hasImmediate())
        {
            builder.immDt().immediate(wqe.immediate);
        }
        if (opcode.hasInvalidate())
        {
            builder.ieth().rkey(wqe.invalidateRkey);
        }
        copyPayload(wqe, builder, payload);
        sender.end(payload);

        if (place.isStart())
        {
            wqe.firstPsn = psn;
            wqe.lastPsn = Psn.add(psn, Requester.packetCount(wqe.resid, mtu) - 1);
        }
        wqe.resid -= payload;
        wqe.remoteOffset += payload;
        req.psn = Psn.next(psn);
        noteSent(req, psn, psn);
        if (place.isEnd())
        {
            req.lastOpcode = -1;
            finishedSending(qp, wqe);
        }
        else
        {
            req.lastOpcode = opcode.code();
            wqe.state = WqeState.PROCESSING;
            if (QpType.RC == qp.type)
            {
                // rxe update_state: the retransmit timer runs from the first packet sent, or a message stalled
                // half-sent (send window, lost ACK for its AckReq) would wait forever.
                completer.armRetransmitTimer(qp);
            }
        }
        return true;
    }

    private boolean sendReadRequest(final QpContext qp, final SendWqe wqe)
    {
        final RequesterState req = qp.req;
        final int psn = req.psn;
        final int packets = Requester.packetCount(wqe.resid, qp.mtuBytes);
        final PacketSender sender = engine.sender;
        if (!sender.begin(qp.address, Opcode.RC_RDMA_READ_REQUEST, qp.attributes.destQpNum, psn, 0))
        {
            return false;
        }
        final RoceFrameBuilder builder = sender.builder();
        builder.bthHeader().ackReq(ackRequested(req, true));
        // After a retry with part of the data already received, ask only for the rest (rxe req_retry).
        builder.reth().va(wqe.remoteAddress + (wqe.length - wqe.resid)).rkey(wqe.rkey).dmaLength(wqe.resid);
        sender.end(0);
        wqe.firstPsn = psn;
        wqe.lastPsn = Psn.add(psn, packets - 1);
        req.psn = Psn.add(psn, packets);
        noteSent(req, psn, wqe.lastPsn);
        req.lastOpcode = -1;
        finishedSending(qp, wqe);
        return true;
    }

    /**
     * A request of one packet and one PSN, as rxe_req.c init_req_packet and finish_packet build them, always with
     * AckReq (an END packet): an atomic (AtomicETH), a FLUSH (FETH, then RETH, and "oA19-2: shall have no payload")
     * or an ATOMIC WRITE (RETH and the 8 bytes; rxe's reth_len is wqe->dma.resid: the flush length, or 8).
     */
    private boolean sendOnePsnRequest(final QpContext qp, final SendWqe wqe)
    {
        final RequesterState req = qp.req;
        final int psn = req.psn;
        final WrOpcode op = wqe.opcode;
        final boolean compareSwap = WrOpcode.ATOMIC_CMP_AND_SWP == op;
        final Opcode opcode = compareSwap ? Opcode.RC_COMPARE_SWAP : WrOpcode.ATOMIC_FETCH_AND_ADD == op ?
            Opcode.RC_FETCH_ADD : RequestOpcodes.next(true, op, RequestOpcodes.ONLY);
        final int payload = WrOpcode.ATOMIC_WRITE == op ? 8 : 0;
        final PacketSender sender = engine.sender;
        if (!sender.begin(qp.address, opcode, qp.attributes.destQpNum, psn, payload))
        {
            return false;
        }
        final RoceFrameBuilder builder = sender.builder();
        builder.bthHeader().ackReq(ackRequested(req, true));
        if (op.isAtomic())
        {
            // rxe_req.c: CMP_AND_SWP carries swap in Swap/Add and compare in Compare; FETCH_AND_ADD carries the
            // addend (wr.atomic.compare_add) in Swap/Add.
            builder.atomicEth().va(wqe.remoteAddress).rkey(wqe.rkey)
                .swapAdd(compareSwap ? wqe.swap : wqe.compareAdd)
                .compare(compareSwap ? wqe.compareAdd : 0);
        }
        else
        {
            builder.reth().va(wqe.remoteAddress).rkey(wqe.rkey).dmaLength(wqe.length);
            if (WrOpcode.FLUSH == op)
            {
                builder.feth().flush(wqe.flushLevel, wqe.flushType);
            }
            else
            {
                // The 8 bytes as they lie in the poster's memory (rxe memcpy of wqe->dma.atomic_wr).
                builder.ethernetHeader().buffer()
                    .putLong(builder.payloadOffset(), wqe.atomicWriteValue, ByteOrder.nativeOrder());
                builder.payloadLength(payload);
            }
        }
        sender.end(payload);
        wqe.firstPsn = psn;
        wqe.lastPsn = psn;
        req.psn = Psn.next(psn);
        noteSent(req, psn, psn);
        req.lastOpcode = -1;
        finishedSending(qp, wqe);
        return true;
    }

    private boolean sendDatagram(final QpContext qp, final SendWqe wqe)
    {
        final RequesterState req = qp.req;
        final boolean immediate = WrOpcode.SEND_WITH_IMM == wqe.opcode;
        final Opcode opcode = immediate ? Opcode.UD_SEND_ONLY_WITH_IMMEDIATE : Opcode.UD_SEND_ONLY;
        final int payload = (int)wqe.length;
        final int psn = req.psn;
        final AddressVector av = wqe.udAddress;
        av.udpSourcePort(qp.udpSourcePort);
        final PacketSender sender = engine.sender;
        if (!sender.begin(av, opcode, wqe.remoteQpn, psn, payload))
        {
            return false;
        }
        if (BthHeader.MULTICAST_QPN == wqe.remoteQpn)
        {
            counters.increment(TransportCounter.MULTICAST_XMIT_PACKETS);
        }
        final RoceFrameBuilder builder = sender.builder();
        if (0 != (wqe.flags & SendFlags.SOLICITED))
        {
            builder.bthHeader().solicitedEvent(true);
        }
        final int qkey;
        if (QpType.GSI == qp.type)
        {
            // rxe_req.c: QP1 always sends the GSI Q_Key.
            qkey = DethHeader.GSI_QKEY;
        }
        else if (0 != (wqe.remoteQkey & DethHeader.CONTROLLED_QKEY_BIT))
        {
            // IBA 10.2.5: a Q_Key with the high bit set in the WR means "use the QP's own Q_Key".
            qkey = qp.attributes.qkey;
        }
        else
        {
            qkey = wqe.remoteQkey;
        }
        builder.deth().qkey(qkey).srcQp(qp.qpn);
        if (immediate)
        {
            builder.immDt().immediate(wqe.immediate);
        }
        copyPayload(wqe, builder, payload);
        sender.end(payload);
        req.psn = Psn.next(psn);
        wqe.firstPsn = psn;
        wqe.lastPsn = psn;
        finishedSending(qp, wqe);
        return true;
    }

    private static void copyPayload(final SendWqe wqe, final RoceFrameBuilder builder, final int payload)
    {
        if (payload > 0)
        {
            final long offset = wqe.length - wqe.resid;
            final MutableDirectBuffer frame = builder.ethernetHeader().buffer();
            if (wqe.isInline())
            {
                frame.putBytes(builder.payloadOffset(), wqe.inlineData, (int)offset, payload);
            }
            else
            {
                wqe.sgl.gather(offset, frame, builder.payloadOffset(), payload);
            }
        }
        builder.payloadLength(payload);
    }

    private boolean ackRequested(final RequesterState req, final boolean lastOfMessage)
    {
        // rxe_req.c: AckReq on the END packet, or once more than RXE_MAX_PKT_PER_ACK packets went without one.
        if (lastOfMessage || ++req.packetsWithoutAckReq >= engine.config.ackReqInterval())
        {
            req.packetsWithoutAckReq = 0;
            return true;
        }
        return false;
    }

    private void noteSent(final RequesterState req, final int firstPsn, final int lastPsn)
    {
        if (Psn.compare(firstPsn, req.highestPsnSent) <= 0)
        {
            counters.increment(TransportCounter.PACKETS_RETRANSMITTED);
        }
        if (Psn.compare(lastPsn, req.highestPsnSent) > 0)
        {
            req.highestPsnSent = lastPsn;
        }
    }

    private void finishedSending(final QpContext qp, final SendWqe wqe)
    {
        final SendQueue sq = qp.sendQueue;
        if (QpType.RC == qp.type)
        {
            wqe.state = WqeState.PENDING;
            sq.requester++;
            if (!wqe.opcode.isReadOrAtomic() && Psn.compare(qp.comp.psn, wqe.lastPsn) > 0 &&
                sq.at(sq.completer) == wqe)
            {
                // Resent after a go-back-N retry, and the ACK for its last PSN (answering an earlier copy) came
                // while it was still going out: the completer moved past it but only completes PENDING WQEs, and
                // no later ACK is due. Every PSN of it is acknowledged: complete it now.
                completer.complete(qp, wqe, WcStatus.SUCCESS);
                return;
            }
            completer.armRetransmitTimer(qp);
        }
        else
        {
            // UC and UD have no acknowledgements: the WQE is done once its last packet left (rxe marks it done and
            // lets the completer retire it in order; here requester and completer cursors move together).
            completer.complete(qp, wqe, WcStatus.SUCCESS);
            sq.requester = sq.completer;
        }
    }
}
