package org.roce4j.cm.rdmacm;

import java.net.InetAddress;
import java.net.UnknownHostException;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.roce4j.ib.QpType;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WcStatus;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.ib.WrOpcode;
import org.roce4j.verbs.MemoryRegion;
import org.roce4j.verbs.RecvWorkRequest;
import org.roce4j.verbs.SendWorkRequest;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.header.BthHeader;
import org.roce4j.wire.mad.RdmaCmServiceId;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.roce4j.cm.rdmacm.CmFabric.WAIT_NS;

/**
 * rdma_join_multicast / rdma_leave_multicast on RoCE between two roce4j devices on the in-memory fabric: the
 * MULTICAST_JOIN event (MGID from the IP group, QPN 0xFFFFFF, RDMA_UDP_QKEY, hop limit 64), a send-only member's
 * message reaching a full member's attached QP, and the errors.
 */
class RdmaCmMulticastTest
{
    private final CmFabric fx = new CmFabric();

    @AfterEach
    void close()
    {
        fx.assertHealthy();
        fx.close();
    }

    @Test
    void aSendOnlyMemberReachesAFullMembersQpThroughTheJoinEventsAddress() throws UnknownHostException
    {
        final InetAddress group = InetAddress.getByName("239.1.2.3");
        final RdmaCmId receiver = fx.cmB.createId(RdmaCmServiceId.PS_UDP);
        receiver.createQp(fx.pdB, CmFabric.init(fx.cqB).qpType(QpType.UD));
        final MemoryRegion bufB = CmFabric.register(fx.pdB, 256);
        receiver.qp().postRecv(new RecvWorkRequest().wrId(1).addSge(bufB, 0, 100 + WorkCompletion.GRH_BYTES));
        receiver.joinMulticast(group, null, false);
        final RdmaCmEvent joinedB = fx.cmB.expect(receiver, RdmaCmEventType.MULTICAST_JOIN, WAIT_NS);
        assertEquals(Gid.parse("::ffff:239.1.2.3").low(), joinedB.ud().ahAttr().dgidLow(), "cma_iboe_set_mgid");
        assertEquals(BthHeader.MULTICAST_QPN, joinedB.ud().qpNum());
        assertEquals(UdParam.RDMA_UDP_QKEY, joinedB.ud().qkey());
        assertEquals(RdmaCmMulticast.HOP_LIMIT, joinedB.ud().ahAttr().hopLimit());

        final RdmaCmId sender = fx.cmA.createId(RdmaCmServiceId.PS_UDP);
        sender.createQp(fx.pdA, CmFabric.init(fx.cqA).qpType(QpType.UD));
        sender.joinMulticast(group, null, true);
        final UdParam ud = fx.cmA.expect(sender, RdmaCmEventType.MULTICAST_JOIN, WAIT_NS).ud();
        final MemoryRegion bufA = CmFabric.register(fx.pdA, 256);
        sender.qp().postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.SEND_WITH_IMM).immData(7)
            .sendFlags(SendFlags.SIGNALED).addSge(bufA, 0, 100)
            .ud(fx.pdA.createAh(ud.ahAttr()), ud.qpNum(), ud.qkey()));
        assertEquals(WcStatus.SUCCESS, CmFabric.awaitCompletion(fx.cqA).status());
        final WorkCompletion atB = CmFabric.awaitCompletion(fx.cqB);
        assertEquals(WcStatus.SUCCESS, atB.status(), atB.toString());
        assertEquals(7, atB.immData());

        assertThrows(IllegalStateException.class, () -> receiver.joinMulticast(group, null, false), "EADDRINUSE");
        sender.leaveMulticast(group);
        final IllegalArgumentException notJoined =
            assertThrows(IllegalArgumentException.class, () -> sender.leaveMulticast(group));
        assertTrue(notJoined.getMessage().contains("EADDRNOTAVAIL"), notJoined.getMessage());
        // rdma_destroy_id leaves what is still joined: the QP is detached and can be destroyed.
        receiver.destroy();
        receiver.qp().destroy();
        sender.destroy();
        sender.qp().destroy();
    }

    @Test
    void whatRdmaJoinMulticastRefuses() throws UnknownHostException
    {
        final RdmaCmId tcp = fx.cmA.createId();
        final InetAddress group = InetAddress.getByName("239.1.2.3");
        assertThrows(IllegalStateException.class, () -> tcp.joinMulticast(group, null, false), "RDMA_PS_TCP");
        final RdmaCmId udp = fx.cmA.createId(RdmaCmServiceId.PS_UDP);
        final IllegalArgumentException unicast = assertThrows(IllegalArgumentException.class,
            () -> udp.joinMulticast(InetAddress.getByName("10.0.0.9"), null, false));
        assertTrue(unicast.getMessage().contains("is not a multicast address"), unicast.getMessage());
        final IllegalArgumentException foreign = assertThrows(IllegalArgumentException.class,
            () -> udp.joinMulticast(group, InetAddress.getByName("10.9.9.9"), false));
        assertTrue(foreign.getMessage().contains("EADDRNOTAVAIL"), foreign.getMessage());
        tcp.destroy();
        udp.destroy();
    }
}
