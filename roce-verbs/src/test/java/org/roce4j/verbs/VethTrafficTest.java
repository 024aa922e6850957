package org.roce4j.verbs;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;

import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.roce4j.ib.AhAttributes;
import org.roce4j.ib.Mtu;
import org.roce4j.ib.QpType;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WcOpcode;
import org.roce4j.ib.WcStatus;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.ib.WrOpcode;
import org.roce4j.wire.addr.Gid;
import org.roce4j.transport.TransportCounter;
import org.roce4j.transport.link.Link;
import org.roce4j.transport.link.LinkCounter;
import org.roce4j.transport.link.NamespacePair;
import org.roce4j.transport.link.NetworkNamespace;
import org.roce4j.transport.link.TestEnvironment;
import org.roce4j.transport.link.VethImpairment;
import org.roce4j.transport.link.pcap.PcapLink;
import org.roce4j.transport.link.udp.UdpLink;
import org.roce4j.wire.FrameStatus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Two roce4j devices in two network namespaces joined by a veth pair, each on a real link: kernel UDP on both
 * sides, raw Ethernet (pcap) on both sides, and one of each. Both devices at once run, against the other's memory,
 * RC SENDs, WRITEs, READs, CMP_SWAP chains and FETCH_ADDs, and UD SENDs, all with seeded random sizes and
 * contents, and every byte is checked where it lands. Then the same over a veth losing
 * {@value VethImpairment#LOSS_PERCENT}% of its packets and reordering about {@value VethImpairment#REORDER_PERCENT}%
 * in both directions ({@link VethImpairment}: tc netem, or an HTB emulation where the kernel lacks netem): every
 * RC message must still arrive exactly once and byte-identical, every work request complete exactly once, each
 * atomic take effect once (the final values prove it), and the engines' retransmission and duplicate counters
 * must show the loss happened. UD is unreliable: over the lossy veth, the datagrams that arrive must be intact and
 * unduplicated.
 *
 * <p>The namespaces, the veth pair and its addresses (10.99.0.0/24, inside the namespaces only) are made here and
 * removed afterwards. A udp side has its address on its veth end (the kernel owns it); a pcap side has none there
 * (the link owns it and answers ARP). Links are opened on threads that entered their namespace; both devices then
 * run in INVOKER mode on the test thread, in one real-time progress group. Sizes and contents come from a seed,
 * printed with every scenario and in every failure; rerun one with {@code -Droce4j.vethSeed=N}. The six scenarios
 * take 5 to 8 s on the project's 2-core VM, up to 19 s when it is heavily loaded (not tagged slow).
 */
@Tag("slow")
class VethTrafficTest
{
    private static final String LEFT_DEVICE = "rvl";
    private static final String RIGHT_DEVICE = "rvr";
    private static final String LEFT_IP = "10.99.0.1";
    private static final String RIGHT_IP = "10.99.0.2";
    /** Jumbo frames on the veth, so the devices' active IB MTU is 4096. */
    private static final int VETH_MTU = 9000;
    private static final long SEED = Long.getLong("roce4j.vethSeed", System.nanoTime());
    /** Safety bound on one scenario's traffic, not a timing: a healthy run takes a few seconds. */
    private static final long PATIENCE_NS = 60_000_000_000L;

    private static final int SENDS = 24;
    private static final int MAX_SEND = 12_288;
    private static final int WRITES = 12;
    private static final int MAX_WRITE = 32_768;
    private static final int READS = 12;
    private static final int MAX_READ = 32_768;
    private static final int ATOMICS = 8;
    private static final int UD_MESSAGES = 32;
    /** The largest UD message: the IB MTU. */
    private static final int MAX_UD = 4096;
    /** Over the lossy veth, at least this share of the UD datagrams must arrive (2% are lost on average). */
    private static final double UD_MIN_ARRIVAL = 0.8;
    /** RC send WRs each device posts: SENDs, WRITEs, READs, CMP_SWAPs and FETCH_ADDs. */
    private static final int RC_REQUESTS = SENDS + WRITES + READS + 2 * ATOMICS;
    /**
     * Local ACK timeout exponent: 4.096 us * 2^14 = 67 ms (perftest's default), many round trips of the impaired
     * veth and longer than the pauses a cold JVM on a shared 2-core machine takes; shorter timeouts fire
     * spuriously there and go-back-N then resends whole windows.
     */
    private static final int ACK_TIMEOUT = 14;

    private static final int KIND_SEND = 1;
    private static final int KIND_WRITE = 2;
    private static final int KIND_READ = 3;
    private static final int KIND_CMP_SWAP = 4;
    private static final int KIND_FETCH_ADD = 5;
    private static final int KIND_UD = 6;
    /** Q_Key of both UD QPs (VerbsFixture.Params' default). */
    private static final int QKEY = 0x1111_1111;
    /** Work request id of the warm-up SEND and its receive, outside the workload's ids. */
    private static final long WARM_UP = 999_999;
    /** Work request ids are kind * WR_KIND + index. */
    private static final int WR_KIND = 1_000;

    private static NamespacePair namespaces;

    /** Which link a side uses. */
    enum Medium
    {
        UDP,
        PCAP
    }

    /**
     * Skip (or, with ROCE4J_REQUIRE_TOOLS=1, fail) unless the machine can run these tests: root, ip, tc, libpcap.
     */
    private static void requireEnvironment()
    {
        TestEnvironment.requireNetworkAdmin();
        TestEnvironment.requireCommand("ip");
        TestEnvironment.requireCommand("tc");
        TestEnvironment.requireLibpcap();
    }

    @BeforeAll
    static void createNamespaces()
    {
        namespaces = NamespacePair.joinedByVeth(VethTrafficTest::requireEnvironment,
            "vl", LEFT_DEVICE, null, "vr", RIGHT_DEVICE, null, VETH_MTU);
    }

    @AfterAll
    static void removeNamespaces()
    {
        NamespacePair.close(namespaces);
    }

    static Stream<Arguments> pairings()
    {
        return Stream.of(
            Arguments.of(Medium.UDP, Medium.UDP),
            Arguments.of(Medium.PCAP, Medium.PCAP),
            Arguments.of(Medium.UDP, Medium.PCAP));
    }

    @ParameterizedTest(name = "{0} <-> {1} over a clean veth")
    @MethodSource("pairings")
    void everyOperationOverACleanVeth(final Medium left, final Medium right)
    {
        runScenario(left, right, false);
    }

    @ParameterizedTest(name = "{0} <-> {1} over a veth that loses and reorders")
    @MethodSource("pairings")
    void everyOperationExactlyOnceOverALossyReorderingVeth(final Medium left, final Medium right)
    {
        runScenario(left, right, true);
    }

    private static void runScenario(final Medium left, final Medium right, final boolean impaired)
    {
        requireEnvironment();
        final long seed = SEED ^ (left.ordinal() * 31L + right.ordinal() * 7L + (impaired ? 1 : 0));
        final String scenario = left + " <-> " + right + (impaired ? " lossy" : " clean") + ", seed " + seed +
            " (-Droce4j.vethSeed=" + SEED + ")";
        System.out.println("veth scenario " + scenario);
        final long startNs = System.nanoTime();
        configureAddress(namespaces.first(), LEFT_DEVICE, LEFT_IP, left);
        configureAddress(namespaces.second(), RIGHT_DEVICE, RIGHT_IP, right);
        final List<VethImpairment> impairments = new ArrayList<>();
        try
        {
            if (impaired)
            {
                impairments.add(VethImpairment.apply(namespaces.first(), LEFT_DEVICE));
                impairments.add(VethImpairment.apply(namespaces.second(), RIGHT_DEVICE));
                System.out.println("  impairment: " + impairments);
            }
            new Scenario(seed, left, right, impairments).run();
        }
        catch (final AssertionError | RuntimeException ex)
        {
            throw new AssertionError(scenario + ": " + ex.getMessage(), ex);
        }
        finally
        {
            for (final VethImpairment impairment : impairments)
            {
                impairment.remove();
            }
        }
        System.out.println("  done in " + (System.nanoTime() - startNs) / 1_000_000 + " ms");
    }

    /**
     * A udp side needs its address on the interface (the kernel owns it); a pcap side must not have it there (the
     * link owns it, and the kernel would answer for it too).
     */
    private static void configureAddress(
        final NetworkNamespace side, final String device, final String ip, final Medium medium)
    {
        side.ip("addr", "flush", "dev", device);
        if (Medium.UDP == medium)
        {
            side.ip("addr", "add", ip + "/24", "dev", device);
        }
    }

    private static Link openLink(final NetworkNamespace side, final String device, final String ip, final Medium medium)
    {
        return side.call(() -> Medium.UDP == medium ? UdpLink.open("udp:" + ip) :
            PcapLink.open("pcap:" + device + ",ip=" + ip));
    }

    /**
     * @return how an idle wait backs off: 100 spins, 10 yields, then parks from 1 us growing to 100 us, well under
     *     a veth round trip plus the ACK timeout, and gentle on a shared 2-core machine.
     */
    private static IdleStrategy waitForTheVeth()
    {
        return new BackoffIdleStrategy(100, 10, 1_000, 100_000);
    }

    /**
     * One run: two devices, their QPs and memory, the workload each posts against the other, and the checks.
     */
    private static final class Scenario
    {
        private final ProgressGroup group = new ProgressGroup(waitForTheVeth());
        private final IdleStrategy idle = waitForTheVeth();
        private final List<VethImpairment> impairments;
        private final Endpoint left;
        private final Endpoint right;

        Scenario(final long seed, final Medium leftMedium, final Medium rightMedium,
            final List<VethImpairment> impairments)
        {
            this.impairments = impairments;
            final SplittableRandom random = new SplittableRandom(seed);
            left = new Endpoint("left", openLink(namespaces.first(), LEFT_DEVICE, LEFT_IP, leftMedium), group,
                random.split());
            Endpoint opened = null;
            try
            {
                opened = new Endpoint("right", openLink(namespaces.second(), RIGHT_DEVICE, RIGHT_IP, rightMedium),
                    group, random.split());
            }
            finally
            {
                if (null == opened)
                {
                    left.close();
                }
            }
            right = opened;
        }

        void run()
        {
            try
            {
                assertEquals(Mtu.MTU_4096, left.device.activeMtu(), "active MTU over a 9000-byte veth");
                connect();
                warmUp();
                left.postReceives();
                right.postReceives();
                left.postRequests(right);
                right.postRequests(left);
                awaitCompletions();
                left.checkArrivals(right, impairments.isEmpty());
                right.checkArrivals(left, impairments.isEmpty());
                checkCounters();
            }
            finally
            {
                left.close();
                right.close();
            }
        }

        private void connect()
        {
            final VerbsFixture.Params params = new VerbsFixture.Params();
            params.mtu = Mtu.MTU_4096;
            params.timeout = ACK_TIMEOUT;
            params.retryCnt = 7;
            params.rnrRetry = 7;
            VerbsFixture.bringUp(left.rc, right.rc.qpNum(), right.device.queryGid(1), params.psnA, params.psnB, params);
            VerbsFixture.bringUp(right.rc, left.rc.qpNum(), left.device.queryGid(1), params.psnB, params.psnA, params);
            VerbsFixture.bringUp(left.ud, 0, right.device.queryGid(1), params.psnA, 0, params);
            VerbsFixture.bringUp(right.ud, 0, left.device.queryGid(1), params.psnB, 0, params);
        }

        /**
         * One SEND each way before the workload, as rdma_cm's address resolution and connection handshake come
         * before any data: both sides' neighbour entries get resolved (the pcap link by its own ARP, the udp link
         * by the kernel's). Without it the workload would start against ARP queues that hold only so much (the
         * pcap link 64 frames per unresolved peer, the kernel unres_qlen_bytes): RC recovers what they drop, UD
         * cannot.
         */
        private void warmUp()
        {
            left.postWarmUp();
            right.postWarmUp();
            final long deadlineNs = System.nanoTime() + PATIENCE_NS;
            while (2 != left.warmUpCompletions || 2 != right.warmUpCompletions)
            {
                if (0 == left.take() + right.take())
                {
                    idle.idle();
                }
                if (System.nanoTime() - deadlineNs > 0)
                {
                    fail("the warm-up SENDs did not complete within " + PATIENCE_NS / 1_000_000_000L + " s\nleft:\n" +
                        left.device.describeCounters() + "\nright:\n" + right.device.describeCounters());
                }
            }
            idle.reset();
        }

        /**
         * Drive both engines until every RC work request and every UD send has completed on both sides and, over
         * a clean veth, every UD datagram has arrived.
         */
        private void awaitCompletions()
        {
            final long deadlineNs = System.nanoTime() + PATIENCE_NS;
            while (!left.done(impairments.isEmpty()) || !right.done(impairments.isEmpty()))
            {
                final int found = left.take() + right.take();
                if (0 == found)
                {
                    idle.idle();
                }
                else
                {
                    idle.reset();
                }
                if (System.nanoTime() - deadlineNs > 0)
                {
                    fail("traffic did not complete within " + PATIENCE_NS / 1_000_000_000L + " s; left: " +
                        left.progress() + "; right: " + right.progress() + "\nleft:\n" +
                        left.device.describeCounters() + "\nright:\n" + right.device.describeCounters());
                }
            }
        }

        private void checkCounters()
        {
            for (final Endpoint side : List.of(left, right))
            {
                final DeviceCounters counters = side.device.counters();
                assertEquals(0, counters.get(TransportCounter.INTERNAL_ERRORS), side.name + " internal errors");
                assertEquals(0, counters.get(TransportCounter.DROP_BAD_ICRC), side.name + " frames with a bad ICRC");
                assertEquals(0, counters.get(FrameStatus.BAD_ICRC), side.name + " frames with a bad ICRC");
                assertEquals(0, counters.get(TransportCounter.RETRY_EXCEEDED), side.name + " WQEs out of retries");
                final Link link = side.device.link();
                if (link.verifiesIcrc())
                {
                    // Every RoCE frame this side took had its ICRC checked against the bytes on the wire.
                    assertTrue(counters.get(TransportCounter.PACKETS_RECEIVED) > RC_REQUESTS,
                        side.name + " received and verified traffic");
                }
                else
                {
                    assertEquals(link.counters().get(LinkCounter.FRAMES_RECEIVED),
                        link.counters().get(LinkCounter.RECEIVE_UNVERIFIED), side.name + " unverified frames counted");
                }
            }
            final long retransmitted = sum(TransportCounter.PACKETS_RETRANSMITTED);
            final long duplicates = sum(TransportCounter.DUPLICATE_REQUESTS);
            final long outOfSequence = sum(TransportCounter.NAK_SEQUENCE_SENT);
            System.out.println("  retransmitted packets " + retransmitted + ", duplicate requests " + duplicates +
                ", sequence NAKs " + outOfSequence + ", timeouts " + sum(TransportCounter.RETRANSMIT_TIMEOUTS) +
                ", read replays " + sum(TransportCounter.READ_REPLAYS) + ", atomic replays " +
                sum(TransportCounter.ATOMIC_REPLAYS) + ", UD arrived " + left.udArrived + "+" + right.udArrived +
                " of " + 2 * UD_MESSAGES);
            for (final Endpoint side : List.of(left, right))
            {
                System.out.println("  " + side.name + " link " + side.device.link().counters());
            }
            if (!impairments.isEmpty())
            {
                long dropped = 0;
                for (final VethImpairment impairment : impairments)
                {
                    dropped += impairment.droppedPackets();
                }
                System.out.println("  packets dropped by the impairment: " + dropped);
                assertTrue(dropped > 0, "the impairment dropped packets");
                assertTrue(retransmitted > 0, "the requesters resent lost packets");
                assertTrue(duplicates + outOfSequence > 0, "the responders saw duplicates or sequence gaps");
            }
        }

        private long sum(final TransportCounter counter)
        {
            return left.device.counters().get(counter) + right.device.counters().get(counter);
        }
    }

    /**
     * One device: an RC QP and a UD QP, the memory they use, the workload it posts and what it has seen complete.
     */
    private static final class Endpoint
    {
        private static final int ALL_ACCESS = VerbsFixture.ALL_ACCESS;

        final String name;
        final RdmaDevice device;
        final CompletionQueue sendCq;
        final CompletionQueue recvCq;
        final QueuePair rc;
        final QueuePair ud;
        final MemoryRegion sendSource;
        final MemoryRegion recvArea;
        final MemoryRegion writeSource;
        final MemoryRegion writeTarget;
        final MemoryRegion readSource;
        final MemoryRegion readTarget;
        final MemoryRegion atomics;
        final MemoryRegion atomicResults;
        final MemoryRegion udSource;
        final MemoryRegion udRecvArea;
        final ProtectionDomain pd;

        final int[] sendLength = new int[SENDS];
        final int[] sendOffset = new int[SENDS];
        final int[] writeLength = new int[WRITES];
        final int[] readLength = new int[READS];
        final int[] udLength = new int[UD_MESSAGES];
        final int[] udOffset = new int[UD_MESSAGES];
        final long[] fetchAdd = new long[ATOMICS];
        final long[] swapChain = new long[ATOMICS + 1];
        final long fetchAddStart;

        /** Completions seen, per work request id, so none may come twice. */
        final int[] rcCompleted = new int[RC_REQUESTS];
        int rcCompletions;
        int udSendCompletions;
        /** Receive completions seen, in arrival order. */
        final List<WorkCompletion> rcReceives = new ArrayList<>();
        final List<WorkCompletion> udReceives = new ArrayList<>();
        int udArrived;
        /** The warm-up SEND's completion and the peer's warm-up SEND's receive. */
        int warmUpCompletions;
        private final WorkCompletion[] out = VerbsFixture.completions(32);

        Endpoint(final String name, final Link link, final ProgressGroup group, final SplittableRandom random)
        {
            this.name = name;
            device = RdmaDevice.open(link, DeviceOptions.invoker().progressGroup(group).name(name));
            pd = device.allocPd();
            sendCq = device.createCq(1024);
            recvCq = device.createCq(1024);
            rc = pd.createQp(VerbsFixture.init(QpType.RC, sendCq, recvCq));
            ud = pd.createQp(VerbsFixture.init(QpType.UD, sendCq, recvCq));

            int total = 0;
            for (int i = 0; i < SENDS; i++)
            {
                sendLength[i] = 1 + random.nextInt(MAX_SEND);
                sendOffset[i] = total;
                total += sendLength[i];
            }
            sendSource = filled(total, random);
            recvArea = register(SENDS * MAX_SEND);
            for (int i = 0; i < WRITES; i++)
            {
                writeLength[i] = 1 + random.nextInt(MAX_WRITE);
            }
            writeSource = filled(WRITES * MAX_WRITE, random);
            writeTarget = register(WRITES * MAX_WRITE);
            for (int i = 0; i < READS; i++)
            {
                readLength[i] = 1 + random.nextInt(MAX_READ);
            }
            readSource = filled(READS * MAX_READ, random);
            readTarget = register(READS * MAX_READ);

            // The peer's FETCH_ADD counter lives at offset 0, its CMP_SWAP word at offset 8 (8-byte aligned).
            atomics = register(16);
            fetchAddStart = random.nextLong();
            swapChain[0] = random.nextLong();
            for (int i = 0; i < ATOMICS; i++)
            {
                fetchAdd[i] = random.nextLong();
                swapChain[i + 1] = random.nextLong();
            }
            atomics.buffer().putLong(0, fetchAddStart, ByteOrder.nativeOrder());
            atomics.buffer().putLong(8, swapChain[0], ByteOrder.nativeOrder());
            atomicResults = register(16 * ATOMICS);

            total = 0;
            for (int i = 0; i < UD_MESSAGES; i++)
            {
                udLength[i] = Long.BYTES + random.nextInt(MAX_UD - Long.BYTES + 1);
                udOffset[i] = total;
                total += udLength[i];
            }
            udSource = filled(total, random);
            for (int i = 0; i < UD_MESSAGES; i++)
            {
                // Each datagram carries its number first: UD may lose and reorder them.
                udSource.buffer().putLong(udOffset[i], i, ByteOrder.BIG_ENDIAN);
            }
            udRecvArea = register(UD_MESSAGES * (WorkCompletion.GRH_BYTES + MAX_UD));
        }

        private MemoryRegion register(final int size)
        {
            return pd.registerMemory(ByteBuffer.allocateDirect(size), ALL_ACCESS);
        }

        private MemoryRegion filled(final int size, final SplittableRandom random)
        {
            final MemoryRegion region = register(size);
            final byte[] bytes = new byte[size];
            for (int i = 0; i < size; i++)
            {
                bytes[i] = (byte)random.nextInt(256);
            }
            region.buffer().putBytes(0, bytes);
            return region;
        }

        void postWarmUp()
        {
            rc.postRecv(new RecvWorkRequest().wrId(WARM_UP).addSge(recvArea, 0, MAX_SEND));
            rc.postSend(new SendWorkRequest().wrId(WARM_UP).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .addSge(sendSource, 0, 1));
        }

        void postReceives()
        {
            for (int i = 0; i < SENDS; i++)
            {
                rc.postRecv(new RecvWorkRequest().wrId(i).addSge(recvArea, (long)i * MAX_SEND, MAX_SEND));
            }
            for (int i = 0; i < UD_MESSAGES; i++)
            {
                ud.postRecv(new RecvWorkRequest().wrId(i)
                    .addSge(udRecvArea, (long)i * (WorkCompletion.GRH_BYTES + MAX_UD),
                        WorkCompletion.GRH_BYTES + MAX_UD));
            }
        }

        void postRequests(final Endpoint peer)
        {
            for (int i = 0; i < SENDS; i++)
            {
                rc.postSend(new SendWorkRequest().wrId(KIND_SEND * WR_KIND + i).opcode(WrOpcode.SEND)
                    .sendFlags(SendFlags.SIGNALED).addSge(sendSource, sendOffset[i], sendLength[i]));
            }
            for (int i = 0; i < WRITES; i++)
            {
                rc.postSend(new SendWorkRequest().wrId(KIND_WRITE * WR_KIND + i).opcode(WrOpcode.RDMA_WRITE)
                    .sendFlags(SendFlags.SIGNALED).addSge(writeSource, (long)i * MAX_WRITE, writeLength[i])
                    .rdma(peer.writeTarget.address((long)i * MAX_WRITE), peer.writeTarget.rkey()));
            }
            for (int i = 0; i < READS; i++)
            {
                rc.postSend(new SendWorkRequest().wrId(KIND_READ * WR_KIND + i).opcode(WrOpcode.RDMA_READ)
                    .sendFlags(SendFlags.SIGNALED).addSge(readTarget, (long)i * MAX_READ, readLength[i])
                    .rdma(peer.readSource.address((long)i * MAX_READ), peer.readSource.rkey()));
            }
            for (int i = 0; i < ATOMICS; i++)
            {
                // A chain: each CMP_SWAP expects what the one before it wrote, so every one must succeed once.
                rc.postSend(new SendWorkRequest().wrId(KIND_CMP_SWAP * WR_KIND + i).opcode(WrOpcode.ATOMIC_CMP_AND_SWP)
                    .sendFlags(SendFlags.SIGNALED).addSge(atomicResults, 16L * i, Long.BYTES)
                    .atomic(peer.atomics.address(8), peer.atomics.rkey(), peer.swapChain[i], peer.swapChain[i + 1]));
                rc.postSend(new SendWorkRequest().wrId(KIND_FETCH_ADD * WR_KIND + i)
                    .opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).sendFlags(SendFlags.SIGNALED)
                    .addSge(atomicResults, 16L * i + 8, Long.BYTES)
                    .atomic(peer.atomics.address(0), peer.atomics.rkey(), peer.fetchAdd[i], 0));
            }
            final Gid peerGid = peer.device.queryGid(1);
            final AddressHandle ah = pd.createAh(new AhAttributes().dgid(peerGid.high(), peerGid.low()).sgidIndex(1));
            for (int i = 0; i < UD_MESSAGES; i++)
            {
                ud.postSend(new SendWorkRequest().wrId(KIND_UD * WR_KIND + i).opcode(WrOpcode.SEND)
                    .sendFlags(SendFlags.SIGNALED).addSge(udSource, udOffset[i], udLength[i])
                    .ud(ah, peer.ud.qpNum(), QKEY));
            }
        }

        /**
         * Take completions from both CQs (polling drives the whole progress group).
         *
         * @return completions taken.
         */
        int take()
        {
            int taken = 0;
            int n = sendCq.poll(out);
            for (int i = 0; i < n; i++)
            {
                if (WARM_UP == out[i].wrId())
                {
                    assertEquals(WcStatus.SUCCESS, out[i].status(), name + " warm-up " + out[i]);
                    warmUpCompletions++;
                    continue;
                }
                onSendCompletion(out[i]);
            }
            taken += n;
            n = recvCq.poll(out);
            for (int i = 0; i < n; i++)
            {
                final WorkCompletion wc = out[i];
                final WorkCompletion copy = new WorkCompletion().set(wc.wrId(), wc.status(), wc.opcode(),
                    wc.byteLen(), wc.immData(), wc.qpNum(), wc.srcQp(), wc.wcFlags(), wc.invalidatedRkey());
                assertEquals(WcStatus.SUCCESS, wc.status(), name + " receive " + wc);
                if (WARM_UP == wc.wrId())
                {
                    assertEquals(1, wc.byteLen(), name + " warm-up " + wc);
                    warmUpCompletions++;
                }
                else if (rc.qpNum() == wc.qpNum())
                {
                    rcReceives.add(copy);
                }
                else
                {
                    udReceives.add(copy);
                    udArrived++;
                }
            }
            return taken + n;
        }

        private void onSendCompletion(final WorkCompletion wc)
        {
            assertEquals(WcStatus.SUCCESS, wc.status(), name + " send completion " + wc);
            final int kind = (int)(wc.wrId() / WR_KIND);
            final int index = (int)(wc.wrId() % WR_KIND);
            if (KIND_UD == kind)
            {
                assertEquals(WcOpcode.SEND, wc.opcode(), name + " " + wc);
                udSendCompletions++;
                return;
            }
            final int slot = rcSlot(kind, index);
            rcCompleted[slot]++;
            if (1 != rcCompleted[slot])
            {
                fail(name + ": work request " + wc.wrId() + " completed " + rcCompleted[slot] + " times");
            }
            final WcOpcode expected = switch (kind)
            {
                case KIND_SEND -> WcOpcode.SEND;
                case KIND_WRITE -> WcOpcode.RDMA_WRITE;
                case KIND_READ -> WcOpcode.RDMA_READ;
                case KIND_CMP_SWAP -> WcOpcode.COMP_SWAP;
                default -> WcOpcode.FETCH_ADD;
            };
            assertEquals(expected, wc.opcode(), name + " " + wc);
            rcCompletions++;
        }

        private static int rcSlot(final int kind, final int index)
        {
            return switch (kind)
            {
                case KIND_SEND -> index;
                case KIND_WRITE -> SENDS + index;
                case KIND_READ -> SENDS + WRITES + index;
                case KIND_CMP_SWAP -> SENDS + WRITES + READS + index;
                case KIND_FETCH_ADD -> SENDS + WRITES + READS + ATOMICS + index;
                default -> throw new IllegalArgumentException("work request kind " + kind);
            };
        }

        boolean done(final boolean everyDatagram)
        {
            return RC_REQUESTS == rcCompletions && SENDS == rcReceives.size() &&
                UD_MESSAGES == udSendCompletions && (!everyDatagram || UD_MESSAGES == udArrived);
        }

        String progress()
        {
            return "rc " + rcCompletions + "/" + RC_REQUESTS + ", received " + rcReceives.size() + "/" + SENDS +
                ", ud sent " + udSendCompletions + "/" + UD_MESSAGES + ", ud arrived " + udArrived;
        }

        /**
         * Check what this side's requests did to the peer and what the peer's requests did here.
         *
         * @param peer          the other side.
         * @param everyDatagram true over a clean veth, where no UD datagram may be lost.
         */
        void checkArrivals(final Endpoint peer, final boolean everyDatagram)
        {
            // SENDs from the peer, in order, each once, byte for byte.
            for (int i = 0; i < SENDS; i++)
            {
                final WorkCompletion wc = rcReceives.get(i);
                assertEquals(i, wc.wrId(), name + ": RC receives complete in order");
                assertEquals(WcOpcode.RECV, wc.opcode());
                assertEquals(peer.sendLength[i], wc.byteLen(), name + ": length of SEND " + i);
                assertBytes(peer.sendSource.buffer(), peer.sendOffset[i], recvArea.buffer(), i * MAX_SEND,
                    peer.sendLength[i], name + ": SEND " + i);
            }
            // This side's WRITEs landed in the peer's memory, and its READs brought the peer's bytes back.
            for (int i = 0; i < WRITES; i++)
            {
                assertBytes(writeSource.buffer(), i * MAX_WRITE, peer.writeTarget.buffer(), i * MAX_WRITE,
                    writeLength[i], name + ": WRITE " + i);
            }
            for (int i = 0; i < READS; i++)
            {
                assertBytes(peer.readSource.buffer(), i * MAX_READ, readTarget.buffer(), i * MAX_READ, readLength[i],
                    name + ": READ " + i);
            }
            // Atomics on the peer: each executed exactly once, in order.
            long counter = peer.fetchAddStart;
            for (int i = 0; i < ATOMICS; i++)
            {
                assertEquals(peer.swapChain[i], atomicResults.buffer().getLong(16 * i, ByteOrder.nativeOrder()),
                    name + ": CMP_SWAP " + i + " saw the value the one before it wrote");
                assertEquals(counter, atomicResults.buffer().getLong(16 * i + 8, ByteOrder.nativeOrder()),
                    name + ": FETCH_ADD " + i + " returned the running sum");
                counter += peer.fetchAdd[i];
            }
            assertEquals(counter, peer.atomics.buffer().getLong(0, ByteOrder.nativeOrder()),
                name + ": every FETCH_ADD added once");
            assertEquals(peer.swapChain[ATOMICS], peer.atomics.buffer().getLong(8, ByteOrder.nativeOrder()),
                name + ": every CMP_SWAP swapped once");

            // UD datagrams from the peer: each intact, none twice; all of them over a clean veth.
            final boolean[] seen = new boolean[UD_MESSAGES];
            for (final WorkCompletion wc : udReceives)
            {
                final AtomicBuffer area = udRecvArea.buffer();
                final int at = (int)wc.wrId() * (WorkCompletion.GRH_BYTES + MAX_UD) + WorkCompletion.GRH_BYTES;
                final long number = area.getLong(at, ByteOrder.BIG_ENDIAN);
                assertTrue(number >= 0 && number < UD_MESSAGES, name + ": UD datagram number " + number);
                final int message = (int)number;
                assertTrue(!seen[message], name + ": UD datagram " + message + " arrived twice");
                seen[message] = true;
                assertEquals(WorkCompletion.GRH_BYTES + peer.udLength[message], wc.byteLen(), name + ": UD datagram " +
                    message);
                assertBytes(peer.udSource.buffer(), peer.udOffset[message], area, at, peer.udLength[message],
                    name + ": UD datagram " + message);
            }
            if (everyDatagram)
            {
                assertEquals(UD_MESSAGES, udArrived, name + ": UD datagrams over a clean veth");
            }
            else
            {
                assertTrue(udArrived >= UD_MIN_ARRIVAL * UD_MESSAGES,
                    name + ": only " + udArrived + " of " + UD_MESSAGES + " UD datagrams arrived");
            }
            // Nothing more may complete: every work request completed once. (Over the lossy veth a late UD
            // datagram may still arrive; every RC receive was already taken, so nothing else can.)
            assertEquals(0, sendCq.poll(out), name + ": no completion beyond the work requests");
            if (everyDatagram)
            {
                assertEquals(0, recvCq.poll(out), name + ": no receive beyond the messages sent");
            }
        }

        void close()
        {
            device.close();
        }

        private static void assertBytes(
            final AtomicBuffer expected,
            final int expectedOffset,
            final AtomicBuffer actual,
            final int actualOffset,
            final int length,
            final String what)
        {
            for (int i = 0; i < length; i++)
            {
                if (expected.getByte(expectedOffset + i) != actual.getByte(actualOffset + i))
                {
                    fail(what + ": byte " + i + " of " + length + " differs: expected " +
                        expected.getByte(expectedOffset + i) + ", got " + actual.getByte(actualOffset + i));
                }
            }
        }
    }
}
