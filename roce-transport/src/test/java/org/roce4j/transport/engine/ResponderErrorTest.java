package org.roce4j.transport.engine;

import java.nio.ByteOrder;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.AsyncEventType;
import org.roce4j.ib.QpState;
import org.roce4j.ib.QpType;
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

/**
 * Responder error rules (rxe_resp.c check_op_seq, check_op_valid, check_resource, rxe_resp_check_length,
 * check_rkey; protocol-facts §A.7): RC class C errors NAK "invalid request" or "remote access error" with the
 * offending PSN, move the QP to ERR and raise the matching asynchronous event; UC drops the message silently; a
 * missing receive WQE is an RNR NAK (RC) or a drop (UC/UD).
 */
@ExtendWith(EngineHealthCheck.class)
class ResponderErrorTest
{
    private static final int ALL_REMOTE = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE |
        AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC;
    private static final int NAK_INVALID_REQUEST = AethHeader.NakCode.INVALID_REQUEST.syndrome();
    private static final int NAK_REMOTE_ACCESS = AethHeader.NakCode.REMOTE_ACCESS_ERROR.syndrome();
    /** Offset of the WRITE/READ/atomic target inside the test region (receive buffers sit below it). */
    private static final int TARGET = 2048;

    /**
     * A scripted request sequence whose last packet breaks a rule.
     *
     * @param name        what is wrong.
     * @param packets     builds the packets from the harness and the region (receive buffers at 0 and 1024,
     *                    RDMA target at {@link #TARGET}).
     * @param offendingPsn PSN of the packet that breaks the rule.
     * @param firstRecv   status of the first receive completion (the WQE a SEND in progress held, else a flush).
     * @param placedBytes RDMA WRITE bytes the packets before the offending one legitimately placed at
     *                    {@link #TARGET}; nothing beyond them may be written.
     */
    record Case(String name, BiFunction<ScriptedPeer, MemoryRegionEntry, byte[][]> packets, int offendingPsn,
        WcStatus firstRecv, int placedBytes)
    {
        Case(final String name, final BiFunction<ScriptedPeer, MemoryRegionEntry, byte[][]> packets,
            final int offendingPsn, final WcStatus firstRecv)
        {
            this(name, packets, offendingPsn, firstRecv, 0);
        }

        /**
         * @return the name, for the test report.
         */
        public String toString()
        {
            return name;
        }
    }

    private static ScriptedPeer withTwoReceives(final ScriptedPeer peer, final MemoryRegionEntry[] region)
    {
        region[0] = peer.mr(4096, ALL_REMOTE);
        peer.postRecv(1, region[0], 0, 1024);
        peer.postRecv(2, region[0], 1024, 1024);
        return peer;
    }

    private static void assertNak(final SentPacket sent, final int psn, final int syndrome)
    {
        assertEquals(Opcode.RC_ACKNOWLEDGE, sent.opcode(), sent.toString());
        assertEquals(PEER_QPN, sent.destQp(), sent.toString());
        assertEquals(psn, sent.psn(), sent.toString());
        assertEquals(syndrome, sent.syndrome(), sent.toString());
        assertEquals(0, sent.msn(), sent.toString());
    }

    private static void assertClassCError(
        final ScriptedPeer peer, final MemoryRegionEntry region, final Case c, final int syndrome,
        final AsyncEventType event, final TransportCounter nakCounter)
    {
        assertNak(peer.onlySent(), c.offendingPsn(), syndrome);
        assertEquals(QpState.ERR, peer.qp.state());
        assertEquals(List.of(event), peer.events());
        final List<WorkCompletion> recv = peer.recvCompletions();
        assertEquals(2, recv.size(), recv.toString());
        assertEquals(c.firstRecv(), recv.get(0).status(), recv.toString());
        assertEquals(1, recv.get(0).wrId());
        assertEquals(WcStatus.WR_FLUSH_ERR, recv.get(1).status(), "later receive WQEs are flushed");
        final int untouched = 4096 - TARGET - c.placedBytes();
        assertArrayEquals(new byte[untouched], ScriptedPeer.bytesOf(region, TARGET + c.placedBytes(), untouched),
            "the offending packet placed no data");
        peer.assertAnomalies(Map.of(nakCounter, 1L, TransportCounter.QP_ERRORS, 1L,
            TransportCounter.ERROR_COMPLETIONS, 2L));
    }

