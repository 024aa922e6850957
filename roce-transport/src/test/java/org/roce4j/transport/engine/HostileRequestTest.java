package org.roce4j.transport.engine;

import java.nio.ByteOrder;
import java.util.List;
import java.util.Map;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.AsyncEventType;
import org.roce4j.ib.QpState;
import org.roce4j.ib.QpType;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WcStatus;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.ib.WrOpcode;
import org.roce4j.transport.TransportCounter;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.header.AethHeader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.roce4j.transport.engine.ScriptedPeer.MTU_BYTES;
import static org.roce4j.transport.engine.ScriptedPeer.RQ_PSN;
import static org.roce4j.transport.engine.ScriptedPeer.pattern;

/**
 * A hostile peer sending requests to the engine's responder (issue 13): bytes for a region deregistered after the
 * first packet of a WRITE or SEND, SEND with Invalidate naming an ordinary region, UC messages broken on an SRQ,
 * SRQ receives with more SGEs than the QP's max_recv_sge, and regions that end exactly at 2^64. Each case checks
 * what was sent back, the completions, every byte of the memory involved and every anomaly counter.
 */
@ExtendWith(EngineHealthCheck.class)
class HostileRequestTest
{
    private static final int ALL = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ |
        AccessFlags.REMOTE_ATOMIC;
    private static final int P = RQ_PSN;
    /** A region whose last byte is the last address of the 64-bit space: IOVA 2^64 - 4096. */
    private static final long TOP_IOVA = -4096L;

    private static void assertAck(final SentPacket sent, final int psn, final int syndrome)
    {
        assertEquals(Opcode.RC_ACKNOWLEDGE, sent.opcode(), sent.toString());
        assertEquals(psn, sent.psn(), sent.toString());
        assertEquals(syndrome, sent.syndrome(), sent.toString());
    }

    // ---- memory deregistered in the middle of a message -------------------------------------------------------

    @Test
    void writeMiddleAfterTheTargetWasDeregisteredIsARemoteAccessErrorAndPlacesNothing()
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        final MemoryRegionEntry target = peer.mr(4096, ALL);
        final byte[] data = pattern(3 * MTU_BYTES, 2);
        peer.deliver(peer.write(Opcode.RC_RDMA_WRITE_FIRST, P, ScriptedPeer.slice(data, 0, MTU_BYTES),
            target.iova(), target.rkey(), 3 * MTU_BYTES, false));
        assertArrayEquals(ScriptedPeer.slice(data, 0, MTU_BYTES), ScriptedPeer.bytesOf(target, 0, MTU_BYTES));
        peer.engine.deregisterMemory(target);

        // Before the fix these bytes still landed and were ACKed (issue 13 #2).
        peer.deliver(peer.write(Opcode.RC_RDMA_WRITE_MIDDLE, P + 1, ScriptedPeer.slice(data, MTU_BYTES, MTU_BYTES),
            0, 0, 0, false), peer.write(Opcode.RC_RDMA_WRITE_LAST, P + 2,
            ScriptedPeer.slice(data, 2 * MTU_BYTES, MTU_BYTES), 0, 0, 0, true));

