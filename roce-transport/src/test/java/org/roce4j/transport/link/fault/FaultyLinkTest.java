package org.roce4j.transport.link.fault;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.CachedNanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.roce4j.transport.link.FrameHandler;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.transport.link.LinkCounter;
import org.roce4j.transport.link.TestFrames;
import org.roce4j.transport.link.memory.MemoryFabric;
import org.roce4j.transport.link.memory.MemoryLink;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RoceFrameParser;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A {@link FaultyLink} around a memory port (the fabric injecting nothing itself), with seeded schedules whose exact
 * counts are known: every N-th frame, or draws replayed from the documented seed derivation.
 */
class FaultyLinkTest
{
    private static final int FRAMES = 1_000;
    private static final LinkAddress A = TestFrames.address(1);
    private static final LinkAddress B = TestFrames.address(2);

    private final CachedNanoClock clock = new CachedNanoClock();
    private final MemoryFabric fabric = MemoryFabric.builder().clock(clock).build();
    private final MemoryLink a = fabric.attach(A, 9000);
    private final MemoryLink b = fabric.attach(B, 9000);
    private final TestFrames frames = new TestFrames();
    private final RoceFrameParser parser = new RoceFrameParser();
    private final List<Integer> psns = new ArrayList<>();
    private final List<FrameStatus> statuses = new ArrayList<>();
    private final List<Integer> tos = new ArrayList<>();
    private final FrameHandler collect = this::onFrame;

    @AfterEach
    void close()
    {
        fabric.close();
    }

    private void onFrame(final MutableDirectBuffer buffer, final int offset, final int length)
    {
        final FrameStatus status = parser.parse(buffer, offset, length, true);
        statuses.add(status);
        if (FrameStatus.OK == status)
        {
            psns.add(parser.bth().psn());
            tos.add(parser.ipv4().tos());
        }
    }

    private void sendAll(final FaultyLink sender, final int count, final int qpn)
    {
        for (int psn = 0; psn < count; psn++)
        {
            final int index = sender.tryClaim(9000);
            final int length = frames.ipv4(sender.sendBuffer(), index, A, B, Opcode.UD_SEND_ONLY, qpn, psn, 64);
            sender.commit(index, length);
        }
        sender.flush();
    }

    private void drain(final FaultyLink receiver)
    {
        while (receiver.poll(collect, 64) > 0)
        {
            Thread.onSpinWait();
        }
    }

    @Test
    void dropsEveryTenthFrameSentExactly()
    {
        final FaultyLink faulty = new FaultyLink(a, FaultSpec.parse("drop=1,every=10,dir=tx;seed=3"), clock);
        sendAll(faulty, FRAMES, 0x11);
        drain(new FaultyLink(b, clock, 1, "none"));
        assertEquals(900, psns.size());
        assertTrue(psns.stream().noneMatch(psn -> 9 == psn % 10), "frames 9, 19, ... were the tenth ones");
        assertEquals(100, a.counters().get(LinkCounter.INJECTED_DROPS), "counted on the wrapped link");
        assertEquals("faults 'drop=1,every=10,dir=tx;seed=3' (seed 3) injected: tx drop=100 dup=0 reorder=0 " +
            "delay=0 corrupt=0 ecn=0; rx drop=0 dup=0 reorder=0 delay=0 corrupt=0 ecn=0", faulty.report());
        assertEquals(new FaultReport("drop=1,every=10,dir=tx;seed=3", 3, new FaultCounts(100, 0, 0, 0, 0, 0),
            FaultCounts.NONE), faulty.injected());
        assertEquals(new FaultCounts(100, 0, 0, 0, 0, 0), faulty.transmitFaults().counts());
    }

    @Test
    void probabilisticDropsOnReceiveFollowTheDocumentedSeedDerivation()
    {
        final long seed = 42;
        final FaultyLink receiver = new FaultyLink(b, FaultSpec.parse("drop=0.3,dir=rx;seed=" + seed), clock);
        sendAll(new FaultyLink(a, clock, 1, "none"), FRAMES, 0x11);
        drain(receiver);

        // The receive side's seed is derived from the spec's; the first rule's stream is the first split of the
        // rule streams, which follow the ten profile streams and the rule stream (FaultInjector's Javadoc).
        final SplittableRandom master = new SplittableRandom(Long.rotateLeft(seed, 32) ^ 0x9E37_79B9_7F4A_7C15L);
        for (int i = 0; i < 10; i++)
        {
            master.split();
        }
        final SplittableRandom rule = master.split().split().split();
        int expected = 0;
        for (int i = 0; i < FRAMES; i++)
        {
            expected += rule.nextDouble() < 0.3 ? 1 : 0;
        }
        System.out.println("FaultyLinkTest: seed " + seed + " drops " + expected + " of " + FRAMES);
        assertEquals(expected, b.counters().get(LinkCounter.INJECTED_DROPS));
        assertEquals(FRAMES - expected, psns.size());
        assertTrue(expected > 200 && expected < 400, "about 30 %: " + expected);
    }

