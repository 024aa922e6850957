package org.roce4j.cli.demo;

import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.CachedNanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.cm.QpSetup;
import org.roce4j.cm.oob.QpInfo;
import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.Mtu;
import org.roce4j.ib.QpType;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WcStatus;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.ib.WrOpcode;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.transport.link.LinkCounter;
import org.roce4j.transport.link.TappedLink;
import org.roce4j.transport.link.memory.MemoryFabric;
import org.roce4j.transport.link.memory.MemoryLink;
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
import org.roce4j.wire.addr.Mac;
import org.roce4j.wire.decode.FrameDecoder;
import org.roce4j.wire.header.Ipv4Header;

/**
 * The live demo behind {@code roce demo}: two roce4j endpoints in one JVM, joined by the in-memory fabric, connect
 * an RC QP pair and run SEND, RDMA WRITE, WRITE with immediate, RDMA READ, compare-and-swap and fetch-and-add, then
 * the same again with 5 % of the frames lost in each direction. Every packet is printed decoded as it leaves an
 * endpoint (marked when the fabric drops it), every completion is printed, the data is checked, and the engines'
 * counters close the run.
 *
 * <p>Time is simulated (a clock that jumps to the next timer when nothing else can happen), so the demo is fast
 * and prints the same trace on every run; retransmission timeouts are real protocol timeouts on that clock.
 */
public final class LiveDemo
{
    /** IP MTU of the demo's links: 1500 gives an IB MTU of 1024, so larger messages take several packets. */
    private static final int LINK_MTU = 1500;
    /** Seed of the fabric's loss: chosen so the lossy round loses requests, ACKs and READ responses alike. */
    private static final long LOSS_SEED = 10;
    private static final double LOSS_RATE = 0.05;
    private static final int LOSSY_ROUNDS = 3;
    private static final long WAIT_NS = 10_000_000_000L;
    private static final LinkAddress ADDRESS_A =
        new LinkAddress(Mac.parse("02:00:00:00:00:0a"), Ipv4Header.parseAddress("192.168.77.1"));
    private static final LinkAddress ADDRESS_B =
        new LinkAddress(Mac.parse("02:00:00:00:00:0b"), Ipv4Header.parseAddress("192.168.77.2"));

    private final PrintWriter out;
    private final FrameDecoder decoder;
    private final WorkCompletion[] wc = {new WorkCompletion()};
    private long packetNumber;
    private long lost;

    /**
     * @param out where the trace goes.
     */
    public LiveDemo(final PrintWriter out)
    {
        this.out = out;
        this.decoder = new FrameDecoder(out).summary(true).numbered(false);
    }

    /**
     * Run both rounds.
     *
     * @return true when every operation completed with the right data.
     */
    public boolean run()
    {
        out.println("Two endpoints, A and B, each a roce4j device on the in-memory fabric, connect an RC queue pair");
        out.println("and A runs every RC operation against B's memory. Each packet is printed as it leaves, with the");
        out.println("time it left. That time is simulated: the clock stands still while packets flow and jumps only");
        out.println("when both endpoints are idle, straight to the next timer. Round 1 loses nothing, so nothing ever");
        out.println("waits and every timestamp stays at 0.000 us; in round 2 each loss costs a retransmission timeout");
        out.println("(4.194 ms at QP timeout 10) of simulated time, none of real time.");
        final boolean clean = round("round 1: no loss", 0.0, 1);
        final boolean lossy = round("round 2: " + (int)(LOSS_RATE * 100) + " % of frames lost both ways", LOSS_RATE,
            LOSSY_ROUNDS);
        return clean && lossy;
    }

