package org.roce4j.cm.ib;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.CachedNanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.roce4j.wire.RoceFrameParser;
import org.roce4j.wire.header.Ipv4Header;
import org.roce4j.wire.mad.CmaHeader;
import org.roce4j.wire.mad.MadHeader;
import org.roce4j.wire.mad.RdmaCmServiceId;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * roce4j's CM against rxe's own MADs from the golden captures: standing in for either rxe node, with rxe's
 * communication IDs, QPNs, PSNs and CA GUIDs injected, it must send byte for byte the MADs rxe's kernel sent:
 * the REJ for a service nobody listens on, REP, DREP (passive); REQ, RTU, DREQ (active); and the REJ TIMEOUT of an
 * rping that gives up. Also checks the REQ retransmission interval against the capture's.
 */
class CmGoldenTest
{
    private static final int ACTIVE_IP = Ipv4Header.parseAddress("10.77.0.2");
    private static final int PASSIVE_IP = Ipv4Header.parseAddress("10.77.0.3");
    private static final long ACTIVE_GUID = 0x5054_00FF_FE00_0002L;
    private static final long PASSIVE_GUID = 0x5054_00FF_FE00_0003L;
    /** rping's port in the session capture (0x4653). */
    private static final int PORT = 18003;
    /** The kernel CM agent's hi_tid in the captures. */
    private static final int KERNEL_HI_TID = 2;

    /** IDs handed out in order, as rxe drew them in the capture. */
    private static final class FixedIds implements CmIdSource
    {
        private final int[] commIds;
        private int next;

        FixedIds(final int... commIds)
        {
            this.commIds = commIds;
        }

        public int nextCommId()
        {
            return commIds[next++];
        }

        public int nextPsn()
        {
            throw new AssertionError("the IB CM takes PSNs from its caller");
        }
    }

    private final CachedNanoClock clock = new CachedNanoClock();
    private final List<byte[]> sent = new ArrayList<>();
    private final List<MadAddress> sentTo = new ArrayList<>();
    private final MadPort port = (final MadAddress to, final DirectBuffer mad, final int offset) ->
    {
        final byte[] bytes = new byte[MadHeader.MAD_LENGTH];
        mad.getBytes(offset, bytes);
        sent.add(bytes);
        sentTo.add(to);
        return true;
    };

    private IbCm cm(final long guid, final int ip, final int... commIds)
    {
        clock.update(1_000_000_000L);
        return new IbCm(port, new CmConfig().hiTid(KERNEL_HI_TID), clock, new FixedIds(commIds), guid,
            (high, low) -> 0 == high && MadAddress.ipv4(ip).gidLow() == low, new CmCounters());
    }

    private static byte[] mad(final String capture, final int frame)
    {
        return Golden.frame(capture, frame).mad();
    }

    @Test
    void passiveSideAnswersRpingsHandshakeAndDisconnectLikeRxe()
    {
        final IbCm cm = cm(PASSIVE_GUID, PASSIVE_IP, 0xCBDA2625);
        final List<CmConnection> requests = new ArrayList<>();
        final List<String> events = new ArrayList<>();
        final CmHandler handler = new CmHandler()
        {
            public void onEstablished(final CmConnection c)
            {
                events.add("established");
            }

            public void onDisconnectRequest(final CmConnection c)
            {
                events.add("dreq");
            }
        };
        cm.listen(RdmaCmServiceId.serviceId(RdmaCmServiceId.PS_TCP, PORT), c ->
        {
            requests.add(c);
            c.handler(handler);
            return CmListener.PENDING;
        });

        CmPair.inject(cm, mad(Golden.SESSION, 3), ACTIVE_IP);
        assertEquals(1, requests.size());
        final CmConnection c = requests.get(0);
        assertEquals(0x15, c.remoteQpn());
        assertEquals(0xC19AA7, c.remotePsn());
        assertEquals(0x9F424, c.flowLabel(), "rping's flow label: sport 0xd40f * 31 + dport 18003");
        final CmaHeader cma = new CmaHeader().wrap(new UnsafeBuffer(c.privateData()), 0);
        assertEquals(0xD40F, cma.port());
        assertEquals(ACTIVE_IP, cma.sourceIpv4());
        assertEquals(PASSIVE_IP, cma.destinationIpv4());

        cm.accept(c, new CmReplyParams().localQpn(0x13).startingPsn(0x1DBB70).responderResources(1)
            .initiatorDepth(1).rnrRetryCount(7));
        assertArrayEquals(mad(Golden.SESSION, 4), sent.get(0), "our REP is rxe's REP");
        assertEquals(MadAddress.ipv4(ACTIVE_IP), sentTo.get(0));

        CmPair.inject(cm, mad(Golden.SESSION, 5), ACTIVE_IP);
        assertEquals(CmState.ESTABLISHED, c.state());
        CmPair.inject(cm, mad(Golden.SESSION, 30), ACTIVE_IP);
        assertArrayEquals(mad(Golden.SESSION, 31), sent.get(1), "our DREP is rxe's DREP");
        assertEquals(List.of("established", "dreq"), events);
        assertEquals(CmState.TIMEWAIT, c.state());
        assertEquals(2, sent.size());
    }

