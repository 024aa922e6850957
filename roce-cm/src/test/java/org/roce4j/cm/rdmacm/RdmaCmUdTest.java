package org.roce4j.cm.rdmacm;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.roce4j.cm.ib.CmCounter;
import org.roce4j.ib.QpAttrMask;
import org.roce4j.ib.QpAttributes;
import org.roce4j.ib.QpState;
import org.roce4j.ib.QpType;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WcOpcode;
import org.roce4j.ib.WcStatus;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.ib.WrOpcode;
import org.roce4j.verbs.AddressHandle;
import org.roce4j.verbs.CompletionQueue;
import org.roce4j.verbs.MemoryRegion;
import org.roce4j.verbs.QpInitAttributes;
import org.roce4j.verbs.QueuePair;
import org.roce4j.verbs.RecvWorkRequest;
import org.roce4j.verbs.SendWorkRequest;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.mad.RdmaCmServiceId;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.roce4j.cm.rdmacm.CmFabric.ADDRESS_A;
import static org.roce4j.cm.rdmacm.CmFabric.ADDRESS_B;
import static org.roce4j.cm.rdmacm.CmFabric.WAIT_NS;

/**
 * rdma_cm's UDP port space between two roce4j devices on the in-memory fabric (simulated time): SIDR_REQ from
 * connect, CONNECT_REQUEST and accept with a SIDR_REP, ESTABLISHED with the peer's UD address, data both ways as
 * udaddy sends it (SEND with immediate = our QPN, the reply addressed from the work completion and its GRH), and
 * the failures: nobody on the port, rdma_reject, no CM at all.
 */
class RdmaCmUdTest
{
    private static final int PORT = 7174;
    private static final int GRH = WorkCompletion.GRH_BYTES;
    private final CmFabric fx = new CmFabric();

    @AfterEach
    void close()
    {
        fx.assertHealthy();
        fx.close();
    }

    /** udaddy's QP: UD, as rdma_create_qp requires on an RDMA_PS_UDP id. */
    private static QpInitAttributes udInit(final CompletionQueue cq)
    {
        return CmFabric.init(cq).qpType(QpType.UD);
    }

    private RdmaCmId listenUdpB()
    {
        return fx.cmB.createId(RdmaCmServiceId.PS_UDP).listen(new InetSocketAddress("0.0.0.0", PORT), 8);
    }

    private RdmaCmId connectUdpA(final int port, final byte[] privateData)
    {
        final RdmaCmId active = fx.cmA.createId(RdmaCmServiceId.PS_UDP);
        active.createQp(fx.pdA, udInit(fx.cqA));
        active.connect(CmFabric.address(ADDRESS_B, port), new ConnParam().privateData(privateData));
        return active;
    }