    // ---- opcode sequence ---------------------------------------------------------------------------------------

    static Stream<Case> rcOpcodeSequenceErrors()
    {
        final int p = RQ_PSN;
        final byte[] full = pattern(MTU_BYTES, 1);
        return Stream.of(
            new Case("SEND_MIDDLE without FIRST", (peer, mr) -> new byte[][]
                {peer.send(Opcode.RC_SEND_MIDDLE, p, full, true)}, p, WcStatus.WR_FLUSH_ERR),
            new Case("SEND_LAST without FIRST", (peer, mr) -> new byte[][]
                {peer.send(Opcode.RC_SEND_LAST, p, pattern(10, 2), true)}, p, WcStatus.WR_FLUSH_ERR),
            new Case("WRITE_MIDDLE without FIRST", (peer, mr) -> new byte[][]
                {peer.write(Opcode.RC_RDMA_WRITE_MIDDLE, p, full, 0, 0, 0, true)}, p, WcStatus.WR_FLUSH_ERR),
            new Case("WRITE_LAST without FIRST", (peer, mr) -> new byte[][]
                {peer.write(Opcode.RC_RDMA_WRITE_LAST, p, pattern(10, 3), 0, 0, 0, true)}, p,
                WcStatus.WR_FLUSH_ERR),
            new Case("WRITE_FIRST then SEND_FIRST", (peer, mr) -> new byte[][]
                {
                    peer.write(Opcode.RC_RDMA_WRITE_FIRST, p, full, mr.iova() + TARGET, mr.rkey(), 2 * MTU_BYTES,
                        false),
                    peer.send(Opcode.RC_SEND_FIRST, p + 1, full, false)
                }, p + 1, WcStatus.WR_FLUSH_ERR, MTU_BYTES),
            new Case("SEND_FIRST then SEND_ONLY", (peer, mr) -> new byte[][]
                {
                    peer.send(Opcode.RC_SEND_FIRST, p, full, false),
                    peer.send(Opcode.RC_SEND_ONLY, p + 1, pattern(10, 4), true)
                }, p + 1, WcStatus.REM_INV_REQ_ERR),
            new Case("SEND_FIRST then WRITE_MIDDLE", (peer, mr) -> new byte[][]
                {
                    peer.send(Opcode.RC_SEND_FIRST, p, full, false),
                    peer.write(Opcode.RC_RDMA_WRITE_MIDDLE, p + 1, full, 0, 0, 0, false)
                }, p + 1, WcStatus.REM_INV_REQ_ERR),
            new Case("SEND_FIRST then READ", (peer, mr) -> new byte[][]
                {
                    peer.send(Opcode.RC_SEND_FIRST, p, full, false),
                    peer.read(p + 1, mr.iova() + TARGET, mr.rkey(), 8)
                }, p + 1, WcStatus.REM_INV_REQ_ERR));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rcOpcodeSequenceErrors")
    void rcOpcodeSequenceErrorIsNakedInvalidRequestAndMovesTheQpToError(final Case c)
    {
        final MemoryRegionEntry[] region = new MemoryRegionEntry[1];
        final ScriptedPeer peer = withTwoReceives(ScriptedPeer.rc(), region);

        peer.deliver(c.packets().apply(peer, region[0]));

        assertClassCError(peer, region[0], c, NAK_INVALID_REQUEST, AsyncEventType.QP_REQ_ERR,
            TransportCounter.NAK_INVALID_REQUEST_SENT);
    }

    @ParameterizedTest
    @EnumSource(value = Opcode.class, names = {"UC_SEND_MIDDLE", "UC_SEND_LAST", "UC_RDMA_WRITE_MIDDLE",
        "UC_RDMA_WRITE_LAST"})
    void ucMiddleOrLastWithoutFirstIsDroppedSilentlyAndTheNextMessageIsAccepted(final Opcode opcode)
    {
        final ScriptedPeer peer = ScriptedPeer.create(QpType.UC, QpState.RTS, config -> {}, attr -> {});
        final MemoryRegionEntry buffer = peer.mr(1024, ALL_REMOTE);
        peer.postRecv(1, buffer, 0, 1024);

        peer.deliver(peer.frame(opcode, peer.qp.qpn(), RQ_PSN, pattern(MTU_BYTES, 1), b -> {}));
        assertEquals(List.of(), peer.sent());
        peer.assertAnomalies(Map.of(TransportCounter.DROP_UC_MESSAGE, 1L));

        final byte[] data = pattern(40, 2);
        peer.deliver(peer.send(Opcode.UC_SEND_ONLY, RQ_PSN + 1, data, false));

        final List<WorkCompletion> recv = peer.recvCompletions();
        assertEquals(1, recv.size());
        assertEquals(WcStatus.SUCCESS, recv.get(0).status());
        assertEquals(40, recv.get(0).byteLen());
        assertArrayEquals(data, ScriptedPeer.bytesOf(buffer, 0, 40));
        assertEquals(List.of(), peer.sent(), "UC never answers");
        assertEquals(QpState.RTS, peer.qp.state());
        assertEquals(List.of(), peer.events());
        peer.assertAnomalies(Map.of(TransportCounter.DROP_UC_MESSAGE, 1L));
    }

    @Test
    void ucWriteFirstInterruptedBySendFirstDropsTheWriteAndAcceptsTheSend()
    {
        final ScriptedPeer peer = ScriptedPeer.create(QpType.UC, QpState.RTS, config -> {}, attr -> {});
        final MemoryRegionEntry region = peer.mr(4096, ALL_REMOTE);
        peer.postRecv(1, region, 0, 1024);
        final byte[] first = pattern(MTU_BYTES, 3);
        final byte[] last = pattern(10, 4);

        peer.deliver(
            peer.write(Opcode.UC_RDMA_WRITE_FIRST, RQ_PSN, pattern(MTU_BYTES, 5), region.iova() + TARGET,
                region.rkey(), 2 * MTU_BYTES, false),
            peer.send(Opcode.UC_SEND_FIRST, RQ_PSN + 1, first, false),
            peer.send(Opcode.UC_SEND_LAST, RQ_PSN + 2, last, false));

        final List<WorkCompletion> recv = peer.recvCompletions();
        assertEquals(1, recv.size());
        assertEquals(WcStatus.SUCCESS, recv.get(0).status());
        assertEquals(MTU_BYTES + 10, recv.get(0).byteLen());
        assertArrayEquals(first, ScriptedPeer.bytesOf(region, 0, MTU_BYTES));
        assertArrayEquals(last, ScriptedPeer.bytesOf(region, MTU_BYTES, 10));
        assertEquals(List.of(), peer.sent());
        assertEquals(QpState.RTS, peer.qp.state());
        peer.assertAnomalies(Map.of(TransportCounter.DROP_UC_MESSAGE, 1L));
    }

    /** UC class C/D errors a WRITE can hit. */
    enum UcWriteError
    {
        QP_WITHOUT_REMOTE_WRITE, UNKNOWN_RKEY, RANGE_PAST_THE_END, LENGTH_DIFFERS_FROM_RETH
    }

    @ParameterizedTest
    @EnumSource(UcWriteError.class)
    void ucWriteErrorDropsTheMessageSilentlyAndKeepsTheQpUsable(final UcWriteError error)
    {
        final ScriptedPeer peer = ScriptedPeer.create(QpType.UC, QpState.RTS, config -> {}, attr ->
        {
            if (UcWriteError.QP_WITHOUT_REMOTE_WRITE == error)
            {
                attr.qpAccessFlags = 0;
            }
        });
        final MemoryRegionEntry target = peer.mr(1024, ALL_REMOTE);
        final byte[] data = pattern(MTU_BYTES, 1);
        final long va = UcWriteError.RANGE_PAST_THE_END == error ? target.iova() + 1024 - MTU_BYTES : target.iova();
        final int rkey = UcWriteError.UNKNOWN_RKEY == error ? target.rkey() ^ 0x0F0F_0F0F : target.rkey();
        final long rethLength = UcWriteError.LENGTH_DIFFERS_FROM_RETH == error ? MTU_BYTES + 100 : 2 * MTU_BYTES;

        peer.deliver(
            peer.write(Opcode.UC_RDMA_WRITE_FIRST, RQ_PSN, data, va, rkey, rethLength, false),
            peer.write(Opcode.UC_RDMA_WRITE_LAST, RQ_PSN + 1, data, 0, 0, 0, false));

        assertEquals(List.of(), peer.sent());
        assertEquals(QpState.RTS, peer.qp.state());
        assertEquals(List.of(), peer.events());
        if (UcWriteError.LENGTH_DIFFERS_FROM_RETH == error)
        {
            // The FIRST was fine and placed; the LAST carries more than the RETH has left.
            assertArrayEquals(new byte[MTU_BYTES], ScriptedPeer.bytesOf(target, MTU_BYTES, MTU_BYTES));
        }
        else
        {
            assertArrayEquals(new byte[1024], ScriptedPeer.bytesOf(target, 0, 1024));
        }
        final long drops = UcWriteError.LENGTH_DIFFERS_FROM_RETH == error ? 1L : 2L;
        peer.assertAnomalies(Map.of(TransportCounter.DROP_UC_MESSAGE, drops));

        if (UcWriteError.QP_WITHOUT_REMOTE_WRITE != error)
        {
            final byte[] next = pattern(40, 2);
            peer.deliver(peer.write(Opcode.UC_RDMA_WRITE_ONLY, RQ_PSN + 2, next, target.iova() + 512,
                target.rkey(), 40, false));
            assertArrayEquals(next, ScriptedPeer.bytesOf(target, 512, 40), "the next message is accepted");
            // After a length error the broken WRITE is still the message in progress: the next ONLY abandons it
            // (class D1), counted once more. rxe would drop that ONLY too; roce4j accepts it.
            final long abandoned = UcWriteError.LENGTH_DIFFERS_FROM_RETH == error ? 1L : 0L;
            peer.assertAnomalies(Map.of(TransportCounter.DROP_UC_MESSAGE, drops + abandoned));
        }
    }

    // ---- access ------------------------------------------------------------------------------------------------

    @ParameterizedTest
    @CsvSource({
        "RC_RDMA_WRITE_ONLY, 2",
        "RC_RDMA_READ_REQUEST, 4",
        "RC_FETCH_ADD, 8",
        "RC_COMPARE_SWAP, 8"})
    void operationTheQpAccessFlagsDoNotAllowIsNakedInvalidRequest(final Opcode opcode, final int missingFlag)
    {
        final ScriptedPeer peer = ScriptedPeer.rc(attr -> attr.qpAccessFlags = ALL_REMOTE & ~missingFlag);
        final MemoryRegionEntry target = peer.mr(64, ALL_REMOTE);

        peer.deliver(request(peer, opcode, target.iova(), target.rkey(), 8));

        assertNak(peer.onlySent(), RQ_PSN, NAK_INVALID_REQUEST);
        assertEquals(QpState.ERR, peer.qp.state());
        assertEquals(List.of(AsyncEventType.QP_REQ_ERR), peer.events());
        assertArrayEquals(new byte[64], ScriptedPeer.bytesOf(target, 0, 64), "nothing executed");
        peer.assertAnomalies(Map.of(TransportCounter.NAK_INVALID_REQUEST_SENT, 1L, TransportCounter.QP_ERRORS, 1L));
    }

    private static byte[] request(final ScriptedPeer peer, final Opcode opcode, final long va, final int rkey,
        final int length)
    {
        return switch (opcode)
        {
            case RC_RDMA_WRITE_ONLY -> peer.write(opcode, RQ_PSN, pattern(length, 9), va, rkey, length, true);
            case RC_RDMA_READ_REQUEST -> peer.read(RQ_PSN, va, rkey, length);
            default -> peer.atomic(opcode, RQ_PSN, va, rkey, 1, 0);
        };
    }

    /** Ways an R_Key, range or region can fail check_rkey. */
    enum RkeyViolation
    {
        UNKNOWN_RKEY, RANGE_PAST_THE_END, RANGE_BEFORE_THE_START, REGION_WITHOUT_THE_PERMISSION,
        REGION_OF_ANOTHER_PD
    }

    static Stream<Arguments> rkeyViolations()
    {
        return Stream.of(Opcode.RC_RDMA_WRITE_ONLY, Opcode.RC_RDMA_READ_REQUEST, Opcode.RC_FETCH_ADD)
            .flatMap(opcode -> Stream.of(RkeyViolation.values()).map(v -> Arguments.of(opcode, v)));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("rkeyViolations")
    void rkeyRangeOrPermissionViolationIsNakedRemoteAccessError(final Opcode opcode, final RkeyViolation violation)
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        final MemoryRegionEntry good = peer.mr(256, ALL_REMOTE);
        final MemoryRegionEntry localOnly = peer.mr(256, AccessFlags.LOCAL_WRITE);
        final MemoryRegionEntry otherPd = peer.mrInPd(256, ALL_REMOTE, 2);
        int unknown = good.rkey() ^ 0x5A5A_5A5A;
        while (null != peer.engine.mrTable.byRkey(unknown))
        {
            unknown++;
        }
        final int length = 8;
        final byte[] packet = switch (violation)
        {
            case UNKNOWN_RKEY -> request(peer, opcode, good.iova(), unknown, length);
            case RANGE_PAST_THE_END -> request(peer, opcode, good.iova() + 256, good.rkey(), length);
            case RANGE_BEFORE_THE_START -> request(peer, opcode, good.iova() - 8, good.rkey(), length);
            case REGION_WITHOUT_THE_PERMISSION -> request(peer, opcode, localOnly.iova(), localOnly.rkey(), length);
            case REGION_OF_ANOTHER_PD -> request(peer, opcode, otherPd.iova(), otherPd.rkey(), length);
        };

        peer.deliver(packet);

        assertNak(peer.onlySent(), RQ_PSN, NAK_REMOTE_ACCESS);
        assertEquals(QpState.ERR, peer.qp.state());
        assertEquals(List.of(AsyncEventType.QP_ACCESS_ERR), peer.events());
        for (final MemoryRegionEntry mr : new MemoryRegionEntry[] {good, localOnly, otherPd})
        {
            assertArrayEquals(new byte[256], ScriptedPeer.bytesOf(mr, 0, 256), "nothing executed");
        }
        peer.assertAnomalies(Map.of(TransportCounter.NAK_REMOTE_ACCESS_SENT, 1L, TransportCounter.QP_ERRORS, 1L));
    }

    @Test
    void zeroLengthWriteAndReadSkipTheRkeyCheck()
    {
        final ScriptedPeer peer = ScriptedPeer.rc();

        // C9-88: a zero-length RDMA READ or WRITE need not carry a valid VA or R_Key.
        peer.deliver(peer.write(Opcode.RC_RDMA_WRITE_ONLY, RQ_PSN, new byte[0], 0x1234, 0xDEAD_BEEF, 0, true));
        final SentPacket ack = peer.onlySent();
        assertEquals(Opcode.RC_ACKNOWLEDGE, ack.opcode());
        assertEquals(RQ_PSN, ack.psn());
        assertEquals(AethHeader.SYNDROME_ACK_UNLIMITED, ack.syndrome());
        assertEquals(1, ack.msn());

        peer.deliver(peer.read(RQ_PSN + 1, 0x5678, 0xBAD_C0DE, 0));
        final SentPacket response = peer.onlySent();
        assertEquals(Opcode.RC_RDMA_READ_RESPONSE_ONLY, response.opcode());
        assertEquals(RQ_PSN + 1, response.psn());
        assertEquals(AethHeader.SYNDROME_ACK_UNLIMITED, response.syndrome());
        assertEquals(2, response.msn());
        assertEquals(0, response.payload().length);

        assertEquals(QpState.RTS, peer.qp.state());
        assertEquals(RQ_PSN + 2, peer.qp.responderPsn());
        peer.assertAnomalies(Map.of());
    }

    @ParameterizedTest
    @EnumSource(value = Opcode.class, names = {"RC_FETCH_ADD", "RC_COMPARE_SWAP"})
    void misalignedAtomicIsNakedInvalidRequest(final Opcode opcode)
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        final MemoryRegionEntry target = peer.mr(64, ALL_REMOTE);
        target.memory().putLong(8, 100L, ByteOrder.nativeOrder());

        peer.deliver(peer.atomic(opcode, RQ_PSN, target.iova() + 4, target.rkey(), 1, 0));

        assertNak(peer.onlySent(), RQ_PSN, NAK_INVALID_REQUEST);
        assertEquals(QpState.ERR, peer.qp.state());
        assertEquals(List.of(AsyncEventType.QP_REQ_ERR), peer.events());
        assertEquals(100L, target.memory().getLong(8, ByteOrder.nativeOrder()));
        peer.assertAnomalies(Map.of(TransportCounter.NAK_INVALID_REQUEST_SENT, 1L, TransportCounter.QP_ERRORS, 1L));
    }