    @Test
    void reqForAPortNobodyListensOnGetsRxesRejectReason8()
    {
        final IbCm cm = cm(PASSIVE_GUID, PASSIVE_IP);
        CmPair.inject(cm, mad(Golden.SESSION, 1), ACTIVE_IP);
        assertEquals(1, sent.size());
        assertArrayEquals(mad(Golden.SESSION, 2), sent.get(0), "our REJ is rxe's REJ (reason 8)");
        assertEquals(1, cm.counters().get(CmCounter.REJ_INVALID_SERVICE_ID));
    }

    @Test
    void activeSideSendsRpingsReqRtuAndDreqLikeRxe()
    {
        final IbCm cm = cm(ACTIVE_GUID, ACTIVE_IP, 0x0FBC6F2D);
        final byte[] header = new byte[CmaHeader.LENGTH];
        new CmaHeader().wrap(new UnsafeBuffer(header), 0).ipv4(0xD40F, ACTIVE_IP, PASSIVE_IP);
        final List<String> events = new ArrayList<>();
        final CmHandler handler = new CmHandler()
        {
            public void onReply(final CmConnection c)
            {
                events.add("reply");
                cm.sendRtu(c, null);
            }

            public void onEstablished(final CmConnection c)
            {
                events.add("established");
            }

            public void onDisconnectReply(final CmConnection c)
            {
                events.add("drep");
            }
        };
        final CmConnection c = cm.connect(new CmRequestParams()
            .serviceId(RdmaCmServiceId.serviceId(RdmaCmServiceId.PS_TCP, PORT))
            .localQpn(0x15).startingPsn(0xC19AA7).pathMtu(3).responderResources(1).initiatorDepth(1)
            .retryCount(7).rnrRetryCount(7)
            .localGid(0, MadAddress.ipv4(ACTIVE_IP).gidLow()).remoteGid(0, MadAddress.ipv4(PASSIVE_IP).gidLow())
            .flowLabel((0xD40F * 31 + PORT) & 0xF_FFFF).hopLimit(64).privateData(header),
            handler, MadAddress.ipv4(PASSIVE_IP));
        assertArrayEquals(mad(Golden.SESSION, 3), sent.get(0), "our REQ is rping's REQ");

        CmPair.inject(cm, mad(Golden.SESSION, 4), PASSIVE_IP);
        assertArrayEquals(mad(Golden.SESSION, 5), sent.get(1), "our RTU is rping's RTU");
        assertEquals(CmState.ESTABLISHED, c.state());
        assertEquals(0x13, c.remoteQpn());
        assertEquals(0x1DBB70, c.remotePsn());

        cm.disconnect(c, null);
        assertArrayEquals(mad(Golden.SESSION, 30), sent.get(2), "our DREQ is rping's DREQ");
        CmPair.inject(cm, mad(Golden.SESSION, 31), PASSIVE_IP);
        assertEquals(CmState.TIMEWAIT, c.state());
        assertEquals(List.of("reply", "established", "drep"), events);
    }

