package org.roce4j.cm.rdmacm;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.roce4j.cm.ib.CmCounter;
import org.roce4j.cm.ib.CmState;
import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.Mtu;
import org.roce4j.ib.QpAttrMask;
import org.roce4j.ib.QpAttributes;
import org.roce4j.ib.QpState;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WcOpcode;
import org.roce4j.ib.WcStatus;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.ib.WrOpcode;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.transport.link.fault.FaultRule;
import org.roce4j.verbs.MemoryRegion;
import org.roce4j.verbs.QueuePair;
import org.roce4j.verbs.RecvWorkRequest;
import org.roce4j.verbs.SendWorkRequest;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.addr.Mac;
import org.roce4j.wire.header.BthHeader;
import org.roce4j.wire.mad.CmRejectReason;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.roce4j.cm.rdmacm.CmFabric.ADDRESS_A;
import static org.roce4j.cm.rdmacm.CmFabric.ADDRESS_B;
import static org.roce4j.cm.rdmacm.CmFabric.WAIT_NS;

/**
 * roce4j against roce4j through rdma_cm on the in-memory fabric (simulated time): listen, connection requests with
 * private data, accept and reject with private data, connect, disconnect from either side, every event, the QP
 * attributes the CM sets, data over the connection, loss of CM MADs, timeouts, backlog, IPv6, and API misuse.
 */
class RdmaCmTest
{
    private static final int PORT = 7174;
    private CmFabric fx = new CmFabric();

    @AfterEach
    void close()
    {
        fx.assertHealthy();
        fx.close();
    }

