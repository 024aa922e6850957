package org.roce4j.cm.ib;

/**
 * States of one connection's communication manager (IBA 12.9.6 figure 124 "CM state diagram"; enum ib_cm_state in
 * include/rdma/ib_cm.h, whose names these follow).
 */
public enum CmState
{
    /** No connection: new, rejected, timed out, or out of TimeWait. */
    IDLE,
    /** Active side: REQ sent, waiting for REP, REJ or MRA. */
    REQ_SENT,
    /** Passive side: REQ received, waiting for the application to accept or reject. */
    REQ_RCVD,
    /** Passive side: MRA sent for the REQ (the application is still deciding). */
    MRA_REQ_SENT,
    /** Active side: MRA received for the REQ, waiting longer for the REP. */
    MRA_REQ_RCVD,
    /** Passive side: REP sent, waiting for RTU (or REJ, MRA). */
    REP_SENT,
    /** Active side: REP received, the QP is being moved to RTR and RTS before the RTU. */
    REP_RCVD,
    /** Passive side: MRA received for the REP, waiting longer for the RTU. */
    MRA_REP_RCVD,
    /** Both sides: connected. */
    ESTABLISHED,
    /** DREQ sent, waiting for DREP. */
    DREQ_SENT,
    /** DREQ received; the DREP goes out once the QP is in the error state. */
    DREQ_RCVD,
    /** Disconnected; old packets of the connection may still be in the network (IBA 12.9.7.4). */
    TIMEWAIT,
    /** UD client: SIDR_REQ sent, waiting for the SIDR_REP (IBA 12.11.1; IB_CM_SIDR_REQ_SENT). */
    SIDR_REQ_SENT,
    /** UD service: SIDR_REQ received, waiting for the owner to answer it (IB_CM_SIDR_REQ_RCVD). */
    SIDR_REQ_RCVD;

    /**
     * @return true while the connection owns communication IDs on the wire (not IDLE).
     */
    public boolean isActive()
    {
        return IDLE != this;
    }
}
