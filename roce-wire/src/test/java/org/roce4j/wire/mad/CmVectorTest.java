package org.roce4j.wire.mad;

import java.util.EnumMap;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.roce4j.wire.Vectors;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.header.BthHeader;
import org.roce4j.wire.header.DethHeader;
import org.roce4j.wire.header.Ipv4Header;
import org.roce4j.wire.mad.CmFrames.CmFrame;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The MAD and CM flyweights against the real IB CM exchanges rxe's kernel CM sent in the RXE_PAIR capture (rping
 * and ib_write_lat -R over RDMA CM): the values below were read off the capture with tshark and checked against
 * the kernel's layout (include/rdma/ibta_vol1_c12.h).
 */
class CmVectorTest
{
    private static final int ACTIVE_IP = Ipv4Header.parseAddress("10.77.0.2");
    private static final int PASSIVE_IP = Ipv4Header.parseAddress("10.77.0.3");

    @Test
    void everyMadHasTheKernelCmHeaderAndTheCaptureHoldsEveryHandshakeMessage()
    {
        final MadHeader mad = new MadHeader();
        final Map<CmAttribute, Integer> seen = new EnumMap<>(CmAttribute.class);
        for (final CmFrame frame : CmFrames.of(Vectors.RXE_PAIR))
        {
            assertEquals(DethHeader.GSI_QKEY, frame.qkey(), "QP1 traffic carries the GSI Q_Key");
            assertEquals(BthHeader.GSI_QPN, frame.srcQp(), "the kernel CM sends from QP1");
            assertEquals(MadHeader.MAD_LENGTH, frame.payloadLength(), "a MAD is 256 bytes");
            assertNotNull(frame.attribute(), "unknown CM attribute at frame " + frame.frameNumber());
            mad.wrap(frame.buffer(), frame.madOffset());
            assertEquals(MadHeader.BASE_VERSION, mad.baseVersion());
            assertEquals(ManagementClass.CM, ManagementClass.of(mad.mgmtClass()));
            assertEquals(MadHeader.CM_CLASS_VERSION, mad.classVersion());
            assertEquals(MadMethod.SEND, MadMethod.of(mad.method()));
            assertFalse(mad.isResponse());
            assertEquals(0, mad.status());
            assertEquals(0, mad.classSpecific());
            assertEquals(0, mad.reserved());
            assertEquals(0, mad.attributeModifier());
            seen.merge(frame.attribute(), 1, Integer::sum);
        }
        assertEquals(Map.of(
            CmAttribute.CONNECT_REQUEST, 4, CmAttribute.CONNECT_REJECT, 1, CmAttribute.CONNECT_REPLY, 3,
            CmAttribute.READY_TO_USE, 3, CmAttribute.DISCONNECT_REQUEST, 3, CmAttribute.DISCONNECT_REPLY, 3), seen);
    }