    @ParameterizedTest
    @EnumSource(value = Opcode.class, names = {"RC_RDMA_READ_REQUEST", "RC_FETCH_ADD"})
    void readOrAtomicWithMaxDestRdAtomicZeroIsNakedInvalidRequest(final Opcode opcode)
    {
        final ScriptedPeer peer = ScriptedPeer.rc(attr -> attr.maxDestRdAtomic = 0);
        final MemoryRegionEntry target = peer.mr(64, ALL_REMOTE);

        peer.deliver(request(peer, opcode, target.iova(), target.rkey(), 8));

        assertNak(peer.onlySent(), RQ_PSN, NAK_INVALID_REQUEST);
        assertEquals(QpState.ERR, peer.qp.state());
        assertEquals(List.of(AsyncEventType.QP_REQ_ERR), peer.events());
        assertArrayEquals(new byte[64], ScriptedPeer.bytesOf(target, 0, 64));
        peer.assertAnomalies(Map.of(TransportCounter.NAK_INVALID_REQUEST_SENT, 1L, TransportCounter.QP_ERRORS, 1L));
    }

    // ---- lengths -----------------------------------------------------------------------------------------------

    static Stream<Case> lengthErrors()
    {
        final int p = RQ_PSN;
        final byte[] full = pattern(MTU_BYTES, 1);
        return Stream.of(
            new Case("SEND_FIRST shorter than the MTU", (peer, mr) -> new byte[][]
                {peer.send(Opcode.RC_SEND_FIRST, p, pattern(MTU_BYTES - 4, 1), false)}, p, WcStatus.LOC_LEN_ERR),
            new Case("SEND_MIDDLE longer than the MTU", (peer, mr) -> new byte[][]
                {
                    peer.send(Opcode.RC_SEND_FIRST, p, full, false),
                    peer.send(Opcode.RC_SEND_MIDDLE, p + 1, pattern(MTU_BYTES + 4, 2), false)
                }, p + 1, WcStatus.LOC_LEN_ERR),
            new Case("SEND_MIDDLE shorter than the MTU", (peer, mr) -> new byte[][]
                {
                    peer.send(Opcode.RC_SEND_FIRST, p, full, false),
                    peer.send(Opcode.RC_SEND_MIDDLE, p + 1, pattern(MTU_BYTES - 4, 2), false)
                }, p + 1, WcStatus.LOC_LEN_ERR),
            new Case("SEND_LAST without payload", (peer, mr) -> new byte[][]
                {
                    peer.send(Opcode.RC_SEND_FIRST, p, full, false),
                    peer.send(Opcode.RC_SEND_LAST, p + 1, new byte[0], true)
                }, p + 1, WcStatus.LOC_LEN_ERR),
            new Case("SEND_LAST longer than the MTU", (peer, mr) -> new byte[][]
                {
                    peer.send(Opcode.RC_SEND_FIRST, p, full, false),
                    peer.send(Opcode.RC_SEND_LAST, p + 1, pattern(MTU_BYTES + 4, 3), true)
                }, p + 1, WcStatus.LOC_LEN_ERR),
            new Case("SEND_ONLY longer than the MTU", (peer, mr) -> new byte[][]
                {peer.send(Opcode.RC_SEND_ONLY, p, pattern(MTU_BYTES + 4, 4), true)}, p, WcStatus.LOC_LEN_ERR),
            new Case("WRITE_FIRST shorter than the MTU", (peer, mr) -> new byte[][]
                {peer.write(Opcode.RC_RDMA_WRITE_FIRST, p, pattern(MTU_BYTES - 4, 5), mr.iova() + TARGET,
                    mr.rkey(), 2 * MTU_BYTES, false)}, p, WcStatus.WR_FLUSH_ERR),
            new Case("WRITE_ONLY shorter than its RETH length", (peer, mr) -> new byte[][]
                {peer.write(Opcode.RC_RDMA_WRITE_ONLY, p, pattern(96, 6), mr.iova() + TARGET, mr.rkey(), 100,
                    true)}, p, WcStatus.WR_FLUSH_ERR),
            new Case("WRITE_ONLY longer than its RETH length", (peer, mr) -> new byte[][]
                {peer.write(Opcode.RC_RDMA_WRITE_ONLY, p, pattern(104, 6), mr.iova() + TARGET, mr.rkey(), 100,
                    true)}, p, WcStatus.WR_FLUSH_ERR),
            new Case("WRITE_ONLY whose PadCnt disagrees with its RETH length", (peer, mr) -> new byte[][]
                {PeerFrames.withPadCount(peer.write(Opcode.RC_RDMA_WRITE_ONLY, p, pattern(100, 6),
                    mr.iova() + TARGET, mr.rkey(), 100, true), 1)}, p, WcStatus.WR_FLUSH_ERR),
            new Case("WRITE_LAST longer than the rest of the RETH length", (peer, mr) -> new byte[][]
                {
                    peer.write(Opcode.RC_RDMA_WRITE_FIRST, p, full, mr.iova() + TARGET, mr.rkey(), MTU_BYTES + 100,
                        false),
                    peer.write(Opcode.RC_RDMA_WRITE_LAST, p + 1, pattern(104, 7), 0, 0, 0, true)
                }, p + 1, WcStatus.WR_FLUSH_ERR, MTU_BYTES),
            new Case("WRITE_FIRST with a RETH length above 2^31", (peer, mr) -> new byte[][]
                {peer.write(Opcode.RC_RDMA_WRITE_FIRST, p, full, mr.iova() + TARGET, mr.rkey(), 0x8000_0001L,
                    false)}, p, WcStatus.WR_FLUSH_ERR),
            new Case("READ with a RETH length above 2^31", (peer, mr) -> new byte[][]
                {peer.read(p, mr.iova() + TARGET, mr.rkey(), 0xFFFF_FFFFL)}, p, WcStatus.WR_FLUSH_ERR),
            new Case("WRITE_ONLY with RETH length 0 but a payload", (peer, mr) -> new byte[][]
                {peer.write(Opcode.RC_RDMA_WRITE_ONLY, p, pattern(16, 8), mr.iova() + TARGET, mr.rkey(), 0,
                    true)}, p, WcStatus.WR_FLUSH_ERR));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("lengthErrors")
    void lengthViolationIsNakedInvalidRequestAndMovesTheQpToError(final Case c)
    {
        final MemoryRegionEntry[] region = new MemoryRegionEntry[1];
        final ScriptedPeer peer = withTwoReceives(ScriptedPeer.rc(), region);

        peer.deliver(c.packets().apply(peer, region[0]));

        assertClassCError(peer, region[0], c, NAK_INVALID_REQUEST, AsyncEventType.QP_REQ_ERR,
            TransportCounter.NAK_INVALID_REQUEST_SENT);
    }

    @ParameterizedTest
    @CsvSource({"1, 100", "2, 300"})
    void sendLargerThanTheReceiveBufferCompletesLocLenErrAndIsNakedInvalidRequest(final int packets,
        final int bufferBytes)
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        final MemoryRegionEntry buffer = peer.mr(2048, AccessFlags.LOCAL_WRITE);
        peer.postRecv(1, buffer, 0, bufferBytes - 4);
        peer.postRecv(2, buffer, 1024, 1024);

        final int lastPsn = RQ_PSN + packets - 1;
        if (1 == packets)
        {
            peer.deliver(peer.send(Opcode.RC_SEND_ONLY, RQ_PSN, pattern(bufferBytes, 1), true));
        }
        else
        {
            peer.deliver(
                peer.send(Opcode.RC_SEND_FIRST, RQ_PSN, pattern(MTU_BYTES, 1), false),
                peer.send(Opcode.RC_SEND_LAST, lastPsn, pattern(bufferBytes - MTU_BYTES, 2), true));
        }

        assertNak(peer.onlySent(), lastPsn, NAK_INVALID_REQUEST);
        assertEquals(QpState.ERR, peer.qp.state());
        assertEquals(List.of(AsyncEventType.QP_REQ_ERR), peer.events());
        final List<WorkCompletion> recv = peer.recvCompletions();
        assertEquals(2, recv.size(), recv.toString());
        assertEquals(1, recv.get(0).wrId());
        assertEquals(WcStatus.LOC_LEN_ERR, recv.get(0).status());
        assertEquals(WcStatus.WR_FLUSH_ERR, recv.get(1).status());
        peer.assertAnomalies(Map.of(TransportCounter.NAK_INVALID_REQUEST_SENT, 1L, TransportCounter.QP_ERRORS, 1L,
            TransportCounter.ERROR_COMPLETIONS, 2L));
    }

