package org.roce4j.verbs;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;

import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.roce4j.ib.Mtu;
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
    static final String LEFT_DEVICE = "rvl";
    static final String RIGHT_DEVICE = "rvr";
    static final String LEFT_IP = "10.99.0.1";
    static final String RIGHT_IP = "10.99.0.2";
    /** Jumbo frames on the veth, so the devices' active IB MTU is 4096. */
    static final int VETH_MTU = 9000;
    static final long SEED = Long.getLong("roce4j.vethSeed", System.nanoTime());
    /** Safety bound on one scenario's traffic, not a timing: a healthy run takes a few seconds. */
    static final long PATIENCE_NS = 60_000_000_000L;

    static final int SENDS = 24;
    static final int MAX_SEND = 12_288;
    static final int WRITES = 12;
    static final int MAX_WRITE = 32_768;
    static final int READS = 12;
    static final int MAX_READ = 32_768;
    static final int ATOMICS = 8;
    static final int UD_MESSAGES = 32;
    /** The largest UD message: the IB MTU. */
    static final int MAX_UD = 4096;
    /** Over the lossy veth, at least this share of the UD datagrams must arrive (2% are lost on average). */
    static final double UD_MIN_ARRIVAL = 0.8;
    /** RC send WRs each device posts: SENDs, WRITEs, READs, CMP_SWAPs and FETCH_ADDs. */
    static final int RC_REQUESTS = SENDS + WRITES + READS + 2 * ATOMICS;
    /**
     * Local ACK timeout exponent: 4.096 us * 2^14 = 67 ms (perftest's default), many round trips of the impaired
     * veth and longer than the pauses a cold JVM on a shared 2-core machine takes; shorter timeouts fire
     * spuriously there and go-back-N then resends whole windows.
     */
    static final int ACK_TIMEOUT = 14;

    static final int KIND_SEND = 1;
    static final int KIND_WRITE = 2;
    static final int KIND_READ = 3;
    static final int KIND_CMP_SWAP = 4;
    static final int KIND_FETCH_ADD = 5;
    static final int KIND_UD = 6;
    /** Q_Key of both UD QPs (VerbsFixture.Params' default). */
    static final int QKEY = 0x1111_1111;
    /** Work request id of the warm-up SEND and its receive, outside the workload's ids. */
    static final long WARM_UP = 999_999;
    /** Work request ids are kind * WR_KIND + index. */
    static final int WR_KIND = 1_000;

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
    static void requireEnvironment()
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
    static final class Scenario
    {
        private final ProgressGroup group = new ProgressGroup(waitForTheVeth());
        private final IdleStrategy idle = waitForTheVeth();
        private final List<VethImpairment> impairments;
        private final VethEndpoint left;
        private final VethEndpoint right;

        Scenario(final long seed, final Medium leftMedium, final Medium rightMedium,
            final List<VethImpairment> impairments)
        {
            this.impairments = impairments;
            final SplittableRandom random = new SplittableRandom(seed);
            left = new VethEndpoint("left", openLink(namespaces.first(), LEFT_DEVICE, LEFT_IP, leftMedium), group,
                random.split());
            VethEndpoint opened = null;
            try
            {
                opened = new VethEndpoint("right", openLink(namespaces.second(), RIGHT_DEVICE, RIGHT_IP, rightMedium),
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
            for (final VethEndpoint side : List.of(left, right))
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
            for (final VethEndpoint side : List.of(left, right))
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
}
