package org.roce4j.verbs;

import java.util.ArrayList;
import java.util.List;

import org.agrona.concurrent.CachedNanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.AhAttributes;
import org.roce4j.ib.QpAttrMask;
import org.roce4j.ib.QpAttributes;
import org.roce4j.ib.QpState;
import org.roce4j.ib.QpType;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WcOpcode;
import org.roce4j.ib.WcStatus;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.transport.TransportCounter;
import org.roce4j.transport.provider.EngineConfig;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RoceFrameBuilder;
import org.roce4j.wire.RoceFrameParser;
import org.roce4j.wire.Vectors;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.addr.Mac;
import org.roce4j.wire.header.BthHeader;
import org.roce4j.wire.header.DethHeader;
import org.roce4j.wire.header.Ipv4Header;
import org.roce4j.wire.mad.MadHeader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The GSI QP (QP1) end to end through the verbs: rxe's own ConnectRequest from the golden capture arrives on QP1
 * with the sender's address in the 40-byte network header area, an address handle made from that completion
 * (ibv_create_ah_from_wc) sends the answer back to the sender from QPN 1 with the GSI Q_Key 0x80010000 and P_Key
 * 0xFFFF, and MADs reach QP1 whichever local GID they were sent to.
 */
class GsiQpTest
{
    /** The passive rxe node of the capture: roce4j stands in for it. */
    private static final LinkAddress PASSIVE = new LinkAddress(Mac.parse("52:54:00:00:00:03"),
        Ipv4Header.parseAddress("10.77.0.3"));
    /** The active rxe node of the capture (rping -c). */
    private static final LinkAddress ACTIVE = new LinkAddress(Mac.parse("52:54:00:00:00:02"),
        Ipv4Header.parseAddress("10.77.0.2"));
    /** Frame 54 of the capture: rping's ConnectRequest to 10.77.0.3. */
    private static final int REQ_FRAME = 54;
    /** The 40-byte network header area plus a 256-byte MAD. */
    private static final int RECV_BYTES = WorkCompletion.GRH_BYTES + MadHeader.MAD_LENGTH;
    /** rxe's UDP source port for QP1: 0xC000 + hash_32(1, 14) (55410 in the capture). */
    private static final int QP1_UDP_PORT = 0xD872;

    private final CachedNanoClock clock = new CachedNanoClock();
    private final ProgressGroup group = ProgressGroup.simulated(clock);
    private final PairLink device;
    private final PairLink peer;
    private final RdmaDevice rdma;
    private final ProtectionDomain pd;
    private final CompletionQueue cq;
    private final QueuePair gsi;
    private final MemoryRegion recv;
    private final MemoryRegion send;

    GsiQpTest()
    {
        clock.update(1_000_000_000L);
        final PairLink[] links = PairLink.pair(PASSIVE, ACTIVE, 1500);
        device = links[0];
        peer = links[1];
        rdma = RdmaDevice.open(device, DeviceOptions.invoker().progressGroup(group)
            .engineConfig(new EngineConfig().clock(clock)).name("gsi"));
        pd = rdma.allocPd();
        cq = rdma.createCq(64);
        gsi = pd.createQp(new QpInitAttributes().qpType(QpType.GSI).cq(cq).cap(16, 16, 1, 1, 0));
        final QpAttributes attr = new QpAttributes();
        attr.qpState = QpState.INIT;
        attr.pkeyIndex = 0;
        attr.qkey = DethHeader.GSI_QKEY;
        gsi.modify(attr, QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.QKEY);
        attr.qpState = QpState.RTR;
        gsi.modify(attr, QpAttrMask.STATE);
        attr.qpState = QpState.RTS;
        attr.sqPsn = 0;
        gsi.modify(attr, QpAttrMask.STATE | QpAttrMask.SQ_PSN);
        recv = VerbsFixture.register(pd, 4 * RECV_BYTES, AccessFlags.LOCAL_WRITE);
        send = VerbsFixture.register(pd, MadHeader.MAD_LENGTH, 0);
        for (int i = 0; i < 4; i++)
        {
            gsi.postRecv(new RecvWorkRequest().wrId(i).addSge(recv, (long)i * RECV_BYTES, RECV_BYTES));
        }
    }

    @AfterEach
    void close()
    {
        assertEquals(0, rdma.counters().get(TransportCounter.INTERNAL_ERRORS), rdma.describeCounters());
        rdma.close();
    }

    @Test
    void gsiQpIsQpn1()
    {
        assertEquals(BthHeader.GSI_QPN, gsi.qpNum());
        assertEquals(QpType.GSI, gsi.type());
        assertThrows(IllegalStateException.class,
            () -> pd.createQp(new QpInitAttributes().qpType(QpType.GSI).cq(cq).cap(1, 1, 1, 1, 0)),
            "a device has one GSI QP");
    }