    // ---- no receive WQE ----------------------------------------------------------------------------------------

    @ParameterizedTest
    @CsvSource({
        "RC_SEND_ONLY, 12",
        "RC_SEND_FIRST, 12",
        "RC_SEND_ONLY_WITH_IMMEDIATE, 0",
        "RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, 31"})
    void rcRequestNeedingAReceiveWqeWhenNoneIsPostedIsRnrNakedWithMinRnrTimer(final Opcode opcode,
        final int minRnrTimer)
    {
        final ScriptedPeer peer = ScriptedPeer.rc(attr -> attr.minRnrTimer = minRnrTimer);
        final MemoryRegionEntry region = peer.mr(4096, ALL_REMOTE);
        final byte[] payload = pattern(Opcode.RC_SEND_FIRST == opcode ? MTU_BYTES : 32, 1);
        final byte[] packet = opcode.name().contains("WRITE") ?
            peer.write(opcode, RQ_PSN, payload, region.iova() + TARGET, region.rkey(), payload.length, true) :
            peer.send(opcode, RQ_PSN, payload, true);

        peer.deliver(packet);

        final SentPacket rnr = peer.onlySent();
        assertEquals(Opcode.RC_ACKNOWLEDGE, rnr.opcode());
        assertEquals(RQ_PSN, rnr.psn(), "the RNR NAK carries the PSN of the request");
        assertEquals(AethHeader.TYPE_RNR_NAK | minRnrTimer, rnr.syndrome());
        assertEquals(QpState.RTS, peer.qp.state(), "RNR is not an error for the QP");
        assertEquals(RQ_PSN, peer.qp.responderPsn());
        peer.assertAnomalies(Map.of(TransportCounter.NAK_RNR_SENT, 1L));

        // Once a receive WQE is posted, the retried request is accepted.
        peer.postRecv(1, region, 0, 1024);
        peer.deliver(packet);
        final SentPacket ack = peer.onlySent();
        assertEquals(AethHeader.SYNDROME_ACK_UNLIMITED, ack.syndrome());
        assertEquals(RQ_PSN, ack.psn());
        assertEquals(RQ_PSN + 1, peer.qp.responderPsn());
        peer.assertAnomalies(Map.of(TransportCounter.NAK_RNR_SENT, 1L));
    }

