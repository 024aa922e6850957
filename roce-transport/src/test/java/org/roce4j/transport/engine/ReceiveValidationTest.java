package org.roce4j.transport.engine;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.roce4j.transport.AccessFlags;
import org.roce4j.transport.AsyncEventType;
import org.roce4j.transport.QpState;
import org.roce4j.transport.QpType;
import org.roce4j.transport.TransportCounter;
import org.roce4j.transport.WcOpcode;
import org.roce4j.transport.WcStatus;
import org.roce4j.transport.WorkCompletion;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.header.BthHeader;
import org.roce4j.wire.header.DethHeader;
import org.roce4j.wire.header.EthernetHeader;
import org.roce4j.wire.header.Ipv4Header;
import org.roce4j.wire.header.Ipv6Header;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.roce4j.transport.engine.ScriptedPeer.ENGINE;
import static org.roce4j.transport.engine.ScriptedPeer.PEER;
import static org.roce4j.transport.engine.ScriptedPeer.PEER_QPN;
import static org.roce4j.transport.engine.ScriptedPeer.QKEY;
import static org.roce4j.transport.engine.ScriptedPeer.RQ_PSN;
import static org.roce4j.transport.engine.ScriptedPeer.pattern;

/**
 * Receive-side validation in rxe_recv.c order (protocol-facts §A.5): every failed check is a silent drop counted
 * in its own counter, with no response; and the UD/GSI receive rules (Q_Key, buffer length, the 40-byte GRH area
 * of §A.8).
 */
@ExtendWith(EngineHealthCheck.class)
class ReceiveValidationTest
{
    /**
     * A frame that fails one receive check.
     *
     * @param name    what is wrong with it.
     * @param frame   builds it.
     * @param counter the counter its drop must move.
     */
    record Drop(String name, Function<ScriptedPeer, byte[]> frame, TransportCounter counter)
    {
        /**
         * @return the name, for the test report.
         */
        public String toString()
        {
            return name;
        }
    }

    private static byte[] goodSend(final ScriptedPeer peer)
    {
        return peer.send(Opcode.RC_SEND_ONLY, RQ_PSN, pattern(32, 1), true);
    }

    static Stream<Drop> drops()
    {
        return Stream.of(
            new Drop("bad ICRC", peer ->
            {
                final byte[] frame = goodSend(peer);
                frame[frame.length - 1] ^= 0x01;
                return frame;
            }, TransportCounter.DROP_BAD_ICRC),
            new Drop("truncated frame", peer -> Arrays.copyOf(goodSend(peer), 60),
                TransportCounter.DROP_MALFORMED_FRAME),
            new Drop("destination IP is not one of our GIDs", peer -> peer.frameBetween(PEER.ipv4(),
                Ipv4Header.parseAddress("10.0.0.9"), Opcode.RC_SEND_ONLY, peer.qp.qpn(), RQ_PSN, pattern(32, 1),
                b -> b.bthHeader().ackReq(true)), TransportCounter.DROP_NOT_OUR_GID),
            new Drop("unknown destination QPN", peer -> peer.frame(Opcode.RC_SEND_ONLY, 0x999, RQ_PSN,
                pattern(32, 1), b -> b.bthHeader().ackReq(true)), TransportCounter.DROP_NO_QP),
            new Drop("UC opcode to an RC QP", peer -> peer.send(Opcode.UC_SEND_ONLY, RQ_PSN, pattern(32, 1), false),
                TransportCounter.DROP_WRONG_TRANSPORT),
            new Drop("UD opcode to an RC QP", peer -> peer.frame(Opcode.UD_SEND_ONLY, peer.qp.qpn(), RQ_PSN,
                pattern(32, 1), b -> b.deth().qkey(QKEY).srcQp(PEER_QPN)), TransportCounter.DROP_WRONG_TRANSPORT),
            new Drop("RC packet from another source IP", peer -> peer.frameBetween(
                Ipv4Header.parseAddress("10.0.0.3"), ENGINE.ipv4(), Opcode.RC_SEND_ONLY, peer.qp.qpn(), RQ_PSN,
                pattern(32, 1), b -> b.bthHeader().ackReq(true)), TransportCounter.DROP_ADDRESS_MISMATCH),
            new Drop("P_Key 0x1234", peer -> peer.frame(Opcode.RC_SEND_ONLY, peer.qp.qpn(), RQ_PSN,
                pattern(32, 1), b -> b.bthHeader().ackReq(true).pkey(0x1234)), TransportCounter.DROP_BAD_PKEY));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("drops")
    void frameFailingAReceiveCheckIsDroppedSilentlyAndCountedInItsOwnCounter(final Drop drop)
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        final MemoryRegionEntry buffer = peer.mr(1024, AccessFlags.LOCAL_WRITE);
        peer.postRecv(1, buffer, 0, 1024);

        peer.deliver(drop.frame().apply(peer));

        assertEquals(List.of(), peer.sent(), "receive-check failures are never answered");
        assertEquals(0, peer.recvCompletions().size());
        assertEquals(RQ_PSN, peer.qp.responderPsn());
        assertEquals(QpState.RTS, peer.qp.state());
        assertEquals(0, peer.counter(TransportCounter.PACKETS_RECEIVED));
        peer.assertAnomalies(Map.of(drop.counter(), 1L));

        // The QP is unharmed: the good packet is then accepted.
        peer.deliver(goodSend(peer));
        assertEquals(1, peer.recvCompletions().size());
        assertEquals(1, peer.sent().size());
        peer.assertAnomalies(Map.of(drop.counter(), 1L));
    }