    @Test
    void rxeConnectRequestArrivesOnQp1WithTheSendersAddress()
    {
        final byte[] frame = Vectors.frames(Vectors.RXE_PAIR).get(REQ_FRAME - 1);
        final RoceFrameParser parser = parse(frame);
        assertEquals(BthHeader.GSI_QPN, parser.bth().destQp());

        assertTrue(peer.send(new UnsafeBuffer(frame), 0, frame.length));
        final WorkCompletion wc = VerbsFixture.drain(cq, 1).get(0);

        assertEquals(WcStatus.SUCCESS, wc.status());
        assertEquals(WcOpcode.RECV, wc.opcode());
        assertEquals(BthHeader.GSI_QPN, wc.qpNum());
        assertEquals(BthHeader.GSI_QPN, wc.srcQp(), "rxe sends MADs from its own QP1");
        assertTrue(wc.hasGrh());
        assertEquals(RECV_BYTES, wc.byteLen(), "40-byte header area + the 256-byte MAD");
        final byte[] mad = new byte[MadHeader.MAD_LENGTH];
        recv.buffer().getBytes(WorkCompletion.GRH_BYTES, mad);
        final byte[] wire = new byte[MadHeader.MAD_LENGTH];
        parser.buffer().getBytes(parser.payloadOffset(), wire);
        assertArrayEquals(wire, mad);

        final AhAttributes ah = rdma.initAhFromWc(wc, recv.buffer(), 0, new AhAttributes());
        assertEquals(Gid.IPV4_MAPPED_HIGH, ah.dgidHigh());
        assertEquals(ACTIVE.ipv4MappedLow(), ah.dgidLow(), "the answer goes to the REQ's source address");
        assertEquals(1, ah.sgidIndex(), "from the IPv4 GID the REQ was sent to");
        assertEquals(0xFF, ah.hopLimit(), "libibverbs' hop limit for a reply");
        assertEquals(0, ah.trafficClass());
    }

    @Test
    void answerFromAWorkCompletionLeavesQp1WithTheGsiQkey()
    {
        final byte[] frame = Vectors.frames(Vectors.RXE_PAIR).get(REQ_FRAME - 1);
        assertTrue(peer.send(new UnsafeBuffer(frame), 0, frame.length));
        final WorkCompletion wc = VerbsFixture.drain(cq, 1).get(0);
        final AddressHandle ah = pd.createAhFromWc(wc, recv.buffer(), 0);
        for (int i = 0; i < MadHeader.MAD_LENGTH; i++)
        {
            send.buffer().putByte(i, (byte)(i ^ 0x5A));
        }
        // The WR's Q_Key is ignored on QP1: rxe_req.c always sends the GSI Q_Key from the GSI QP.
        gsi.postSend(new SendWorkRequest().wrId(9).sendFlags(SendFlags.SIGNALED)
            .addSge(send, 0, MadHeader.MAD_LENGTH).ud(ah, wc.srcQp(), 0x1234_5678));
        final WorkCompletion sent = VerbsFixture.drain(cq, 1).get(0);
        assertEquals(WcStatus.SUCCESS, sent.status());
        assertEquals(9, sent.wrId());

        final List<byte[]> out = received(peer);
        assertEquals(1, out.size());
        final RoceFrameParser reply = parse(out.get(0));
        assertEquals(Opcode.UD_SEND_ONLY, reply.opcode());
        assertEquals(4, reply.ipVersion());
        assertEquals(PASSIVE.ipv4(), reply.ipv4().source());
        assertEquals(ACTIVE.ipv4(), reply.ipv4().destination());
        assertEquals(0xFF, reply.ipv4().ttl());
        assertEquals(QP1_UDP_PORT, reply.udp().sourcePort(), "rxe's QP1 source port, as in the capture");
        assertEquals(0xFFFF, reply.bth().pkey());
        assertEquals(BthHeader.GSI_QPN, reply.bth().destQp());
        assertEquals(DethHeader.GSI_QKEY, reply.deth().qkey());
        assertEquals(BthHeader.GSI_QPN, reply.deth().srcQp());
        assertEquals(MadHeader.MAD_LENGTH, reply.payloadLength());
        assertEquals(0x5A, reply.buffer().getByte(reply.payloadOffset()) & 0xFF);
        assertTrue(reply.icrcVerified());
    }

