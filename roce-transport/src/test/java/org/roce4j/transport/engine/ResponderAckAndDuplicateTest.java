package org.roce4j.transport.engine;

import java.nio.ByteOrder;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.QpState;
import org.roce4j.ib.QpType;
import org.roce4j.ib.WcOpcode;
import org.roce4j.ib.WcStatus;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.transport.TransportCounter;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.header.AethHeader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.roce4j.transport.engine.ScriptedPeer.MTU_BYTES;
import static org.roce4j.transport.engine.ScriptedPeer.PEER_QPN;
import static org.roce4j.transport.engine.ScriptedPeer.RQ_PSN;
import static org.roce4j.transport.engine.ScriptedPeer.pattern;
import static org.roce4j.transport.engine.ScriptedPeer.slice;

/**
 * Responder rules for well-formed RC requests (rxe_resp.c; protocol-facts §A.7): which requests are acknowledged
 * and with which PSN and MSN, ACK coalescing, the PSN-sequence NAK and the silent drops after it, and duplicate
 * requests (re-ACK, READ replay, atomic replay, recycled responder resources). Each test injects crafted packets
 * into one engine and checks the exact packets it sends back.
 */
@ExtendWith(EngineHealthCheck.class)
class ResponderAckAndDuplicateTest
{
    private static final int ACK = AethHeader.SYNDROME_ACK_UNLIMITED;
    private static final int NAK_PSN_SEQUENCE = AethHeader.NakCode.PSN_SEQUENCE_ERROR.syndrome();
    private static final int REMOTE = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ |
        AccessFlags.REMOTE_ATOMIC;

    private static void assertAck(final SentPacket sent, final int psn, final int syndrome, final int msn)
    {
        assertEquals(Opcode.RC_ACKNOWLEDGE, sent.opcode(), sent.toString());
        assertEquals(PEER_QPN, sent.destQp(), sent.toString());
        assertEquals(psn, sent.psn(), sent.toString());
        assertEquals(syndrome, sent.syndrome(), sent.toString());
        assertEquals(msn, sent.msn(), sent.toString());
    }

    private static void assertReadResponse(
        final SentPacket sent, final Opcode opcode, final int psn, final int msn, final byte[] payload)
    {
        assertEquals(opcode, sent.opcode(), sent.toString());
        assertEquals(PEER_QPN, sent.destQp(), sent.toString());
        assertEquals(psn, sent.psn(), sent.toString());
        if (Opcode.RC_RDMA_READ_RESPONSE_MIDDLE == opcode)
        {
            assertEquals(-1, sent.syndrome(), "a READ response MIDDLE has no AETH");
        }
        else
        {
            assertEquals(ACK, sent.syndrome(), sent.toString());
            assertEquals(msn, sent.msn(), sent.toString());
        }
        assertArrayEquals(payload, sent.payload(), sent.toString());
    }

    // ---- acknowledgements --------------------------------------------------------------------------------------

    @Test
    void inOrderSendWithAckReqIsExecutedAndAcknowledgedWithItsPsnAndTheMsn()
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        final MemoryRegionEntry buffer = peer.mr(1024, AccessFlags.LOCAL_WRITE);
        peer.postRecv(1, buffer, 0, 1024);
        final byte[] data = pattern(100, 1);

        peer.deliver(peer.send(Opcode.RC_SEND_ONLY, RQ_PSN, data, true));

