package org.roce4j.cli.perf;

import java.nio.ByteBuffer;
import java.util.concurrent.ThreadLocalRandom;

import org.roce4j.cm.QpSetup;
import org.roce4j.cm.perftest.PerftestDest;
import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.AhAttributes;
import org.roce4j.ib.Mtu;
import org.roce4j.ib.QpType;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.verbs.AddressHandle;
import org.roce4j.verbs.CompletionQueue;
import org.roce4j.verbs.DeviceAttributes;
import org.roce4j.wire.addr.Gid;
import org.roce4j.verbs.MemoryRegion;
import org.roce4j.verbs.ProtectionDomain;
import org.roce4j.verbs.QpInitAttributes;
import org.roce4j.verbs.QueuePair;
import org.roce4j.verbs.RdmaDevice;

/**
 * The verbs resources of one side, laid out as perftest lays them out (ctx_init, set_up_connection): per QP one
 * buffer of two halves of {@code BUFF_SIZE} bytes each (the message size, at least the page-sized cycle buffer,
 * rounded up to a cache line): the first half is what this side sends from (and READs into), the second what the
 * peer writes to, reads from or sends into; the record's vaddr and rkey name the second half.
 */
final class PerfResources
{
    /** Alignment of each buffer: a page, as perftest's memalign'd buffers. */
    private static final int PAGE = 4096;
    /** Retry limits of perftest's RC QPs (retry_cnt and rnr_retry 7; rnr_retry 7 retries forever). */
    private static final int RETRIES = 7;

    final PerfSettings.Resolved r;
    final RdmaDevice device;
    final ProtectionDomain pd;
    final CompletionQueue sendCq;
    final CompletionQueue recvCq;
    final QueuePair[] qps;
    final MemoryRegion[] mrs;
    final QpSetup[] setups;
    final AddressHandle[] ahs;
    /** UD: each QP's peer QPN and Q_Key as rdma_cm gave them with -R (cma_node remote_qpn, remote_qkey). */
    private final int[] udRemoteQpns;
    private final int[] udRemoteQkeys;
    final PerftestDest[] local;
    final long buffSize;
    final int gidIndex;

    PerfResources(final RdmaDevice device, final PerfSettings.Resolved r, final int mtuBytes, final int gidIndex,
        final int cycleBuffer, final int cacheLine)
    {
        this.r = r;
        this.device = device;
        this.gidIndex = gidIndex;
        final long span = Math.max(r.size + (QpType.UD == r.connection ? WorkCompletion.GRH_BYTES : 0), cycleBuffer);
        this.buffSize = PerfStats.roundUp(span, cacheLine);
        if (2 * buffSize + PAGE > Integer.MAX_VALUE)
        {
            throw new IllegalArgumentException("message size " + r.size + " needs buffers larger than roce4j's " +
                "2 GiB memory regions");
        }
        pd = device.allocPd();
        final int cqDepth = (int)Math.min(DeviceAttributes.MAX_CQE, (long)r.qps * Math.max(r.txDepth, r.rxDepth) + 16);
        sendCq = device.createCq(cqDepth);
        recvCq = device.createCq(cqDepth);
        qps = new QueuePair[r.qps];
        mrs = new MemoryRegion[r.qps];
        setups = new QpSetup[r.qps];
        ahs = new AddressHandle[r.qps];
        udRemoteQpns = new int[r.qps];
        udRemoteQkeys = new int[r.qps];
        local = new PerftestDest[r.qps];
        final Gid gid = device.queryGid(gidIndex);
        final int access = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ |
            AccessFlags.REMOTE_ATOMIC;
        for (int i = 0; i < r.qps; i++)
        {
            final ByteBuffer memory = ByteBuffer.allocateDirect((int)(2 * buffSize + PAGE)).alignedSlice(PAGE);
            memory.limit((int)(2 * buffSize));
            mrs[i] = pd.registerMemory(memory, access);
            qps[i] = pd.createQp(new QpInitAttributes().qpType(r.connection).sendCq(sendCq).recvCq(recvCq)
                .cap(r.txDepth, Math.max(1, r.rxDepth), 1, 1, 0));
            setups[i] = new QpSetup().mtu(Mtu.fromBytes(mtuBytes)).sgidIndex(gidIndex)
                // perftest's GRH: hop limit 0xFF, traffic class --tclass, 0 by default (ctx_modify_qp_to_rtr).
                .hopLimit(0xFF).serviceLevel(r.serviceLevel).trafficClass(Math.max(0, r.trafficClass))
                .accessFlags(qpAccess(r.test.verb()))
                .timeout(r.qpTimeout).retries(RETRIES, RETRIES).minRnrTimer(QpSetup.DEFAULT_MIN_RNR_TIMER);
            if (!r.rdmaCm)
            {
                // With -R the QP stays in RESET: rdma_cm moves it to INIT, RTR and RTS (rdma_create_qp, accept).
                setups[i].toInit(qps[i]);
            }
            // set_up_connection: psn = lrand48() & 0xffffff.
            final int psn = ThreadLocalRandom.current().nextInt() & 0xFF_FFFF;
            local[i] = new PerftestDest(0, r.outReads, qps[i].qpNum(), psn, mrs[i].rkey(), mrs[i].address(buffSize),
                gid.high(), gid.low(), 0);
        }
    }