    @Test
    void duplicatesComeRightBehindTheFrame()
    {
        final FaultyLink faulty = new FaultyLink(a, FaultSpec.parse("dup=1,every=4,dir=tx"), clock);
        sendAll(faulty, 100, 0x11);
        drain(new FaultyLink(b, clock, 1, "none"));
        assertEquals(125, psns.size());
        assertEquals(List.of(0, 1, 2, 3, 3, 4), psns.subList(0, 6));
        assertEquals(25, a.counters().get(LinkCounter.INJECTED_DUPLICATES));
    }

    @Test
    void reorderedFramesFollowTheGivenNumberOfLaterFrames()
    {
        final FaultyLink faulty = new FaultyLink(a, FaultSpec.parse("reorder=1,every=5,by=2,dir=tx"), clock);
        sendAll(faulty, 20, 0x11);
        clock.advance(2_000_000);
        faulty.flush();
        drain(new FaultyLink(b, clock, 1, "none"));
        assertEquals(List.of(0, 1, 2, 3, 5, 6, 4, 7, 8, 10, 11, 9, 12, 13, 15, 16, 14, 17, 18, 19), psns,
            "frame 19 was held at the end and went out when its wait ran out");
        assertTrue(faulty.report().contains("tx drop=0 dup=0 reorder=4 delay=0"), faulty.report());
        assertEquals(new FaultCounts(0, 0, 4, 0, 0, 0), faulty.injected().tx(), "held behind later frames");
        assertEquals(4, a.counters().get(LinkCounter.INJECTED_DELAYS), "a reorder is a delay on the link");
    }

    @Test
    void delayedFramesArriveWhenDue()
    {
        final FaultyLink receiver = new FaultyLink(b, FaultSpec.parse("delay=2,every=2,dir=rx"), clock);
        sendAll(new FaultyLink(a, clock, 1, "none"), 10, 0x11);
        drain(receiver);
        assertEquals(List.of(0, 2, 4, 6, 8), psns, "every second frame is held");
        clock.advance(1_999_999);
        drain(receiver);
        assertEquals(5, psns.size(), "not due yet");
        clock.advance(1);
        drain(receiver);
        assertEquals(List.of(0, 2, 4, 6, 8, 1, 3, 5, 7, 9), psns);
        assertEquals(5, b.counters().get(LinkCounter.INJECTED_DELAYS));
        assertEquals(new FaultCounts(0, 0, 0, 5, 0, 0), receiver.injected().rx(), "delays, none of them reorders");
        assertEquals(FaultCounts.NONE, receiver.injected().tx());
    }

    @Test
    void corruptionBreaksTheIcrcOnly()
    {
        final FaultyLink receiver = new FaultyLink(b, FaultSpec.parse("corrupt=1,every=3,dir=rx"), clock);
        sendAll(new FaultyLink(a, clock, 1, "none"), 99, 0x11);
        drain(receiver);
        assertEquals(99, statuses.size(), "a memory port checks ICRCs, so corrupted frames are delivered");
        assertEquals(33, statuses.stream().filter(status -> FrameStatus.BAD_ICRC == status).count());
        assertEquals(66, statuses.stream().filter(status -> FrameStatus.OK == status).count());
        assertEquals(33, b.counters().get(LinkCounter.INJECTED_CORRUPTIONS));
    }

    @Test
    void ecnMarksCongestionAndKeepsBothChecksumsValid()
    {
        final FaultyLink faulty = new FaultyLink(a, FaultSpec.parse("ecn=1,every=2,dir=tx"), clock);
        sendAll(faulty, 10, 0x11);
        drain(new FaultyLink(b, clock, 1, "none"));
        assertEquals(10, psns.size(), "every frame parsed with a valid ICRC (the ICRC masks the TOS byte)");
        for (int i = 0; i < 10; i++)
        {
            assertEquals(1 == i % 2 ? 0x03 : 0x00, tos.get(i) & 0x03, "ECN bits of frame " + i);
        }
        assertEquals(5, a.counters().get(LinkCounter.INJECTED_ECN_MARKS));
    }

    @Test
    void mutateRewritesTheNextMatchingFramesOnACopyAndCountsThem()
    {
        final FaultyLink faulty = new FaultyLink(a, clock, 1, "mutate");
        // The matcher reads what the BTH matchers cannot say, here the PSN's parity; the rewrite flips the ICRC's
        // last byte, so the receiver's parser names the frames it hit.
        final FaultRule rule = FaultRule.mutate((buffer, offset, length, capacity) ->
        {
            buffer.putByte(offset + length - 1, (byte)~buffer.getByte(offset + length - 1));
            return length;
        }).matching(frame -> 1 == (frame.psn() & 1)).times(2);
        faulty.transmitFaults().addRule(rule);
        sendAll(faulty, 6, 0x11);
        drain(new FaultyLink(b, clock, 1, "none"));

        assertEquals(List.of(FrameStatus.OK, FrameStatus.BAD_ICRC, FrameStatus.OK, FrameStatus.BAD_ICRC,
            FrameStatus.OK, FrameStatus.OK), statuses, "PSNs 1 and 3 rewritten, then the rule is spent");
        assertEquals(2, a.counters().get(LinkCounter.INJECTED_MUTATIONS));
        assertTrue(rule.isExhausted(), rule.toString());
        assertTrue(rule.toString().contains("MUTATE matcher limit=2 hits=2"), rule.toString());
    }

