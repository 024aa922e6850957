package org.roce4j.conform.dut;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

import org.agrona.concurrent.CachedNanoClock;
import org.roce4j.cm.QpSetup;
import org.roce4j.cm.oob.QpInfo;
import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.Mtu;
import org.roce4j.ib.QpState;
import org.roce4j.ib.QpType;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.ib.WrOpcode;
import org.roce4j.transport.cc.CongestionControl;
import org.roce4j.transport.link.Link;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.transport.link.memory.MemoryFabric;
import org.roce4j.transport.provider.EngineConfig;
import org.roce4j.verbs.CompletionQueue;
import org.roce4j.verbs.DeviceOptions;
import org.roce4j.verbs.MemoryRegion;
import org.roce4j.verbs.ProgressGroup;
import org.roce4j.verbs.ProtectionDomain;
import org.roce4j.verbs.QpInitAttributes;
import org.roce4j.verbs.QueuePair;
import org.roce4j.verbs.RdmaDevice;
import org.roce4j.verbs.RecvWorkRequest;
import org.roce4j.verbs.SendWorkRequest;
import org.roce4j.wire.addr.Gid;

/**
 * roce4j itself as the device under test ({@code roce conform --self}): a device in INVOKER mode on a fresh
 * in-memory fabric, its engine's clock an injected {@link CachedNanoClock} the runner moves, so timers fire exactly
 * when the scenario lets time pass and nothing sleeps.
 *
 * <p>Its QP: path MTU 256 (so multi-packet messages stay small), local ACK timeout 14 (67 ms), retry and RNR retry
 * counts 7, min_rnr_timer 12 (0.64 ms), four READ/atomic resources each way; a 64 KiB region with every remote
 * right and a 4 KiB region with none. Congestion control is on, DCQCN with ConnectX-5's defaults (as {@code --cc
 * dcqcn}): the DUT is a notification point, so a CE-marked packet gets a CNP, at most one per QP per
 * {@code min_time_between_cnps} (4 us).
 */
public final class SelfDut implements Dut
{
    /** The DUT's address on the fabric. */
    public static final LinkAddress ADDRESS = LinkAddress.of("02:00:00:00:0d:01", "10.0.0.1");
    /** The conform peer's address on the fabric. */
    public static final LinkAddress PEER_ADDRESS = LinkAddress.of("02:00:00:00:0c:02", "10.0.0.2");
    /** The first PSN the DUT's requester sends. */
    public static final int SQ_PSN = 0x500;
    /** Local ACK timeout exponent: 4.096 us x 2^14 = 67 ms, ibv_rc_pingpong's value. */
    public static final int TIMEOUT = 14;
    /** min_rnr_timer code 12: 0.64 ms (QpSetup's default). */
    public static final int MIN_RNR_TIMER = QpSetup.DEFAULT_MIN_RNR_TIMER;
    /** max_rd_atomic and max_dest_rd_atomic of the DUT's QP: four READs/atomics each way. */
    public static final int READ_ATOMIC_DEPTH = 4;
    /** Bytes of the remotely accessible region. */
    public static final int REGION_BYTES = 64 * 1024;
    private static final int RESTRICTED_BYTES = 4096;
    /** enum ibv_wc_opcode: IBV_WC_RECV = 1 &lt;&lt; 7 and the receive opcodes above it. */
    private static final int RECEIVE_OPCODES = 128;
    private static final int ALL_REMOTE = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE |
        AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC;

    private final RdmaDevice device;
    private final ProtectionDomain pd;
    private final CompletionQueue cq;
    private final MemoryRegion region;
    private final MemoryRegion restricted;
    private final WorkCompletion[] batch = new WorkCompletion[16];
    private final SendWorkRequest sendWr = new SendWorkRequest();
    private final RecvWorkRequest recvWr = new RecvWorkRequest();
    private QueuePair qp;

    /**
     * @param link  the DUT's link (a fabric port, possibly wrapped to break it on purpose in tests).
     * @param clock the injected clock.
     */
    public SelfDut(final Link link, final CachedNanoClock clock)
    {
        device = RdmaDevice.open(link, DeviceOptions.invoker().progressGroup(new ProgressGroup())
            .engineConfig(new EngineConfig().clock(clock).congestionControl(CongestionControl.DCQCN)).name("dut"));
        pd = device.allocPd();
        cq = device.createCq(256);
        region = pd.registerMemory(ByteBuffer.allocateDirect(REGION_BYTES), ALL_REMOTE);
        restricted = pd.registerMemory(ByteBuffer.allocateDirect(RESTRICTED_BYTES), AccessFlags.LOCAL_WRITE);
        for (int i = 0; i < batch.length; i++)
        {
            batch[i] = new WorkCompletion();
        }
    }