    @Test
    void madsReachQp1AtEitherLocalGidAndTheAnswerUsesTheSameOne()
    {
        final long peerLinkLocalLow = ACTIVE.linkLocalLow();
        final byte[] v6 = madFrame(b -> b.ipv6(Gid.LINK_LOCAL_HIGH, peerLinkLocalLow,
            Gid.LINK_LOCAL_HIGH, PASSIVE.linkLocalLow()), DethHeader.GSI_QKEY);
        final byte[] v4 = madFrame(b -> b.ipv4(ACTIVE.ipv4(), PASSIVE.ipv4()), DethHeader.GSI_QKEY);
        final byte[] elsewhere = madFrame(b -> b.ipv4(ACTIVE.ipv4(), Ipv4Header.parseAddress("10.77.0.9")),
            DethHeader.GSI_QKEY);
        final byte[] wrongQkey = madFrame(b -> b.ipv4(ACTIVE.ipv4(), PASSIVE.ipv4()), 0x1111_1111);
        for (final byte[] frame : List.of(elsewhere, wrongQkey, v6, v4))
        {
            assertTrue(peer.send(new UnsafeBuffer(frame), 0, frame.length));
        }
        final List<WorkCompletion> wcs = VerbsFixture.drain(cq, 2);
        assertEquals(List.of(0L, 1L), List.of(wcs.get(0).wrId(), wcs.get(1).wrId()));

        final AhAttributes fromV6 = rdma.initAhFromWc(wcs.get(0), recv.buffer(), 0, new AhAttributes());
        assertEquals(Gid.LINK_LOCAL_HIGH, fromV6.dgidHigh());
        assertEquals(peerLinkLocalLow, fromV6.dgidLow());
        assertEquals(0, fromV6.sgidIndex(), "sent to the link-local GID: answer from index 0");
        final AhAttributes fromV4 = rdma.initAhFromWc(wcs.get(1), recv.buffer(), RECV_BYTES, new AhAttributes());
        assertEquals(ACTIVE.ipv4MappedLow(), fromV4.dgidLow());
        assertEquals(1, fromV4.sgidIndex());

        assertEquals(1, rdma.counters().get(TransportCounter.DROP_NOT_OUR_GID));
        assertEquals(1, rdma.counters().get(TransportCounter.DROP_BAD_QKEY), "QP1 takes only Q_Key 0x80010000");
    }

    @Test
    void initAhFromWcNamesWhatIsMissing()
    {
        final WorkCompletion noGrh = new WorkCompletion().set(1, WcStatus.SUCCESS, WcOpcode.RECV, 10, 0, 1, 1, 0, 0);
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
            () -> rdma.initAhFromWc(noGrh, recv.buffer(), 0, new AhAttributes()));
        assertTrue(ex.getMessage().contains("no GRH"), ex.getMessage());

        final WorkCompletion withGrh = new WorkCompletion().set(1, WcStatus.SUCCESS, WcOpcode.RECV, 296, 0, 1, 1,
            WorkCompletion.FLAG_GRH, 0);
        final UnsafeBuffer garbage = new UnsafeBuffer(new byte[WorkCompletion.GRH_BYTES]);
        garbage.setMemory(0, WorkCompletion.GRH_BYTES, (byte)0x11);
        final IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
            () -> rdma.initAhFromWc(withGrh, garbage, 0, new AhAttributes()));
        assertTrue(bad.getMessage().contains("neither an IPv4 header"), bad.getMessage());
    }

    private static byte[] madFrame(final java.util.function.Consumer<RoceFrameBuilder> ip, final int qkey)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[512]);
        final RoceFrameBuilder builder = new RoceFrameBuilder().wrap(buffer, 0).ethernet(PASSIVE.mac(), ACTIVE.mac());
        ip.accept(builder);
        builder.udp(QP1_UDP_PORT).bth(Opcode.UD_SEND_ONLY, BthHeader.GSI_QPN, 7);
        builder.deth().qkey(qkey).srcQp(BthHeader.GSI_QPN);
        builder.payload(new UnsafeBuffer(new byte[MadHeader.MAD_LENGTH]), 0, MadHeader.MAD_LENGTH);
        final int length = builder.finish();
        final byte[] frame = new byte[length];
        buffer.getBytes(0, frame);
        return frame;
    }

    private List<byte[]> received(final PairLink link)
    {
        final List<byte[]> frames = new ArrayList<>();
        link.poll((buffer, offset, length) ->
        {
            final byte[] frame = new byte[length];
            buffer.getBytes(offset, frame);
            frames.add(frame);
        }, 100);
        return frames;
    }

    private static RoceFrameParser parse(final byte[] frame)
    {
        final RoceFrameParser parser = new RoceFrameParser();
        assertEquals(FrameStatus.OK, parser.parse(new UnsafeBuffer(frame), 0, frame.length));
        return parser;
    }
}
