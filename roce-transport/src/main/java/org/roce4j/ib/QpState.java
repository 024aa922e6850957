package org.roce4j.ib;

/**
 * Queue pair states (IBA 10.3.1; enum ibv_qp_state, same order and values).
 */
public enum QpState
{
    /** Just created or reset: nothing is processed. */
    RESET,
    /** Receives may be posted; nothing is processed yet. */
    INIT,
    /** Ready To Receive: the responder runs. */
    RTR,
    /** Ready To Send: requester, responder and completer run. */
    RTS,
    /** Send Queue Drain: no new send WRs are started. */
    SQD,
    /** Send Queue Error: a send WR failed on an unreliable QP; receives still work. */
    SQE,
    /** Error: everything outstanding is flushed with WR_FLUSH_ERR. */
    ERR;

    /**
     * @return the libibverbs enum value (IBV_QPS_RESET = 0 ... IBV_QPS_ERR = 6).
     */
    public int verbsValue()
    {
        return ordinal();
    }
}
