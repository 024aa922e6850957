package org.roce4j.transport.engine;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.roce4j.ib.AccessFlags;
import org.roce4j.transport.TransportCounter;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.header.AethHeader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.roce4j.transport.engine.ScriptedPeer.PEER_QPN;
import static org.roce4j.transport.engine.ScriptedPeer.RQ_PSN;
import static org.roce4j.transport.engine.ScriptedPeer.pattern;

/**
 * What a closing device still owes the wire. rxe's responder sends a message's ACK in the task run that posts its
 * receive completion (rxe_resp.c: RESPST_COMPLETE, then RESPST_ACKNOWLEDGE) and ibv_destroy_qp waits for that task
 * (rxe_qp_destroy: rxe_cleanup_task), so a peer such as ibv_srq_pingpong, which counts send completions and needs
 * the ACK of every message it sent, always gets it. roce4j makes the completion visible during the receive batch
 * and sends the batch's coalesced ACKs at its end; an ACK that met a full link waits for a later duty cycle. The
 * device's close ({@link RoceEngine#onClose()}) must send those before the link closes, and count the ones the link
 * still refuses.
 */
@ExtendWith(EngineHealthCheck.class)
class CloseDrainTest
{
    private static final int ACK = AethHeader.SYNDROME_ACK_UNLIMITED;

    /** A SEND ONLY with AckReq received and completed while the link refuses every frame. */
    private static ScriptedPeer completedWhileTheLinkIsFull(final int messages)
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        final MemoryRegionEntry buffer = peer.mr(64 * messages, AccessFlags.LOCAL_WRITE);
        for (int i = 0; i < messages; i++)
        {
            peer.postRecv(i, buffer, 64 * i, 64);
        }
        peer.link.full = true;
        for (int i = 0; i < messages; i++)
        {
            peer.deliver(peer.send(Opcode.RC_SEND_ONLY, RQ_PSN + i, pattern(16, i), true));
        }
        assertEquals(messages, peer.recvCompletions().size(), "the application sees every message");
        assertEquals(List.of(), peer.sent(), "no room for the ACK");
        return peer;
    }

    @Test
    void ackOfACompletedMessageThatMetAFullLinkIsSentWhenTheDeviceCloses()
    {
        final ScriptedPeer peer = completedWhileTheLinkIsFull(3);
        // The socket or ring has drained by the time the application, done with its last completion, closes.
        peer.link.full = false;

        peer.engine.onClose();

        final SentPacket ack = peer.onlySent();
        assertEquals(Opcode.RC_ACKNOWLEDGE, ack.opcode(), ack.toString());
        assertEquals(PEER_QPN, ack.destQp(), ack.toString());
        assertEquals(RQ_PSN + 2, ack.psn(), "one ACK for all three (IBA 9.7.5.1.1): " + ack);
        assertEquals(ACK, ack.syndrome(), ack.toString());
        assertEquals(3, ack.msn(), ack.toString());
        assertEquals(1, peer.counter(TransportCounter.ACKS_SENT));
        final long backPressure = peer.counter(TransportCounter.LINK_BACK_PRESSURE);
        assertTrue(backPressure > 0, "each duty cycle tried the ACK against the full link");
        peer.assertAnomalies(Map.of(TransportCounter.LINK_BACK_PRESSURE, backPressure,
            TransportCounter.ACKS_COALESCED, 2L));
    }

    @Test
    void ackTheLinkStillRefusesAtCloseIsCountedAsLost()
    {
        final ScriptedPeer peer = completedWhileTheLinkIsFull(1);

        peer.engine.onClose();

        assertEquals(List.of(), peer.sent());
        assertEquals(1, peer.counter(TransportCounter.ACKS_LOST_AT_CLOSE));
        assertEquals(0, peer.counter(TransportCounter.ACKS_SENT));
    }

    @Test
    void closeWithNothingOwedSendsNothingAndCountsNothing()
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        final MemoryRegionEntry buffer = peer.mr(64, AccessFlags.LOCAL_WRITE);
        peer.postRecv(0, buffer, 0, 64);
        peer.deliver(peer.send(Opcode.RC_SEND_ONLY, RQ_PSN, pattern(16, 0), true));
        assertEquals(RQ_PSN, peer.onlySent().psn(), "acknowledged at the end of its own duty cycle");

        peer.engine.onClose();

        assertEquals(List.of(), peer.sent());
        peer.assertAnomalies(Map.of());
    }
}