    private static byte[] text(final String s)
    {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** A connection between A (active) and B (passive), both ESTABLISHED. */
    private record Connection(RdmaCmId active, RdmaCmId passive, RdmaCmEvent request, RdmaCmEvent activeEstablished)
    {
    }

    private Connection connect(final RdmaCmId listener, final InetSocketAddress destination)
    {
        final RdmaCmId active = fx.cmA.createId();
        active.createQp(fx.pdA, CmFabric.init(fx.cqA));
        active.connect(destination, new ConnParam().privateData(text("hello from A")));
        final RdmaCmEvent request = fx.cmB.expect(listener, RdmaCmEventType.CONNECT_REQUEST, WAIT_NS);
        final RdmaCmId passive = request.id();
        passive.createQp(fx.pdB, CmFabric.init(fx.cqB));
        passive.accept(new ConnParam().privateData(text("welcome")));
        final RdmaCmEvent established = fx.cmA.expect(active, RdmaCmEventType.ESTABLISHED, WAIT_NS);
        fx.cmB.expect(passive, RdmaCmEventType.ESTABLISHED, WAIT_NS);
        return new Connection(active, passive, request, established);
    }

    private void assertASendArrives(final Connection c)
    {
        final MemoryRegion bufA = CmFabric.register(fx.pdA, 64);
        final MemoryRegion bufB = CmFabric.register(fx.pdB, 64);
        c.passive().qp().postRecv(new RecvWorkRequest().wrId(1).addSge(bufB, 0, 64));
        c.active().qp().postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.SEND)
            .sendFlags(SendFlags.SIGNALED).addSge(bufA, 0, 8));
        assertEquals(WcStatus.SUCCESS, CmFabric.awaitCompletion(fx.cqB).status());
    }

    private RdmaCmId listenB()
    {
        return fx.cmB.createId().listen(new InetSocketAddress("0.0.0.0", PORT), 8);
    }

    @Test
    void connectAndAcceptWithPrivateDataThenDataFlowsBothWays()
    {
        final RdmaCmId listener = listenB();
        final Connection c = connect(listener, CmFabric.address(ADDRESS_B, PORT));

        final RdmaCmEvent request = c.request();
        assertSame(listener, request.listenId());
        assertEquals(ConnParam.MAX_CONNECT_PRIVATE_DATA, request.privateData().length, "92 - 36 bytes");
        assertArrayEquals(text("hello from A"), Arrays.copyOf(request.privateData(), 12));
        assertEquals(1, request.param().responderResources());
        assertEquals(1, request.param().initiatorDepth());
        assertEquals(CmFabric.address(ADDRESS_A, c.active().localAddress().getPort()), c.passive().remoteAddress(),
            "the passive side learns the active side's address and port from rdma_cm's header");
        assertTrue(c.active().localAddress().getPort() >= 32768 && c.active().localAddress().getPort() <= 60999);
        assertEquals(CmFabric.address(ADDRESS_B, PORT), c.passive().localAddress());
        assertArrayEquals(text("welcome"), Arrays.copyOf(c.activeEstablished().privateData(), 7));
        assertEquals(196, c.activeEstablished().privateData().length);
        assertEquals(RdmaCmId.State.ESTABLISHED, c.active().state());
        assertEquals(RdmaCmId.State.ESTABLISHED, c.passive().state());
        assertEquals(CmState.ESTABLISHED, c.active().cmState());

        // The QPs got what the kernel's rdma_cm gives them.
        final QueuePair qpA = c.active().qp();
        final QueuePair qpB = c.passive().qp();
        final QpAttributes a = qpA.query(new QpAttributes(), QpAttrMask.ALL);
        final QpAttributes b = qpB.query(new QpAttributes(), QpAttrMask.ALL);
        assertEquals(QpState.RTS, a.qpState);
        assertEquals(QpState.RTS, b.qpState);
        assertEquals(qpB.qpNum(), a.destQpNum);
        assertEquals(qpA.qpNum(), b.destQpNum);
        assertEquals(qpB.qpNum(), c.active().remoteQpn());
        // Linux's convention (and the golden capture's): a side expects first the PSN it put in its own REQ or
        // REP, and sends from the peer's.
        assertEquals(c.active().connection().localPsn(), a.rqPsn, "A expects the PSN of its REQ");
        assertEquals(c.passive().connection().localPsn(), a.sqPsn, "A sends from the PSN of B's REP");
        assertEquals(c.passive().connection().localPsn(), b.rqPsn);
        assertEquals(c.active().connection().localPsn(), b.sqPsn);
        assertEquals(Mtu.MTU_1024, a.pathMtu, "the active MTU of a 1500-byte link");
        assertEquals(19, a.timeout, "cm_ack_timeout(15, 18)");
        assertEquals(19, b.timeout);
        assertEquals(7, a.retryCnt);
        assertEquals(7, b.rnrRetry);
        assertEquals(1, a.maxRdAtomic);
        assertEquals(1, b.maxDestRdAtomic);
        assertEquals(0, a.minRnrTimer, "cm.c cm_init_qp_rtr_attr: min_rnr_timer 0");
        assertEquals(AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC,
            a.qpAccessFlags & (AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC));
        assertEquals(64, a.ahAttr.hopLimit());
        assertTrue(a.ahAttr.flowLabel() > 0, "the RoCEv2 flow label rdma_cm derives from the ports");
        assertEquals(a.ahAttr.flowLabel(), b.ahAttr.flowLabel(), "both ends use the REQ's flow label");

        // Data: SEND A -> B, RDMA WRITE A -> B, RDMA READ B <- A.
        final MemoryRegion bufA = CmFabric.register(fx.pdA, 4096);
        final MemoryRegion bufB = CmFabric.register(fx.pdB, 4096);
        bufA.buffer().putStringWithoutLengthAscii(0, "ping over rdma_cm");
        qpB.postRecv(new RecvWorkRequest().wrId(1).addSge(bufB, 0, 64));
        qpA.postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
            .addSge(bufA, 0, 17));
        assertEquals(WcStatus.SUCCESS, CmFabric.awaitCompletion(fx.cqA).status());
        final WorkCompletion recv = CmFabric.awaitCompletion(fx.cqB);
        assertEquals(WcOpcode.RECV, recv.opcode());
        assertEquals("ping over rdma_cm", bufB.buffer().getStringWithoutLengthAscii(0, 17));
        qpA.postSend(new SendWorkRequest().wrId(3).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
            .addSge(bufA, 0, 17).rdma(bufB.address(1000), bufB.rkey()));
        assertEquals(WcStatus.SUCCESS, CmFabric.awaitCompletion(fx.cqA).status());
        assertEquals("ping over rdma_cm", bufB.buffer().getStringWithoutLengthAscii(1000, 17));
        qpB.postSend(new SendWorkRequest().wrId(4).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
            .addSge(bufB, 2000, 17).rdma(bufA.address(0), bufA.rkey()));
        final WorkCompletion read = CmFabric.awaitCompletion(fx.cqB);
        assertEquals(WcStatus.SUCCESS, read.status());
        assertEquals(WcOpcode.RDMA_READ, read.opcode());
        assertEquals("ping over rdma_cm", bufB.buffer().getStringWithoutLengthAscii(2000, 17));
    }

    @Test
    void rejectCarriesReasonAndPrivateDataAndMovesTheActiveQpToError()
    {
        final RdmaCmId listener = listenB();
        final RdmaCmId active = fx.cmA.createId();
        active.createQp(fx.pdA, CmFabric.init(fx.cqA));
        active.connect(CmFabric.address(ADDRESS_B, PORT), new ConnParam());
        final RdmaCmEvent request = fx.cmB.expect(listener, RdmaCmEventType.CONNECT_REQUEST, WAIT_NS);
        request.id().reject(text("not today"));
        assertEquals(RdmaCmId.State.REJECTED, request.id().state());

        final RdmaCmException ex = assertThrows(RdmaCmException.class,
            () -> fx.cmA.expect(active, RdmaCmEventType.ESTABLISHED, WAIT_NS));
        final RdmaCmEvent rejected = ex.event();
        assertEquals(RdmaCmEventType.REJECTED, rejected.type());
        assertEquals(CmRejectReason.CONSUMER_DEFINED.code(), rejected.status());
        assertArrayEquals(text("not today"), Arrays.copyOf(rejected.privateData(), 9));
        assertTrue(ex.getMessage().contains("REJ reason 28"), ex.getMessage());
        assertEquals(QpState.ERR, active.qp().state(), "cma.c: REJ received moves the QP to error");
        assertEquals(RdmaCmId.State.REJECTED, active.state());
    }

    @Test
    void connectToAPortNobodyListensOnIsRejectedWithReason8()
    {
        final RdmaCmId active = fx.cmA.createId();
        active.createQp(fx.pdA, CmFabric.init(fx.cqA));
        active.connect(CmFabric.address(ADDRESS_B, 9), new ConnParam());
        final RdmaCmEvent event = fx.cmA.getEvent(WAIT_NS);
        assertEquals(RdmaCmEventType.REJECTED, event.type());
        assertEquals(CmRejectReason.INVALID_SERVICE_ID.code(), event.status());
        assertEquals(1, fx.cmB.counters().get(CmCounter.REJ_INVALID_SERVICE_ID));
        assertTrue(event.message().contains("invalid service ID"), event.message());
    }

    @Test
    void aPeerWithoutACmIsUnreachableAfterEveryRetry()
    {
        fx.close();
        fx = new CmFabric(false);
        final RdmaCmId active = fx.cmA.createId();
        active.createQp(fx.pdA, CmFabric.init(fx.cqA));
        final long start = fx.clock.nanoTime();
        active.connect(CmFabric.address(ADDRESS_B, PORT), new ConnParam());
        final RdmaCmException ex = assertThrows(RdmaCmException.class,
            () -> fx.cmA.expect(active, RdmaCmEventType.ESTABLISHED, WAIT_NS));
        assertEquals(RdmaCmEventType.UNREACHABLE, ex.event().type());
        assertEquals(RdmaCmEvent.ETIMEDOUT, ex.event().status());
        assertTrue(ex.getMessage().contains("did not answer our REQ (sent 16 times, every 6144 ms)"),
            ex.getMessage());
        assertEquals(TimeUnit.MILLISECONDS.toNanos(16 * 6144), fx.clock.nanoTime() - start,
            "simulated time: 16 REQs 6144 ms apart");
        assertEquals(15, fx.cmA.counters().get(CmCounter.RETRANSMISSIONS));
        assertEquals(QpState.ERR, active.qp().state());
        assertEquals(16, fx.b.counters().get(org.roce4j.transport.TransportCounter.DROP_NO_QP),
            "B has no QP1: each REQ was dropped there");
    }

    @Test
    void aWaitWithoutAnEventTimesOutWithTheCmState()
    {
        final RdmaCmId listener = listenB();
        final RdmaCmId active = fx.cmA.createId();
        active.createQp(fx.pdA, CmFabric.init(fx.cqA));
        active.connect(CmFabric.address(ADDRESS_B, PORT), new ConnParam());
        fx.cmB.expect(listener, RdmaCmEventType.CONNECT_REQUEST, WAIT_NS);
        final RdmaCmException ex = assertThrows(RdmaCmException.class,
            () -> fx.cmA.expect(active, RdmaCmEventType.ESTABLISHED, TimeUnit.SECONDS.toNanos(1)));
        assertNull(ex.event());
        assertTrue(ex.getMessage().contains("no RDMA_CM_EVENT_ESTABLISHED") &&
            ex.getMessage().contains("REQ_SENT"), ex.getMessage());
    }

    @Test
    void disconnectFromTheActiveSideIsSeenByThePassiveSideAndFlushesItsReceives()
    {
        final Connection c = connect(listenB(), CmFabric.address(ADDRESS_B, PORT));
        final MemoryRegion buf = CmFabric.register(fx.pdB, 64);
        c.passive().qp().postRecv(new RecvWorkRequest().wrId(7).addSge(buf, 0, 64));
        c.active().disconnect();
        assertEquals(QpState.ERR, c.active().qp().state(), "rdma_disconnect moves the QP to error first");
        final RdmaCmEvent seen = fx.cmB.expect(c.passive(), RdmaCmEventType.DISCONNECTED, WAIT_NS);
        assertEquals(0, seen.status());
        assertTrue(seen.message().contains("DREQ received"), seen.message());
        assertEquals(QpState.ERR, c.passive().qp().state());
        assertEquals(WcStatus.WR_FLUSH_ERR, CmFabric.awaitCompletion(fx.cqB).status(), "the posted receive flushes");
        fx.cmA.expect(c.active(), RdmaCmEventType.DISCONNECTED, WAIT_NS);
        fx.cmA.expect(c.active(), RdmaCmEventType.TIMEWAIT_EXIT, WAIT_NS);
        fx.cmB.expect(c.passive(), RdmaCmEventType.TIMEWAIT_EXIT, WAIT_NS);
        assertTrue(c.active().timewaitExited());
        c.active().disconnect();
        assertNull(fx.cmA.pollEvent(), "a second disconnect does nothing");
    }

    @Test
    void disconnectFromThePassiveSideIsSeenByTheActiveSide()
    {
        final Connection c = connect(listenB(), CmFabric.address(ADDRESS_B, PORT));
        c.passive().disconnect();
        fx.cmA.expect(c.active(), RdmaCmEventType.DISCONNECTED, WAIT_NS);
        fx.cmB.expect(c.passive(), RdmaCmEventType.DISCONNECTED, WAIT_NS);
        assertEquals(QpState.ERR, c.active().qp().state());
        assertEquals(RdmaCmId.State.DISCONNECTED, c.active().state());
    }

    @Test
    void lostCmMadsAreRetransmittedAndTheConnectionCompletes()
    {
        // Drop A's first REQ and B's first REP on the fabric (UD SEND_ONLY to QP1).
        fx.linkA.faults().addRule(FaultRule.drop().destQp(BthHeader.GSI_QPN).once());
        fx.linkB.faults().addRule(FaultRule.drop().destQp(BthHeader.GSI_QPN).once());
        final long start = fx.clock.nanoTime();
        final Connection c = connect(listenB(), CmFabric.address(ADDRESS_B, PORT));
        assertEquals(RdmaCmId.State.ESTABLISHED, c.active().state());
        assertEquals(1, fx.cmA.counters().get(CmCounter.RETRANSMISSIONS), "the REQ, after 6144 ms");
        assertEquals(1, fx.cmB.counters().get(CmCounter.RETRANSMISSIONS), "the REP, after 4096 ms");
        assertTrue(fx.clock.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(6144 + 4096));
    }

    @Test
    void slowAcceptGetsAnMraSoTheActiveSideKeepsWaiting()
    {
        final RdmaCmId listener = listenB();
        final RdmaCmId active = fx.cmA.createId();
        active.createQp(fx.pdA, CmFabric.init(fx.cqA));
        active.connect(CmFabric.address(ADDRESS_B, PORT), new ConnParam());
        final RdmaCmEvent request = fx.cmB.expect(listener, RdmaCmEventType.CONNECT_REQUEST, WAIT_NS);
        // The application thinks for 30 s: the REQ comes again at 6144 ms and gets an MRA.
        assertNull(fx.cmA.getEvent(TimeUnit.SECONDS.toNanos(30)));
        assertEquals(1, fx.cmB.counters().get(CmCounter.MRA_SENT));
        assertEquals(CmState.MRA_REQ_RCVD, active.cmState());
        request.id().createQp(fx.pdB, CmFabric.init(fx.cqB));
        request.id().accept(null);
        fx.cmA.expect(active, RdmaCmEventType.ESTABLISHED, WAIT_NS);
    }

    @Test
    void aFullBacklogDropsRequestsUntilOneIsAnswered()
    {
        final RdmaCmId listener = fx.cmB.createId().listen(new InetSocketAddress("10.0.0.2", PORT), 1);
        final RdmaCmId first = fx.cmA.createId();
        first.createQp(fx.pdA, CmFabric.init(fx.cqA));
        first.connect(CmFabric.address(ADDRESS_B, PORT), new ConnParam());
        final RdmaCmId second = fx.cmA.createId();
        second.createQp(fx.pdA, CmFabric.init(fx.cqA));
        second.connect(CmFabric.address(ADDRESS_B, PORT), new ConnParam());
        final RdmaCmEvent one = fx.cmB.expect(listener, RdmaCmEventType.CONNECT_REQUEST, WAIT_NS);
        assertEquals(1, fx.cmB.counters().get(CmCounter.DROP_BACKLOG));
        one.id().reject(null);
        final RdmaCmEvent two = fx.cmB.expect(listener, RdmaCmEventType.CONNECT_REQUEST, WAIT_NS);
        assertEquals(second.localAddress().getPort(), two.id().remoteAddress().getPort(),
            "the dropped REQ came again and now fits");
        fx.cmA.expect(first, RdmaCmEventType.REJECTED, WAIT_NS);
    }

    @Test
    void listenersMatchTheDestinationAddressAndRejectOtherDestinations()
    {
        final RdmaCmId specific = fx.cmB.createId().listen(CmFabric.address(ADDRESS_B, PORT), 4);
        final IllegalStateException inUse = assertThrows(IllegalStateException.class,
            () -> fx.cmB.createId().listen(new InetSocketAddress("0.0.0.0", PORT), 4));
        assertTrue(inUse.getMessage().contains("address in use"), inUse.getMessage());
        final IllegalArgumentException foreign = assertThrows(IllegalArgumentException.class,
            () -> fx.cmB.createId().listen(new InetSocketAddress("10.9.9.9", PORT + 1), 4));
        assertTrue(foreign.getMessage().contains("not an address of"), foreign.getMessage());

        // A REQ whose rdma_cm header names the IPv6 address while only the IPv4 one listens: consumer reject.
        final RdmaCmId active = fx.cmA.createId();
        active.createQp(fx.pdA, CmFabric.init(fx.cqA));
        active.connect(CmFabric.linkLocal(ADDRESS_B, PORT), new ConnParam());
        final RdmaCmEvent rejected = fx.cmA.getEvent(WAIT_NS);
        assertEquals(RdmaCmEventType.REJECTED, rejected.type());
        assertEquals(CmRejectReason.CONSUMER_DEFINED.code(), rejected.status());
        assertEquals(RdmaCmId.State.LISTENING, specific.state());
    }

    @Test
    void ipv6LinkLocalConnectionsWorkWithAnIpv6Header()
    {
        final RdmaCmId listener = fx.cmB.createId().listen(new InetSocketAddress("::", PORT), 4);
        final Connection c = connect(listener, CmFabric.linkLocal(ADDRESS_B, PORT));
        assertEquals(CmFabric.linkLocal(ADDRESS_A, c.active().localAddress().getPort()), c.passive().remoteAddress());
        final QpAttributes a = c.active().qp().query(new QpAttributes(), QpAttrMask.ALL);
        assertEquals(0, a.ahAttr.sgidIndex(), "the link-local GID");
        assertASendArrives(c);
    }

    @Test
    void globalIpv6ConnectionsTakeTheSourceGidOfThatAddress()
    {
        fx.close();
        fx = new CmFabric(
            new LinkAddress(Mac.parse("02:00:00:00:00:0a"), List.of(Gid.parse("10.0.0.1"), Gid.parse("fd00:77::1"))),
            new LinkAddress(Mac.parse("02:00:00:00:00:0b"), List.of(Gid.parse("10.0.0.2"), Gid.parse("fd00:77::2"))),
            true);
        final RdmaCmId listener = fx.cmB.createId().listen(new InetSocketAddress("fd00:77::2", PORT), 4);
        final Connection c = connect(listener, new InetSocketAddress("fd00:77::2", PORT));
        assertEquals(new InetSocketAddress("fd00:77::1", c.active().localAddress().getPort()),
            c.passive().remoteAddress(), "the source address the cma header carried");
        final QpAttributes a = c.active().qp().query(new QpAttributes(), QpAttrMask.ALL);
        assertEquals(2, a.ahAttr.sgidIndex(), "GID 2: fe80::, ::ffff:10.0.0.1, then fd00:77::1");
        assertEquals(Gid.parse("fd00:77::2"), new Gid(a.ahAttr.dgidHigh(), a.ahAttr.dgidLow()));
        final QpAttributes b = c.passive().qp().query(new QpAttributes(), QpAttrMask.ALL);
        assertEquals(2, b.ahAttr.sgidIndex(), "the passive side's fd00:77::2");
        assertASendArrives(c);
    }

    @Test
    void theTypeOfServiceOptionGoesIntoBothQpsOrTheListenersIntoItsConnections()
    {
        // rdma_set_option(RDMA_OPTION_ID_TOS) before connect: the REQ's traffic class, which both QPs then use.
        final RdmaCmId listener = listenB();
        final RdmaCmId active = fx.cmA.createId().tos(0x68);
        active.createQp(fx.pdA, CmFabric.init(fx.cqA));
        active.connect(CmFabric.address(ADDRESS_B, PORT), new ConnParam());
        final RdmaCmEvent request = fx.cmB.expect(listener, RdmaCmEventType.CONNECT_REQUEST, WAIT_NS);
        request.id().createQp(fx.pdB, CmFabric.init(fx.cqB));
        request.id().accept(null);
        fx.cmA.expect(active, RdmaCmEventType.ESTABLISHED, WAIT_NS);
        assertEquals(0x68, active.qp().query(new QpAttributes(), QpAttrMask.ALL).ahAttr.trafficClass());
        assertEquals(0x68, request.id().qp().query(new QpAttributes(), QpAttrMask.ALL).ahAttr.trafficClass());

        // On a listener: its connections use it instead of the REQ's (0 here); the active side keeps the REQ's.
        final RdmaCmId tosListener = fx.cmB.createId().tos(0x20).listen(new InetSocketAddress("0.0.0.0", PORT + 1),
            4);
        final Connection c = connect(tosListener, CmFabric.address(ADDRESS_B, PORT + 1));
        assertEquals(0x20, c.passive().tos(), "inherited from the listener");
        assertEquals(0x20, c.passive().qp().query(new QpAttributes(), QpAttrMask.ALL).ahAttr.trafficClass());
        assertEquals(0, c.active().qp().query(new QpAttributes(), QpAttrMask.ALL).ahAttr.trafficClass());
        assertEquals(-1, c.active().tos(), "unset");
        assertThrows(IllegalArgumentException.class, () -> fx.cmA.createId().tos(256));
    }

    @Test
    void aQpCreatedElsewhereCanBeAttachedAndIsDrivenByTheCm()
    {
        final RdmaCmId listener = listenB();
        final QueuePair own = fx.pdA.createQp(CmFabric.init(fx.cqA).qpType(org.roce4j.ib.QpType.RC));
        final RdmaCmId active = fx.cmA.createId().attachQp(own);
        assertSame(own, active.qp());
        assertEquals(QpState.INIT, own.state(), "moved from RESET to INIT as rdma_create_qp does");
        active.connect(CmFabric.address(ADDRESS_B, PORT), new ConnParam());
        final RdmaCmEvent request = fx.cmB.expect(listener, RdmaCmEventType.CONNECT_REQUEST, WAIT_NS);
        request.id().createQp(fx.pdB, CmFabric.init(fx.cqB));
        request.id().accept(null);
        fx.cmA.expect(active, RdmaCmEventType.ESTABLISHED, WAIT_NS);
        assertEquals(QpState.RTS, own.state());

        final QueuePair uc = fx.pdA.createQp(CmFabric.init(fx.cqA).qpType(org.roce4j.ib.QpType.UC));
        assertThrows(IllegalArgumentException.class, () -> fx.cmA.createId().attachQp(uc));
        assertThrows(IllegalArgumentException.class, () -> fx.cmA.createId().attachQp(own), "a QP in RTS");
        assertThrows(IllegalStateException.class, () -> active.attachQp(own), "already has one");
    }

    @Test
    void closingTheCmDisconnectsItsConnections()
    {
        final Connection c = connect(listenB(), CmFabric.address(ADDRESS_B, PORT));
        fx.cmA.close();
        fx.cmB.expect(c.passive(), RdmaCmEventType.DISCONNECTED, WAIT_NS);
        assertEquals(RdmaCmId.State.DESTROYED, c.active().state());
        assertThrows(IllegalStateException.class, fx.cmA::createId);
    }

    @Test
    void apiMisuseIsRefusedWithAReason()
    {
        final RdmaCmId id = fx.cmA.createId();
        final IllegalStateException noQp = assertThrows(IllegalStateException.class,
            () -> id.connect(CmFabric.address(ADDRESS_B, PORT), new ConnParam()));
        assertTrue(noQp.getMessage().contains("call createQp first"), noQp.getMessage());
        id.createQp(fx.pdA, CmFabric.init(fx.cqA));
        assertThrows(IllegalStateException.class, () -> id.createQp(fx.pdA, CmFabric.init(fx.cqA)));
        final IllegalArgumentException tooMuch = assertThrows(IllegalArgumentException.class,
            () -> id.connect(CmFabric.address(ADDRESS_B, PORT), new ConnParam().privateData(new byte[57])));
        assertTrue(tooMuch.getMessage().contains("at most 56 bytes"), tooMuch.getMessage());
        assertThrows(IllegalArgumentException.class, () -> id.connect(CmFabric.address(ADDRESS_A, PORT),
            new ConnParam()), "our own address");
        final IllegalArgumentException noGlobal = assertThrows(IllegalArgumentException.class,
            () -> id.connect(new InetSocketAddress("fd00:77::2", PORT), new ConnParam()));
        assertTrue(noGlobal.getMessage().contains("this device has no global IPv6 address (10.0.0.1, fe80:"),
            noGlobal.getMessage());
        assertThrows(IllegalStateException.class, () -> id.accept(null), "not a request");
        assertThrows(IllegalStateException.class, id::disconnect, "never connected");
        assertThrows(IllegalArgumentException.class, () -> new ConnParam().retryCount(8));
        assertThrows(IllegalArgumentException.class, () -> fx.cmB.createId().listen(
            new InetSocketAddress("0.0.0.0", PORT), 0));
        assertThrows(IllegalArgumentException.class, () -> fx.cmA.createId().createQp(fx.pdB,
            CmFabric.init(fx.cqB)), "a PD of another device");
        assertThrows(IllegalStateException.class, () -> RdmaCm.open(fx.a), "one RdmaCm (one QP1) per device");
        assertNotNull(id.toString());
    }
}