    @Test
    void sidrResolvesThePeersQpAndDataFlowsBothWaysAsUdaddySendsIt()
    {
        final RdmaCmId listener = listenUdpB();
        final RdmaCmId active = connectUdpA(PORT, "udaddy".getBytes(StandardCharsets.US_ASCII));
        assertEquals(QpType.UD, active.qp().type());
        final QpAttributes qa = active.qp().query(new QpAttributes(), QpAttrMask.ALL);
        assertEquals(QpState.RTS, qa.qpState, "librdmacm ucma_init_ud_qp: the UD QP is ready before any peer");
        assertEquals(UdParam.RDMA_UDP_QKEY, qa.qkey);

        final RdmaCmEvent request = fx.cmB.expect(listener, RdmaCmEventType.CONNECT_REQUEST, WAIT_NS);
        assertSame(listener, request.listenId());
        assertEquals(ConnParam.MAX_UD_CONNECT_PRIVATE_DATA, request.privateData().length, "216 - 36 bytes");
        assertArrayEquals("udaddy".getBytes(StandardCharsets.US_ASCII), Arrays.copyOf(request.privateData(), 6));
        final RdmaCmId passive = request.id();
        assertEquals(RdmaCmServiceId.PS_UDP, passive.portSpace());
        assertEquals(CmFabric.address(ADDRESS_A, active.localAddress().getPort()), passive.remoteAddress());
        passive.createQp(fx.pdB, udInit(fx.cqB));
        final MemoryRegion bufB = CmFabric.register(fx.pdB, 256);
        passive.qp().postRecv(new RecvWorkRequest().wrId(1).addSge(bufB, 0, 100 + GRH));
        passive.accept(null);
        assertEquals(RdmaCmId.State.ESTABLISHED, passive.state(), "the SIDR_REP is all the service sends");

        final RdmaCmEvent established = fx.cmA.expect(active, RdmaCmEventType.ESTABLISHED, WAIT_NS);
        final UdParam ud = established.ud();
        assertNotNull(ud);
        assertEquals(passive.qp().qpNum(), ud.qpNum());
        assertEquals(UdParam.RDMA_UDP_QKEY, ud.qkey());
        assertEquals(Gid.ofIpv4(ADDRESS_B.ipv4()).high(), ud.ahAttr().dgidHigh());
        assertEquals(Gid.ofIpv4(ADDRESS_B.ipv4()).low(), ud.ahAttr().dgidLow());
        assertEquals(RdmaCmId.State.ESTABLISHED, active.state());
        assertEquals(136, established.privateData().length, "the SIDR_REP's private data");

        // A -> B: SEND with immediate = A's QPN, as udaddy's post_sends.
        final MemoryRegion bufA = CmFabric.register(fx.pdA, 512);
        final AddressHandle ahA = fx.pdA.createAh(ud.ahAttr());
        active.qp().postRecv(new RecvWorkRequest().wrId(3).addSge(bufA, 128, 100 + GRH));
        active.qp().postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.SEND_WITH_IMM)
            .immData(active.qp().qpNum()).sendFlags(SendFlags.SIGNALED).addSge(bufA, 0, 100)
            .ud(ahA, ud.qpNum(), ud.qkey()));
        assertEquals(WcStatus.SUCCESS, CmFabric.awaitCompletion(fx.cqA).status());
        final WorkCompletion atB = CmFabric.awaitCompletion(fx.cqB);
        assertEquals(WcStatus.SUCCESS, atB.status());
        assertEquals(WcOpcode.RECV, atB.opcode());
        assertEquals(100 + GRH, atB.byteLen());
        assertEquals(active.qp().qpNum(), atB.srcQp());
        assertEquals(active.qp().qpNum(), atB.immData());

        // B -> A: the reply's address from the work completion and its GRH (udaddy's create_reply_ah).
        final AddressHandle ahB = fx.pdB.createAhFromWc(atB, bufB.buffer(), 0);
        passive.qp().postSend(new SendWorkRequest().wrId(4).opcode(WrOpcode.SEND_WITH_IMM)
            .immData(passive.qp().qpNum()).sendFlags(SendFlags.SIGNALED).addSge(bufB, GRH, 100)
            .ud(ahB, atB.immData(), UdParam.RDMA_UDP_QKEY));
        assertEquals(WcStatus.SUCCESS, CmFabric.awaitCompletion(fx.cqB).status());
        final WorkCompletion atA = CmFabric.awaitCompletion(fx.cqA);
        assertEquals(WcStatus.SUCCESS, atA.status());
        assertEquals(passive.qp().qpNum(), atA.srcQp());

        assertEquals(1, fx.cmA.counters().get(CmCounter.SIDR_REQ_SENT));
        assertEquals(1, fx.cmB.counters().get(CmCounter.SIDR_REQ_RECEIVED));
        assertEquals(1, fx.cmB.counters().get(CmCounter.SIDR_REP_SENT));
        assertEquals(1, fx.cmA.counters().get(CmCounter.SIDR_REP_RECEIVED));
        active.destroy();
        passive.destroy();
        listener.destroy();
    }

    @Test
    void overIpv6LinkLocalTheSidrReqCarriesAnIpv6HeaderAndTheAddressIsTheGid()
    {
        final RdmaCmId listener = fx.cmB.createId(RdmaCmServiceId.PS_UDP).listen(new InetSocketAddress("::", PORT), 8);
        final RdmaCmId active = fx.cmA.createId(RdmaCmServiceId.PS_UDP);
        active.createQp(fx.pdA, udInit(fx.cqA));
        active.connect(CmFabric.linkLocal(ADDRESS_B, PORT), new ConnParam());
        final RdmaCmEvent request = fx.cmB.expect(listener, RdmaCmEventType.CONNECT_REQUEST, WAIT_NS);
        assertEquals(CmFabric.linkLocal(ADDRESS_A, active.localAddress().getPort()), request.id().remoteAddress());
        request.id().createQp(fx.pdB, udInit(fx.cqB));
        request.id().accept(null);
        final UdParam ud = fx.cmA.expect(active, RdmaCmEventType.ESTABLISHED, WAIT_NS).ud();
        assertEquals(request.id().qp().qpNum(), ud.qpNum());
        assertEquals(Gid.LINK_LOCAL_HIGH, ud.ahAttr().dgidHigh());
        assertEquals(ADDRESS_B.linkLocalLow(), ud.ahAttr().dgidLow());
    }

    @Test
    void aPortNobodyListensOnIsUnreachableWithStatusUnsupported()
    {
        final RdmaCmId active = connectUdpA(PORT + 1, new byte[0]);
        final RdmaCmEvent event = fx.cmA.getEvent(WAIT_NS);
        assertEquals(RdmaCmEventType.UNREACHABLE, event.type());
        assertSame(active, event.id());
        assertEquals(1, event.status(), "IB_SIDR_UNSUPPORTED, as rdma_cm reports it");
        assertNull(event.ud());
        assertEquals(RdmaCmId.State.UNREACHABLE, active.state());
        assertEquals(1, fx.cmB.counters().get(CmCounter.SIDR_REP_UNSUPPORTED));
    }

    @Test
    void aTcpListenerDoesNotTakeUdpRequestsNorTheOtherWayRound()
    {
        fx.cmB.createId().listen(new InetSocketAddress("0.0.0.0", PORT), 8);
        connectUdpA(PORT, new byte[0]);
        assertEquals(1, fx.cmA.getEvent(WAIT_NS).status(), "the TCP listener's service ID is another one");
        assertEquals(RdmaCmId.State.LISTENING, listenUdpB().state(), "the UDP port 7174 is another port");
    }

    @Test
    void rdmaRejectIsUnreachableWithStatusRejectAndThePrivateData()
    {
        final RdmaCmId listener = listenUdpB();
        final RdmaCmId active = connectUdpA(PORT, new byte[0]);
        final RdmaCmEvent request = fx.cmB.expect(listener, RdmaCmEventType.CONNECT_REQUEST, WAIT_NS);
        request.id().reject(new byte[] {42});
        final RdmaCmEvent event = fx.cmA.expect(active, RdmaCmEventType.UNREACHABLE, WAIT_NS);
        assertEquals(2, event.status(), "IB_SIDR_REJECT");
        assertEquals(42, event.privateData()[0]);
        assertEquals(1, fx.cmB.counters().get(CmCounter.SIDR_REP_REJECT));
    }

    @Test
    void withoutACmOnThePeerTheSidrReqIsRetriedThenUnreachableWithEtimedout()
    {
        final CmFabric lonely = new CmFabric(false);
        try
        {
            final RdmaCmId active = lonely.cmA.createId(RdmaCmServiceId.PS_UDP);
            active.createQp(lonely.pdA, udInit(lonely.cqA));
            active.connect(CmFabric.address(ADDRESS_B, PORT), new ConnParam());
            final RdmaCmEvent event = lonely.cmA.expect(active, RdmaCmEventType.UNREACHABLE, WAIT_NS);
            assertEquals(RdmaCmEvent.ETIMEDOUT, event.status());
            assertEquals(lonely.cmA.options().cmConfig().maxCmRetries(),
                lonely.cmA.counters().get(CmCounter.RETRANSMISSIONS));
            assertEquals(1, lonely.cmA.counters().get(CmCounter.TIMEOUTS));
            lonely.assertHealthy();
        }
        finally
        {
            lonely.close();
        }
    }

    @Test
    void aUdQpCreatedElsewhereIsBroughtUpWhenAttachedAndResolvedBySidr()
    {
        // perftest -R -c UD: ibv_create_qp, then rdma_cm drives the QP (as rdma_create_qp would have).
        final RdmaCmId listener = listenUdpB();
        final QueuePair own = fx.pdA.createQp(udInit(fx.cqA));
        final RdmaCmId active = fx.cmA.createId(RdmaCmServiceId.PS_UDP).attachQp(own);
        assertSame(own, active.qp());
        final QpAttributes qa = own.query(new QpAttributes(), QpAttrMask.ALL);
        assertEquals(QpState.RTS, qa.qpState, "brought up as ucma_init_ud_qp does");
        assertEquals(UdParam.RDMA_UDP_QKEY, qa.qkey);
        active.connect(CmFabric.address(ADDRESS_B, PORT), new ConnParam());
        final RdmaCmEvent request = fx.cmB.expect(listener, RdmaCmEventType.CONNECT_REQUEST, WAIT_NS);
        final QueuePair passiveQp = fx.pdB.createQp(udInit(fx.cqB));
        request.id().attachQp(passiveQp).accept(null);
        final RdmaCmEvent established = fx.cmA.expect(active, RdmaCmEventType.ESTABLISHED, WAIT_NS);
        assertEquals(passiveQp.qpNum(), established.ud().qpNum());

        final QueuePair rc = fx.pdA.createQp(CmFabric.init(fx.cqA).qpType(QpType.RC));
        assertThrows(IllegalArgumentException.class, () -> fx.cmA.createId(RdmaCmServiceId.PS_UDP).attachQp(rc),
            "an RC QP on a UDP identifier");
        assertThrows(IllegalArgumentException.class, () -> fx.cmA.createId().attachQp(
            fx.pdA.createQp(udInit(fx.cqA))), "a UD QP on a TCP identifier");
        assertThrows(IllegalArgumentException.class, () -> fx.cmA.createId(RdmaCmServiceId.PS_UDP).attachQp(own),
            "a UD QP already in RTS");
    }

    @Test
    void misuseIsNamed()
    {
        final RdmaCmId ud = fx.cmA.createId(RdmaCmServiceId.PS_UDP);
        assertThrows(IllegalArgumentException.class,
            () -> ud.createQp(fx.pdA, CmFabric.init(fx.cqA).qpType(QpType.RC)));
        assertThrows(IllegalArgumentException.class, () -> fx.cmA.createId(RdmaCmServiceId.PS_IPOIB));
        ud.createQp(fx.pdA, udInit(fx.cqA));
        assertThrows(IllegalArgumentException.class, () -> ud.connect(CmFabric.address(ADDRESS_B, PORT),
            new ConnParam().privateData(new byte[ConnParam.MAX_UD_CONNECT_PRIVATE_DATA + 1])));
    }
}
