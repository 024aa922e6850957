package org.roce4j.transport.engine;

import org.roce4j.ib.QpType;
import org.roce4j.ib.WcStatus;
import org.roce4j.ib.WrOpcode;

/**
 * The requester's local operations (rxe_req.c rxe_do_local_ops): BIND_MW and LOCAL_INV change the device's memory
 * windows and regions ({@link MwTable}) and complete without a packet.
 *
 * <p>rxe runs a local operation when its requester reaches it and marks it done for its completer to retire in send
 * queue order. roce4j runs it once every earlier WQE has completed (the requester waits in
 * {@link RequesterStall#LOCAL_OP}), so its completion is the next in order at once and a window is never changed
 * under a request posted before the bind. An error completes the WQE with rxe's status (MW_BIND_ERR for a bind,
 * LOC_QP_OP_ERR for an invalidation) and moves the QP to the error state, as rxe's requester does.
 */
final class LocalOps
{
    private final RoceEngine engine;
    private final Requester requester;
    private final Completer completer;

    LocalOps(final RoceEngine engine, final Requester requester, final Completer completer)
    {
        this.engine = engine;
        this.requester = requester;
        this.completer = completer;
    }

    /**
     * Execute a local operation at the head of the send queue.
     *
     * @param qp  the QP.
     * @param wqe its oldest WQE, a BIND_MW or LOCAL_INV not yet started.
     * @return true when it completed successfully; false when it failed and the QP went to the error state.
     */
    boolean execute(final QpContext qp, final SendWqe wqe)
    {
        final WcStatus status;
        if (QpType.RC != qp.type && QpType.UC != qp.type)
        {
            // rxe_wr_opcode_info: IB_WR_LOCAL_INV and IB_WR_BIND_MW are valid on RC and UC QPs only.
            status = WcStatus.LOC_QP_OP_ERR;
        }
        else if (WrOpcode.BIND_MW == wqe.opcode)
        {
            status = engine.mwTable.bind(qp, wqe);
        }
        else
        {
            status = engine.mwTable.invalidate(qp, wqe.invalidateRkey) ? WcStatus.SUCCESS : WcStatus.LOC_QP_OP_ERR;
        }
        if (WcStatus.SUCCESS != status)
        {
            return requester.fail(qp, wqe, status);
        }
        wqe.started = true;
        final SendQueue sq = qp.sendQueue;
        completer.complete(qp, wqe, WcStatus.SUCCESS);
        sq.requester = sq.completer;
        return true;
    }
}
