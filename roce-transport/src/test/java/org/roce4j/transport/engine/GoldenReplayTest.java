package org.roce4j.transport.engine;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.Mtu;
import org.roce4j.ib.QpAttrMask;
import org.roce4j.ib.QpAttributes;
import org.roce4j.ib.QpCapabilities;
import org.roce4j.ib.QpState;
import org.roce4j.ib.QpType;
import org.roce4j.transport.TransportCounter;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.transport.provider.EngineConfig;
import org.roce4j.wire.ExtHeader;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.Operation;
import org.roce4j.wire.RoceFrameParser;
import org.roce4j.wire.Transport;
import org.roce4j.wire.Vectors;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.header.Ipv4Header;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Replays the requests of real rxe RC exchanges (ibv_rc_pingpong, ib_write_bw, ib_read_bw, ib_atomic_bw from the
 * golden capture) into a roce4j responder standing in for rxe's responder, and checks it answers with the same
 * stream rxe sent: same packets in the same order, identical from the UDP header up to the ICRC (the ICRC itself
 * differs only because it covers the IPv4 Identification, which rxe varies and roce4j keeps at 0).
 */
class GoldenReplayTest
{
    private static final int REQUESTER = Ipv4Header.parseAddress("10.77.0.2");
    private static final int RESPONDER = Ipv4Header.parseAddress("10.77.0.3");

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "ibv_rc_pingpong, 0x11, 0x11",
        "ib_write_bw,     0x15, 0x17",
        "ib_read_bw,      0x16, 0x18",
        "ib_atomic_bw,    0x17, 0x19"})
    void responderAnswersLikeRxe(final String tool, final String responderQpnText, final String requesterQpnText)
    {
        final int responderQpn = Integer.decode(responderQpnText.trim());
        final int requesterQpn = Integer.decode(requesterQpnText.trim());
        final List<byte[]> requests = new ArrayList<>();
        final List<byte[]> responses = new ArrayList<>();
        final RoceFrameParser parser = new RoceFrameParser();
        long responderMac = 0;
        for (final byte[] frame : Vectors.frames(Vectors.RXE_PAIR))
        {
            if (FrameStatus.OK != parser.parse(new UnsafeBuffer(frame), 0, frame.length) ||
                Transport.RC != parser.opcode().transport())
            {
                continue;
            }
            final int source = parser.ipv4().source();
            final int qpn = parser.bth().destQp();
            if (REQUESTER == source && responderQpn == qpn && parser.opcode().isRequest())
            {
                requests.add(frame);
                responderMac = parser.ethernet().destination();
            }
            else if (RESPONDER == source && requesterQpn == qpn && !parser.opcode().isRequest())
            {
                responses.add(frame);
            }
        }
        assertTrue(requests.size() >= 2 && responses.size() >= 2, tool + ": flow not found in the capture");

        final TestLink[] links = TestLink.pair(new LinkAddress(responderMac, RESPONDER),
            new LinkAddress(0x02_00_00_00_00_99L, REQUESTER), 1500);
        final TestLink link = links[0];
        link.recordSent = true;
        final RoceEngine engine = new RoceEngine(link,
            new EngineConfig().firstQpn(responderQpn).coalesceAcks(false));
        final QpCapabilities caps = new QpCapabilities();
        caps.maxRecvWr = 64;
        final QpContext qp = engine.createQp(QpType.RC, 1, caps, new CompletionRing(1, 256),
            new CompletionRing(2, 256), null, false);
        assertEquals(responderQpn, qp.qpn());

        parser.parse(new UnsafeBuffer(requests.get(0)), 0, requests.get(0).length);
        final QpAttributes attr = new QpAttributes();
        attr.qpState = QpState.INIT;
        attr.qpAccessFlags = AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC;
        engine.modifyQp(qp, attr, QpAttrMask.STATE | QpAttrMask.ACCESS_FLAGS);
        attr.qpState = QpState.RTR;
        attr.pathMtu = Mtu.MTU_1024;
        attr.destQpNum = requesterQpn;
        attr.rqPsn = parser.bth().psn();
        attr.maxDestRdAtomic = 16;
        attr.minRnrTimer = 12;
        attr.ahAttr.dgid(Gid.IPV4_MAPPED_HIGH, Gid.IPV4_MAPPED_LOW_PREFIX | (REQUESTER & 0xFFFF_FFFFL))
            .sgidIndex(1).hopLimit(64);
        engine.modifyQp(qp, attr, QpAttrMask.STATE | QpAttrMask.AV | QpAttrMask.PATH_MTU | QpAttrMask.DEST_QPN |
            QpAttrMask.RQ_PSN | QpAttrMask.MAX_DEST_RD_ATOMIC | QpAttrMask.MIN_RNR_TIMER);
        attr.qpState = QpState.RTS;
        attr.timeout = 14;
        attr.retryCnt = 7;
        attr.rnrRetry = 7;
        attr.maxRdAtomic = 16;
        engine.modifyQp(qp, attr, QpAttrMask.STATE | QpAttrMask.SQ_PSN | QpAttrMask.TIMEOUT | QpAttrMask.RETRY_CNT |
            QpAttrMask.RNR_RETRY | QpAttrMask.MAX_QP_RD_ATOMIC);

        prepareMemory(engine, qp, requests, responses);

        for (final byte[] request : requests)
        {
            link.inject(request);
            while (0 != engine.doWork())
            {
                // run until the engine has nothing left to do for this request
            }
        }

        final List<byte[]> produced = new ArrayList<>(link.sent);
        assertEquals(responses.size(), produced.size(), tool + ": number of responses");
        for (int i = 0; i < responses.size(); i++)
        {
            final byte[] expected = fromUdpToIcrc(responses.get(i));
            final byte[] actual = fromUdpToIcrc(produced.get(i));
            assertArrayEquals(expected, actual, tool + ": response " + i + " differs from rxe's");
        }
        assertEquals(0, engine.counters().get(TransportCounter.INTERNAL_ERRORS));
        assertEquals(requests.size(), engine.counters().get(TransportCounter.PACKETS_RECEIVED));
    }

    private static byte[] fromUdpToIcrc(final byte[] frame)
    {
        final RoceFrameParser parser = new RoceFrameParser();
        assertEquals(FrameStatus.OK, parser.parse(new UnsafeBuffer(frame), 0, frame.length));
        return Arrays.copyOfRange(frame, parser.udpOffset(), parser.icrcOffset());
    }

    /**
     * Give the responder the memory the requests address, holding the bytes rxe returned, under rxe's rkeys; and
     * receive buffers for SENDs.
     */
    private static void prepareMemory(
        final RoceEngine engine, final QpContext qp, final List<byte[]> requests, final List<byte[]> responses)
    {
        final RoceFrameParser parser = new RoceFrameParser();
        long low = Long.MAX_VALUE;
        long high = Long.MIN_VALUE;
        int rkey = 0;
        final List<long[]> reads = new ArrayList<>();
        final List<long[]> atomics = new ArrayList<>();
        boolean sends = false;
        for (final byte[] frame : requests)
        {
            parser.parse(new UnsafeBuffer(frame), 0, frame.length);
            final long va;
            final long length;
            if (parser.opcode().has(ExtHeader.RETH))
            {
                va = parser.reth().va();
                length = parser.reth().dmaLength();
                rkey = parser.reth().rkey();
                if (Operation.RDMA_READ_REQUEST == parser.opcode().operation())
                {
                    reads.add(new long[] {parser.bth().psn(), va, length});
                }
            }
            else if (parser.opcode().has(ExtHeader.ATOMIC_ETH))
            {
                va = parser.atomicEth().va();
                length = 8;
                rkey = parser.atomicEth().rkey();
                atomics.add(new long[] {parser.bth().psn(), va});
            }
            else
            {
                sends |= Operation.SEND == parser.opcode().operation();
                continue;
            }
            low = Math.min(low, va);
            high = Math.max(high, va + length);
        }
        if (sends)
        {
            final UnsafeBuffer receive = new UnsafeBuffer(ByteBuffer.allocateDirect(65536));
            final MemoryRegionEntry mr = engine.registerMemory(receive.addressOffset(), AccessFlags.LOCAL_WRITE, 1,
                receive);
            for (int i = 0; i < 32; i++)
            {
                qp.receiveQueue().claim(i).sgl().add(mr.iova(), 65536, mr.lkey());
                qp.receiveQueue().publish();
            }
        }
        if (0 == rkey)
        {
            return;
        }
        final UnsafeBuffer memory = new UnsafeBuffer(ByteBuffer.allocateDirect((int)(high - low)));
        engine.registerMemoryWithKeys(low, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE |
            AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC, 1, memory, 0x7777, rkey);
        // READ: the bytes rxe returned for PSN p of a read at (psn0, va) came from va + (p - psn0) * 1024.
        for (final byte[] frame : responses)
        {
            parser.parse(new UnsafeBuffer(frame), 0, frame.length);
            if (Operation.RDMA_READ_RESPONSE == parser.opcode().operation())
            {
                final int psn = parser.bth().psn();
                for (final long[] read : reads)
                {
                    final int index = (psn - (int)read[0]) & 0xFF_FFFF;
                    if (index < Requester.packetCount(read[2], 1024))
                    {
                        memory.putBytes((int)(read[1] - low) + index * 1024, parser.buffer(),
                            parser.payloadOffset(), parser.payloadLength());
                        break;
                    }
                }
            }
            else if (Operation.ATOMIC_ACKNOWLEDGE == parser.opcode().operation())
            {
                // Each atomic hit its own (uninitialised) 8 bytes: put there the original value rxe reported.
                for (final long[] atomic : atomics)
                {
                    if ((int)atomic[0] == parser.bth().psn())
                    {
                        memory.putLong((int)(atomic[1] - low), parser.atomicAckEth().originalData(),
                            ByteOrder.nativeOrder());
                    }
                }
            }
        }
    }
}