    private boolean round(final String title, final double loss, final int repetitions)
    {
        out.println();
        out.println("=== " + title + " ===");
        final CachedNanoClock clock = new CachedNanoClock();
        final ProgressGroup group = ProgressGroup.simulated(clock);
        final MemoryFabric fabric = new MemoryFabric(clock);
        final MemoryLink linkA = fabric.attach(ADDRESS_A, LINK_MTU);
        final MemoryLink linkB = fabric.attach(ADDRESS_B, LINK_MTU);
        if (loss > 0)
        {
            linkA.faults().seed(LOSS_SEED).loss(loss);
            linkB.faults().seed(LOSS_SEED + 1).loss(loss);
        }
        final long start = clock.nanoTime();
        try (RdmaDevice a = open(new TappedLink(linkA, (outgoing, dropped, buffer, offset, length) ->
                trace("A->B", clock.nanoTime() - start, outgoing, dropped, buffer, offset, length)), group, clock);
            RdmaDevice b = open(new TappedLink(linkB, (outgoing, dropped, buffer, offset, length) ->
                trace("B->A", clock.nanoTime() - start, outgoing, dropped, buffer, offset, length)), group, clock))
        {
            final Endpoint requester = new Endpoint(a);
            final Endpoint responder = new Endpoint(b);
            final QpSetup setup = new QpSetup().mtu(Mtu.MTU_1024).readAtomicDepth(4).timeout(10);
            final QpInfo infoA = requester.info(0x00A0A0);
            final QpInfo infoB = responder.info(0x00B0B0);
            setup.toInit(requester.qp);
            setup.toInit(responder.qp);
            setup.toRts(requester.qp, infoA.psn(), infoB);
            setup.toRts(responder.qp, infoB.psn(), infoA);
            out.println("A: " + infoA + "   B: " + infoB + "   path MTU 1024, timeout 4.2 ms");

            boolean ok = true;
            for (int r = 0; r < repetitions && ok; r++)
            {
                out.println("--- pass " + (r + 1) + " of " + repetitions + ": SEND, RDMA WRITE, WRITE with " +
                    "immediate, RDMA READ, compare-and-swap, fetch-and-add");
                ok = operations(requester, responder, r);
            }
            out.println("--- counters after " + title);
            out.println("A: " + a.describeCounters().replace('\n', ' '));
            out.println("B: " + b.describeCounters().replace('\n', ' '));
            out.println("fabric: frames lost A->B " + linkA.counters().get(LinkCounter.INJECTED_DROPS) +
                ", B->A " + linkB.counters().get(LinkCounter.INJECTED_DROPS) + "; simulated time " +
                (clock.nanoTime() - start) / 1000 + " us");
            return ok;
        }
    }

    private static RdmaDevice open(final TappedLink link, final ProgressGroup group, final CachedNanoClock clock)
    {
        return RdmaDevice.open(link, DeviceOptions.invoker().progressGroup(group)
            .engineConfig(new EngineConfig().clock(clock)));
    }

    private void trace(
        final String direction,
        final long timeNs,
        final boolean outgoing,
        final boolean dropped,
        final DirectBuffer buffer,
        final int offset,
        final int length)
    {
        if (!outgoing)
        {
            return;
        }
        packetNumber++;
        if (dropped)
        {
            lost++;
        }
        out.print(String.format(java.util.Locale.ROOT, "%4d %10.3f us %s %s", packetNumber, timeNs / 1000.0,
            direction, dropped ? "LOST " : ""));
        final UnsafeBuffer view = new UnsafeBuffer(buffer, offset, length);
        decoder.decode(packetNumber, FrameDecoder.NO_TIMESTAMP, view, 0, length, length);
    }

    private boolean operations(final Endpoint a, final Endpoint b, final int round)
    {
        final String tag = "round " + (round + 1) + ": ";
        final UnsafeBuffer local = new UnsafeBuffer(a.mr.buffer().byteBuffer());
        final UnsafeBuffer remote = new UnsafeBuffer(b.mr.buffer().byteBuffer());
        boolean ok = true;

        // SEND: 64 bytes into a posted receive.
        local.putStringWithoutLengthAscii(0, "hello from A, " + tag);
        b.qp.postRecv(new RecvWorkRequest().wrId(100 + round).addSge(b.mr, 16384, 4096));
        ok &= post(a, new SendWorkRequest().wrId(1).opcode(WrOpcode.SEND).addSge(a.mr, 0, 64), "SEND 64 B");
        ok &= expect(b.cq, "B receive");
        ok &= check(remote.getStringWithoutLengthAscii(16384, 14).equals("hello from A, "), "SEND data");

        // RDMA WRITE of 3000 bytes: three packets at MTU 1024 (FIRST, MIDDLE, LAST), the RETH on the first.
        for (int i = 0; i < 3000; i++)
        {
            local.putByte(1024 + i, (byte)(i * 7 + round));
        }
        ok &= post(a, new SendWorkRequest().wrId(2).opcode(WrOpcode.RDMA_WRITE).addSge(a.mr, 1024, 3000)
            .rdma(b.mr.address(0), b.mr.rkey()), "RDMA_WRITE 3000 B");
        ok &= check(sameBytes(local, 1024, remote, 0, 3000), "WRITE data");

        // RDMA WRITE with immediate: consumes a receive at B and delivers the 4 immediate bytes.
        b.qp.postRecv(new RecvWorkRequest().wrId(200 + round).addSge(b.mr, 16384, 4096));
        ok &= post(a, new SendWorkRequest().wrId(3).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).immData(0x0BADCAFE)
            .addSge(a.mr, 1024, 100).rdma(b.mr.address(4096), b.mr.rkey()), "RDMA_WRITE_WITH_IMM 100 B");
        ok &= expect(b.cq, "B receive (immediate)");
        ok &= check(wc[0].hasImmediate() && 0x0BADCAFE == wc[0].immData(), "immediate data");

