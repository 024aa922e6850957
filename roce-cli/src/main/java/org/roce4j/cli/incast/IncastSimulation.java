package org.roce4j.cli.incast;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import org.agrona.concurrent.CachedNanoClock;
import org.roce4j.cm.QpSetup;
import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.Mtu;
import org.roce4j.ib.QpType;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WcStatus;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.ib.WrOpcode;
import org.roce4j.transport.TransportCounter;
import org.roce4j.transport.cc.CongestionControl;
import org.roce4j.transport.cc.QpRate;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.transport.link.sim.SimSwitch;
import org.roce4j.transport.link.sim.SwitchCounter;
import org.roce4j.transport.link.sim.SwitchPort;
import org.roce4j.verbs.CompletionQueue;
import org.roce4j.verbs.DeviceOptions;
import org.roce4j.verbs.MemoryRegion;
import org.roce4j.verbs.ProgressGroup;
import org.roce4j.verbs.ProtectionDomain;
import org.roce4j.verbs.QpInitAttributes;
import org.roce4j.verbs.QueuePair;
import org.roce4j.verbs.RdmaDevice;
import org.roce4j.verbs.SendWorkRequest;
import org.roce4j.wire.header.Ipv4Header;

/**
 * Runs an incast: N roce4j devices each write through a {@link SimSwitch} into one receiving device, every device in
 * invoker mode on one thread and one {@link CachedNanoClock}, so a run is deterministic for its settings and seed
 * and simulated time runs as fast as the packets can be built and parsed.
 *
 * <p>The loop: post WRITEs for the flows that are active (up to the depth each), run one duty cycle of every engine,
 * take completions; when nothing moved, jump the clock to the next thing due (a frame in the switch, an engine timer
 * such as a pacer's next packet or a retransmit timeout, a schedule change, a bin boundary). Every bin, per-flow
 * throughput at the bottleneck (bytes the receiver's switch port sent from each sender) and each sender QP's DCQCN
 * rate are recorded; the switch samples its queues itself.
 */
public final class IncastSimulation
{
    /** The simulation's time origin (the engines' clock starts here; results count from it). */
    static final long ORIGIN_NS = 1_000_000_000L;
    /** IP MTU of every link: jumbo frames, so a 4096-byte path MTU fits (rxe: 9000 gives active MTU 4096). */
    static final int LINK_MTU = 9000;
    private static final int COMPLETIONS = 64;

    private final IncastSettings s;

    /**
     * @param settings what to run.
     */
    public IncastSimulation(final IncastSettings settings)
    {
        this.s = settings;
    }

    /** One sender, its QP toward the receiver and what it has in flight. */
    private static final class Flow
    {
        RdmaDevice device;
        SwitchPort port;
        QueuePair qp;
        CompletionQueue cq;
        MemoryRegion source;
        long remoteAddress;
        int rkey;
        int outstanding;
        long completedBytes;
        long errors;
        long startNs;
        long endNs;
    }

