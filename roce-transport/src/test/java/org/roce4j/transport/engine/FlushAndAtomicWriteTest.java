package org.roce4j.transport.engine;

import java.nio.ByteOrder;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.stream.Stream;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.AsyncEventType;
import org.roce4j.ib.QpState;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WcOpcode;
import org.roce4j.ib.WcStatus;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.ib.WrOpcode;
import org.roce4j.transport.TransportCounter;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.header.AethHeader;
import org.roce4j.wire.header.FethHeader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.roce4j.transport.engine.ScriptedPeer.PEER_QPN;
import static org.roce4j.transport.engine.ScriptedPeer.RQ_PSN;
import static org.roce4j.transport.engine.ScriptedPeer.SQ_PSN;
import static org.roce4j.transport.engine.ScriptedPeer.assertCompletions;
import static org.roce4j.transport.engine.ScriptedPeer.pattern;

/**
 * FLUSH (0x1C) and ATOMIC WRITE (0x1D), IBA 1.5 annex A19, as rxe (Linux 6.2 and later) implements them, in both
 * roles. Responder (rxe_resp.c check_qp_attr_access, check_rkey, atomic_write_reply, process_flush,
 * send_read_response_ack, duplicate_request): each is answered by a zero-length RDMA READ RESPONSE ONLY, its MR and
 * QP access are checked, errors are NAKed by class, duplicates are answered again from the responder resource
 * without executing again. Requester and completer (rxe_req.c, rxe_comp.c check_ack): the packets built, the ORD
 * credit an ATOMIC WRITE takes, the completion the zero-length response gives, NAKs and a retry.
 */
@ExtendWith(EngineHealthCheck.class)
class FlushAndAtomicWriteTest
{
    private static final int ACK = AethHeader.SYNDROME_ACK_UNLIMITED;
    private static final int REMOTE = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ |
        AccessFlags.REMOTE_ATOMIC;
    private static final int QP_ACCESS = AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ |
        AccessFlags.REMOTE_ATOMIC | AccessFlags.FLUSH_GLOBAL;
    private static final long REMOTE_VA = 0x7000_0000L;
    private static final int REMOTE_RKEY = 0xABCD;
    private static final byte[] EIGHT = {1, 2, 3, 4, 5, 6, 7, 8};

    private static ScriptedPeer flushPeer()
    {
        return ScriptedPeer.rc(attr -> attr.qpAccessFlags = QP_ACCESS);
    }

    private static void assertZeroLengthReadResponse(final SentPacket sent, final int psn, final int msn)
    {
        assertEquals(Opcode.RC_RDMA_READ_RESPONSE_ONLY, sent.opcode(), sent.toString());
        assertEquals(PEER_QPN, sent.destQp(), sent.toString());
        assertEquals(psn, sent.psn(), sent.toString());
        assertEquals(ACK, sent.syndrome(), sent.toString());
        assertEquals(msn, sent.msn(), sent.toString());
        assertEquals(0, sent.payload().length, sent.toString());
    }

    private static void assertNak(final ScriptedPeer peer, final int psn, final AethHeader.NakCode code)
    {
        final SentPacket nak = peer.onlySent();
        assertEquals(Opcode.RC_ACKNOWLEDGE, nak.opcode(), nak.toString());
        assertEquals(psn, nak.psn(), nak.toString());
        assertEquals(code.syndrome(), nak.syndrome(), nak.toString());
        assertEquals(QpState.ERR, peer.qp.state());
    }

    private static Map<TransportCounter, Long> nakCounters(final AethHeader.NakCode code)
    {
        return Map.of(AethHeader.NakCode.INVALID_REQUEST == code ? TransportCounter.NAK_INVALID_REQUEST_SENT :
            TransportCounter.NAK_REMOTE_ACCESS_SENT, 1L, TransportCounter.QP_ERRORS, 1L);
    }

    // ---- responder: ATOMIC WRITE -------------------------------------------------------------------------------

    @Test
    void atomicWriteStoresItsEightBytesAndIsAnsweredByAZeroLengthReadResponse()
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        final MemoryRegionEntry target = peer.mr(1024, REMOTE);

        peer.deliver(peer.atomicWrite(RQ_PSN, target.iova() + 64, target.rkey(), 8, EIGHT));