    @Test
    void theObserverSeesEachDecisionWithItsRuleAndEachReleaseBothWays()
    {
        final List<String> seen = new ArrayList<>();
        final FaultRule dropSecond = FaultRule.drop().psn(1).once();
        final FaultRule delayThird = FaultRule.delay(1_000).psn(2).once();
        final FaultRule shorten = FaultRule.mutate((buffer, offset, length, capacity) -> length - 1).psn(0).once();
        final FaultyLink sender = new FaultyLink(a, clock, 1, "tx");
        sender.transmitFaults().addRule(dropSecond);
        sender.transmitFaults().addRule(delayThird);
        final FaultyLink receiver = new FaultyLink(b, clock, 1, "rx");
        receiver.receiveFaults().addRule(shorten);
        final FaultObserver observer = new FaultObserver()
        {
            public void onDecided(final boolean transmit, final DirectBuffer buffer, final int offset,
                final int length, final FaultRule fired)
            {
                seen.add((transmit ? "tx " : "rx ") + length + " " + (null == fired ? "-" : fired.action()));
            }

            public void onReleased(final boolean transmit, final DirectBuffer buffer, final int offset,
                final int length)
            {
                seen.add((transmit ? "tx " : "rx ") + length + " released");
            }
        };
        sender.observe(observer);
        receiver.observe(observer);

        sendAll(sender, 4, 0x11);
        drain(receiver);
        clock.advance(1_000);
        sender.flush();
        drain(receiver);

        final int length = frames.ipv4(new UnsafeBuffer(new byte[9000]), 0, A, B,
            Opcode.UD_SEND_ONLY, 0x11, 0, 64);
        assertEquals(List.of("tx " + length + " -", "tx " + length + " DROP", "tx " + length + " DELAY",
            "tx " + length + " -", "rx " + (length - 1) + " MUTATE", "rx " + length + " -",
            "tx " + length + " released", "rx " + length + " -"), seen);
        assertEquals(3, statuses.size());
        assertNotEquals(FrameStatus.OK, statuses.get(0), "the shortened frame reached the handler as rewritten");
        assertEquals(List.of(3, 2), psns, "PSN 1 dropped, PSN 2 delivered when its delay was over");
    }

    @Test
    void filtersPickTheFrames()
    {
        final FaultyLink faulty = new FaultyLink(a, FaultSpec.parse("drop=1,qpn=0x42,psn=5-9,dir=tx"), clock);
        sendAll(faulty, 20, 0x42);
        sendAll(faulty, 20, 0x43);
        drain(new FaultyLink(b, clock, 1, "none"));
        assertEquals(35, psns.size(), "PSNs 5..9 of QP 0x42 dropped, QP 0x43 untouched");
        assertEquals(5, a.counters().get(LinkCounter.INJECTED_DROPS));
    }

    @Test
    void framesNoRuleMatchesCostNoAllocation()
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        threads.setThreadAllocatedMemoryEnabled(true);
        final long thread = Thread.currentThread().getId();
        final FaultyLink sender = new FaultyLink(a, FaultSpec.parse("drop=1,qpn=0x999"), clock);
        final FaultyLink receiver = new FaultyLink(b, FaultSpec.parse("dup=1,opcode=RC_ACKNOWLEDGE"), clock);
        final FrameHandler ignore = (buffer, offset, length) -> { };
        run(sender, receiver, ignore, 20_000);
        final long before = threads.getThreadAllocatedBytes(thread);
        run(sender, receiver, ignore, 100_000);
        final long allocated = threads.getThreadAllocatedBytes(thread) - before;
        assertTrue(allocated < 16 * 1024, allocated + " bytes allocated for 100,000 frames");
        assertNotEquals(0, b.counters().get(LinkCounter.FRAMES_RECEIVED));
        assertEquals(0, a.counters().get(LinkCounter.INJECTED_DROPS) +
            b.counters().get(LinkCounter.INJECTED_DUPLICATES), "no rule matched");
    }

    private void run(final FaultyLink sender, final FaultyLink receiver, final FrameHandler ignore, final int count)
    {
        for (int i = 0; i < count; i++)
        {
            final int index = sender.tryClaim(9000);
            sender.commit(index, frames.ipv4(sender.sendBuffer(), index, A, B, Opcode.UD_SEND_ONLY, 0x11, i & 0xFFFF,
                64));
            if (0 == (i & 15))
            {
                sender.flush();
                receiver.poll(ignore, 64);
            }
        }
        receiver.poll(ignore, 64);
    }
}