    @Test
    void firstConnectRequestHasTheFieldsTsharkShows()
    {
        final CmFrame frame = frame(50);
        assertEquals(CmAttribute.CONNECT_REQUEST, frame.attribute());
        final MadHeader mad = new MadHeader().wrap(frame.buffer(), frame.madOffset());
        assertEquals(0x0000_0002_2d6f_bc0eL, mad.transactionId());
        final CmReqMessage req = new CmReqMessage().wrapMad(frame.buffer(), frame.madOffset());
        assertEquals(0x0ebc6f2d, req.localCommId());
        assertEquals(0, req.vendorId());
        assertEquals(0x0000_0000_0106_4653L, req.serviceId());
        assertEquals(0x5054_00ff_fe00_0002L, req.localCaGuid());
        assertEquals(0, req.localQkey());
        assertEquals(0x14, req.localQpn());
        assertEquals(1, req.responderResources());
        assertEquals(0, req.localEecn());
        assertEquals(1, req.initiatorDepth());
        assertEquals(0, req.remoteEecn());
        assertEquals(20, req.remoteCmResponseTimeout());
        assertEquals(CmReqMessage.TRANSPORT_RC, req.transportServiceType());
        assertFalse(req.endToEndFlowControl());
        assertEquals(0x5879c5, req.startingPsn());
        assertEquals(20, req.localCmResponseTimeout());
        assertEquals(7, req.retryCount());
        assertEquals(0xFFFF, req.pkey());
        assertEquals(3, req.pathMtu());
        assertEquals(1024, CmReqMessage.mtuBytes(req.pathMtu()));
        assertFalse(req.rdcExists());
        assertEquals(7, req.rnrRetryCount());
        assertEquals(15, req.maxCmRetries());
        assertFalse(req.srq());
        assertEquals(0, req.extendedTransportType());

        final CmPath path = req.primaryPath();
        assertEquals(CmPath.PERMISSIVE_LID, path.localLid());
        assertEquals(CmPath.PERMISSIVE_LID, path.remoteLid());
        assertEquals(0, path.localGidHigh());
        assertEquals(Gid.ipv4MappedLow(ACTIVE_IP), path.localGidLow());
        assertEquals(0, path.remoteGidHigh());
        assertEquals(Gid.ipv4MappedLow(PASSIVE_IP), path.remoteGidLow());
        assertEquals("::ffff:10.77.0.2", Gid.toString(path.localGidHigh(), path.localGidLow()));
        // Bytes 88..91 are 7a 17 30 00: flow label = the top 20 bits (Wireshark reads only 2 bytes and shows 0x7a1).
        assertEquals(0x7a173, path.flowLabel());
        assertEquals(0, path.reservedAfterFlowLabel());
        assertEquals(0, path.packetRate());
        assertEquals(0, path.trafficClass());
        assertEquals(64, path.hopLimit());
        assertEquals(0, path.sl());
        assertFalse(path.subnetLocal());
        assertEquals(19, path.localAckTimeout());
        assertEquals(0, req.alternatePath().localLid());
        assertFalse(req.sapSupported());
        assertEquals(92, req.privateDataLength());
    }

    @Test
    void everyConnectRequestIsAnRdmaCmTcpServiceWhoseCmaHeaderMatchesTheIpHeader()
    {
        final CmReqMessage req = new CmReqMessage();
        final CmaHeader cma = new CmaHeader();
        int requests = 0;
        for (final CmFrame frame : CmFrames.of(Vectors.RXE_PAIR))
        {
            if (CmAttribute.CONNECT_REQUEST != frame.attribute())
            {
                continue;
            }
            requests++;
            req.wrapMad(frame.buffer(), frame.madOffset());
            final long serviceId = req.serviceId();
            assertEquals(RdmaCmServiceId.serviceId(RdmaCmServiceId.PS_TCP, RdmaCmServiceId.port(serviceId)),
                serviceId, "service ID is 0x0000000001060000 | port");
            assertEquals(0x0000_0000_0106_0000L, serviceId & RdmaCmServiceId.PS_MASK);
            assertTrue(RdmaCmServiceId.isRdmaCmIp(serviceId));
            assertEquals("RDMA CM TCP port " + (serviceId & 0xFFFF), RdmaCmServiceId.describe(serviceId));

            cma.wrap(frame.buffer(), req.privateDataBufferOffset());
            assertEquals(CmaHeader.CMA_VERSION, cma.version());
            assertEquals(4, cma.ipVersion());
            assertEquals(frame.sourceIp(), cma.sourceIpv4(), "cma_hdr source = the REQ's IP source");
            assertEquals(frame.destinationIp(), cma.destinationIpv4(),
                "cma_hdr destination = the REQ's IP destination");
            assertEquals(0, cma.sourceHigh(), "IPv4 in cma_hdr is zero-padded, not ::ffff:");
            assertEquals(0, cma.sourceLow() >>> 32);
            assertEquals(Ipv4Header.addressToString(frame.sourceIp()), cma.sourceToString());
            assertTrue(cma.port() >= 1024, "the active side's port");
            assertEquals(Gid.ipv4MappedLow(frame.sourceIp()), req.primaryPath().localGidLow());
            assertEquals(Gid.ipv4MappedLow(frame.destinationIp()), req.primaryPath().remoteGidLow());
        }
        assertEquals(4, requests);
        assertEquals(0xc0e0, cma.wrap(frame(50).buffer(), new CmReqMessage().wrapMad(frame(50).buffer(),
            frame(50).madOffset()).privateDataBufferOffset()).port());
    }

