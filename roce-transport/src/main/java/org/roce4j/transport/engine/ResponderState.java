package org.roce4j.transport.engine;

/**
 * The responder's part of a QP (rxe struct rxe_resp_info): the expected PSN, the MSN, the message in progress,
 * the pending coalesced ACK and the ring of responder resources.
 */
final class ResponderState
{
    /** Next PSN expected. */
    int psn;
    /** Message Sequence Number: requests completed (C9-148 counts READs and atomics when accepted). */
    int msn;
    /** Opcode byte of the previous packet while a multi-packet message is in progress, -1 between messages. */
    int lastOpcode = -1;
    /** One PSN-sequence NAK was sent; later out-of-order packets are dropped silently until the expected PSN. */
    boolean sentPsnNak;
    /** UC: drop packets until the next FIRST/ONLY (the current message lost a packet). */
    boolean ucDropping;

    /** SEND in progress: the receive WQE being filled and its queue, and bytes placed so far. */
    RecvWqe recvWqe;
    ReceiveQueue recvQueue;
    long messageOffset;
    /** RDMA WRITE in progress: target region, next VA and bytes still expected. */
    MemoryRegionEntry writeRegion;
    /** The memory window the current request's rkey named (its region is {@link #writeRegion}), or null. */
    MemoryWindowEntry writeWindow;
    /** The rkey of the RDMA WRITE in progress (a window's later packets check it is still the window's). */
    int writeRkey;
    long writeVa;
    long writeResid;
    /** Total length of the RDMA WRITE in progress (byte_len of a WRITE_WITH_IMM receive completion). */
    long writeLength;
    /** PSN after the last request executed (rxe resp.ack_psn). */
    int ackPsnNext;
    /** Status for the receive completion of the message in progress (rxe resp.status). */
    org.roce4j.ib.WcStatus status = org.roce4j.ib.WcStatus.SUCCESS;
    /** Syndrome the ACKNOWLEDGE step sends: 0x1F for a plain ACK, or a NAK syndrome (rxe resp.aeth_syndrome). */
    int syndrome = org.roce4j.wire.header.AethHeader.SYNDROME_ACK_UNLIMITED;
    /** The QP must go to ERR once this packet is done (rxe resp.goto_error), and the event to raise. */
    org.roce4j.ib.AsyncEventType gotoError;
    /** Rkey invalidated by the SEND_WITH_INV in progress. */
    int invalidatedRkey;

    /** A coalesced ACK waits to be sent at the end of the QP's burst ({@link ResponderAcks}). */
    boolean ackPending;
    int ackPsn;
    int ackSyndrome;
    /** MSN when the pending ACK's request was executed: the ACK carries it, not the MSN at send time. */
    int ackMsn;
    /** The receive batch in which the QP's last burst started ({@link ResponderAcks}), -1 before any. */
    private long burstBatch = -1;
    /** The QP's frames came in more than one burst in the batch of {@link #burstBatch}. */
    private boolean interleavedThisBatch;
    /**
     * They did in the last batch before that in which the QP had frames; true until a batch brought them in one
     * burst, so a QP's ACKs leave early only once its frames proved to come in one burst per batch.
     */
    private boolean interleavedBefore = true;

    /** Responder resources (max_dest_rd_atomic, rounded up to a power of two as rxe does), recycled oldest-first. */
    ResponderResource[] resources = new ResponderResource[0];
    int resourceHead;
    /** The READ whose reply is being sent, or null. */
    ResponderResource activeRead;

    void reset(final int startPsn)
    {
        psn = startPsn;
        msn = 0;
        lastOpcode = -1;
        sentPsnNak = false;
        ucDropping = false;
        recvWqe = null;
        recvQueue = null;
        messageOffset = 0;
        writeRegion = null;
        writeWindow = null;
        writeRkey = 0;
        writeVa = 0;
        writeResid = 0;
        writeLength = 0;
        ackPsnNext = startPsn;
        ackPending = false;
        gotoError = null;
        activeRead = null;
        for (final ResponderResource resource : resources)
        {
            resource.type = ResponderResource.FREE;
            resource.replying = false;
        }
        resourceHead = 0;
    }

    void allocateResources(final int count)
    {
        if (resources.length != count)
        {
            resources = new ResponderResource[count];
            for (int i = 0; i < count; i++)
            {
                resources[i] = new ResponderResource();
            }
            resourceHead = 0;
        }
    }

    /**
     * A burst of frames for this QP starts in receive batch {@code batch}: a second one in the same batch means its
     * frames come interleaved with other QPs'.
     *
     * @param batch the receive batch's number.
     */
    void startBurst(final long batch)
    {
        if (batch == burstBatch)
        {
            interleavedThisBatch = true;
        }
        else
        {
            if (burstBatch >= 0)
            {
                interleavedBefore = interleavedThisBatch;
            }
            interleavedThisBatch = false;
            burstBatch = batch;
        }
    }

    /**
     * @return true when this batch or the QP's last one brought its frames in more than one burst (or no batch brought
     *     any yet): its coalesced ACK then waits for the end of the batch instead of leaving at the end of each burst.
     */
    boolean interleaved()
    {
        return interleavedThisBatch || interleavedBefore;
    }
}
