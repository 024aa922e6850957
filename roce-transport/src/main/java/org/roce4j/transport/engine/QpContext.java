package org.roce4j.transport.engine;

import java.util.concurrent.atomic.AtomicBoolean;

import org.roce4j.ib.QpAttributes;
import org.roce4j.ib.QpCapabilities;
import org.roce4j.ib.QpState;
import org.roce4j.ib.QpType;
import org.roce4j.transport.provider.QpOps;
import org.roce4j.transport.provider.SendWrView;

/**
 * The engine's queue pair (rxe struct rxe_qp): identity, attributes, queues, and the state of its three roles —
 * {@link Requester} (send queue → packets), {@link Responder} (request packets → memory, receive completions,
 * ACKs, READ and atomic responses) and {@link Completer} (ACKs and responses → send completions, retries).
 *
 * <p>Everything but the queues' producer side and {@link #state()} is touched only by the engine's thread. It is
 * the {@link QpOps} the Verbs API holds: posting ({@link #postSend}, {@link #ringDoorbell()}, the receive queue's
 * {@link ReceiveQueue#postRecv}) runs on the posting thread and touches only the producer side.
 */
final class QpContext implements QpOps
{
    final int qpn;
    final QpType type;
    final int pdHandle;
    final SendQueue sendQueue;
    final ReceiveQueue receiveQueue;
    final ReceiveQueue srq;
    final CompletionRing sendCq;
    final CompletionRing recvCq;
    final boolean signalAll;
    private final DoorbellQueue doorbells;
    final QpCapabilities capabilities = new QpCapabilities();

    private volatile QpState state = QpState.RESET;
    final QpAttributes attributes = new QpAttributes();
    final AddressVector address = new AddressVector();
    int mtuBytes = 256;
    long timeoutNs;
    int maxRdAtomic;
    int udpSourcePort;

    final RequesterState req = new RequesterState();
    final CompleterState comp = new CompleterState();
    final ResponderState resp = new ResponderState();

    /** Set while the QP sits in the engine's run queue (requester or read reply has work). */
    boolean scheduled;
    /** Set while the QP sits in the responder's list of coalesced ACKs to send ({@link ResponderAcks}). */
    boolean ackListed;
    /** Where the QP's timer entry is: {@link QpTimers#NONE}, {@link QpTimers#IN_WHEEL} or {@link QpTimers#DUE}. */
    int timerPlace = QpTimers.NONE;
    /** The wheel's id of the entry while {@link QpTimers#IN_WHEEL}. */
    long timerId;
    /** When the entry comes due: never later than the QP's armed retransmit and RNR deadlines. */
    long timerEntryNs;
    /** COMM_EST was raised for this QP. */
    boolean commEstablished;
    /** Set while in SQD with the drain not yet reported (IBA 10.3.1 "SQ Drain"). */
    boolean sqDraining;
    /** Receive WQE copied out of an SRQ for the message in progress (the SRQ slot may be refilled at once). */
    RecvWqe srqCopy;
    /** Set by a posting thread that rang the doorbell and not yet seen by the engine. */
    final AtomicBoolean doorbell = new AtomicBoolean();
    /** The QP was destroyed: stray packets and doorbells are ignored. */
    boolean destroyed;
    /** Multicast groups the QP is attached to (rxe's qp->mcg_num): while above 0 it cannot be destroyed. */
    int mcastAttachments;
    /** Congestion-control state, made on first need ({@link CongestionPoints}); null until then. */
    QpCongestion congestion;

    QpContext(
        final int qpn,
        final QpType type,
        final int pdHandle,
        final QpCapabilities caps,
        final CompletionRing sendCq,
        final CompletionRing recvCq,
        final ReceiveQueue srq,
        final boolean signalAll,
        final DoorbellQueue doorbells)
    {
        this.qpn = qpn;
        this.type = type;
        this.pdHandle = pdHandle;
        this.capabilities.copyFrom(caps);
        this.sendQueue = new SendQueue(caps.maxSendWr, caps.maxSendSge, caps.maxInlineData);
        this.receiveQueue = null == srq ? new ReceiveQueue(qpn, caps.maxRecvWr, caps.maxRecvSge) : null;
        this.srq = srq;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.signalAll = signalAll;
        this.doorbells = doorbells;
    }