    @Test
    void limitedMembershipPkeyMatchesTheDefaultPkeyAsRxePkeyMatchDoes()
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        final MemoryRegionEntry buffer = peer.mr(1024, AccessFlags.LOCAL_WRITE);
        peer.postRecv(1, buffer, 0, 1024);

        peer.deliver(peer.frame(Opcode.RC_SEND_ONLY, peer.qp.qpn(), RQ_PSN, pattern(32, 1),
            b -> b.bthHeader().ackReq(true).pkey(0x7FFF)));

        assertEquals(1, peer.recvCompletions().size());
        assertEquals(1, peer.sent().size());
        peer.assertAnomalies(Map.of());
    }

    @Test
    void requestToAQpInInitIsDropped()
    {
        final ScriptedPeer peer = ScriptedPeer.create(QpType.RC, QpState.INIT, config -> {}, attr -> {});
        final MemoryRegionEntry buffer = peer.mr(1024, AccessFlags.LOCAL_WRITE);
        peer.postRecv(1, buffer, 0, 1024);

        peer.deliver(goodSend(peer));

        assertEquals(List.of(), peer.sent());
        assertEquals(0, peer.recvCompletions().size());
        peer.assertAnomalies(Map.of(TransportCounter.DROP_WRONG_STATE, 1L));
    }

    @Test
    void requestToAQpInErrorIsDropped()
    {
        final ScriptedPeer peer = ScriptedPeer.rc();
        final MemoryRegionEntry buffer = peer.mr(1024, AccessFlags.LOCAL_WRITE);
        peer.postRecv(1, buffer, 0, 1024);
        peer.moveTo(QpState.ERR);
        final List<WorkCompletion> flushed = peer.recvCompletions();
        assertEquals(1, flushed.size());
        assertEquals(WcStatus.WR_FLUSH_ERR, flushed.get(0).status());

        peer.deliver(goodSend(peer));

        assertEquals(List.of(), peer.sent());
        assertEquals(0, peer.recvCompletions().size());
        peer.assertAnomalies(Map.of(TransportCounter.DROP_WRONG_STATE, 1L, TransportCounter.ERROR_COMPLETIONS, 1L));
    }

    @Test
    void requestToAQpInRtrIsAcceptedAndRaisesCommunicationEstablishedOnce()
    {
        final ScriptedPeer peer = ScriptedPeer.create(QpType.RC, QpState.RTR, config -> {}, attr -> {});
        final MemoryRegionEntry buffer = peer.mr(1024, AccessFlags.LOCAL_WRITE);
        peer.postRecv(1, buffer, 0, 512);
        peer.postRecv(2, buffer, 512, 512);

        peer.deliver(goodSend(peer));
        peer.deliver(peer.send(Opcode.RC_SEND_ONLY, RQ_PSN + 1, pattern(8, 2), true));

        assertEquals(List.of(AsyncEventType.COMM_EST), peer.events());
        assertEquals(2, peer.recvCompletions().size());
        assertEquals(2, peer.sent().size());
        peer.assertAnomalies(Map.of());
    }

    @Test
    void responseToAQpInRtrIsDropped()
    {
        final ScriptedPeer peer = ScriptedPeer.create(QpType.RC, QpState.RTR, config -> {}, attr -> {});

        peer.deliver(peer.ack(ScriptedPeer.SQ_PSN, 0x1F));

        assertEquals(List.of(), peer.sent());
        assertEquals(0, peer.counter(TransportCounter.ACKS_RECEIVED));
        peer.assertAnomalies(Map.of(TransportCounter.DROP_WRONG_STATE, 1L));
    }

    // ---- UD and GSI --------------------------------------------------------------------------------------------

    private static ScriptedPeer ud(final QpType type)
    {
        return ScriptedPeer.create(type, QpState.RTS, config -> {}, attr -> {});
    }

    @Test
    void udPacketWithAnotherQkeyIsDropped()
    {
        final ScriptedPeer peer = ud(QpType.UD);
        final MemoryRegionEntry buffer = peer.mr(1024, AccessFlags.LOCAL_WRITE);
        peer.postRecv(1, buffer, 0, 1024);

        peer.deliver(peer.ud(peer.qp.qpn(), 0x2222_2222, pattern(20, 1)));
        assertEquals(0, peer.recvCompletions().size());
        peer.assertAnomalies(Map.of(TransportCounter.DROP_BAD_QKEY, 1L));

        peer.deliver(peer.ud(peer.qp.qpn(), QKEY, pattern(20, 1)));
        final List<WorkCompletion> recv = peer.recvCompletions();
        assertEquals(1, recv.size());
        assertEquals(1, recv.get(0).wrId(), "the dropped packet took no receive WQE");
        assertEquals(List.of(), peer.sent());
        peer.assertAnomalies(Map.of(TransportCounter.DROP_BAD_QKEY, 1L));
    }

    @Test
    void gsiQpAcceptsOnlyTheGsiQkeyWhateverItsOwnQkeyAttribute()
    {
        final ScriptedPeer peer = ud(QpType.GSI);
        assertEquals(BthHeader.GSI_QPN, peer.qp.qpn());
        assertEquals(QKEY, peer.attributes.qkey, "the QP was given another Q_Key");
        final MemoryRegionEntry buffer = peer.mr(1024, AccessFlags.LOCAL_WRITE);
        peer.postRecv(1, buffer, 0, 1024);

        peer.deliver(peer.ud(BthHeader.GSI_QPN, QKEY, pattern(20, 1)));
        assertEquals(0, peer.recvCompletions().size());
        peer.assertAnomalies(Map.of(TransportCounter.DROP_BAD_QKEY, 1L));

        peer.deliver(peer.ud(BthHeader.GSI_QPN, DethHeader.GSI_QKEY, pattern(20, 1)));
        final List<WorkCompletion> recv = peer.recvCompletions();
        assertEquals(1, recv.size());
        assertEquals(WcStatus.SUCCESS, recv.get(0).status());
        assertEquals(BthHeader.GSI_QPN, recv.get(0).qpNum());
        peer.assertAnomalies(Map.of(TransportCounter.DROP_BAD_QKEY, 1L));
    }

    @Test
    void udPayloadMustFitTheReceiveBufferAfterThe40ByteGrhArea()
    {
        final ScriptedPeer peer = ud(QpType.UD);
        final MemoryRegionEntry buffer = peer.mr(1024, AccessFlags.LOCAL_WRITE);
        peer.postRecv(1, buffer, 0, 100);

        peer.deliver(peer.ud(peer.qp.qpn(), QKEY, pattern(61, 1)));
        assertEquals(0, peer.recvCompletions().size());
        peer.assertAnomalies(Map.of(TransportCounter.DROP_UD_TOO_LONG, 1L));

        final byte[] fits = pattern(60, 2);
        peer.deliver(peer.ud(peer.qp.qpn(), QKEY, fits));
        final List<WorkCompletion> recv = peer.recvCompletions();
        assertEquals(1, recv.size());
        assertEquals(WcStatus.SUCCESS, recv.get(0).status());
        assertEquals(100, recv.get(0).byteLen(), "40 GRH bytes + 60 payload bytes");
        assertArrayEquals(fits, ScriptedPeer.bytesOf(buffer, 40, 60));
        assertEquals(List.of(), peer.sent());
        peer.assertAnomalies(Map.of(TransportCounter.DROP_UD_TOO_LONG, 1L));
    }

    @Test
    void udReceiveOverIpv4Starts20ZeroBytesThenTheIpv4Header()
    {
        final ScriptedPeer peer = ud(QpType.UD);
        final MemoryRegionEntry buffer = peer.mr(256, AccessFlags.LOCAL_WRITE);
        buffer.memory().setMemory(0, 256, (byte)0xEE);
        peer.postRecv(7, buffer, 0, 256);
        final byte[] payload = pattern(30, 3);
        final byte[] frame = peer.frame(Opcode.UD_SEND_ONLY_WITH_IMMEDIATE, peer.qp.qpn(), 0x42, payload, b ->
        {
            b.deth().qkey(QKEY).srcQp(PEER_QPN);
            b.immDt().immediate(0x1234_5678);
        });

        peer.deliver(frame);

        final List<WorkCompletion> recv = peer.recvCompletions();
        assertEquals(1, recv.size());
        final WorkCompletion wc = recv.get(0);
        assertEquals(WcStatus.SUCCESS, wc.status());
        assertEquals(WcOpcode.RECV, wc.opcode());
        assertEquals(7, wc.wrId());
        assertEquals(40 + 30, wc.byteLen());
        assertEquals(PEER_QPN, wc.srcQp());
        assertEquals(peer.qp.qpn(), wc.qpNum());
        assertTrue(wc.hasGrh());
        assertTrue(wc.hasImmediate());
        assertEquals(0x1234_5678, wc.immData());
        assertArrayEquals(new byte[20], ScriptedPeer.bytesOf(buffer, 0, 20), "20 reserved bytes");
        assertArrayEquals(Arrays.copyOfRange(frame, EthernetHeader.LENGTH, EthernetHeader.LENGTH +
            Ipv4Header.LENGTH), ScriptedPeer.bytesOf(buffer, 20, 20), "then the IPv4 header as received");
        assertArrayEquals(payload, ScriptedPeer.bytesOf(buffer, 40, 30));
        assertEquals((byte)0xEE, buffer.memory().getByte(70), "nothing written past the message");
        peer.assertAnomalies(Map.of());
    }

    @Test
    void udReceiveOverIpv6StartsWithTheIpv6Header()
    {
        final ScriptedPeer peer = ud(QpType.UD);
        final MemoryRegionEntry buffer = peer.mr(256, AccessFlags.LOCAL_WRITE);
        buffer.memory().setMemory(0, 256, (byte)0xEE);
        peer.postRecv(8, buffer, 0, 256);
        final byte[] payload = pattern(30, 4);
        final byte[] frame = peer.frameIpv6(Opcode.UD_SEND_ONLY, peer.qp.qpn(), 0x42, payload,
            b -> b.deth().qkey(QKEY).srcQp(PEER_QPN));

        peer.deliver(frame);

        final List<WorkCompletion> recv = peer.recvCompletions();
        assertEquals(1, recv.size());
        assertEquals(WcStatus.SUCCESS, recv.get(0).status());
        assertEquals(40 + 30, recv.get(0).byteLen());
        assertTrue(recv.get(0).hasGrh());
        assertArrayEquals(Arrays.copyOfRange(frame, EthernetHeader.LENGTH, EthernetHeader.LENGTH +
            Ipv6Header.LENGTH), ScriptedPeer.bytesOf(buffer, 0, 40), "the 40-byte IPv6 header as received");
        assertArrayEquals(payload, ScriptedPeer.bytesOf(buffer, 40, 30));
        peer.assertAnomalies(Map.of());
    }
}