        assertZeroLengthReadResponse(peer.onlySent(), RQ_PSN, 1);
        assertArrayEquals(EIGHT, ScriptedPeer.bytesOf(target, 64, 8), "the bytes land as they came");
        assertEquals(RQ_PSN + 1, peer.qp.responderPsn());
        assertEquals(1, peer.qp.responderMsn());
        assertEquals(8, peer.counter(TransportCounter.PAYLOAD_BYTES_RECEIVED));
        assertEquals(List.of(), peer.recvCompletions(), "an ATOMIC WRITE takes no receive WQE");
        peer.assertAnomalies(Map.of());
    }

    @Test
    void duplicateAtomicWriteIsAnsweredAgainWithoutStoringAgain()
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        final MemoryRegionEntry target = peer.mr(1024, REMOTE);
        final byte[] request = peer.atomicWrite(RQ_PSN, target.iova(), target.rkey(), 8, EIGHT);
        peer.deliver(request);
        peer.sent();
        // The application changes the word meanwhile: a replay must not overwrite it (rxe res->replay).
        target.memory().putLong(0, 42L, ByteOrder.nativeOrder());

        peer.deliver(request);

        assertZeroLengthReadResponse(peer.onlySent(), RQ_PSN, 1);
        assertEquals(42L, target.memory().getLong(0, ByteOrder.nativeOrder()));
        assertEquals(RQ_PSN + 1, peer.qp.responderPsn());
        peer.assertAnomalies(Map.of(TransportCounter.DUPLICATE_REQUESTS, 1L,
            TransportCounter.ATOMIC_WRITE_REPLAYS, 1L));
    }

    @Test
    void atomicWriteAndFlushNeedResponderResources()
    {
        for (final boolean flush : new boolean[] {false, true})
        {
            final ScriptedPeer peer = ScriptedPeer.rc(attr ->
            {
                attr.qpAccessFlags = QP_ACCESS;
                attr.maxDestRdAtomic = 0;
            });
            final MemoryRegionEntry target = peer.mr(1024, REMOTE | AccessFlags.FLUSH_GLOBAL);

            peer.deliver(flush ?
                peer.flush(RQ_PSN, target.iova(), target.rkey(), 64, FethHeader.PLACEMENT_GLOBAL, 0) :
                peer.atomicWrite(RQ_PSN, target.iova(), target.rkey(), 8, EIGHT));

            assertNak(peer, RQ_PSN, AethHeader.NakCode.INVALID_REQUEST);
            peer.assertAnomalies(nakCounters(AethHeader.NakCode.INVALID_REQUEST));
        }
    }

    // ---- responder: refusals -----------------------------------------------------------------------------------

    /**
     * One request the responder refuses with a NAK and the QP to ERR (class C).
     *
     * @param name     what is wrong.
     * @param qpAccess the responder QP's qp_access_flags.
     * @param mrAccess the target region's access.
     * @param request  builds the request against the region.
     * @param nak      the NAK rxe sends.
     */
    record Refusal(String name, int qpAccess, int mrAccess, BiFunction<ScriptedPeer, MemoryRegionEntry, byte[]> request,
        AethHeader.NakCode nak)
    {
        public String toString()
        {
            return name;
        }
    }

    static Stream<Refusal> refusals()
    {
        final AethHeader.NakCode inv = AethHeader.NakCode.INVALID_REQUEST;
        final AethHeader.NakCode acc = AethHeader.NakCode.REMOTE_ACCESS_ERROR;
        final int mrFlush = REMOTE | AccessFlags.FLUSH_GLOBAL;
        final int global = FethHeader.PLACEMENT_GLOBAL;
        final int range = FethHeader.SELECTIVITY_RANGE;
        return Stream.of(
            new Refusal("ATOMIC_WRITE, QP without REMOTE_WRITE (check_qp_attr_access)", AccessFlags.REMOTE_ATOMIC,
                REMOTE, (p, mr) -> p.atomicWrite(RQ_PSN, mr.iova(), mr.rkey(), 8, EIGHT), inv),
            new Refusal("ATOMIC_WRITE, region without REMOTE_WRITE", QP_ACCESS,
                AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_ATOMIC,
                (p, mr) -> p.atomicWrite(RQ_PSN, mr.iova(), mr.rkey(), 8, EIGHT), acc),
            new Refusal("ATOMIC_WRITE past the region", QP_ACCESS, REMOTE,
                (p, mr) -> p.atomicWrite(RQ_PSN, mr.iova() + 1020, mr.rkey(), 8, EIGHT), acc),
            new Refusal("ATOMIC_WRITE misaligned (IBA A19.4.2)", QP_ACCESS, REMOTE,
                (p, mr) -> p.atomicWrite(RQ_PSN, mr.iova() + 4, mr.rkey(), 8, EIGHT), inv),
            new Refusal("ATOMIC_WRITE payload shorter than its RETH length", QP_ACCESS, REMOTE,
                (p, mr) -> p.atomicWrite(RQ_PSN, mr.iova(), mr.rkey(), 8, new byte[] {1, 2, 3, 4}), inv),
            new Refusal("ATOMIC_WRITE of 4 bytes (IBA A19: 8)", QP_ACCESS, REMOTE,
                (p, mr) -> p.atomicWrite(RQ_PSN, mr.iova(), mr.rkey(), 4, new byte[] {1, 2, 3, 4}), inv),
            new Refusal("FLUSH past the region", QP_ACCESS, mrFlush,
                (p, mr) -> p.flush(RQ_PSN, mr.iova() + 1000, mr.rkey(), 100, global, range), acc),
            new Refusal("zero-length FLUSH with an unknown rkey (no C9-88 exemption)", QP_ACCESS, mrFlush,
                (p, mr) -> p.flush(RQ_PSN, 0, 0x1234_5678, 0, global, range), acc),
            new Refusal("FLUSH, region without FLUSH_GLOBAL", QP_ACCESS, REMOTE,
                (p, mr) -> p.flush(RQ_PSN, mr.iova(), mr.rkey(), 64, global, range), acc),
            new Refusal("FLUSH GLOBAL|PERSISTENT, QP with FLUSH_GLOBAL only", QP_ACCESS,
                mrFlush | AccessFlags.FLUSH_PERSISTENT, (p, mr) -> p.flush(RQ_PSN, mr.iova(), mr.rkey(), 64,
                    global | FethHeader.PLACEMENT_PERSISTENT, range), inv),
            new Refusal("FLUSH longer than 2^31 (C9-94)", QP_ACCESS, mrFlush,
                (p, mr) -> p.flush(RQ_PSN, mr.iova(), mr.rkey(), 0x8000_0001L, global, FethHeader.SELECTIVITY_MR),
                inv));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusals")
    void refusedRequestIsNakedAndTheQpGoesToError(final Refusal refusal)
    {
        final ScriptedPeer peer = ScriptedPeer.rc(attr -> attr.qpAccessFlags = refusal.qpAccess());
        final MemoryRegionEntry target = peer.mr(1024, refusal.mrAccess());

        peer.deliver(refusal.request().apply(peer, target));

        assertNak(peer, RQ_PSN, refusal.nak());
        assertArrayEquals(new byte[1024], ScriptedPeer.bytesOf(target, 0, 1024), "nothing stored");
        assertEquals(0, peer.counter(TransportCounter.FLUSHES_EXECUTED));
        assertEquals(List.of(AethHeader.NakCode.INVALID_REQUEST == refusal.nak() ? AsyncEventType.QP_REQ_ERR :
            AsyncEventType.QP_ACCESS_ERR), peer.events());
        peer.assertAnomalies(nakCounters(refusal.nak()));
    }

    // ---- responder: FLUSH --------------------------------------------------------------------------------------

    @Test
    void flushOfARangeIsAnsweredByAZeroLengthReadResponse()
    {
        final ScriptedPeer peer = flushPeer();
        final MemoryRegionEntry target = peer.mr(1024, REMOTE | AccessFlags.FLUSH_GLOBAL);

        peer.deliver(peer.flush(RQ_PSN, target.iova() + 128, target.rkey(), 512, FethHeader.PLACEMENT_GLOBAL,
            FethHeader.SELECTIVITY_RANGE));

        assertZeroLengthReadResponse(peer.onlySent(), RQ_PSN, 1);
        assertEquals(RQ_PSN + 1, peer.qp.responderPsn());
        assertEquals(1, peer.counter(TransportCounter.FLUSHES_EXECUTED));
        peer.assertAnomalies(Map.of());
    }

    @Test
    void flushOfTheWholeRegionIgnoresTheRange()
    {
        final ScriptedPeer peer = flushPeer();
        final MemoryRegionEntry target = peer.mr(1024, REMOTE | AccessFlags.FLUSH_GLOBAL);

        // rxe check_rkey: "FLUSH MR may not set va or resid": no range check at level MR.
        peer.deliver(peer.flush(RQ_PSN, 0xDEAD_0000L, target.rkey(), 1 << 20, FethHeader.PLACEMENT_GLOBAL,
            FethHeader.SELECTIVITY_MR));

        assertZeroLengthReadResponse(peer.onlySent(), RQ_PSN, 1);
        peer.assertAnomalies(Map.of());
    }

    @Test
    void persistentFlushNeedsEveryPlacementTypesAccessOnTheRegion()
    {
        // Both on the QP; the region has FLUSH_GLOBAL only. rxe lookup_mr wants every access bit asked for.
        final ScriptedPeer peer = ScriptedPeer.rc(attr -> attr.qpAccessFlags =
            QP_ACCESS | AccessFlags.FLUSH_PERSISTENT);
        final MemoryRegionEntry globalOnly = peer.mr(1024, REMOTE | AccessFlags.FLUSH_GLOBAL);
        final MemoryRegionEntry both = peer.mr(1024, REMOTE | AccessFlags.FLUSH_GLOBAL |
            AccessFlags.FLUSH_PERSISTENT);
        final int type = FethHeader.PLACEMENT_GLOBAL | FethHeader.PLACEMENT_PERSISTENT;

        peer.deliver(peer.flush(RQ_PSN, both.iova(), both.rkey(), 64, type, FethHeader.SELECTIVITY_RANGE));
        assertZeroLengthReadResponse(peer.onlySent(), RQ_PSN, 1);

        peer.deliver(peer.flush(RQ_PSN + 1, globalOnly.iova(), globalOnly.rkey(), 64, type,
            FethHeader.SELECTIVITY_RANGE));
        assertNak(peer, RQ_PSN + 1, AethHeader.NakCode.REMOTE_ACCESS_ERROR);
        peer.assertAnomalies(nakCounters(AethHeader.NakCode.REMOTE_ACCESS_ERROR));
    }

    @Test
    void flushWithoutAPlacementTypeNeedsNoFlushAccess()
    {
        // rxe asks lookup_mr for the access of the placement types named: none named, none needed (and nothing to
        // do). The QP has no flush access either.
        final ScriptedPeer peer = ScriptedPeer.rc();
        final MemoryRegionEntry region = peer.mr(1024, REMOTE);

        peer.deliver(peer.flush(RQ_PSN, region.iova(), region.rkey(), 64, 0, FethHeader.SELECTIVITY_RANGE));

        assertZeroLengthReadResponse(peer.onlySent(), RQ_PSN, 1);
        peer.assertAnomalies(Map.of());
    }

    @Test
    void duplicateFlushIsAnsweredAgainAndAnUnknownOneIsDropped()
    {
        final ScriptedPeer peer = flushPeer();
        final MemoryRegionEntry target = peer.mr(1024, REMOTE | AccessFlags.FLUSH_GLOBAL);
        final byte[] flush = peer.flush(RQ_PSN + 1, target.iova(), target.rkey(), 64, FethHeader.PLACEMENT_GLOBAL,
            FethHeader.SELECTIVITY_RANGE);
        peer.deliver(peer.write(Opcode.RC_RDMA_WRITE_ONLY, RQ_PSN, pattern(8, 1), target.iova(), target.rkey(), 8,
            false), flush);
        peer.sent();

        peer.deliver(flush);
        assertZeroLengthReadResponse(peer.onlySent(), RQ_PSN + 1, 2);
        assertEquals(1, peer.counter(TransportCounter.FLUSHES_EXECUTED), "a replay does not flush again");

        // A FLUSH at the WRITE's PSN: no responder resource remembers it (class D: dropped).
        peer.deliver(peer.flush(RQ_PSN, target.iova(), target.rkey(), 64, FethHeader.PLACEMENT_GLOBAL,
            FethHeader.SELECTIVITY_RANGE));
        assertEquals(List.of(), peer.sent());
        assertEquals(QpState.RTS, peer.qp.state());
        peer.assertAnomalies(Map.of(TransportCounter.DUPLICATE_REQUESTS, 2L, TransportCounter.FLUSH_REPLAYS, 1L,
            TransportCounter.DROP_STALE_DUPLICATE, 1L));
    }

    // ---- requester and completer -------------------------------------------------------------------------------

    @Test
    void flushGoesOutWithFethAndRethAndCompletesOnTheZeroLengthReadResponse()
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        peer.post(w -> w.wrId(1).opcode(WrOpcode.FLUSH).flags(SendFlags.SIGNALED)
            .remote(REMOTE_VA, REMOTE_RKEY).flush(4096, FethHeader.PLACEMENT_GLOBAL, FethHeader.SELECTIVITY_MR));

        final SentPacket request = peer.onlySent();
        assertEquals(Opcode.RC_FLUSH, request.opcode());
        assertEquals(SQ_PSN, request.psn());
        assertTrue(request.ackReq());
        assertEquals(REMOTE_VA, request.va());
        assertEquals(REMOTE_RKEY, request.rkey());
        assertEquals(4096, request.dmaLength());
        assertEquals(0, request.payload().length, "oA19-2: a FLUSH has no payload");
        assertEquals(FethHeader.PLACEMENT_GLOBAL | FethHeader.SELECTIVITY_MR << FethHeader.SELECTIVITY_SHIFT,
            request.feth());

        peer.deliver(peer.readResponse(Opcode.RC_RDMA_READ_RESPONSE_ONLY, SQ_PSN, new byte[0]));
        final List<WorkCompletion> done = peer.sendCompletions();
        assertCompletions(done, 1, WcStatus.SUCCESS);
        assertEquals(WcOpcode.FLUSH, done.get(0).opcode());
        peer.assertAnomalies(Map.of());
    }

    @Test
    void atomicWriteCarriesItsEightBytesAndCompletesOnTheZeroLengthReadResponse()
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        peer.post(w -> w.wrId(2).opcode(WrOpcode.ATOMIC_WRITE).flags(SendFlags.SIGNALED)
            .remote(REMOTE_VA, REMOTE_RKEY).atomicWrite(0x0102_0304_0506_0708L));

        final SentPacket request = peer.onlySent();
        assertEquals(Opcode.RC_ATOMIC_WRITE, request.opcode());
        assertTrue(request.ackReq());
        assertEquals(REMOTE_VA, request.va());
        assertEquals(8, request.dmaLength());
        final UnsafeBuffer payload = new UnsafeBuffer(request.payload());
        assertEquals(8, request.payload().length);
        assertEquals(0x0102_0304_0506_0708L, payload.getLong(0, ByteOrder.nativeOrder()));
        assertEquals(8, peer.counter(TransportCounter.PAYLOAD_BYTES_SENT));

        peer.deliver(peer.readResponse(Opcode.RC_RDMA_READ_RESPONSE_ONLY, SQ_PSN, new byte[0]));
        final List<WorkCompletion> done = peer.sendCompletions();
        assertCompletions(done, 2, WcStatus.SUCCESS);
        assertEquals(WcOpcode.ATOMIC_WRITE, done.get(0).opcode());
        peer.assertAnomalies(Map.of());
    }

    @Test
    void atomicWriteTakesAnOrdCreditAndFlushDoesNot()
    {
        final ScriptedPeer peer = ScriptedPeer.rc(attr -> attr.maxRdAtomic = 1);
        peer.post(w -> w.wrId(1).opcode(WrOpcode.ATOMIC_WRITE).remote(REMOTE_VA, REMOTE_RKEY).atomicWrite(1));
        peer.post(w -> w.wrId(2).opcode(WrOpcode.ATOMIC_WRITE).remote(REMOTE_VA, REMOTE_RKEY).atomicWrite(2));
        assertEquals(1, peer.sent().size(), "rxe check_init_depth: the second waits for the first's credit");
        assertEquals(1, peer.counter(TransportCounter.ORD_STALLS));

        peer.deliver(peer.readResponse(Opcode.RC_RDMA_READ_RESPONSE_ONLY, SQ_PSN, new byte[0]));
        final List<SentPacket> next = peer.sent();
        assertEquals(1, next.size());
        assertEquals(SQ_PSN + 1, next.get(0).psn());

        final ScriptedPeer flushes = ScriptedPeer.rc(attr -> attr.maxRdAtomic = 1);
        flushes.post(w -> w.wrId(1).opcode(WrOpcode.ATOMIC_WRITE).remote(REMOTE_VA, REMOTE_RKEY).atomicWrite(1));
        flushes.post(w -> w.wrId(2).opcode(WrOpcode.FLUSH).remote(REMOTE_VA, REMOTE_RKEY)
            .flush(64, FethHeader.PLACEMENT_GLOBAL, FethHeader.SELECTIVITY_RANGE));
        assertEquals(2, flushes.sent().size(), "a FLUSH takes no ORD credit");
        assertEquals(0, flushes.counter(TransportCounter.ORD_STALLS));
    }

    @Test
    void nakedAtomicWriteCompletesWithTheRemoteError()
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        peer.post(w -> w.wrId(1).opcode(WrOpcode.ATOMIC_WRITE).remote(REMOTE_VA + 4, REMOTE_RKEY).atomicWrite(1));
        peer.sent();

        peer.deliver(peer.nak(SQ_PSN, AethHeader.NakCode.INVALID_REQUEST));

        assertCompletions(peer.sendCompletions(), 1, WcStatus.REM_INV_REQ_ERR);
        assertEquals(QpState.ERR, peer.qp.state());
        peer.assertAnomalies(Map.of(TransportCounter.NAK_ERROR_RECEIVED, 1L, TransportCounter.QP_ERRORS, 1L,
            TransportCounter.ERROR_COMPLETIONS, 1L));
    }

    @Test
    void zeroLengthReadResponseWithDataIsABadResponse()
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        peer.post(w -> w.wrId(1).opcode(WrOpcode.FLUSH).remote(REMOTE_VA, REMOTE_RKEY)
            .flush(64, FethHeader.PLACEMENT_GLOBAL, FethHeader.SELECTIVITY_RANGE));
        peer.sent();

        peer.deliver(peer.readResponse(Opcode.RC_RDMA_READ_RESPONSE_ONLY, SQ_PSN, pattern(8, 1)));

        assertCompletions(peer.sendCompletions(), 1, WcStatus.BAD_RESP_ERR);
        peer.assertAnomalies(Map.of(TransportCounter.DROP_BAD_RESPONSE, 1L, TransportCounter.QP_ERRORS, 1L,
            TransportCounter.ERROR_COMPLETIONS, 1L));
    }

    @Test
    void lostResponseIsRetriedWithTheSameRequest()
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        peer.post(w -> w.wrId(1).opcode(WrOpcode.ATOMIC_WRITE).flags(SendFlags.SIGNALED)
            .remote(REMOTE_VA, REMOTE_RKEY).atomicWrite(7));
        final SentPacket first = peer.onlySent();

        peer.advanceClockTo(peer.engine.earliestDeadlineNs());
        final SentPacket retry = peer.onlySent();

        // rxe req_retry sets wqe->iova only for READ/WRITE/atomic WQEs and resends these with VA 0; the same
        // request goes out again here.
        assertEquals(Opcode.RC_ATOMIC_WRITE, retry.opcode());
        assertEquals(first.psn(), retry.psn());
        assertEquals(first.va(), retry.va());
        assertArrayEquals(first.payload(), retry.payload());
        peer.deliver(peer.readResponse(Opcode.RC_RDMA_READ_RESPONSE_ONLY, SQ_PSN, new byte[0]));
        assertCompletions(peer.sendCompletions(), 1, WcStatus.SUCCESS);
        peer.assertAnomalies(Map.of(TransportCounter.RETRIES, 1L, TransportCounter.RETRANSMIT_TIMEOUTS, 1L,
            TransportCounter.PACKETS_RETRANSMITTED, 1L));
    }
}