        // RDMA READ of 2500 bytes: one request, three response packets.
        for (int i = 0; i < 2500; i++)
        {
            remote.putByte(8192 + i, (byte)(i * 13 + round));
        }
        ok &= post(a, new SendWorkRequest().wrId(4).opcode(WrOpcode.RDMA_READ).addSge(a.mr, 8192, 2500)
            .rdma(b.mr.address(8192), b.mr.rkey()), "RDMA_READ 2500 B");
        ok &= check(sameBytes(remote, 8192, local, 8192, 2500), "READ data");

        // Atomics on an 8-byte counter at B.
        remote.putLong(12288, 41L, ByteOrder.nativeOrder());
        ok &= post(a, new SendWorkRequest().wrId(5).opcode(WrOpcode.ATOMIC_CMP_AND_SWP).addSge(a.mr, 12288, 8)
            .atomic(b.mr.address(12288), b.mr.rkey(), 41L, 1000L), "ATOMIC_CMP_AND_SWP 41 -> 1000");
        ok &= check(41L == local.getLong(12288, ByteOrder.nativeOrder()) &&
            1000L == remote.getLong(12288, ByteOrder.nativeOrder()), "compare-and-swap");
        ok &= post(a, new SendWorkRequest().wrId(6).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).addSge(a.mr, 12296, 8)
            .atomic(b.mr.address(12288), b.mr.rkey(), 24L, 0L), "ATOMIC_FETCH_AND_ADD +24");
        ok &= check(1000L == local.getLong(12296, ByteOrder.nativeOrder()) &&
            1024L == remote.getLong(12288, ByteOrder.nativeOrder()), "fetch-and-add");
        return ok;
    }

    private boolean post(final Endpoint endpoint, final SendWorkRequest wr, final String what)
    {
        out.println("A post " + what);
        endpoint.qp.postSend(wr.sendFlags(SendFlags.SIGNALED));
        return expect(endpoint.cq, "A completion");
    }

    private boolean expect(final CompletionQueue cq, final String what)
    {
        if (1 != cq.pollBlocking(wc, WAIT_NS))
        {
            out.println("!! " + what + ": no completion");
            return false;
        }
        out.println("   " + what + ": " + wc[0]);
        return WcStatus.SUCCESS == wc[0].status();
    }

    private boolean check(final boolean condition, final String what)
    {
        if (!condition)
        {
            out.println("!! " + what + " is wrong");
        }
        return condition;
    }

    private static boolean sameBytes(
        final DirectBuffer a, final int aOffset, final DirectBuffer b, final int bOffset, final int length)
    {
        for (int i = 0; i < length; i++)
        {
            if (a.getByte(aOffset + i) != b.getByte(bOffset + i))
            {
                return false;
            }
        }
        return true;
    }

    /**
     * @return packets the demo printed.
     */
    public long packets()
    {
        return packetNumber;
    }

    /**
     * @return packets the fabric dropped.
     */
    public long lost()
    {
        return lost;
    }

    /** One side: PD, CQ, 64 KiB of memory, one RC QP. */
    private final class Endpoint
    {
        final CompletionQueue cq;
        final MemoryRegion mr;
        final QueuePair qp;

        Endpoint(final RdmaDevice device)
        {
            final ProtectionDomain pd = device.allocPd();
            cq = device.createCq(64);
            mr = pd.registerMemory(ByteBuffer.allocateDirect(65536), AccessFlags.LOCAL_WRITE |
                AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC);
            qp = pd.createQp(new QpInitAttributes().qpType(QpType.RC).cq(cq).cap(16, 16, 1, 1, 0));
        }

        QpInfo info(final int psn)
        {
            final org.roce4j.wire.addr.Gid gid = qp.pd().device().queryGid(1);
            return QpInfo.of(0, qp.qpNum(), psn, gid.high(), gid.low());
        }
    }
}
