package org.roce4j.transport.engine;

import org.roce4j.ib.WrOpcode;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.Psn;

/**
 * The requester's go-back-N retry (IBA 9.7.5.2.8 / 9.7.6.1.3; rxe_req.c req_retry), apart from the sending in
 * {@link Requester}: rewinds the send queue and the QP's requester state to the oldest unacknowledged WQE so the
 * requester sends from there on its next run. No allocation; called on the engine's thread.
 */
final class RequesterRetry
{
    private RequesterRetry()
    {
    }

    /**
     * Go back N (rxe req_retry): restart sending from the oldest unacknowledged WQE at the completer's PSN. A
     * partly acknowledged SEND/WRITE resumes at the first unacknowledged packet (its FIRST already arrived, so it
     * continues with MIDDLE/LAST); a partly answered READ asks only for the bytes not yet received; everything
     * after is sent again from the start.
     *
     * @param qp the QP whose unacknowledged WQEs are sent again.
     */
    static void rewind(final QpContext qp)
    {
        final RequesterState req = qp.req;
        req.needRetry = false;
        final SendQueue sq = qp.sendQueue;
        sq.requester = sq.completer;
        req.psn = qp.comp.psn;
        req.lastOpcode = -1;
        req.packetsWithoutAckReq = 0;
        final int mtu = qp.mtuBytes;
        boolean first = true;
        final long published = sq.publishedIndex();
        for (long index = sq.completer; index < published; index++)
        {
            final SendWqe wqe = sq.at(index);
            if (WqeState.POSTED == wqe.state && !wqe.started)
            {
                break;
            }
            if (WqeState.DONE == wqe.state || WqeState.ERROR == wqe.state)
            {
                continue;
            }
            final boolean read = WrOpcode.RDMA_READ == wqe.opcode;
            if (!first || !read)
            {
                wqe.resid = wqe.length;
                wqe.remoteOffset = 0;
            }
            if (first)
            {
                first = false;
                if (!read && !wqe.opcode.isAtomic())
                {
                    final int acked = Psn.diff(qp.comp.psn, wqe.firstPsn);
                    if (acked > 0)
                    {
                        final long skipped = Math.min(wqe.length, (long)acked * mtu);
                        wqe.resid = wqe.length - skipped;
                        wqe.remoteOffset = skipped;
                        // The responder has the message's FIRST: continue it with MIDDLE/LAST packets.
                        req.lastOpcode = Opcode.RC_SEND_MIDDLE.code();
                    }
                }
            }
            wqe.state = WqeState.POSTED;
        }
    }
}
