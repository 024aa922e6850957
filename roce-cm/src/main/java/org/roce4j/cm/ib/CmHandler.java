package org.roce4j.cm.ib;

/**
 * What a connection's owner (rdma_cm, {@code org.roce4j.cm.rdmacm}) hears from the CM: one callback per event of
 * the connection's state machine, on the thread running the CM. A callback may call back into the {@link IbCm}
 * (the active side answers {@link #onReply} with {@link IbCm#sendRtu} or {@link IbCm#reject}).
 */
public interface CmHandler
{
    /**
     * Active side: a REP arrived (state {@link CmState#REP_RCVD}). Move the QP to RTR and RTS with the REP's values,
     * then call {@link IbCm#sendRtu}, or {@link IbCm#reject} when that fails.
     *
     * @param connection the connection; {@link CmConnection#privateData()} holds the REP's private data.
     */
    default void onReply(final CmConnection connection)
    {
    }

    /**
     * The connection is established: RTU sent (active) or received (passive).
     *
     * @param connection the connection.
     */
    default void onEstablished(final CmConnection connection)
    {
    }

    /**
     * The peer rejected the connection (REJ received); the connection is IDLE, or in TimeWait when it had been
     * established or the reason is STALE_CONN.
     *
     * @param connection the connection; {@link CmConnection#rejectReason()} and {@link CmConnection#privateData()}
     *                   hold the REJ's reason and private data.
     */
    default void onRejected(final CmConnection connection)
    {
    }

    /**
     * A REQ, REP or DREQ got no answer after its last retry. After REQ or REP the connection is IDLE (the peer is
     * unreachable); after DREQ it is in TimeWait.
     *
     * @param connection the connection.
     * @param state      the state that timed out: REQ_SENT / MRA_REQ_RCVD, REP_SENT / MRA_REP_RCVD, DREQ_SENT, or
     *                   SIDR_REQ_SENT (the connection is then IDLE: no SIDR_REP came).
     */
    default void onTimeout(final CmConnection connection, final CmState state)
    {
    }

    /**
     * The peer disconnects (DREQ received, state DREQ_RCVD). Move the QP to the error state now: when this returns
     * the CM sends the DREP and enters TimeWait.
     *
     * @param connection the connection; {@link CmConnection#privateData()} holds the DREQ's private data.
     */
    default void onDisconnectRequest(final CmConnection connection)
    {
    }

    /**
     * Our DREQ was answered (DREP received); the connection is in TimeWait.
     *
     * @param connection the connection.
     */
    default void onDisconnectReply(final CmConnection connection)
    {
    }

    /**
     * TimeWait is over; the connection is IDLE and forgotten by the CM.
     *
     * @param connection the connection.
     */
    default void onTimewaitExit(final CmConnection connection)
    {
    }

    /**
     * The peer sent an MRA: it needs more time; the CM now waits longer before retrying.
     *
     * @param connection the connection.
     */
    default void onMra(final CmConnection connection)
    {
    }

    /**
     * UD client: the SIDR_REP answering our SIDR_REQ arrived; the connection is IDLE and forgotten by the CM (a SIDR
     * exchange leaves no state behind, as in cm.c). A timeout comes as {@link #onTimeout} with
     * {@link CmState#SIDR_REQ_SENT}.
     *
     * @param connection the connection; {@link CmConnection#sidrStatus()}, {@link CmConnection#remoteQpn()},
     *                   {@link CmConnection#remoteQkey()} and {@link CmConnection#privateData()} hold the SIDR_REP's
     *                   fields.
     */
    default void onSidrReply(final CmConnection connection)
    {
    }
}