    @Test
    void ucSendWithNoReceiveWqeIsDroppedWithTheRestOfItsMessage()
    {
        final ScriptedPeer peer = ScriptedPeer.create(QpType.UC, QpState.RTS, config -> {}, attr -> {});
        final MemoryRegionEntry buffer = peer.mr(1024, AccessFlags.LOCAL_WRITE);

        peer.deliver(
            peer.send(Opcode.UC_SEND_FIRST, RQ_PSN, pattern(MTU_BYTES, 1), false),
            peer.send(Opcode.UC_SEND_LAST, RQ_PSN + 1, pattern(10, 2), false));
        assertEquals(List.of(), peer.sent());
        peer.assertAnomalies(Map.of(TransportCounter.DROP_NO_RECEIVE, 1L, TransportCounter.DROP_UC_MESSAGE, 1L));

        peer.postRecv(1, buffer, 0, 1024);
        final byte[] data = pattern(20, 3);
        peer.deliver(peer.send(Opcode.UC_SEND_ONLY, RQ_PSN + 2, data, false));
        final List<WorkCompletion> recv = peer.recvCompletions();
        assertEquals(1, recv.size());
        assertEquals(WcStatus.SUCCESS, recv.get(0).status());
        assertArrayEquals(data, ScriptedPeer.bytesOf(buffer, 0, 20));
        assertEquals(List.of(), peer.sent());
        peer.assertAnomalies(Map.of(TransportCounter.DROP_NO_RECEIVE, 1L, TransportCounter.DROP_UC_MESSAGE, 1L));
    }

    @Test
    void udSendWithNoReceiveWqeIsDropped()
    {
        final ScriptedPeer peer = ScriptedPeer.create(QpType.UD, QpState.RTS, config -> {}, attr -> {});

        peer.deliver(peer.ud(peer.qp.qpn(), ScriptedPeer.QKEY, pattern(20, 1)));

        assertEquals(List.of(), peer.sent());
        assertEquals(0, peer.recvCompletions().size());
        peer.assertAnomalies(Map.of(TransportCounter.DROP_NO_RECEIVE, 1L));
    }
}