    @Test
    void rpingGivingUpOnAnUnansweredReqIsRejTimeoutWithItsGuid()
    {
        final long guid = 0x5054_00FF_FE12_3456L;
        final int target = Ipv4Header.parseAddress("10.77.0.1");
        final IbCm cm = cm(guid, ACTIVE_IP, 0x56EB1D77);
        final byte[] header = new byte[CmaHeader.LENGTH];
        new CmaHeader().wrap(new UnsafeBuffer(header), 0).ipv4(0x8510, ACTIVE_IP, target);
        final CmConnection c = cm.connect(new CmRequestParams()
            .serviceId(RdmaCmServiceId.serviceId(RdmaCmServiceId.PS_TCP, 7174))
            .localQpn(0x11).startingPsn(0xDB6215).pathMtu(3).responderResources(1).initiatorDepth(1)
            .localGid(0, MadAddress.ipv4(ACTIVE_IP).gidLow()).remoteGid(0, MadAddress.ipv4(target).gidLow())
            .flowLabel((0x8510 * 31 + 7174) & 0xF_FFFF).hopLimit(64).privateData(header),
            new CmHandler()
            {
            }, MadAddress.ipv4(target));
        assertArrayEquals(mad(Golden.UNANSWERED, 1), sent.get(0), "our REQ is rping's REQ");

        clock.advance(TimeUnit.MILLISECONDS.toNanos(6144));
        cm.processTimers();
        assertArrayEquals(mad(Golden.UNANSWERED, 2), sent.get(1), "the retransmission is the same REQ");
        final long capturedGapNs = Golden.frame(Golden.UNANSWERED, 2).timestampNs() -
            Golden.frame(Golden.UNANSWERED, 1).timestampNs();
        assertTrue(capturedGapNs >= TimeUnit.MILLISECONDS.toNanos(6144) &&
            capturedGapNs < TimeUnit.MILLISECONDS.toNanos(6144 + 250),
            "rxe retransmitted after " + capturedGapNs / 1_000_000 + " ms: 6144 ms plus scheduling delay");

        cm.destroy(c);
        assertArrayEquals(mad(Golden.UNANSWERED, 3), sent.get(2), "our REJ TIMEOUT is rping's");
    }

    @Test
    void eachSideSendsFromTheStartingPsnOfThePeersMessage()
    {
        // Linux cm.c: a REQ's or REP's Starting PSN is what its sender expects to receive. rping's REQ says
        // 0xc19aa7 and the server's REP 0x1dbb70; the client's first SEND (frame 6) carries 0x1dbb70 and the
        // server's first packet, its RDMA READ request (frame 8), 0xc19aa7.
        assertEquals(0x1DBB70, Golden.frame(Golden.SESSION, 6).parse().bth().psn());
        assertEquals(0xC19AA7, Golden.frame(Golden.SESSION, 8).parse().bth().psn());
        assertEquals(0xC19AA7, new org.roce4j.wire.mad.CmReqMessage()
            .wrapMad(new UnsafeBuffer(mad(Golden.SESSION, 3)), 0).startingPsn());
        assertEquals(0x1DBB70, new org.roce4j.wire.mad.CmRepMessage()
            .wrapMad(new UnsafeBuffer(mad(Golden.SESSION, 4)), 0).startingPsn());
    }

    @Test
    void rpingsDataMessageIsBufRkeySizeBigEndian()
    {
        // Frame 6: the client's first SEND, struct rping_rdma_info { __be64 buf; __be32 rkey; __be32 size; }.
        final Golden.Frame send = Golden.frame(Golden.SESSION, 6);
        final RoceFrameParser parser = send.parse();
        assertEquals(16, parser.payloadLength());
        final UnsafeBuffer info = new UnsafeBuffer(send.payload());
        final long buf = info.getLong(0, java.nio.ByteOrder.BIG_ENDIAN);
        final int rkey = info.getInt(8, java.nio.ByteOrder.BIG_ENDIAN);
        final int size = info.getInt(12, java.nio.ByteOrder.BIG_ENDIAN);
        assertEquals(64, size, "rping's default -S 64");
        // Frame 8: the server's RDMA READ names exactly that buffer and key.
        final RoceFrameParser read = Golden.frame(Golden.SESSION, 8).parse();
        assertEquals(buf, read.reth().va());
        assertEquals(rkey, read.reth().rkey());
        assertEquals(size, read.reth().dmaLength());
    }
}
