package org.roce4j.transport.engine;

/**
 * The requester's part of a QP (rxe struct rxe_req_info): where it is in the send queue and the PSN space.
 */
final class RequesterState
{
    /** Next PSN to send. */
    int psn;
    /** Opcode byte of the last packet sent, -1 after a message ends: decides FIRST/MIDDLE/LAST (rxe req.opcode). */
    int lastOpcode = -1;
    /** Packets sent since the last one with AckReq (rxe req.noack_pkts). */
    int packetsWithoutAckReq;
    /** READs and atomics started and not yet completed: the ORD in use (IBA 9.4.4). */
    int readAtomicOutstanding;
    /** The completer asked for a go-back-N retry from the oldest unacknowledged PSN. */
    boolean needRetry;
    /** Waiting for the RNR timer before retrying. */
    boolean waitingRnrTimer;
    /** When the RNR wait ends. */
    long rnrDeadlineNs;
    /** Highest PSN ever sent, to tell retransmissions from first transmissions in the counters. */
    int highestPsnSent;
    /** Why the requester last stopped (for diagnostics and tests). */
    RequesterStall stall = RequesterStall.NONE;

    void reset(final int startPsn)
    {
        psn = startPsn;
        lastOpcode = -1;
        packetsWithoutAckReq = 0;
        readAtomicOutstanding = 0;
        needRetry = false;
        waitingRnrTimer = false;
        rnrDeadlineNs = 0;
        highestPsnSent = (startPsn - 1) & org.roce4j.wire.Psn.MASK;
        stall = RequesterStall.NONE;
    }
}