        assertAck(peer.onlySent(), RQ_PSN, ACK, 1);
        final List<WorkCompletion> recv = peer.recvCompletions();
        assertEquals(1, recv.size());
        assertEquals(WcStatus.SUCCESS, recv.get(0).status());
        assertEquals(WcOpcode.RECV, recv.get(0).opcode());
        assertEquals(100, recv.get(0).byteLen());
        assertEquals(1, recv.get(0).wrId());
        assertArrayEquals(data, ScriptedPeer.bytesOf(buffer, 0, 100));
        assertEquals(RQ_PSN + 1, peer.qp.responderPsn());
        assertEquals(1, peer.counter(TransportCounter.ACKS_SENT));
        assertEquals(1, peer.counter(TransportCounter.RECEIVE_COMPLETIONS));
        peer.assertAnomalies(Map.of());
    }

    @Test
    void inOrderWriteWithAckReqIsExecutedAndAcknowledged()
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        final MemoryRegionEntry target = peer.mr(1024, REMOTE);
        final byte[] data = pattern(200, 2);

        peer.deliver(peer.write(Opcode.RC_RDMA_WRITE_ONLY, RQ_PSN, data, target.iova() + 16, target.rkey(), 200,
            true));

        assertAck(peer.onlySent(), RQ_PSN, ACK, 1);
        assertArrayEquals(data, ScriptedPeer.bytesOf(target, 16, 200));
        assertEquals(0, peer.recvCompletions().size(), "a WRITE without immediate takes no receive WQE");
        assertEquals(1, peer.counter(TransportCounter.ACKS_SENT));
        peer.assertAnomalies(Map.of());
    }

    @ParameterizedTest
    @EnumSource(value = Opcode.class, names = {"RC_SEND_ONLY", "RC_RDMA_WRITE_ONLY"})
    void requestWithoutAckReqIsExecutedButNotAcknowledged(final Opcode opcode)
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        final MemoryRegionEntry memory = peer.mr(1024, REMOTE);
        peer.postRecv(1, memory, 0, 512);
        final byte[] data = pattern(64, 3);

        peer.deliver(Opcode.RC_SEND_ONLY == opcode ? peer.send(opcode, RQ_PSN, data, false) :
            peer.write(opcode, RQ_PSN, data, memory.iova() + 512, memory.rkey(), 64, false));

        assertEquals(List.of(), peer.sent(), "rxe ACKs a SEND/WRITE only when AckReq is set");
        assertEquals(RQ_PSN + 1, peer.qp.responderPsn());
        assertEquals(1, peer.qp.responderMsn(), "the MSN still counts the executed message");
        assertArrayEquals(data, ScriptedPeer.bytesOf(memory, Opcode.RC_SEND_ONLY == opcode ? 0 : 512, 64));
        assertEquals(0, peer.counter(TransportCounter.ACKS_SENT));
        peer.assertAnomalies(Map.of());
    }

    @Test
    void multiPacketSendIsAcknowledgedWhereAckReqIsSetAndTheMsnCountsOnlyTheEnd()
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        final MemoryRegionEntry buffer = peer.mr(2048, AccessFlags.LOCAL_WRITE);
        peer.postRecv(1, buffer, 0, 2048);
        final byte[] data = pattern(3 * MTU_BYTES - 10, 4);

        peer.deliver(peer.send(Opcode.RC_SEND_FIRST, RQ_PSN, slice(data, 0, MTU_BYTES), false));
        assertEquals(List.of(), peer.sent());
        peer.deliver(peer.send(Opcode.RC_SEND_MIDDLE, RQ_PSN + 1, slice(data, MTU_BYTES, MTU_BYTES), true));
        assertAck(peer.onlySent(), RQ_PSN + 1, ACK, 0);
        peer.deliver(peer.send(Opcode.RC_SEND_LAST, RQ_PSN + 2, slice(data, 2 * MTU_BYTES, MTU_BYTES - 10), true));
        assertAck(peer.onlySent(), RQ_PSN + 2, ACK, 1);

        final List<WorkCompletion> recv = peer.recvCompletions();
        assertEquals(1, recv.size());
        assertEquals(data.length, recv.get(0).byteLen());
        assertArrayEquals(data, ScriptedPeer.bytesOf(buffer, 0, data.length));
        assertEquals(2, peer.counter(TransportCounter.ACKS_SENT));
        peer.assertAnomalies(Map.of());
    }

    @Test
    void ackRequestsOfOneReceiveBatchAreCoalescedIntoOneAckForTheHighestPsn()
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        final MemoryRegionEntry buffer = peer.mr(1024, AccessFlags.LOCAL_WRITE);
        for (int i = 0; i < 3; i++)
        {
            peer.postRecv(i, buffer, i * 256, 256);
        }

        peer.deliver(
            peer.send(Opcode.RC_SEND_ONLY, RQ_PSN, pattern(10, 0), true),
            peer.send(Opcode.RC_SEND_ONLY, RQ_PSN + 1, pattern(10, 1), true),
            peer.send(Opcode.RC_SEND_ONLY, RQ_PSN + 2, pattern(10, 2), true));

        assertAck(peer.onlySent(), RQ_PSN + 2, ACK, 3);
        assertEquals(3, peer.recvCompletions().size());
        assertEquals(1, peer.counter(TransportCounter.ACKS_SENT));
        peer.assertAnomalies(Map.of(TransportCounter.ACKS_COALESCED, 2L));
    }

    @Test
    void withoutCoalescingEveryAckRequestIsAcknowledgedAtOnceAsRxeDoes()
    {
        final ScriptedPeer peer = ScriptedPeer.create(QpType.RC, QpState.RTS, config -> config.coalesceAcks(false),
            attr -> {});
        final MemoryRegionEntry buffer = peer.mr(1024, AccessFlags.LOCAL_WRITE);
        for (int i = 0; i < 3; i++)
        {
            peer.postRecv(i, buffer, i * 256, 256);
        }

        peer.deliver(
            peer.send(Opcode.RC_SEND_ONLY, RQ_PSN, pattern(10, 0), true),
            peer.send(Opcode.RC_SEND_ONLY, RQ_PSN + 1, pattern(10, 1), true),
            peer.send(Opcode.RC_SEND_ONLY, RQ_PSN + 2, pattern(10, 2), true));

        final List<SentPacket> sent = peer.sent();
        assertEquals(3, sent.size(), sent.toString());
        for (int i = 0; i < 3; i++)
        {
            assertAck(sent.get(i), RQ_PSN + i, ACK, i + 1);
        }
        assertEquals(3, peer.counter(TransportCounter.ACKS_SENT));
        peer.assertAnomalies(Map.of());
    }

    @Test
    void coalescedAckGoesOutBeforeANakOfTheSameBatchSoResponsesStayInPsnOrder()
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        final MemoryRegionEntry buffer = peer.mr(1024, AccessFlags.LOCAL_WRITE);
        peer.postRecv(1, buffer, 0, 1024);

        peer.deliver(
            peer.send(Opcode.RC_SEND_ONLY, RQ_PSN, pattern(10, 0), true),
            peer.send(Opcode.RC_SEND_ONLY, RQ_PSN + 2, pattern(10, 1), true));

        final List<SentPacket> sent = peer.sent();
        assertEquals(2, sent.size(), sent.toString());
        assertAck(sent.get(0), RQ_PSN, ACK, 1);
        assertAck(sent.get(1), RQ_PSN + 1, NAK_PSN_SEQUENCE, 1);
        peer.assertAnomalies(Map.of(TransportCounter.NAK_SEQUENCE_SENT, 1L));
    }

    @Test
    void coalescedAckCarriesTheMsnOfItsOwnPsnNotOfLaterRequestsInTheBatch()
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        final MemoryRegionEntry buffer = peer.mr(1024, AccessFlags.LOCAL_WRITE);
        peer.postRecv(1, buffer, 0, 512);
        peer.postRecv(2, buffer, 512, 512);

        // The second SEND has no AckReq: the batch's only ACK is for the first one, as rxe would send it then.
        peer.deliver(
            peer.send(Opcode.RC_SEND_ONLY, RQ_PSN, pattern(10, 1), true),
            peer.send(Opcode.RC_SEND_ONLY, RQ_PSN + 1, pattern(10, 2), false));

        assertAck(peer.onlySent(), RQ_PSN, ACK, 1);
        assertEquals(2, peer.qp.responderMsn());
        peer.assertAnomalies(Map.of());
    }

    @Test
    void coalescedAckGoesOutBeforeAReadResponseOfTheSameBatch()
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        final MemoryRegionEntry memory = peer.mr(1024, REMOTE);
        memory.memory().putBytes(512, pattern(20, 3));

        peer.deliver(
            peer.write(Opcode.RC_RDMA_WRITE_ONLY, RQ_PSN, pattern(10, 1), memory.iova(), memory.rkey(), 10, true),
            peer.read(RQ_PSN + 1, memory.iova() + 512, memory.rkey(), 20),
            peer.write(Opcode.RC_RDMA_WRITE_ONLY, RQ_PSN + 2, pattern(10, 2), memory.iova() + 16, memory.rkey(), 10,
                true));

        final List<SentPacket> sent = peer.sent();
        assertEquals(3, sent.size(), sent.toString());
        assertAck(sent.get(0), RQ_PSN, ACK, 1);
        assertReadResponse(sent.get(1), Opcode.RC_RDMA_READ_RESPONSE_ONLY, RQ_PSN + 1, 2, pattern(20, 3));
        assertAck(sent.get(2), RQ_PSN + 2, ACK, 3);
        peer.assertAnomalies(Map.of());
    }

    // ---- PSN sequence ------------------------------------------------------------------------------------------

    @Test
    void packetAheadOfTheExpectedPsnIsNakedOnceWithTheExpectedPsnThenDroppedSilentlyUntilTheGapCloses()
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        final MemoryRegionEntry buffer = peer.mr(2048, AccessFlags.LOCAL_WRITE);
        for (int i = 0; i < 4; i++)
        {
            peer.postRecv(i, buffer, i * 256, 256);
        }

        peer.deliver(peer.send(Opcode.RC_SEND_ONLY, RQ_PSN + 2, pattern(10, 2), true));
        assertAck(peer.onlySent(), RQ_PSN, NAK_PSN_SEQUENCE, 0);
        peer.assertAnomalies(Map.of(TransportCounter.NAK_SEQUENCE_SENT, 1L));

        peer.deliver(peer.send(Opcode.RC_SEND_ONLY, RQ_PSN + 3, pattern(10, 3), true));
        peer.deliver(peer.send(Opcode.RC_SEND_ONLY, RQ_PSN + 1, pattern(10, 1), true));
        assertEquals(List.of(), peer.sent(), "one NAK per gap; later packets ahead are dropped silently");
        assertEquals(0, peer.recvCompletions().size());
        assertEquals(RQ_PSN, peer.qp.responderPsn());
        peer.assertAnomalies(Map.of(TransportCounter.NAK_SEQUENCE_SENT, 1L,
            TransportCounter.DROP_OUT_OF_SEQUENCE, 2L));

        // The expected PSN closes the gap and is ACKed normally ...
        peer.deliver(peer.send(Opcode.RC_SEND_ONLY, RQ_PSN, pattern(10, 0), true));
        assertAck(peer.onlySent(), RQ_PSN, ACK, 1);
        // ... and a new gap gets a new NAK carrying the new expected PSN.
        peer.deliver(peer.send(Opcode.RC_SEND_ONLY, RQ_PSN + 3, pattern(10, 3), true));
        assertAck(peer.onlySent(), RQ_PSN + 1, NAK_PSN_SEQUENCE, 1);

        final List<WorkCompletion> recv = peer.recvCompletions();
        assertEquals(1, recv.size());
        assertEquals(0, recv.get(0).wrId(), "the NAKed packets took no receive WQE");
        assertEquals(1, peer.counter(TransportCounter.ACKS_SENT));
        peer.assertAnomalies(Map.of(TransportCounter.NAK_SEQUENCE_SENT, 2L,
            TransportCounter.DROP_OUT_OF_SEQUENCE, 2L));
    }

    // ---- duplicates --------------------------------------------------------------------------------------------

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void duplicateSendIsAcknowledgedAgainWithoutBeingExecuted(final boolean duplicateHasAckReq)
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        final MemoryRegionEntry buffer = peer.mr(1024, AccessFlags.LOCAL_WRITE);
        peer.postRecv(1, buffer, 0, 512);
        peer.postRecv(2, buffer, 512, 512);
        final byte[] original = pattern(100, 5);
        peer.deliver(peer.send(Opcode.RC_SEND_ONLY, RQ_PSN, original, true));
        assertAck(peer.onlySent(), RQ_PSN, ACK, 1);
        assertEquals(1, peer.recvCompletions().size());

        peer.deliver(peer.send(Opcode.RC_SEND_ONLY, RQ_PSN, pattern(100, 6), duplicateHasAckReq));

        // C9-105: ACK again (even without AckReq) for the last executed PSN, drop the data.
        assertAck(peer.onlySent(), RQ_PSN, ACK, 1);
        assertEquals(0, peer.recvCompletions().size(), "a duplicate takes no receive WQE");
        assertArrayEquals(original, ScriptedPeer.bytesOf(buffer, 0, 100));
        assertArrayEquals(new byte[100], ScriptedPeer.bytesOf(buffer, 512, 100));
        assertEquals(RQ_PSN + 1, peer.qp.responderPsn());
        assertEquals(1, peer.qp.responderMsn());
        peer.assertAnomalies(Map.of(TransportCounter.DUPLICATE_REQUESTS, 1L));
    }

    @Test
    void duplicateWriteIsAcknowledgedAgainWithoutWritingAgain()
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        final MemoryRegionEntry target = peer.mr(1024, REMOTE);
        final byte[] original = pattern(100, 7);
        peer.deliver(peer.write(Opcode.RC_RDMA_WRITE_ONLY, RQ_PSN, original, target.iova(), target.rkey(), 100,
            true));
        assertAck(peer.onlySent(), RQ_PSN, ACK, 1);

        peer.deliver(peer.write(Opcode.RC_RDMA_WRITE_ONLY, RQ_PSN, pattern(100, 8), target.iova(), target.rkey(),
            100, false));

        assertAck(peer.onlySent(), RQ_PSN, ACK, 1);
        assertArrayEquals(original, ScriptedPeer.bytesOf(target, 0, 100));
        peer.assertAnomalies(Map.of(TransportCounter.DUPLICATE_REQUESTS, 1L));
    }

    @Test
    void duplicateOfAnEarlierPacketIsAcknowledgedWithItsOwnPsn()
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        final MemoryRegionEntry buffer = peer.mr(1024, AccessFlags.LOCAL_WRITE);
        peer.postRecv(1, buffer, 0, 1024);
        peer.deliver(
            peer.send(Opcode.RC_SEND_FIRST, RQ_PSN, pattern(MTU_BYTES, 1), false),
            peer.send(Opcode.RC_SEND_LAST, RQ_PSN + 1, pattern(8, 2), true));
        assertAck(peer.onlySent(), RQ_PSN + 1, ACK, 1);

        peer.deliver(peer.send(Opcode.RC_SEND_FIRST, RQ_PSN, pattern(MTU_BYTES, 1), false));

        // roce4j acknowledges the duplicate's own PSN (rxe sends ack_psn - 1, the newest PSN executed); see
        // Responder.duplicateRequest for why.
        assertAck(peer.onlySent(), RQ_PSN, ACK, 1);
        assertEquals(1, peer.recvCompletions().size());
        peer.assertAnomalies(Map.of(TransportCounter.DUPLICATE_REQUESTS, 1L));
    }

    @ParameterizedTest
    @EnumSource(value = Opcode.class, names = {"RC_RDMA_READ_REQUEST", "RC_FETCH_ADD"})
    void duplicateSendAfterAReadOrAtomicIsAcknowledgedWithItsOwnPsnNeverTheReadOrAtomic(final Opcode between)
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        final MemoryRegionEntry memory = peer.mr(1024, REMOTE);
        peer.postRecv(1, memory, 0, 512);
        final byte[] send = peer.send(Opcode.RC_SEND_ONLY, RQ_PSN, pattern(10, 1), true);
        peer.deliver(send);
        assertAck(peer.onlySent(), RQ_PSN, ACK, 1);
        peer.deliver(Opcode.RC_FETCH_ADD == between ?
            peer.atomic(between, RQ_PSN + 1, memory.iova() + 512, memory.rkey(), 1, 0) :
            peer.read(RQ_PSN + 1, memory.iova() + 512, memory.rkey(), 8));
        assertEquals(RQ_PSN + 1, peer.onlySent().psn());

        peer.deliver(send);

        // The re-ACK names the duplicate's PSN, so it never covers the READ or atomic executed after it (rxe's
        // ack_psn - 1 would name the atomic's PSN, which an rxe requester takes as completing the atomic).
        assertAck(peer.onlySent(), RQ_PSN, ACK, 2);
        assertEquals(1, peer.recvCompletions().size());
        peer.assertAnomalies(Map.of(TransportCounter.DUPLICATE_REQUESTS, 1L));
    }

    @Test
    void readIsAnsweredWithFirstMiddleLastAndItsDuplicateIsReplayed()
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        final MemoryRegionEntry source = peer.mr(1024, REMOTE);
        final byte[] data = pattern(3 * MTU_BYTES - 6, 9);
        source.memory().putBytes(0, data);

        final byte[] read = peer.read(RQ_PSN, source.iova(), source.rkey(), data.length);
        peer.deliver(read);
        List<SentPacket> sent = peer.sent();
        assertEquals(3, sent.size(), sent.toString());
        assertReadResponse(sent.get(0), Opcode.RC_RDMA_READ_RESPONSE_FIRST, RQ_PSN, 1, slice(data, 0, MTU_BYTES));
        assertReadResponse(sent.get(1), Opcode.RC_RDMA_READ_RESPONSE_MIDDLE, RQ_PSN + 1, 1,
            slice(data, MTU_BYTES, MTU_BYTES));
        assertReadResponse(sent.get(2), Opcode.RC_RDMA_READ_RESPONSE_LAST, RQ_PSN + 2, 1,
            slice(data, 2 * MTU_BYTES, MTU_BYTES - 6));
        assertEquals(RQ_PSN + 3, peer.qp.responderPsn(), "a READ consumes one PSN per response packet");
        peer.assertAnomalies(Map.of());

        peer.deliver(read);

        sent = peer.sent();
        assertEquals(3, sent.size(), sent.toString());
        assertReadResponse(sent.get(0), Opcode.RC_RDMA_READ_RESPONSE_FIRST, RQ_PSN, 1, slice(data, 0, MTU_BYTES));
        assertReadResponse(sent.get(1), Opcode.RC_RDMA_READ_RESPONSE_MIDDLE, RQ_PSN + 1, 1,
            slice(data, MTU_BYTES, MTU_BYTES));
        assertReadResponse(sent.get(2), Opcode.RC_RDMA_READ_RESPONSE_LAST, RQ_PSN + 2, 1,
            slice(data, 2 * MTU_BYTES, MTU_BYTES - 6));
        assertEquals(RQ_PSN + 3, peer.qp.responderPsn());
        assertEquals(1, peer.qp.responderMsn(), "a replay is not a new request");
        peer.assertAnomalies(Map.of(TransportCounter.DUPLICATE_REQUESTS, 1L, TransportCounter.READ_REPLAYS, 1L));
    }

    @Test
    void duplicateReadStartingInsideTheRangeIsReplayedFromItsPsnWithMiddleAndLast()
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        final MemoryRegionEntry source = peer.mr(1024, REMOTE);
        final byte[] data = pattern(3 * MTU_BYTES, 10);
        source.memory().putBytes(0, data);
        peer.deliver(peer.read(RQ_PSN, source.iova(), source.rkey(), data.length));
        assertEquals(3, peer.sent().size());

        peer.deliver(peer.read(RQ_PSN + 1, source.iova() + MTU_BYTES, source.rkey(), 2 * MTU_BYTES));
        List<SentPacket> sent = peer.sent();
        assertEquals(2, sent.size(), sent.toString());
        assertReadResponse(sent.get(0), Opcode.RC_RDMA_READ_RESPONSE_MIDDLE, RQ_PSN + 1, 1,
            slice(data, MTU_BYTES, MTU_BYTES));
        assertReadResponse(sent.get(1), Opcode.RC_RDMA_READ_RESPONSE_LAST, RQ_PSN + 2, 1,
            slice(data, 2 * MTU_BYTES, MTU_BYTES));

        peer.deliver(peer.read(RQ_PSN + 2, source.iova() + 2 * MTU_BYTES, source.rkey(), MTU_BYTES));
        sent = peer.sent();
        assertEquals(1, sent.size(), sent.toString());
        assertReadResponse(sent.get(0), Opcode.RC_RDMA_READ_RESPONSE_LAST, RQ_PSN + 2, 1,
            slice(data, 2 * MTU_BYTES, MTU_BYTES));
        peer.assertAnomalies(Map.of(TransportCounter.DUPLICATE_REQUESTS, 2L, TransportCounter.READ_REPLAYS, 2L));
    }

    /** Ways a duplicate READ can differ from the original it claims to repeat. */
    enum ChangedReth
    {
        OTHER_RKEY, STARTS_BEFORE_THE_ORIGINAL, ENDS_AFTER_THE_ORIGINAL, LONGER_THAN_THE_ORIGINAL
    }

    @ParameterizedTest
    @EnumSource(ChangedReth.class)
    void duplicateReadWithAChangedRethIsDropped(final ChangedReth change)
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        final MemoryRegionEntry source = peer.mr(4096, REMOTE);
        final MemoryRegionEntry other = peer.mr(4096, REMOTE);
        final long va = source.iova() + 1024;
        final int length = 2 * MTU_BYTES;
        peer.deliver(peer.read(RQ_PSN, va, source.rkey(), length));
        assertEquals(2, peer.sent().size());

        final byte[] duplicate = switch (change)
        {
            case OTHER_RKEY -> peer.read(RQ_PSN, va, other.rkey(), length);
            case STARTS_BEFORE_THE_ORIGINAL -> peer.read(RQ_PSN, va - 8, source.rkey(), length);
            case ENDS_AFTER_THE_ORIGINAL -> peer.read(RQ_PSN + 1, va + MTU_BYTES, source.rkey(), MTU_BYTES + 8);
            case LONGER_THAN_THE_ORIGINAL -> peer.read(RQ_PSN, va, source.rkey(), length + 4);
        };
        peer.deliver(duplicate);

        assertEquals(List.of(), peer.sent(), "rxe drops a duplicate READ that is not a subset of the original");
        assertEquals(QpState.RTS, peer.qp.state());
        peer.assertAnomalies(Map.of(TransportCounter.DUPLICATE_REQUESTS, 1L,
            TransportCounter.DROP_STALE_DUPLICATE, 1L));
    }

    @ParameterizedTest
    @EnumSource(value = Opcode.class, names = {"RC_FETCH_ADD", "RC_COMPARE_SWAP"})
    void duplicateAtomicReplaysTheStoredOriginalValueWithoutExecutingAgain(final Opcode opcode)
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        final MemoryRegionEntry target = peer.mr(64, REMOTE);
        target.memory().putLong(8, 100L, ByteOrder.nativeOrder());
        final boolean add = Opcode.RC_FETCH_ADD == opcode;
        // FETCH_ADD adds 5; COMPARE_SWAP swaps 100 for 7 (a second execution would find 7 and not match).
        final byte[] request = peer.atomic(opcode, RQ_PSN, target.iova() + 8, target.rkey(), add ? 5 : 7, 100);
        final long after = add ? 105L : 7L;

        peer.deliver(request);
        SentPacket sent = peer.onlySent();
        assertEquals(Opcode.RC_ATOMIC_ACKNOWLEDGE, sent.opcode());
        assertEquals(RQ_PSN, sent.psn());
        assertEquals(ACK, sent.syndrome());
        assertEquals(1, sent.msn());
        assertEquals(100L, sent.originalData());
        assertEquals(after, target.memory().getLong(8, ByteOrder.nativeOrder()));

        peer.deliver(request);

        sent = peer.onlySent();
        assertEquals(Opcode.RC_ATOMIC_ACKNOWLEDGE, sent.opcode());
        assertEquals(RQ_PSN, sent.psn());
        assertEquals(100L, sent.originalData(), "the replay returns the stored original value");
        assertEquals(after, target.memory().getLong(8, ByteOrder.nativeOrder()), "executed once only");
        assertEquals(1, peer.qp.responderMsn());
        peer.assertAnomalies(Map.of(TransportCounter.DUPLICATE_REQUESTS, 1L, TransportCounter.ATOMIC_REPLAYS, 1L));
    }

    @Test
    void duplicateOfAResponderResourceAlreadyRecycledIsDropped()
    {
        // max_dest_rd_atomic = 2: the third READ overwrites the first one's resource (rxe_prepare_res).
        final ScriptedPeer peer = ScriptedPeer.rc(attr -> attr.maxDestRdAtomic = 2);
        final MemoryRegionEntry source = peer.mr(1024, REMOTE);
        source.memory().putBytes(0, pattern(1024, 11));
        for (int i = 0; i < 3; i++)
        {
            peer.deliver(peer.read(RQ_PSN + i, source.iova() + i * 100L, source.rkey(), 100));
        }
        assertEquals(3, peer.sent().size());

        peer.deliver(peer.read(RQ_PSN, source.iova(), source.rkey(), 100));
        assertEquals(List.of(), peer.sent(), "class D: no resource remembers the first READ any more");
        peer.assertAnomalies(Map.of(TransportCounter.DUPLICATE_REQUESTS, 1L,
            TransportCounter.DROP_STALE_DUPLICATE, 1L));

        peer.deliver(peer.read(RQ_PSN + 2, source.iova() + 200, source.rkey(), 100));
        final SentPacket replay = peer.onlySent();
        assertReadResponse(replay, Opcode.RC_RDMA_READ_RESPONSE_ONLY, RQ_PSN + 2, 3,
            slice(pattern(1024, 11), 200, 100));
        assertEquals(QpState.RTS, peer.qp.state());
        peer.assertAnomalies(Map.of(TransportCounter.DUPLICATE_REQUESTS, 2L,
            TransportCounter.DROP_STALE_DUPLICATE, 1L, TransportCounter.READ_REPLAYS, 1L));
    }

    @Test
    void duplicateAtomicWhoseResourceWasRecycledIsDroppedNotExecuted()
    {
        final ScriptedPeer peer = ScriptedPeer.rc(attr -> attr.maxDestRdAtomic = 1);
        final MemoryRegionEntry target = peer.mr(64, REMOTE);
        peer.deliver(peer.atomic(Opcode.RC_FETCH_ADD, RQ_PSN, target.iova(), target.rkey(), 1, 0));
        peer.deliver(peer.atomic(Opcode.RC_FETCH_ADD, RQ_PSN + 1, target.iova(), target.rkey(), 1, 0));
        assertEquals(2, peer.sent().size());
        assertEquals(2L, target.memory().getLong(0, ByteOrder.nativeOrder()));

        peer.deliver(peer.atomic(Opcode.RC_FETCH_ADD, RQ_PSN, target.iova(), target.rkey(), 1, 0));

        assertEquals(List.of(), peer.sent());
        assertEquals(2L, target.memory().getLong(0, ByteOrder.nativeOrder()));
        peer.assertAnomalies(Map.of(TransportCounter.DUPLICATE_REQUESTS, 1L,
            TransportCounter.DROP_STALE_DUPLICATE, 1L));
    }
}