    /**
     * A fresh testbed: a new fabric on a new injected clock, the DUT and the peer's port.
     *
     * @param wrapDutLink applied to the DUT's fabric port (identity normally; tests break the DUT with it).
     * @return the testbed.
     */
    public static Testbed testbed(final UnaryOperator<Link> wrapDutLink)
    {
        final CachedNanoClock clock = new CachedNanoClock();
        clock.update(1_000_000_000L);
        final MemoryFabric fabric = new MemoryFabric(clock);
        final Link peer = fabric.attach(PEER_ADDRESS, 1500);
        final SelfDut dut = new SelfDut(wrapDutLink.apply(fabric.attach(ADDRESS, 1500)), clock);
        return new Testbed()
        {
            @Override
            public Dut dut()
            {
                return dut;
            }

            @Override
            public Link peerLink()
            {
                return peer;
            }

            @Override
            public long nowNs()
            {
                return clock.nanoTime();
            }

            @Override
            public void advanceNs(final long ns)
            {
                clock.update(clock.nanoTime() + ns);
            }

            @Override
            public void close()
            {
                dut.close();
                peer.close();
                fabric.close();
            }
        };
    }

    @Override
    public String name()
    {
        return "roce4j (self, in-memory fabric)";
    }

    @Override
    public DutQp connect(final boolean rc, final PeerQp peer)
    {
        final QpType type = rc ? QpType.RC : QpType.UD;
        qp = pd.createQp(new QpInitAttributes().qpType(type).cq(cq));
        final QpSetup setup = new QpSetup().mtu(Mtu.MTU_256).accessFlags(ALL_REMOTE).timeout(TIMEOUT)
            .retries(QpSetup.DEFAULT_RETRY, QpSetup.DEFAULT_RETRY).minRnrTimer(MIN_RNR_TIMER)
            .readAtomicDepth(READ_ATOMIC_DEPTH);
        setup.toInit(qp);
        setup.toRts(qp, SQ_PSN, QpInfo.of(0, peer.qpn(), peer.psn(), Gid.IPV4_MAPPED_HIGH,
            peer.address().ipv4MappedLow()));
        return new DutQp(type, ADDRESS, qp.qpNum(), SQ_PSN, Mtu.MTU_256.bytes(), region.iova(), region.rkey(),
            REGION_BYTES, restricted.iova(), restricted.rkey(), RESTRICTED_BYTES, TIMEOUT, QpSetup.DEFAULT_RETRY,
            MIN_RNR_TIMER, setup.qkey(), READ_ATOMIC_DEPTH);
    }

    @Override
    public void postRecv(final long wrId, final int offset, final int length)
    {
        qp.postRecv(recvWr.reset().wrId(wrId).addSge(region, offset, length));
    }

    @Override
    public void postSend(final DutWork work)
    {
        sendWr.reset().wrId(work.wrId()).opcode(work.opcode()).sendFlags(SendFlags.SIGNALED)
            .addSge(region, work.localOffset(), work.length());
        if (WrOpcode.RDMA_WRITE == work.opcode() || WrOpcode.RDMA_READ == work.opcode())
        {
            sendWr.rdma(work.remoteVa(), work.rkey());
        }
        else if (WrOpcode.SEND != work.opcode())
        {
            sendWr.atomic(work.remoteVa(), work.rkey(), work.compareAdd(), work.swap());
        }
        qp.postSend(sendWr);
    }

    @Override
    public int progress()
    {
        return device.progress();
    }

    @Override
    public List<DutCompletion> pollCompletions()
    {
        final List<DutCompletion> out = new ArrayList<>();
        int n;
        while ((n = cq.poll(batch)) > 0)
        {
            for (int i = 0; i < n; i++)
            {
                final WorkCompletion wc = batch[i];
                out.add(new DutCompletion(wc.wrId(), wc.status(), wc.byteLen(), null != wc.opcode() &&
                    wc.opcode().verbsValue() >= RECEIVE_OPCODES));
            }
        }
        return out;
    }

    @Override
    public boolean qpInError()
    {
        return null != qp && QpState.ERR == qp.state();
    }

    @Override
    public byte[] readMemory(final int offset, final int length)
    {
        final byte[] out = new byte[length];
        region.buffer().getBytes(offset, out);
        return out;
    }

    @Override
    public void writeMemory(final int offset, final byte[] bytes)
    {
        region.buffer().putBytes(offset, bytes);
    }

    @Override
    public String describeCounters()
    {
        return device.describeCounters();
    }

    @Override
    public void close()
    {
        device.close();
    }
}