    /**
     * Move every QP to RTR and RTS towards the peer's records (ctx_connect), and for UD create the address handles.
     *
     * @param remote the peer's records.
     */
    void connect(final PerftestDest[] remote)
    {
        for (int i = 0; i < qps.length; i++)
        {
            // perftest: max_rd_atomic from the peer's out_reads, max_dest_rd_atomic from ours.
            setups[i].readAtomicDepths(remote[i].outReads(), local[i].outReads());
            setups[i].toRts(qps[i], local[i].psn(), remote[i].toQpInfo());
            if (QpType.UD == r.connection)
            {
                ahs[i] = pd.createAh(new AhAttributes().dgid(remote[i].gidHigh(), remote[i].gidLow())
                    .sgidIndex(gidIndex).hopLimit(0xFF).serviceLevel(r.serviceLevel)
                    .trafficClass(Math.max(0, r.trafficClass)));
            }
        }
    }

    /**
     * -R with UD: the peer of QP {@code i} as rdma_cm resolved it (rdma_cm_establish_ud_connection: the SIDR_REP's
     * address vector, QPN and Q_Key; rdma_cm_initialize_ud_connection_parameters: the address of the peer's first
     * SEND, the QPN it carried as immediate data and this side's own Q_Key).
     *
     * @param i    QP index.
     * @param ah   the address handle to the peer.
     * @param qpn  the peer's QPN.
     * @param qkey the Q_Key to send with.
     */
    void udPeer(final int i, final AddressHandle ah, final int qpn, final int qkey)
    {
        ahs[i] = ah;
        udRemoteQpns[i] = qpn;
        udRemoteQkeys[i] = qkey;
    }

    /**
     * @param i      QP index.
     * @param remote the peer's record of QP {@code i}.
     * @return the QPN a UD SEND of QP {@code i} goes to: rdma_cm's with -R, else the record's.
     */
    int udRemoteQpn(final int i, final PerftestDest remote)
    {
        return r.rdmaCm ? udRemoteQpns[i] : remote.qpn();
    }

    /**
     * @param i QP index.
     * @return the Q_Key a UD SEND of QP {@code i} carries: rdma_cm's (RDMA_UDP_QKEY) with -R, else perftest's DEF_QKEY.
     */
    int udRemoteQkey(final int i)
    {
        return r.rdmaCm ? udRemoteQkeys[i] : QpSetup.DEFAULT_QKEY;
    }

    /**
     * @param i QP index.
     * @return the I/O address of the QP's send half.
     */
    long sendAddress(final int i)
    {
        return mrs[i].address(0);
    }

    /**
     * @param i QP index.
     * @return the I/O address of the QP's receive half (the record's vaddr).
     */
    long recvAddress(final int i)
    {
        return mrs[i].address(buffSize);
    }

    /**
     * QP access flags perftest gives each test (ctx_modify_qp_to_init).
     */
    private static int qpAccess(final PerfTest.Verb verb)
    {
        switch (verb)
        {
            case ATOMIC:
                return AccessFlags.REMOTE_ATOMIC;
            case READ:
                return AccessFlags.REMOTE_READ;
            case WRITE:
                return AccessFlags.REMOTE_WRITE;
            default:
                return AccessFlags.REMOTE_WRITE | AccessFlags.LOCAL_WRITE;
        }
    }
}
