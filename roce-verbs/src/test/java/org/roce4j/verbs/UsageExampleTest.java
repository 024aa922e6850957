package org.roce4j.verbs;

import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;
import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.Mtu;
import org.roce4j.ib.QpAttributes;
import org.roce4j.ib.QpState;
import org.roce4j.ib.QpType;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WcOpcode;
import org.roce4j.ib.WcStatus;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.ib.WrOpcode;
import org.roce4j.wire.addr.Gid;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.roce4j.ib.QpAttrMask.ACCESS_FLAGS;
import static org.roce4j.ib.QpAttrMask.AV;
import static org.roce4j.ib.QpAttrMask.DEST_QPN;
import static org.roce4j.ib.QpAttrMask.MAX_DEST_RD_ATOMIC;
import static org.roce4j.ib.QpAttrMask.MAX_QP_RD_ATOMIC;
import static org.roce4j.ib.QpAttrMask.MIN_RNR_TIMER;
import static org.roce4j.ib.QpAttrMask.PATH_MTU;
import static org.roce4j.ib.QpAttrMask.PKEY_INDEX;
import static org.roce4j.ib.QpAttrMask.PORT;
import static org.roce4j.ib.QpAttrMask.RETRY_CNT;
import static org.roce4j.ib.QpAttrMask.RNR_RETRY;
import static org.roce4j.ib.QpAttrMask.RQ_PSN;
import static org.roce4j.ib.QpAttrMask.SQ_PSN;
import static org.roce4j.ib.QpAttrMask.STATE;
import static org.roce4j.ib.QpAttrMask.TIMEOUT;

/**
 * The RC SEND/RECV example of the module documentation, run as written on both ends.
 */
class UsageExampleTest
{
    /** What each side tells the other out of band (ibv_rc_pingpong exchanges the same). */
    private record Peer(int qpn, int psn, Gid gid)
    {
    }

    private static final class Endpoint
    {
        CompletionQueue cq;
        MemoryRegion mr;
        QueuePair qp;

        Peer open(final RdmaDevice dev, final int psn)
        {
            final ProtectionDomain pd = dev.allocPd();
            cq = dev.createCq(64);
            mr = pd.registerMemory(ByteBuffer.allocateDirect(4096), AccessFlags.LOCAL_WRITE);
            qp = pd.createQp(new QpInitAttributes().qpType(QpType.RC).cq(cq).cap(16, 16, 1, 1, 0));
            return new Peer(qp.qpNum(), psn, dev.queryGid(1));
        }

        void connect(final Peer local, final Peer remote)
        {
            final QpAttributes attr = new QpAttributes();
            attr.qpState = QpState.INIT;
            attr.portNum = 1;
            qp.modify(attr, STATE | PKEY_INDEX | PORT | ACCESS_FLAGS);
            attr.qpState = QpState.RTR;
            attr.pathMtu = Mtu.MTU_1024;
            attr.destQpNum = remote.qpn();
            attr.rqPsn = remote.psn();
            attr.ahAttr.dgid(remote.gid().high(), remote.gid().low()).sgidIndex(1);
            attr.maxDestRdAtomic = 1;
            attr.minRnrTimer = 12;
            qp.modify(attr, STATE | AV | PATH_MTU | DEST_QPN | RQ_PSN | MAX_DEST_RD_ATOMIC | MIN_RNR_TIMER);
            attr.qpState = QpState.RTS;
            attr.sqPsn = local.psn();
            attr.timeout = 14;
            attr.retryCnt = 7;
            attr.rnrRetry = 7;
            attr.maxRdAtomic = 1;
            qp.modify(attr, STATE | SQ_PSN | TIMEOUT | RETRY_CNT | RNR_RETRY | MAX_QP_RD_ATOMIC);
        }
    }

    @Test
    void rcSendRecvAsDocumented()
    {
        try (VerbsFixture fx = new VerbsFixture())
        {
            final Endpoint server = new Endpoint();
            final Endpoint client = new Endpoint();
            final Peer serverInfo = server.open(fx.b, 0x4321);
            final Peer clientInfo = client.open(fx.a, 0x1234);
            server.connect(serverInfo, clientInfo);
            client.connect(clientInfo, serverInfo);

            server.qp.postRecv(new RecvWorkRequest().wrId(1).addSge(server.mr, 0, 4096));
            client.mr.buffer().putStringAscii(0, "hello, rxe");
            client.qp.postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .addSge(client.mr, 0, 64));
            final WorkCompletion[] wc = {new WorkCompletion()};
            assertEquals(1, server.cq.pollBlocking(wc, 1_000_000_000L));
            assertEquals(WcStatus.SUCCESS, wc[0].status());
            assertEquals(WcOpcode.RECV, wc[0].opcode());
            assertEquals(64, wc[0].byteLen());
            assertEquals("hello, rxe", server.mr.buffer().getStringAscii(0));
            assertEquals(1, client.cq.pollBlocking(wc, 1_000_000_000L));
            assertEquals(2, wc[0].wrId());
            assertEquals(WcOpcode.SEND, wc[0].opcode());
        }
    }
}
