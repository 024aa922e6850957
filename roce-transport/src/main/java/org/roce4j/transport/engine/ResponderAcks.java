package org.roce4j.transport.engine;

import java.util.ArrayList;

import org.roce4j.ib.QpType;
import org.roce4j.transport.TransportCounter;
import org.roce4j.transport.TransportCounters;
import org.roce4j.transport.engine.Responder.State;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.Operation;
import org.roce4j.wire.Psn;
import org.roce4j.wire.RoceFrameParser;
import org.roce4j.wire.header.AethHeader;
import org.roce4j.wire.header.RethHeader;

/**
 * The responder's acknowledgements and duplicates (rxe_resp.c acknowledge, send_ack, send_atomic_ack,
 * send_read_response_ack, duplicate_request): ACKs, NAKs, atomic ACKs and zero-length READ responses built and
 * sent, the ACKs a QP's burst requests coalesced into one (the last PSN acknowledges all before it, IBA 9.7.5.1.1)
 * and sent when the burst ends, and duplicate requests answered: re-ACKed, a READ response replayed, an atomic's
 * stored result sent again, an ATOMIC WRITE or FLUSH answered again.
 *
 * <p>A burst is the frames for one QP that a receive batch delivers back to back. rxe ACKs every packet that asks
 * (AckReq); here the ACK of a burst leaves as soon as the burst ends: when the batch reaches a frame for another QP
 * ({@link #onFrameFor(QpContext)}), or at the end of the batch ({@link #flushAcks()}). So it leaves in the poll
 * cycle of the AckReq packet that ends the burst, before the engine spends time on other QPs' frames, and a burst
 * costs one ACK, as it did when every QP's ACK waited for the end of the batch. A QP whose frames come interleaved
 * with other QPs' (several bursts in one batch, as when an rxe peer's per-QP tasks send at once) would cost an ACK
 * per burst that way, up to one per AckReq: a QP's ACK leaves at the end of its burst only once a batch brought the
 * QP's frames in one burst, and from a batch that brings them in several until the next that brings them in one,
 * its ACKs wait for the end of the batch, one per batch, as before ({@link ResponderState#interleaved()}). The cost
 * is one ACK more than before in each batch where a QP's frames start to come interleaved.
 */
final class ResponderAcks
{
    private final RoceEngine engine;
    private final TransportCounters counters;
    /** QPs with a coalesced ACK to send at the end of the receive batch ({@link QpContext#ackListed}). */
    private final ArrayList<QpContext> ackList = new ArrayList<>(256);
    /** The QP whose burst the receive batch is in, null between batches. */
    private QpContext burstQp;
    /** Receive batches ended so far ({@link #flushAcks()} ends one): tells a QP's bursts of one batch apart. */
    private long batch;

    ResponderAcks(final RoceEngine engine)
    {
        this.engine = engine;
        this.counters = engine.counters();
    }

    /**
     * ACKNOWLEDGE: a NAK now, or the ACK the packet asked for queued for the end of the batch.
     */
    State acknowledge(final QpContext qp, final Opcode opcode, final RoceFrameParser pkt, final int psn)
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

    /**
     * DUPLICATE_REQUEST: a PSN already executed (C9-105): SEND/WRITE are acknowledged again, a READ is replayed from
     * its responder resource, an atomic's stored result is sent again; anything no resource remembers is dropped.
     */
    State duplicateRequest(final QpContext qp, final Opcode opcode, final RoceFrameParser pkt, final int psn)
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
            engine.responder.continueRead(qp, Integer.MAX_VALUE);
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
        if ((Opcode.RC_ATOMIC_WRITE == opcode && ResponderResource.ATOMIC_WRITE == res.type) ||
            (Opcode.RC_FLUSH == opcode && ResponderResource.FLUSH == res.type))
        {
            // rxe sets res->replay: atomic_write_reply and process_flush return RESPST_ACKNOWLEDGE at once, and the
            // zero-length READ response goes out again with the duplicate's PSN; nothing is stored or flushed again.
            counters.increment(Opcode.RC_FLUSH == opcode ?
                TransportCounter.FLUSH_REPLAYS : TransportCounter.ATOMIC_WRITE_REPLAYS);
            sendPendingAck(qp);
            sendReadResponseAck(qp, psn);
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

    private void queueAck(final QpContext qp, final int psn)
    {
        final ResponderState resp = qp.resp;
        if (!engine.config.coalesceAcks())
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
        listAck(qp);
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
                listAck(qp);
            }
        }
    }

    void sendAckNow(final QpContext qp, final int syndrome, final int psn)
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
        final PacketSender sender = engine.sender;
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

    void sendAtomicAck(final QpContext qp, final int psn, final long original)
    {
        final PacketSender sender = engine.sender;
        if (!sender.begin(qp.address, Opcode.RC_ATOMIC_ACKNOWLEDGE, qp.attributes.destQpNum, psn, 0))
        {
            return;
        }
        sender.builder().aeth().syndrome(AethHeader.SYNDROME_ACK_UNLIMITED).msn(qp.resp.msn);
        sender.builder().atomicAckEth().originalData(original);
        sender.builder().payloadLength(0);
        sender.end(0);
    }

    /**
     * rxe send_read_response_ack: the answer to an ATOMIC WRITE or a FLUSH, an RDMA READ RESPONSE ONLY without
     * payload carrying an ACK syndrome and the MSN.
     */
    void sendReadResponseAck(final QpContext qp, final int psn)
    {
        final PacketSender sender = engine.sender;
        if (!sender.begin(qp.address, Opcode.RC_RDMA_READ_RESPONSE_ONLY, qp.attributes.destQpNum, psn, 0))
        {
            return;
        }
        sender.builder().aeth().syndrome(AethHeader.SYNDROME_ACK_UNLIMITED).msn(qp.resp.msn);
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

    private void listAck(final QpContext qp)
    {
        if (!qp.ackListed)
        {
            qp.ackListed = true;
            ackList.add(qp);
        }
    }

    /**
     * A frame for {@code qp} is about to be handled (engine thread, receive path): a frame for another QP ends the
     * burst of the QP before it, whose coalesced ACK leaves now.
     *
     * @param qp the QP the frame is for.
     */
    void onFrameFor(final QpContext qp)
    {
        final QpContext previous = burstQp;
        if (qp == previous)
        {
            return;
        }
        if (null != previous && !previous.resp.interleaved())
        {
            sendPendingAck(previous);
        }
        burstQp = qp;
        qp.resp.startBurst(batch);
    }

    /**
     * @return QPs whose coalesced ACK is still to be sent (it met a full link).
     */
    int unsentAcks()
    {
        return ackList.size();
    }

    /**
     * Send the ACKs still coalesced at the end of a receive batch: the last burst's, and any that met a full link
     * (engine thread, once per duty cycle, and in the device's close).
     */
    void flushAcks()
    {
        burstQp = null;
        batch++;
        final ArrayList<QpContext> list = ackList;
        final int listed = list.size();
        for (int i = 0; i < listed; i++)
        {
            final QpContext qp = list.get(i);
            qp.ackListed = false;
            sendPendingAck(qp);
        }
        // An ACK that met a full link put its QP back on the list (appended): keep those for the next cycle. Clearing
        // the whole list lost them with ackListed still set, so no later ACK of that QP was ever sent again.
        final int size = list.size();
        for (int i = listed; i < size; i++)
        {
            list.set(i - listed, list.get(i));
        }
        for (int i = size - 1; i >= size - listed; i--)
        {
            list.remove(i);
        }
    }
}
