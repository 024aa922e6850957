package org.roce4j.cli.perf;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.roce4j.cm.perftest.PerftestDest;
import org.roce4j.cm.perftest.PerftestRdmaCmChannel;
import org.roce4j.cm.perftest.PerftestSession;
import org.roce4j.cm.rdmacm.ConnParam;
import org.roce4j.cm.rdmacm.RdmaCm;
import org.roce4j.cm.rdmacm.RdmaCmEvent;
import org.roce4j.cm.rdmacm.RdmaCmEventType;
import org.roce4j.cm.rdmacm.RdmaCmException;
import org.roce4j.cm.rdmacm.RdmaCmId;
import org.roce4j.ib.QpType;
import org.roce4j.verbs.QueuePair;
import org.roce4j.wire.mad.RdmaCmServiceId;

/**
 * perftest's -R (perftest_communication.c): the test's QPs connected by rdma_cm, one connection per QP to the
 * server's port, between two handshakes over the session's rdma_cm channel; RC in rdma_cm's TCP port space, UD by
 * SIDR in its UDP port space ({@link PerfRdmaCmUd}).
 */
final class PerfRdmaCm
{
    /** rdma_cm_client_connection's max_retries. */
    private static final int CM_CONNECT_ATTEMPTS = 10;
    /** rdma_cm_client_connection's delay between attempts: 100 ms. */
    private static final long CM_RETRY_PAUSE_NS = 100_000_000L;

    private PerfRdmaCm()
    {
    }

    /**
     * create_rdma_cm_connection (perftest_communication.c): a handshake, one rdma_cm connection per QP to the server's
     * port (the client connects them, the server accepts as many requests), a handshake. The records of both
     * handshakes are still all zeros in perftest (set_up_connection fills them only afterwards).
     */
    static void connect(final PerftestSession session, final PerfSettings.Resolved r, final PerfResources res,
        final PrintWriter err) throws IOException
    {
        final PerftestRdmaCmChannel channel = (PerftestRdmaCmChannel)session.channel();
        final PerftestDest zero = new PerftestDest(0, 0, 0, 0, 0, 0, 0, 0, 0);
        final boolean ud = QpType.UD == r.connection;
        // UD: SIDR in rdma_cm's UDP port space, on a listener of its own beside the exchange's (PerfRdmaCmUd).
        final RdmaCmId udListener = ud && !r.client ? PerfRdmaCmUd.listen(channel, r.qps) : null;
        session.handShake(zero);
        final RdmaCm cm = channel.cm();
        final long timeoutNs = TimeUnit.MILLISECONDS.toNanos(r.timeoutMs);
        // rdma_cm_route_handler / rdma_cm_connection_request_handler: depths only for READ and atomics, retry_count
        // and rnr_retry_count both perftest's retry_count (7), no private data (rdma_getaddrinfo leaves ai_connect
        // empty for AF_INET).
        final boolean reads = PerfTest.Verb.READ == r.test.verb() || PerfTest.Verb.ATOMIC == r.test.verb();
        final ConnParam param = new ConnParam().responderResources(reads ? r.outReads : 0)
            .initiatorDepth(reads ? r.outReads : 0).retryCount(PerftestRdmaCmChannel.RETRY_COUNT)
            .rnrRetryCount(PerftestRdmaCmChannel.RETRY_COUNT);
        final List<RdmaCmId> ids = new ArrayList<>();
        try
        {
            if (r.client)
            {
                final InetSocketAddress server = channel.remoteAddress();
                for (int i = 0; i < r.qps; i++)
                {
                    final RdmaCmEvent established = connectWithRetries(cm, server, res.qps[i], param, timeoutNs, r,
                        err);
                    ids.add(established.id());
                    if (ud)
                    {
                        PerfRdmaCmUd.established(res, i, established, r, timeoutNs);
                    }
                }
            }
            else
            {
                for (int i = 0; i < r.qps; i++)
                {
                    final RdmaCmEvent request = cm.expect(ud ? udListener : channel.listener(),
                        RdmaCmEventType.CONNECT_REQUEST, timeoutNs);
                    final RdmaCmId child = request.id();
                    ids.add(child);
                    child.attachQp(res.qps[i]);
                    final boolean awaitAddress = ud && PerfRdmaCmUd.serverSends(r);
                    if (awaitAddress)
                    {
                        PerfRdmaCmUd.postAddressReceive(res, i);
                    }
                    child.accept(param);
                    if (awaitAddress)
                    {
                        PerfRdmaCmUd.awaitClientAddress(res, i, timeoutNs);
                    }
                }
                // UD: the SIDR_REP ends the exchange, no RTU and no ESTABLISHED on this side.
                for (final RdmaCmId child : ud ? List.<RdmaCmId>of() : ids)
                {
                    cm.expect(child, RdmaCmEventType.ESTABLISHED, timeoutNs);
                }
            }
        }
        catch (final RdmaCmException ex)
        {
            throw new IOException("the test's rdma_cm connection failed: " + ex.getMessage(), ex);
        }
        finally
        {
            channel.adoptDataConnections(ids);
            if (null != udListener)
            {
                udListener.destroy();
            }
        }
        session.handShake(zero);
    }

    /**
     * rdma_cm_client_connection: up to 10 attempts 100 ms apart (the server listens again for the test's connections
     * only after the first handshake, so the first request may find nobody listening). Each failed attempt is
     * reported on stderr, as perftest reports each failed rdma_client_connect, so a retry is never silent.
     */
    private static RdmaCmEvent connectWithRetries(final RdmaCm cm, final InetSocketAddress server,
        final QueuePair qp, final ConnParam param, final long timeoutNs, final PerfSettings.Resolved r,
        final PrintWriter err)
    {
        RdmaCmException last = null;
        for (int attempt = 0; attempt < CM_CONNECT_ATTEMPTS; attempt++)
        {
            if (attempt > 0)
            {
                LockSupport.parkNanos(CM_RETRY_PAUSE_NS);
            }
            final RdmaCmId id = cm.createId(QpType.UD == r.connection ? RdmaCmServiceId.PS_UDP :
                RdmaCmServiceId.PS_TCP);
            if (r.trafficClass >= 0)
            {
                // perftest -R --tclass: rdma_set_option(RDMA_OPTION_ID_TOS) on the test's identifiers.
                id.tos(r.trafficClass);
            }
            try
            {
                PerftestRdmaCmChannel.resetForRetry(qp);
                id.attachQp(qp);
                id.connect(server, param);
                return cm.expect(id, RdmaCmEventType.ESTABLISHED, timeoutNs);
            }
            catch (final RdmaCmException ex)
            {
                last = ex;
                id.destroy();
                if (attempt + 1 < CM_CONNECT_ATTEMPTS)
                {
                    err.println("rdma_cm connect to " + server.getAddress().getHostAddress() + ":" + server.getPort() +
                        " failed (" + ex.getMessage() + "); retrying in " + CM_RETRY_PAUSE_NS / 1_000_000 +
                        " ms, attempt " + (attempt + 2) + " of " + CM_CONNECT_ATTEMPTS);
                    err.flush();
                }
            }
        }
        throw new RdmaCmException("tried " + CM_CONNECT_ATTEMPTS + " times; last: " + last.getMessage(),
            last.event());
    }
}