    /**
     * Run it.
     *
     * @return what happened.
     * @throws IllegalArgumentException for settings that cannot run (a staggered schedule longer than the run, a bad
     *                                  MTU).
     */
    public IncastResult run()
    {
        final long wallStartNs = System.nanoTime();
        final int n = s.senders;
        for (int i = 0; i < n; i++)
        {
            if (s.endNs(i) <= s.startNs(i))
            {
                throw new IllegalArgumentException("--stagger " + s.stagger() / 1e6 + " ms: flow " + i + " would " +
                    "leave before it joins in a " + s.durationNs / 1e6 + " ms run");
            }
        }
        final Mtu mtu = Mtu.fromBytes(s.pathMtu);
        final CachedNanoClock clock = new CachedNanoClock();
        clock.update(ORIGIN_NS);
        final SimSwitch.Builder builder = SimSwitch.builder().clock(clock).lineRateBps(s.lineRateBps)
            .propagationDelayNs(s.propagationDelayNs).sampleIntervalNs(s.queueSampleNs).seed(s.seed);
        if (s.bufferBytes > 0)
        {
            builder.bufferBytes(s.bufferBytes);
        }
        if (s.kminBytes >= 0 || s.kmaxBytes >= 0 || s.pmax >= 0)
        {
            final SimSwitch defaults = SimSwitch.builder().clock(clock).lineRateBps(s.lineRateBps).build();
            builder.red(s.kminBytes >= 0 ? s.kminBytes : defaults.kminBytes(),
                s.kmaxBytes >= 0 ? s.kmaxBytes : defaults.kmaxBytes(), s.pmax >= 0 ? s.pmax : defaults.pmax());
        }
        final SimSwitch sw = builder.build();
        final CongestionControl cc = s.congestionControl.with(CongestionControl.Param.LINE_RATE,
            Math.max(1, s.lineRateBps / 1_000_000L));
        final SplittableRandom random = new SplittableRandom(s.seed);
        final List<RdmaDevice> devices = new ArrayList<>();
        final List<ProgressGroup> groups = new ArrayList<>();
        try
        {
            final SwitchPort receiverPort = sw.attach(LinkAddress.of("02:00:00:00:01:00", "10.0.1.100"), LINK_MTU);
            final RdmaDevice receiver = open(receiverPort, clock, cc, devices, groups);
            final ProtectionDomain receiverPd = receiver.allocPd();
            final CompletionQueue receiverCq = receiver.createCq(16);
            final QpSetup setup = new QpSetup().mtu(mtu).trafficClass(s.trafficClass)
                .accessFlags(AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
            final Flow[] flows = new Flow[n];
            for (int i = 0; i < n; i++)
            {
                final Flow f = new Flow();
                f.port = sw.attach(LinkAddress.of(String.format("02:00:00:00:00:%02x", i + 1), "10.0.1." + (i + 1)),
                    LINK_MTU);
                f.device = open(f.port, clock, cc, devices, groups);
                final ProtectionDomain pd = f.device.allocPd();
                f.cq = f.device.createCq(s.depth + 16);
                f.qp = pd.createQp(new QpInitAttributes().qpType(QpType.RC).cq(f.cq).cap(s.depth, 1, 1, 1, 0));
                f.source = pd.registerMemory(ByteBuffer.allocateDirect(s.messageBytes), AccessFlags.LOCAL_WRITE);
                final QueuePair target = receiverPd.createQp(new QpInitAttributes().qpType(QpType.RC)
                    .cq(receiverCq).cap(1, 1, 1, 1, 0));
                final MemoryRegion landing = receiverPd.registerMemory(ByteBuffer.allocateDirect(s.messageBytes),
                    AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
                setup.connectPair(f.qp, random.nextInt(0x100_0000), target, random.nextInt(0x100_0000));
                f.remoteAddress = landing.address(0);
                f.rkey = landing.rkey();
                f.startNs = ORIGIN_NS + s.startNs(i);
                f.endNs = ORIGIN_NS + s.endNs(i);
                flows[i] = f;
            }
            return loop(sw, clock, receiver, receiverPort, flows, groups, wallStartNs);
        }
        finally
        {
            for (final RdmaDevice device : devices)
            {
                device.close();
            }
        }
    }

    private static RdmaDevice open(final SwitchPort port, final CachedNanoClock clock, final CongestionControl cc,
        final List<RdmaDevice> devices, final List<ProgressGroup> groups)
    {
        // A group per device: polling one device's CQ runs only its own engine.
        final ProgressGroup group = new ProgressGroup();
        final DeviceOptions options = DeviceOptions.invoker().progressGroup(group);
        options.engineConfig().clock(clock).congestionControl(cc);
        final RdmaDevice device = RdmaDevice.open(port, options);
        devices.add(device);
        groups.add(group);
        return device;
    }

    private IncastResult loop(final SimSwitch sw, final CachedNanoClock clock, final RdmaDevice receiver,
        final SwitchPort receiverPort, final Flow[] flows, final List<ProgressGroup> groups, final long wallStartNs)
    {
        final int n = flows.length;
        final long endNs = ORIGIN_NS + s.durationNs;
        final int bins = (int)((s.durationNs + s.binNs - 1) / s.binNs);
        final double[][] throughputGbps = new double[n][bins];
        final double[][] rateGbps = new double[n][bins];
        final long[] lastForwarded = new long[n];
        final WorkCompletion[] wcs = new WorkCompletion[COMPLETIONS];
        final SendWorkRequest wr = new SendWorkRequest();
        long nextBinNs = ORIGIN_NS + s.binNs;
        int bin = 0;
        sw.advance(ORIGIN_NS);
        while (true)
        {
            final long now = clock.nanoTime();
            if (now >= nextBinNs || now >= endNs)
            {
                // Close every bin that ended by now (a jump may cross several; the later ones saw no traffic).
                while (bin < bins && (now >= nextBinNs || now >= endNs))
                {
                    for (int i = 0; i < n; i++)
                    {
                        final long forwarded = receiverPort.forwardedBytesFrom(flows[i].port.number());
                        throughputGbps[i][bin] = (forwarded - lastForwarded[i]) * 8.0 / s.binNs;
                        lastForwarded[i] = forwarded;
                        final QpRate rate = flows[i].qp.queryRate();
                        rateGbps[i][bin] = rate.limited() ? rate.currentRateBps() / 1e9 : s.lineRateBps / 1e9;
                    }
                    bin++;
                    nextBinNs += s.binNs;
                }
                if (now >= endNs)
                {
                    break;
                }
            }
            int work = 0;
            for (final Flow f : flows)
            {
                if (now >= f.startNs && now < f.endNs)
                {
                    while (f.outstanding < s.depth)
                    {
                        wr.reset().wrId(f.outstanding).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                            .rdma(f.remoteAddress, f.rkey).addSge(f.source, 0, s.messageBytes);
                        f.qp.postSend(wr);
                        f.outstanding++;
                        work++;
                    }
                }
            }
            for (final ProgressGroup group : groups)
            {
                work += group.progress();
            }
            for (final Flow f : flows)
            {
                final int got = f.cq.poll(wcs);
                for (int k = 0; k < got; k++)
                {
                    f.outstanding--;
                    if (WcStatus.SUCCESS == wcs[k].status())
                    {
                        if (now < f.endNs)
                        {
                            f.completedBytes += s.messageBytes;
                        }
                    }
                    else
                    {
                        f.errors++;
                    }
                }
                work += got;
            }
            if (0 == work)
            {
                long next = Math.min(sw.nextEventNs(), Math.min(nextBinNs, endNs));
                for (final ProgressGroup group : groups)
                {
                    next = Math.min(next, group.earliestDeadlineNs());
                }
                for (final Flow f : flows)
                {
                    if (f.startNs > now)
                    {
                        next = Math.min(next, f.startNs);
                    }
                    if (f.endNs > now)
                    {
                        next = Math.min(next, f.endNs);
                    }
                }
                clock.update(Math.max(now + 1, next));
            }
        }
        return result(sw, receiver, receiverPort, flows, throughputGbps, rateGbps, wallStartNs);
    }

    private IncastResult result(final SimSwitch sw, final RdmaDevice receiver, final SwitchPort receiverPort,
        final Flow[] flows, final double[][] throughputGbps, final double[][] rateGbps, final long wallStartNs)
    {
        final int n = flows.length;
        final IncastResult.FlowResult[] results = new IncastResult.FlowResult[n];
        long handled = 0;
        long ignored = 0;
        long retransmitted = 0;
        long errors = 0;
        long drops = 0;
        long marked = 0;
        for (final SwitchPort port : sw.ports())
        {
            drops += port.switchCounters().get(SwitchCounter.TAIL_DROPS);
            marked += port.switchCounters().get(SwitchCounter.ECN_MARKED);
        }
        for (int i = 0; i < n; i++)
        {
            final Flow f = flows[i];
            final double activeNs = f.endNs - f.startNs;
            results[i] = new IncastResult.FlowResult(i, Ipv4Header.addressToString(f.port.address().ipv4()),
                (f.startNs - ORIGIN_NS) / 1e6, (f.endNs - ORIGIN_NS) / 1e6, f.completedBytes * 8.0 / activeNs,
                throughputGbps[i], rateGbps[i]);
            handled += f.device.counters().get(TransportCounter.RP_CNP_HANDLED);
            ignored += f.device.counters().get(TransportCounter.RP_CNP_IGNORED);
            retransmitted += f.device.counters().get(TransportCounter.PACKETS_RETRANSMITTED);
            errors += f.errors;
        }
        final IncastResult.Counters counters = new IncastResult.Counters(
            receiver.counters().get(TransportCounter.NP_ECN_MARKED_ROCE_PACKETS),
            receiver.counters().get(TransportCounter.NP_CNP_SENT), handled, ignored, marked, drops,
            receiverPort.switchCounters().get(SwitchCounter.TAIL_DROPS), retransmitted, errors);
        return new IncastResult(s, sw.kminBytes(), sw.kmaxBytes(), sw.pmax(), sw.bufferBytes(), results,
            receiverPort.queueSamples(), sw.sampleIntervalNs(), counters,
            (System.nanoTime() - wallStartNs) / 1e6);
    }
}