        assertAck(peer.onlySent(), P + 1, AethHeader.NakCode.REMOTE_ACCESS_ERROR.syndrome());
        assertArrayEquals(new byte[4096 - MTU_BYTES], ScriptedPeer.bytesOf(target, MTU_BYTES, 4096 - MTU_BYTES));
        assertEquals(QpState.ERR, peer.qp.state());
        assertEquals(List.of(AsyncEventType.QP_ACCESS_ERR), peer.events());
        peer.assertAnomalies(Map.of(TransportCounter.NAK_REMOTE_ACCESS_SENT, 1L, TransportCounter.QP_ERRORS, 1L,
            TransportCounter.DROP_WRONG_STATE, 1L));
    }

    @Test
    void ucWriteMiddleAfterTheTargetWasDeregisteredIsDroppedWithItsMessage()
    {
        final ScriptedPeer peer = ScriptedPeer.create(QpType.UC, QpState.RTS, config -> {}, attr -> {});
        final MemoryRegionEntry target = peer.mr(4096, ALL);
        final byte[] data = pattern(3 * MTU_BYTES, 4);
        peer.deliver(peer.write(Opcode.UC_RDMA_WRITE_FIRST, P, ScriptedPeer.slice(data, 0, MTU_BYTES),
            target.iova(), target.rkey(), 3 * MTU_BYTES, false));
        peer.engine.deregisterMemory(target);

        peer.deliver(peer.write(Opcode.UC_RDMA_WRITE_MIDDLE, P + 1, ScriptedPeer.slice(data, MTU_BYTES, MTU_BYTES),
            0, 0, 0, false), peer.write(Opcode.UC_RDMA_WRITE_LAST, P + 2,
            ScriptedPeer.slice(data, 2 * MTU_BYTES, MTU_BYTES), 0, 0, 0, false));

        assertEquals(List.of(), peer.sent());
        assertArrayEquals(new byte[4096 - MTU_BYTES], ScriptedPeer.bytesOf(target, MTU_BYTES, 4096 - MTU_BYTES));
        assertEquals(QpState.RTS, peer.qp.state(), "UC drops the message (class D1/E), the QP lives on");
        peer.assertAnomalies(Map.of(TransportCounter.DROP_UC_MESSAGE, 2L));
    }

    @Test
    void sendLastIntoAReceiveBufferDeregisteredMeanwhileIsAMalformedWqeAndPlacesNothing()
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        final MemoryRegionEntry buffer = peer.mr(4096, ALL);
        peer.postRecv(7, buffer, 0, 2048);
        final byte[] data = pattern(2 * MTU_BYTES, 6);
        peer.deliver(peer.send(Opcode.RC_SEND_FIRST, P, ScriptedPeer.slice(data, 0, MTU_BYTES), false));
        peer.engine.deregisterMemory(buffer);

        // Before the fix this completed RECV SUCCESS into the deregistered buffer (issue 13 #2).
        peer.deliver(peer.send(Opcode.RC_SEND_LAST, P + 1, ScriptedPeer.slice(data, MTU_BYTES, MTU_BYTES), true));

        // rxe send_data_in: copy_data fails its lkey lookup, RESPST_ERR_MALFORMED_WQE (class A).
        assertAck(peer.onlySent(), P + 1, AethHeader.NakCode.REMOTE_OPERATIONAL_ERROR.syndrome());
        final List<WorkCompletion> recv = peer.recvCompletions();
        assertEquals(1, recv.size(), recv.toString());
        assertEquals(7, recv.get(0).wrId());
        assertEquals(WcStatus.LOC_QP_OP_ERR, recv.get(0).status());
        assertArrayEquals(new byte[4096 - MTU_BYTES], ScriptedPeer.bytesOf(buffer, MTU_BYTES, 4096 - MTU_BYTES));
        assertEquals(QpState.ERR, peer.qp.state());
        peer.assertAnomalies(Map.of(TransportCounter.NAK_REMOTE_OPERATIONAL_SENT, 1L, TransportCounter.QP_ERRORS,
            1L, TransportCounter.ERROR_COMPLETIONS, 1L));
    }

    // ---- back-pressure -----------------------------------------------------------------------------------------

    @Test
    void anAckThatMetAFullLinkGoesOutOnceTheLinkHasRoomAndLaterAcksToo()
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        final MemoryRegionEntry target = peer.mr(4096, ALL);
        peer.link.full = true;
        peer.deliver(peer.write(Opcode.RC_RDMA_WRITE_ONLY, P, pattern(64, 1), target.iova(), target.rkey(), 64,
            true));
        assertEquals(List.of(), peer.sent());

        // Found by the hostile suite over the tunnel: the ACK that met the full link was dropped from the ACK
        // list but its QP stayed marked as listed, so no ACK of that QP ever left again and the peer retried forever.
        peer.link.full = false;
        peer.run();
        assertAck(peer.onlySent(), P, AethHeader.SYNDROME_ACK_UNLIMITED);
        final byte[] write = peer.write(Opcode.RC_RDMA_WRITE_ONLY, P + 1, pattern(64, 2), target.iova() + 64,
            target.rkey(), 64, true);
        peer.deliver(write);
        peer.deliver(write);
        final List<SentPacket> acks = peer.sent();
        assertEquals(2, acks.size(), acks.toString());
        assertAck(acks.get(0), P + 1, AethHeader.SYNDROME_ACK_UNLIMITED);
        assertAck(acks.get(1), P + 1, AethHeader.SYNDROME_ACK_UNLIMITED);
        assertTrue(peer.counter(TransportCounter.LINK_BACK_PRESSURE) > 0);
        peer.assertAnomalies(Map.of(TransportCounter.LINK_BACK_PRESSURE, peer.counter(
            TransportCounter.LINK_BACK_PRESSURE), TransportCounter.DUPLICATE_REQUESTS, 1L));
    }

    // ---- SEND with Invalidate ---------------------------------------------------------------------------------

    @Test
    void sendWithInvalidateNamingAnOrdinaryRegionIsClassJAndLeavesTheRegionValid()
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        final MemoryRegionEntry buffer = peer.mr(1024, ALL);
        final MemoryRegionEntry ordinary = peer.mr(1024, ALL);
        peer.postRecv(1, buffer, 0, 1024);
        peer.postRecv(2, buffer, 0, 1024);

        // Before the fix any region of the PD could be disabled by a peer holding its rkey (issue 13 #3).
        peer.deliver(peer.frame(Opcode.RC_SEND_ONLY_WITH_INVALIDATE, peer.qp.qpn(), P, pattern(16, 1), b ->
        {
            b.bthHeader().ackReq(true);
            b.ieth().rkey(ordinary.rkey());
        }));

        assertTrue(ordinary.isValid());
        // rxe RESPST_ERR_INVALIDATE_RKEY: IB_WC_REM_INV_REQ_ERR, QP to error, the ACK itself still goes out.
        assertAck(peer.onlySent(), P, AethHeader.SYNDROME_ACK_UNLIMITED);
        final List<WorkCompletion> recv = peer.recvCompletions();
        assertEquals(2, recv.size(), recv.toString());
        assertEquals(WcStatus.REM_INV_REQ_ERR, recv.get(0).status());
        assertEquals(0, recv.get(0).wcFlags() & WorkCompletion.FLAG_WITH_INV, recv.get(0).toString());
        assertEquals(WcStatus.WR_FLUSH_ERR, recv.get(1).status());
        assertEquals(QpState.ERR, peer.qp.state());
        assertEquals(List.of(AsyncEventType.QP_REQ_ERR), peer.events());
        peer.assertAnomalies(Map.of(TransportCounter.QP_ERRORS, 1L, TransportCounter.ERROR_COMPLETIONS, 2L));
    }

    @Test
    void sendWithInvalidateInvalidatesARegionRegisteredForRemoteInvalidation()
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        final MemoryRegionEntry buffer = peer.mr(1024, ALL);
        final MemoryRegionEntry exposed = peer.mr(1024, ALL | AccessFlags.REMOTE_INVALIDATE);
        peer.postRecv(1, buffer, 0, 1024);
        final byte[] data = pattern(MTU_BYTES + 16, 3);

        peer.deliver(peer.send(Opcode.RC_SEND_FIRST, P, ScriptedPeer.slice(data, 0, MTU_BYTES), false),
            peer.frame(Opcode.RC_SEND_LAST_WITH_INVALIDATE, peer.qp.qpn(), P + 1,
                ScriptedPeer.slice(data, MTU_BYTES, 16), b ->
                {
                    b.bthHeader().ackReq(true);
                    b.ieth().rkey(exposed.rkey());
                }));

        assertFalse(exposed.isValid());
        assertAck(peer.onlySent(), P + 1, AethHeader.SYNDROME_ACK_UNLIMITED);
        final WorkCompletion recv = peer.recvCompletions().get(0);
        assertEquals(WcStatus.SUCCESS, recv.status());
        assertEquals(exposed.rkey(), recv.invalidatedRkey());
        assertArrayEquals(data, ScriptedPeer.bytesOf(buffer, 0, data.length));

        // The invalidated rkey now fails like any unknown one.
        peer.deliver(peer.write(Opcode.RC_RDMA_WRITE_ONLY, P + 2, new byte[8], exposed.iova(), exposed.rkey(), 8,
            true));
        assertAck(peer.onlySent(), P + 2, AethHeader.NakCode.REMOTE_ACCESS_ERROR.syndrome());
        assertArrayEquals(new byte[1024], ScriptedPeer.bytesOf(exposed, 0, 1024));
        peer.assertAnomalies(Map.of(TransportCounter.NAK_REMOTE_ACCESS_SENT, 1L, TransportCounter.QP_ERRORS, 1L));
    }

    // ---- UC and SRQ -------------------------------------------------------------------------------------------

    @Test
    void ucMessagesBrokenTwiceOnAnSrqCompleteTheirWqesWithAnErrorAndLoseNone()
    {
        final ReceiveQueue srq = new ReceiveQueue(77, 8, 2);
        final ScriptedPeer peer = ScriptedPeer.withSrq(QpType.UC, srq, 1);
        final MemoryRegionEntry buffer = peer.mr(4 * 1024, ALL);
        for (int i = 0; i < 4; i++)
        {
            final RecvWqe wqe = srq.claim(100 + i);
            wqe.sgl().add(buffer.iova() + i * 1024L, 1024, buffer.lkey());
            srq.publish();
        }
        final byte[] data = pattern(MTU_BYTES + 40, 8);

        // Two messages broken by a new FIRST (their LAST lost), then one broken by a PSN gap, then a whole one.
        peer.deliver(peer.send(Opcode.UC_SEND_FIRST, P, new byte[MTU_BYTES], false),
            peer.send(Opcode.UC_SEND_FIRST, P + 1, new byte[MTU_BYTES], false),
            peer.send(Opcode.UC_SEND_FIRST, P + 2, new byte[MTU_BYTES], false),
            peer.send(Opcode.UC_SEND_LAST, P + 4, new byte[40], false),
            peer.send(Opcode.UC_SEND_FIRST, P + 5, ScriptedPeer.slice(data, 0, MTU_BYTES), false),
            peer.send(Opcode.UC_SEND_LAST, P + 6, ScriptedPeer.slice(data, MTU_BYTES, 40), false));

        // rxe do_class_d1e_error (class E): the SRQ WQE of a broken message completes with IB_WC_REM_INV_REQ_ERR.
        final List<WorkCompletion> recv = peer.recvCompletions();
        assertEquals(4, recv.size(), recv.toString());
        for (int i = 0; i < 3; i++)
        {
            assertEquals(100 + i, recv.get(i).wrId(), recv.toString());
            assertEquals(WcStatus.REM_INV_REQ_ERR, recv.get(i).status(), recv.toString());
        }
        assertEquals(103, recv.get(3).wrId());
        assertEquals(WcStatus.SUCCESS, recv.get(3).status());
        assertEquals(data.length, recv.get(3).byteLen());
        assertArrayEquals(data, ScriptedPeer.bytesOf(buffer, 3 * 1024, data.length));
        assertEquals(0, srq.available(), "four WQEs taken, four completed");
        assertEquals(QpState.RTS, peer.qp.state());
        peer.assertAnomalies(Map.of(TransportCounter.DROP_UC_MESSAGE, 4L, TransportCounter.ERROR_COMPLETIONS, 3L));
    }

    @Test
    void srqReceiveWithMoreSgesThanTheQpsMaxRecvSgeScattersAcrossAllOfThem()
    {
        final ReceiveQueue srq = new ReceiveQueue(78, 4, 6);
        final ScriptedPeer peer = ScriptedPeer.withSrq(QpType.RC, srq, 1);
        final MemoryRegionEntry buffer = peer.mr(1024, ALL);
        final RecvWqe wqe = srq.claim(9);
        for (int i = 0; i < 6; i++)
        {
            wqe.sgl().add(buffer.iova() + i * 100L, 50, buffer.lkey());
        }
        srq.publish();
        final byte[] data = pattern(MTU_BYTES + 40, 5);

        // Before the fix the SRQ copy had max_recv_sge (1) slots: every SEND threw inside the engine (issue 13 #5).
        peer.deliver(peer.send(Opcode.RC_SEND_FIRST, P, ScriptedPeer.slice(data, 0, MTU_BYTES), false),
            peer.send(Opcode.RC_SEND_LAST, P + 1, ScriptedPeer.slice(data, MTU_BYTES, 40), true));

        assertAck(peer.onlySent(), P + 1, AethHeader.SYNDROME_ACK_UNLIMITED);
        final WorkCompletion recv = peer.recvCompletions().get(0);
        assertEquals(WcStatus.SUCCESS, recv.status());
        assertEquals(data.length, recv.byteLen());
        for (int i = 0; i < 6; i++)
        {
            final int take = Math.min(50, data.length - i * 50);
            assertArrayEquals(ScriptedPeer.slice(data, i * 50, take), ScriptedPeer.bytesOf(buffer, i * 100, take));
            assertArrayEquals(new byte[100 - take], ScriptedPeer.bytesOf(buffer, i * 100 + take, 100 - take));
        }
        peer.assertAnomalies(Map.of());
    }

    // ---- a region that ends exactly at 2^64 --------------------------------------------------------------------

    private static MemoryRegionEntry topRegion(final ScriptedPeer peer, final int access)
    {
        final MemoryRegionEntry mr = peer.engine.registerMemory(TOP_IOVA, access, 1, new UnsafeBuffer(new byte[4096]));
        mr.memory().putBytes(0, pattern(4096, 11));
        return mr;
    }

    @Test
    void readWriteAndAtomicReachTheLastBytesOfARegionEndingAt2To64()
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        final MemoryRegionEntry top = topRegion(peer, ALL);

        // Before the fix the bounds check computed va + length = 0 and NAKed (issue 13 #6).
        peer.deliver(peer.read(P, -256L, top.rkey(), 256));
        final SentPacket response = peer.onlySent();
        assertEquals(Opcode.RC_RDMA_READ_RESPONSE_ONLY, response.opcode());
        assertArrayEquals(ScriptedPeer.slice(pattern(4096, 11), 4096 - 256, 256), response.payload());

        final byte[] written = pattern(100, 12);
        peer.deliver(peer.write(Opcode.RC_RDMA_WRITE_ONLY, P + 1, written, -100L, top.rkey(), 100, true));
        assertAck(peer.onlySent(), P + 1, AethHeader.SYNDROME_ACK_UNLIMITED);
        assertArrayEquals(written, ScriptedPeer.bytesOf(top, 4096 - 100, 100));

        final long before = top.memory().getLong(4096 - 8, ByteOrder.nativeOrder());
        peer.deliver(peer.atomic(Opcode.RC_FETCH_ADD, P + 2, -8L, top.rkey(), 3, 0));
        assertEquals(before, peer.onlySent().originalData());
        assertEquals(before + 3, top.memory().getLong(4096 - 8, ByteOrder.nativeOrder()));

        // A duplicate of the READ is replayed from the same range (as the memory reads now).
        peer.deliver(peer.read(P, -256L, top.rkey(), 256));
        assertArrayEquals(ScriptedPeer.bytesOf(top, 4096 - 256, 256), peer.onlySent().payload());
        peer.assertAnomalies(Map.of(TransportCounter.DUPLICATE_REQUESTS, 1L, TransportCounter.READ_REPLAYS, 1L));
    }

    @Test
    void anAccessRunningPast2To64IsStillARemoteAccessError()
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        final MemoryRegionEntry top = topRegion(peer, ALL);

        peer.deliver(peer.read(P, -256L, top.rkey(), 512));

        assertAck(peer.onlySent(), P, AethHeader.NakCode.REMOTE_ACCESS_ERROR.syndrome());
        peer.assertAnomalies(Map.of(TransportCounter.NAK_REMOTE_ACCESS_SENT, 1L, TransportCounter.QP_ERRORS, 1L));
    }

    @Test
    void localSgesAtTheEndOf2To64ReceiveSendAndLandAReadResponse()
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        final MemoryRegionEntry top = topRegion(peer, ALL);
        peer.postRecv(1, top, 4096 - 200, 200);
        final byte[] received = pattern(200, 13);
        peer.deliver(peer.send(Opcode.RC_SEND_ONLY, P, received, true));
        assertEquals(WcStatus.SUCCESS, peer.recvCompletions().get(0).status());
        assertArrayEquals(received, ScriptedPeer.bytesOf(top, 4096 - 200, 200));
        peer.sent();

        peer.post(w -> w.wrId(2).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sgl()
            .add(-64L, 64, top.lkey()));
        assertArrayEquals(ScriptedPeer.bytesOf(top, 4096 - 64, 64), peer.onlySent().payload());
        peer.post(w -> w.wrId(3).opcode(WrOpcode.RDMA_READ).flags(SendFlags.SIGNALED).remote(0x1000, 0x77)
            .sgl().add(-32L, 32, top.lkey()));
        peer.sent();
        final byte[] data = pattern(32, 14);
        peer.deliver(peer.ack(ScriptedPeer.SQ_PSN, AethHeader.SYNDROME_ACK_UNLIMITED),
            peer.readResponse(Opcode.RC_RDMA_READ_RESPONSE_ONLY, ScriptedPeer.SQ_PSN + 1, data));
        final List<WorkCompletion> sends = peer.sendCompletions();
        assertEquals(2, sends.size(), sends.toString());
        assertEquals(WcStatus.SUCCESS, sends.get(1).status());
        assertArrayEquals(data, ScriptedPeer.bytesOf(top, 4096 - 32, 32));
        peer.assertAnomalies(Map.of());
    }
}
