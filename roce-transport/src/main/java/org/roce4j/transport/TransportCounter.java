package org.roce4j.transport;

/**
 * Every event and anomaly the engine counts, per device. Names follow rxe's hw_counters where one exists
 * (rxe_hw_counters.c: sent_pkts, rcvd_pkts, duplicate_request, out_of_seq_request, rcvd_rnr_err, send_rnr_err,
 * rcvd_seq_err, retry_exceeded_err, rnr_retry_exceeded_err, completer_retry_err, send_err).
 */
public enum TransportCounter
{
    /** Packets the engine built and handed to the link (rxe sent_pkts). */
    PACKETS_SENT,
    /** RoCE packets accepted for a local QP (rxe rcvd_pkts). */
    PACKETS_RECEIVED,
    /**
     * UD packets sent to a multicast group (DestQP 0xFFFFFF), as the IBA PortCounters attribute's
     * PortMulticastXmitPkts and the kernel's multicast_xmit_packets count them.
     */
    MULTICAST_XMIT_PACKETS,
    /**
     * Multicast packets received for a group with attached QPs, once per packet whatever the number of QPs it goes
     * to (PortMulticastRcvPkts, multicast_rcv_packets); each QP that takes a copy also counts in PACKETS_RECEIVED.
     */
    MULTICAST_RCV_PACKETS,
    /** Payload bytes sent in requests and read responses. */
    PAYLOAD_BYTES_SENT,
    /** Payload bytes placed into local memory. */
    PAYLOAD_BYTES_RECEIVED,

    /** Frames dropped by the parser (see the frame status counters for the reason). */
    DROP_MALFORMED_FRAME,
    /** Frames with a bad ICRC (also in the frame status counters), dropped silently as rxe does. */
    DROP_BAD_ICRC,
    /** FLUSH requests accepted with rxe's ICRC (headers counted twice) under EngineConfig.rxeFlushIcrc. */
    RXE_FLUSH_ICRC,
    /** RoCE packets whose destination IP is not one of this device's GIDs (rxe_chk_dgid). */
    DROP_NOT_OUR_GID,
    /** Packets for a QPN that does not exist (rxe hdr_check). */
    DROP_NO_QP,
    /** Packets whose opcode's transport does not match the QP type (rxe check_type_state). */
    DROP_WRONG_TRANSPORT,
    /** Packets for a QP in a state that cannot take them: requests below RTR, responses below RTS. */
    DROP_WRONG_STATE,
    /** RC/UC packets whose source/destination IP differ from the QP's address vector (rxe check_addr). */
    DROP_ADDRESS_MISMATCH,
    /** Packets whose P_Key does not match 0xFFFF (rxe bad_pkey_cntr). */
    DROP_BAD_PKEY,
    /** UD packets whose Q_Key does not match the QP's (rxe qkey_viol_cntr). */
    DROP_BAD_QKEY,
    /**
     * Packets to the multicast QPN 0xFFFFFF whose destination GID is no group a local QP is attached to (rxe's
     * rxe_rcv_mcast_pkt drops them silently: "mcast group not registered").
     */
    DROP_NO_MCAST_GROUP,
    /** Out-of-sequence RC requests dropped after the one PSN-sequence NAK was sent (rxe sent_psn_nak). */
    DROP_OUT_OF_SEQUENCE,
    /** UC packets dropped: PSN gap, broken opcode sequence or an incomplete message (IBA 9.8.2 class D/E). */
    DROP_UC_MESSAGE,
    /** UC/UD SENDs dropped because no receive WQE was posted. */
    DROP_NO_RECEIVE,
    /** UD SENDs larger than the posted receive buffer (payload + 40-byte GRH area). */
    DROP_UD_TOO_LONG,
    /** Duplicate READ or atomic requests with no matching responder resource, or a changed RETH (Class D). */
    DROP_STALE_DUPLICATE,
    /**
     * Responses before the oldest unacknowledged PSN or matching no outstanding WQE: duplicates, such as a repeated
     * ACK of the last acknowledged PSN or a late, reordered response.
     */
    DROP_STRAY_RESPONSE,
    /**
     * Ghost responses: responses whose PSN is beyond the highest PSN this QP sent, so they answer nothing it sent
     * (a spoofed or misrouted ACK, NAK, READ or atomic response). Dropped without touching a WQE, the retry state or
     * the retransmit timer. rxe has no such counter (it takes such a response as acknowledging everything before
     * it); qib and hfi1 ignore these "invalid responses" silently.
     */
    GHOST_RESPONSES,
    /** Responses with an opcode sequence the completer cannot accept. */
    DROP_BAD_RESPONSE,