    @Test
    void rejectAnswersTheFirstRequestWithInvalidServiceId()
    {
        final CmReqMessage req = new CmReqMessage().wrapMad(frame(50).buffer(), frame(50).madOffset());
        final CmFrame frame = frame(51);
        assertEquals(CmAttribute.CONNECT_REJECT, frame.attribute());
        final CmRejMessage rej = new CmRejMessage().wrapMad(frame.buffer(), frame.madOffset());
        assertEquals(0, rej.localCommId(), "no listener, so no local ID");
        assertEquals(req.localCommId(), rej.remoteCommId());
        assertEquals(CmRejMessage.REJECTED_REQ, rej.messageRejected());
        assertEquals(0, rej.ariLength());
        assertEquals(CmRejectReason.INVALID_SERVICE_ID, CmRejectReason.of(rej.reason()));
        assertEquals(148, rej.privateDataLength());
        assertEquals(new MadHeader().wrap(frame(50).buffer(), frame(50).madOffset()).transactionId(),
            new MadHeader().wrap(frame.buffer(), frame.madOffset()).transactionId(), "REJ echoes the REQ's TID");
    }

    @Test
    void handshakeMessagesCarryConsistentCommIdsQpnsAndPsns()
    {
        final CmReqMessage req = new CmReqMessage().wrapMad(frame(54).buffer(), frame(54).madOffset());
        final CmRepMessage rep = new CmRepMessage().wrapMad(frame(55).buffer(), frame(55).madOffset());
        final CmRtuMessage rtu = new CmRtuMessage().wrapMad(frame(56).buffer(), frame(56).madOffset());
        final CmDreqMessage dreq = new CmDreqMessage().wrapMad(frame(81).buffer(), frame(81).madOffset());
        final CmDrepMessage drep = new CmDrepMessage().wrapMad(frame(82).buffer(), frame(82).madOffset());

        assertEquals(0x0fbc6f2d, req.localCommId());
        assertEquals(0xcbda2625, rep.localCommId());
        assertEquals(req.localCommId(), rep.remoteCommId());
        assertEquals(0x13, rep.localQpn());
        assertEquals(0x1dbb70, rep.startingPsn());
        assertEquals(0, rep.localQkey());
        assertEquals(0, rep.localEecn());
        assertEquals(0, rep.vendorId());
        assertEquals(1, rep.responderResources());
        assertEquals(1, rep.initiatorDepth());
        assertEquals(15, rep.targetAckDelay());
        assertEquals(0, rep.failoverAccepted());
        assertFalse(rep.endToEndFlowControl());
        assertEquals(7, rep.rnrRetryCount());
        assertFalse(rep.srq());
        assertEquals(0x5054_00ff_fe00_0003L, rep.localCaGuid());

        assertEquals(req.localCommId(), rtu.localCommId());
        assertEquals(rep.localCommId(), rtu.remoteCommId());

        assertEquals(req.localCommId(), dreq.localCommId(), "the active side disconnects");
        assertEquals(rep.localCommId(), dreq.remoteCommId());
        assertEquals(rep.localQpn(), dreq.remoteQpn(), "DREQ names the peer's QP");
        assertEquals(rep.localCommId(), drep.localCommId());
        assertEquals(req.localCommId(), drep.remoteCommId());
    }

    private static CmFrame frame(final int frameNumber)
    {
        return CmFrames.frame(Vectors.RXE_PAIR, frameNumber);
    }
}