    /**
     * @return QP number.
     */
    public int qpn()
    {
        return qpn;
    }

    /**
     * @return transport type.
     */
    public QpType type()
    {
        return type;
    }

    /**
     * @return protection domain handle.
     */
    public int pdHandle()
    {
        return pdHandle;
    }

    /**
     * @return current state (any thread).
     */
    public QpState state()
    {
        return state;
    }

    void state(final QpState newState)
    {
        state = newState;
        attributes.qpState = newState;
    }

    /**
     * @return the send queue (the posting thread fills it).
     */
    public SendQueue sendQueue()
    {
        return sendQueue;
    }

    /**
     * @return the QP's own receive queue, or null when it uses an SRQ.
     */
    public ReceiveQueue receiveQueue()
    {
        return receiveQueue;
    }

    /**
     * @return the shared receive queue, or null.
     */
    public ReceiveQueue srq()
    {
        return srq;
    }

    /**
     * @return where SEND, WRITE, READ and atomic completions go.
     */
    public CompletionRing sendCq()
    {
        return sendCq;
    }

    /**
     * @return where receive completions go.
     */
    public CompletionRing recvCq()
    {
        return recvCq;
    }

    /**
     * @return true when every send WR generates a completion (sq_sig_all).
     */
    public boolean signalAll()
    {
        return signalAll;
    }

    /**
     * @return the capabilities it was created with.
     */
    public QpCapabilities capabilities()
    {
        return capabilities;
    }

    /**
     * @return send WRs posted and not yet retired, as the posting thread sees them.
     */
    public int sendOutstanding()
    {
        return sendQueue.outstanding();
    }

    /**
     * Copy a send WR into the next free slot and publish it (the posting thread).
     *
     * @param wr the request, checked by the caller.
     * @throws IllegalStateException when the send queue is full.
     */
    public void postSend(final SendWrView wr)
    {
        final SendWqe wqe = sendQueue.claim();
        if (null == wqe)
        {
            throw new IllegalStateException(this + ": send queue full (" + sendQueue.depth() + " WRs outstanding); " +
                "the caller checks for room before posting");
        }
        wqe.post(wr, type.isDatagram());
        sendQueue.publish();
    }

    /**
     * Tell the engine this QP has new work (any thread).
     */
    public void ringDoorbell()
    {
        doorbells.ring(this);
    }

    /**
     * @return the receive queue SENDs consume: the SRQ if any, else the QP's own.
     */
    ReceiveQueue consumedQueue()
    {
        return null != srq ? srq : receiveQueue;
    }

    /**
     * @return the address vector of RC/UC packets.
     */
    public AddressVector address()
    {
        return address;
    }

    /**
     * @return path MTU in bytes.
     */
    public int mtuBytes()
    {
        return mtuBytes;
    }

    /**
     * @return the requester's next PSN (for tests and diagnostics; engine thread).
     */
    public int requesterPsn()
    {
        return req.psn;
    }

    /**
     * @return the responder's expected PSN (for tests and diagnostics; engine thread).
     */
    public int responderPsn()
    {
        return resp.psn;
    }

    /**
     * @return the responder's MSN (for tests and diagnostics; engine thread).
     */
    public int responderMsn()
    {
        return resp.msn;
    }

    /**
     * @return the oldest unacknowledged PSN (for tests and diagnostics; engine thread).
     */
    public int completerPsn()
    {
        return comp.psn;
    }

    /**
     * @return why the requester last stopped.
     */
    public RequesterStall requesterStall()
    {
        return req.stall;
    }

    boolean isReliable()
    {
        return QpType.RC == type;
    }

    /**
     * @return e.g. {@code QP 0x11 RC RTS}.
     */
    public String toString()
    {
        return "QP 0x" + Integer.toHexString(qpn) + " " + type + " " + state;
    }
}