    /** Duplicate requests received (rxe duplicate_request). */
    DUPLICATE_REQUESTS,
    /** PSN-sequence NAKs sent for requests ahead of the expected PSN (rxe out_of_seq_request). */
    NAK_SEQUENCE_SENT,
    /** RNR NAKs sent because no receive WQE was posted (rxe send_rnr_err). */
    NAK_RNR_SENT,
    /** Invalid Request NAKs sent. */
    NAK_INVALID_REQUEST_SENT,
    /** Remote Access Error NAKs sent. */
    NAK_REMOTE_ACCESS_SENT,
    /** Remote Operational Error NAKs sent. */
    NAK_REMOTE_OPERATIONAL_SENT,
    /** ACKs sent (including re-ACKs of duplicates). */
    ACKS_SENT,
    /** ACK requests satisfied by a later ACK in the same receive batch instead of one ACK each. */
    ACKS_COALESCED,
    /**
     * Coalesced ACKs still unsent when the device closed: the link refused them even in the close's drain, so a peer
     * may retransmit the messages they acknowledge to a device that is gone (rxe never leaves one: its
     * ibv_destroy_qp waits for the responder task that sends it).
     */
    ACKS_LOST_AT_CLOSE,
    /** READ responses replayed for duplicate READ requests. */
    READ_REPLAYS,
    /** Atomic results replayed from a responder resource without re-executing. */
    ATOMIC_REPLAYS,
    /** Duplicate ATOMIC WRITEs answered again from a responder resource without storing again. */
    ATOMIC_WRITE_REPLAYS,
    /** Duplicate FLUSHes answered again from a responder resource without flushing again. */
    FLUSH_REPLAYS,
    /** FLUSH requests executed (a memory barrier; ordinary memory has nothing to write back). */
    FLUSHES_EXECUTED,

    /** ACKs received. */
    ACKS_RECEIVED,
    /** PSN-sequence NAKs received (rxe rcvd_seq_err). */
    NAK_SEQUENCE_RECEIVED,
    /** RNR NAKs received (rxe rcvd_rnr_err). */
    NAK_RNR_RECEIVED,
    /** Other NAKs received (invalid request, remote access, remote operational). */
    NAK_ERROR_RECEIVED,
    /** Implied NAKs: a response skipped the READ/atomic response the completer was waiting for. */
    IMPLIED_NAKS,
    /** Retransmit timer expiries with packets outstanding. */
    RETRANSMIT_TIMEOUTS,
    /** Go-back-N retries started (rxe completer_retry_err). */
    RETRIES,
    /** RNR retries started. */
    RNR_RETRIES,
    /** Packets sent again by a retry. */
    PACKETS_RETRANSMITTED,
    /** WQEs failed with RETRY_EXC_ERR (rxe retry_exceeded_err). */
    RETRY_EXCEEDED,
    /** WQEs failed with RNR_RETRY_EXC_ERR (rxe rnr_retry_exceeded_err). */
    RNR_RETRY_EXCEEDED,

    /** Send completions written. */
    SEND_COMPLETIONS,
    /** Receive completions written. */
    RECEIVE_COMPLETIONS,
    /** Completions with a status other than SUCCESS (flushes included). */
    ERROR_COMPLETIONS,
    /** QPs moved to the error state by the engine. */
    QP_ERRORS,
    /** Completion queue overflows (the QP goes to error, IBA class G). */
    CQ_OVERFLOWS,
    /** UD sends larger than the MTU completed without sending, as rxe does (IBA C10-93.1.1). */
    UD_OVERSIZE_SENDS,
    /** Times the requester stopped because the link had no room (back-pressure). */
    LINK_BACK_PRESSURE,
    /** Times the requester waited for the send window (unacknowledged PSNs) to open. */
    WINDOW_STALLS,
    /** Times the requester waited for an ORD slot (max_rd_atomic outstanding READs/atomics). */
    ORD_STALLS,
    /** Times the requester waited on a fenced WQE. */
    FENCE_STALLS,

    /**
     * Notification point: RoCE request packets received with IP ECN = CE (mlx5 np_ecn_marked_roce_packets), with
     * congestion control on or off.
     */
    NP_ECN_MARKED_ROCE_PACKETS,
    /** Notification point: CNPs sent (mlx5 np_cnp_sent), at most one per QP per min_time_between_cnps. */
    NP_CNP_SENT,
    /** Reaction point: CNPs that drove a QP's DCQCN rate (mlx5 rp_cnp_handled). */
    RP_CNP_HANDLED,
    /**
     * Reaction point: CNPs ignored (mlx5 rp_cnp_ignored): congestion control off, no such QP, a QP that is not
     * sending, or a CNP not from the QP's peer.
     */
    RP_CNP_IGNORED,
    /**
     * Frames whose processing hit an unexpected exception inside the engine (a bug): the frame is dropped, the
     * engine keeps running, and {@code RoceEngine.lastInternalError()} holds the exception. Tests assert it stays 0.
     */
    INTERNAL_ERRORS
}
