package org.roce4j.verbs;

import org.roce4j.ib.QpCapabilities;
import org.roce4j.ib.QpType;

/**
 * What a QP is created with (struct ibv_qp_init_attr): transport type, completion queues, an optional shared
 * receive queue, queue capabilities and sq_sig_all.
 */
public final class QpInitAttributes
{
    private QpType qpType = QpType.RC;
    private CompletionQueue sendCq;
    private CompletionQueue recvCq;
    private SharedReceiveQueue srq;
    private final QpCapabilities cap = new QpCapabilities();
    private boolean sqSigAll;

    /**
     * @param type RC, UC, UD or GSI.
     * @return this.
     */
    public QpInitAttributes qpType(final QpType type)
    {
        this.qpType = type;
        return this;
    }

    /**
     * @return qp_type.
     */
    public QpType qpType()
    {
        return qpType;
    }

    /**
     * @param cq where send completions go.
     * @return this.
     */
    public QpInitAttributes sendCq(final CompletionQueue cq)
    {
        this.sendCq = cq;
        return this;
    }

    /**
     * @return send_cq.
     */
    public CompletionQueue sendCq()
    {
        return sendCq;
    }

    /**
     * @param cq where receive completions go.
     * @return this.
     */
    public QpInitAttributes recvCq(final CompletionQueue cq)
    {
        this.recvCq = cq;
        return this;
    }

    /**
     * @return recv_cq.
     */
    public CompletionQueue recvCq()
    {
        return recvCq;
    }

    /**
     * @param cq both the send and the receive completion queue.
     * @return this.
     */
    public QpInitAttributes cq(final CompletionQueue cq)
    {
        return sendCq(cq).recvCq(cq);
    }

    /**
     * @param srq shared receive queue to take receive WRs from, or null for the QP's own receive queue.
     * @return this.
     */
    public QpInitAttributes srq(final SharedReceiveQueue srq)
    {
        this.srq = srq;
        return this;
    }

    /**
     * @return srq, or null.
     */
    public SharedReceiveQueue srq()
    {
        return srq;
    }

    /**
     * @return cap: max_send_wr, max_recv_wr, max_send_sge, max_recv_sge, max_inline_data (mutable).
     */
    public QpCapabilities cap()
    {
        return cap;
    }

    /**
     * @param maxSendWr     max_send_wr.
     * @param maxRecvWr     max_recv_wr (ignored with an SRQ).
     * @param maxSendSge    max_send_sge.
     * @param maxRecvSge    max_recv_sge (ignored with an SRQ).
     * @param maxInlineData max_inline_data.
     * @return this.
     */
    public QpInitAttributes cap(
        final int maxSendWr, final int maxRecvWr, final int maxSendSge, final int maxRecvSge, final int maxInlineData)
    {
        cap.maxSendWr = maxSendWr;
        cap.maxRecvWr = maxRecvWr;
        cap.maxSendSge = maxSendSge;
        cap.maxRecvSge = maxRecvSge;
        cap.maxInlineData = maxInlineData;
        return this;
    }

    /**
     * @param sigAll true to generate a completion for every send WR, signaled or not (sq_sig_all).
     * @return this.
     */
    public QpInitAttributes sqSigAll(final boolean sigAll)
    {
        this.sqSigAll = sigAll;
        return this;
    }

    /**
     * @return sq_sig_all.
     */
    public boolean sqSigAll()
    {
        return sqSigAll;
    }

    /**
     * @param other to copy.
     * @return this.
     */
    public QpInitAttributes copyFrom(final QpInitAttributes other)
    {
        qpType = other.qpType;
        sendCq = other.sendCq;
        recvCq = other.recvCq;
        srq = other.srq;
        cap.copyFrom(other.cap);
        sqSigAll = other.sqSigAll;
        return this;
    }

    /**
     * @return e.g. {@code qp_init{RC cap{...} sq_sig_all=false srq=none}}.
     */
    public String toString()
    {
        return "qp_init{" + qpType + " " + cap + " sq_sig_all=" + sqSigAll + " srq=" +
            (null != srq ? srq.handle() : "none") + "}";
    }
}
