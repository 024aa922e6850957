package org.roce4j.cli.perf;

import java.io.IOException;
import java.net.InetSocketAddress;

import org.roce4j.cm.perftest.PerftestRdmaCmChannel;
import org.roce4j.cm.rdmacm.RdmaCmEvent;
import org.roce4j.cm.rdmacm.RdmaCmId;
import org.roce4j.cm.rdmacm.UdParam;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WcOpcode;
import org.roce4j.ib.WcStatus;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.ib.WrOpcode;
import org.roce4j.verbs.AddressHandle;
import org.roce4j.verbs.RecvWorkRequest;
import org.roce4j.verbs.SendWorkRequest;
import org.roce4j.wire.mad.RdmaCmServiceId;

/**
 * perftest's -R with UD (perftest_communication.c, rdma_cm's UDP port space): each test QP is "connected" by a
 * SIDR_REQ / SIDR_REP on the server's port (RDMA_PS_UDP, a listener of its own beside the exchange's RDMA_PS_TCP one),
 * which gives the client the server QP's address, QPN and Q_Key (rdma_cm_establish_ud_connection). A side that will
 * send back (latency tests, duplex bandwidth) needs the client's address too: the server posts one receive before it
 * accepts (rdma_cm_request_ud_connection_parameters: UD_ADDITION + 4 bytes) and takes the address from the GRH of the
 * SEND_WITH_IMM the client sends once established, carrying its QPN as immediate data
 * (rdma_cm_send_ud_connection_parameters, rdma_cm_initialize_ud_connection_parameters; the Q_Key is its own,
 * RDMA_UDP_QKEY). Nothing is disconnected at the end (rdma_cm_disconnect_nodes returns at once for UD).
 */
final class PerfRdmaCmUd
{
    /** The 4 bytes of the client's SEND_WITH_IMM (sizeof(uint32_t)); its QPN travels as immediate data. */
    private static final int ADDRESS_SEND_BYTES = 4;

    private PerfRdmaCmUd()
    {
    }

    /**
     * @param r the run.
     * @return whether the server needs the client's address: it sends too (LAT, or BW with -b).
     */
    static boolean serverSends(final PerfSettings.Resolved r)
    {
        return r.test.isLatency() || r.duplex;
    }

    /**
     * The server's UDP-space listener on the exchange's address and port (rdma_cm_server_connection with
     * RDMA_PS_UDP), made before the first handshake so that the client's first SIDR_REQ finds it.
     *
     * @param channel the exchange.
     * @param backlog how many requests may wait (perftest: the number of QPs).
     * @return the listener; the caller destroys it.
     */
    static RdmaCmId listen(final PerftestRdmaCmChannel channel, final int backlog)
    {
        final InetSocketAddress local = channel.listener().localAddress();
        return channel.cm().createId(RdmaCmServiceId.PS_UDP).listen(local, backlog);
    }

    /**
     * Server, before rdma_accept: the receive the client's SEND_WITH_IMM lands in (its GRH first).
     */
    static void postAddressReceive(final PerfResources res, final int i)
    {
        res.qps[i].postRecv(new RecvWorkRequest().wrId(0).addSge(res.mrs[i], res.buffSize,
            WorkCompletion.GRH_BYTES + ADDRESS_SEND_BYTES));
    }

    /**
     * Server, after rdma_accept: the client's SEND_WITH_IMM gives its address (from the GRH), its QPN (the immediate
     * data) and the Q_Key (this side's own, RDMA_UDP_QKEY).
     *
     * @throws IOException when it does not come in time or completes in error.
     */
    static void awaitClientAddress(final PerfResources res, final int i, final long timeoutNs) throws IOException
    {
        final WorkCompletion[] wc = {new WorkCompletion()};
        if (1 != res.recvCq.pollBlocking(wc, timeoutNs))
        {
            throw new IOException("no UD connection parameters from the client on QP " + i + " within " +
                timeoutNs / 1_000_000 + " ms");
        }
        if (WcStatus.SUCCESS != wc[0].status() || WcOpcode.RECV != wc[0].opcode() || 0 != wc[0].wrId())
        {
            throw new IOException("Failed to poll CQ.\nBad WQE status when trying to create AH for UD connection " +
                "in RDMA CM:\n Status: " + wc[0].status() + " ; ID: " + wc[0].wrId() + ".");
        }
        final AddressHandle ah = res.pd.createAhFromWc(wc[0], res.mrs[i].buffer(), Math.toIntExact(res.buffSize));
        res.udPeer(i, ah, wc[0].immData(), UdParam.RDMA_UDP_QKEY);
    }

    /**
     * Client, on ESTABLISHED (the SIDR_REP): the server QP's address, QPN and Q_Key, and when the server sends back,
     * this QP's number to it as the immediate data of a 4-byte SEND_WITH_IMM, waited for.
     *
     * @throws IOException when the SEND does not complete successfully in time.
     */
    static void established(final PerfResources res, final int i, final RdmaCmEvent event,
        final PerfSettings.Resolved r, final long timeoutNs) throws IOException
    {
        final UdParam ud = event.ud();
        final AddressHandle ah = res.pd.createAh(ud.ahAttr());
        res.udPeer(i, ah, ud.qpNum(), ud.qkey());
        if (!serverSends(r))
        {
            return;
        }
        res.qps[i].postSend(new SendWorkRequest().wrId(0).opcode(WrOpcode.SEND_WITH_IMM)
            .sendFlags(SendFlags.SIGNALED).immData(res.qps[i].qpNum()).ud(ah, ud.qpNum(), ud.qkey())
            .addSge(res.mrs[i], 0, ADDRESS_SEND_BYTES));
        final WorkCompletion[] wc = {new WorkCompletion()};
        if (1 != res.sendCq.pollBlocking(wc, timeoutNs) || WcStatus.SUCCESS != wc[0].status() ||
            WcOpcode.SEND != wc[0].opcode() || 0 != wc[0].wrId())
        {
            throw new IOException("Failed to poll CQ.\nBad WQE status when trying to send UD connection parameters " +
                "in RDMA CM:\n Status: " + wc[0].status() + " ; ID: " + wc[0].wrId() + ".");
        }
    }
}
