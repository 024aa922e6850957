package org.roce4j.transport.link.memory;

import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

import org.agrona.concurrent.CachedNanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.roce4j.transport.link.FrameRecorder;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.transport.link.LinkCounter;
import org.roce4j.transport.link.TestFrames;
import org.roce4j.transport.link.fault.FaultAction;
import org.roce4j.transport.link.fault.FaultRule;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.Operation;
import org.roce4j.wire.Transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Targeted rules: each action, each matcher, hit limits, skips, time windows and evaluation order.
 */
class FaultRuleTest
{
    private static final LinkAddress A = TestFrames.address(1);
    private static final LinkAddress B = TestFrames.address(2);
    private static final LinkAddress C = TestFrames.address(3);
    private static final int QPN = 0x11;
    private static final int OTHER_QPN = 0x12;

    private final CachedNanoClock clock = new CachedNanoClock();
    private final TestFrames frames = new TestFrames();
    private final FrameRecorder recorder = new FrameRecorder();
    private final MemoryFabric fabric = new MemoryFabric(clock);
    private MemoryLink a;
    private MemoryLink b;

    @BeforeEach
    void attach()
    {
        a = fabric.attach(A, 1500);
        b = fabric.attach(B, 1500);
    }

    @AfterEach
    void closeFabric()
    {
        fabric.close();
    }

    @Test
    void dropsOneFrameByQpnAndPsnOnceThenLetsTheRetryThrough()
    {
        final FaultRule rule = FaultRule.drop().destQp(QPN).psn(5).once();
        a.faults().addRule(rule);
        for (int psn = 0; psn < 10; psn++)
        {
            frames.send(a, B, Opcode.RC_SEND_ONLY, QPN, psn, 8);
            frames.send(a, B, Opcode.RC_SEND_ONLY, OTHER_QPN, psn, 8);
        }
        frames.send(a, B, Opcode.RC_SEND_ONLY, QPN, 5, 8);
        recorder.drain(b);

        assertEquals(20, recorder.size());
        assertEquals(9, recorder.frames().stream().filter(f -> QPN == f.qpn() && 5 != f.psn()).count());
        final FrameRecorder.Frame last = recorder.frames().get(19);
        assertEquals(QPN, last.qpn());
        assertEquals(5, last.psn(), "the retransmission passes");
        assertEquals(1, rule.hits());
        assertTrue(rule.isExhausted());
        assertEquals(0, rule.remaining());
        assertEquals(1, a.counters().get(LinkCounter.INJECTED_DROPS));
    }

    @Test
    void dropsTheNextThreeAcks()
    {
        final FaultRule rule = FaultRule.drop().operation(Operation.ACKNOWLEDGE).times(3);
        a.faults().addRule(rule);
        for (int psn = 0; psn < 10; psn++)
        {
            frames.send(a, B, Opcode.RC_RDMA_WRITE_ONLY, QPN, psn, 8);
            frames.send(a, B, Opcode.RC_ACKNOWLEDGE, QPN, psn, 0);
        }
        recorder.drain(b);

        final List<Integer> ackPsns = new ArrayList<>();
        for (final FrameRecorder.Frame frame : recorder.frames())
        {
            if (Opcode.RC_ACKNOWLEDGE.code() == frame.opcode())
            {
                ackPsns.add(frame.psn());
            }
        }
        assertEquals(List.of(3, 4, 5, 6, 7, 8, 9), ackPsns);
        assertEquals(17, recorder.size());
        assertEquals(3, rule.hits());
        assertEquals(3, a.counters().get(LinkCounter.INJECTED_DROPS));
    }

    @Test
    void dropsAllReadResponsesForTwoMilliseconds()
    {
        clock.update(1_000);
        final FaultRule rule = FaultRule.drop().operation(Operation.RDMA_READ_RESPONSE).forNs(2_000_000);
        a.faults().addRule(rule);

        frames.send(a, B, Opcode.RC_RDMA_READ_RESPONSE_ONLY, QPN, 1, 64);
        frames.send(a, B, Opcode.RC_SEND_ONLY, QPN, 2, 64);
        clock.update(1_000 + 1_999_999);
        frames.send(a, B, Opcode.RC_RDMA_READ_RESPONSE_FIRST, QPN, 3, 256);
        clock.update(1_000 + 2_000_000);
        frames.send(a, B, Opcode.RC_RDMA_READ_RESPONSE_LAST, QPN, 4, 64);
        recorder.drain(b);

        assertEquals(List.of(2, 4), recorder.psns());
        assertEquals(2, rule.hits());
        assertFalse(rule.isExhausted(), "a window rule has no hit limit");
    }

    @Test
    void actsOnlyInsideAnAbsoluteWindow()
    {
        a.faults().addRule(FaultRule.drop().window(100, 200));
        for (int psn = 0; psn < 4; psn++)
        {
            clock.update(50 + psn * 50L);
            frames.send(a, B, Opcode.RC_SEND_ONLY, QPN, psn, 8);
        }
        recorder.drain(b);
        assertEquals(List.of(0, 3), recorder.psns(), "sent at 50, 100, 150, 200: [100, 200) is dropped");
    }

    @Test
    void duplicatesEveryAtomicRequest()
    {
        final FaultRule rule = FaultRule.duplicate().operation(Operation.COMPARE_SWAP, Operation.FETCH_ADD);
        a.faults().addRule(rule);
        frames.send(a, B, Opcode.RC_COMPARE_SWAP, QPN, 1, 0);
        frames.send(a, B, Opcode.RC_SEND_ONLY, QPN, 2, 8);
        frames.send(a, B, Opcode.RC_FETCH_ADD, QPN, 3, 0);
        frames.send(a, B, Opcode.RC_ATOMIC_ACKNOWLEDGE, QPN, 4, 0);
        recorder.drain(b);

        assertEquals(List.of(1, 1, 2, 3, 3, 4), recorder.psns());
        assertEquals(6, recorder.count(FrameStatus.OK));
        assertEquals(2, rule.hits());
        assertEquals(2, a.counters().get(LinkCounter.INJECTED_DUPLICATES));
    }

    @Test
    void duplicatesWithSeveralCopies()
    {
        a.faults().addRule(FaultRule.duplicate(3).psn(2).once());
        for (int psn = 1; psn <= 3; psn++)
        {
            frames.send(a, B, Opcode.UD_SEND_ONLY, QPN, psn, 8);
        }
        recorder.drain(b);
        assertEquals(List.of(1, 2, 2, 2, 2, 3), recorder.psns());
        assertEquals(3, a.counters().get(LinkCounter.INJECTED_DUPLICATES));
    }

    @Test
    void corruptsTheIcrcOfTheTenthFrame()
    {
        final FaultRule rule = FaultRule.corruptIcrc().skip(9).once();
        a.faults().addRule(rule);
        final UnsafeBuffer original = new UnsafeBuffer(new byte[2048]);
        int tenthLength = 0;
        for (int psn = 0; psn < 20; psn++)
        {
            final int length = frames.send(a, B, Opcode.RC_RDMA_WRITE_MIDDLE, QPN, psn, 100 + psn);
            if (9 == psn)
            {
                tenthLength = frames.ipv4(original, 0, A, B, Opcode.RC_RDMA_WRITE_MIDDLE, QPN, psn, 100 + psn);
                assertEquals(tenthLength, length);
            }
        }
        recorder.drain(b);

        assertEquals(20, recorder.size());
        for (int i = 0; i < 20; i++)
        {
            final FrameStatus expected = 9 == i ? FrameStatus.BAD_ICRC : FrameStatus.OK;
            assertEquals(expected, recorder.frames().get(i).status(), "frame " + i);
        }
        original.putShort(0, (short)(B.mac() >>> 32), ByteOrder.BIG_ENDIAN);
        original.putInt(2, (int)B.mac(), ByteOrder.BIG_ENDIAN);
        final byte[] tenth = recorder.frames().get(9).bytes();
        int flipped = 0;
        for (int i = 0; i < tenthLength; i++)
        {
            final int difference = Integer.bitCount((original.getByte(i) ^ tenth[i]) & 0xFF);
            if (0 != difference)
            {
                assertTrue(i >= tenthLength - 4, "only the ICRC trailer changes, byte " + i);
            }
            flipped += difference;
        }
        assertEquals(1, flipped);
        assertEquals(1, rule.hits());
        assertEquals(1, a.counters().get(LinkCounter.INJECTED_CORRUPTIONS));
    }

    @Test
    void corruptsWithAGivenNumberOfBits()
    {
        a.faults().addRule(FaultRule.corrupt(3).transport(Transport.UD));
        frames.send(a, B, Opcode.UD_SEND_ONLY, QPN, 1, 500);
        frames.send(a, B, Opcode.RC_SEND_ONLY, QPN, 2, 500);
        recorder.drain(b);
        assertNotEquals(FrameStatus.OK, recorder.frames().get(0).status());
        assertEquals(FrameStatus.OK, recorder.frames().get(1).status());
        assertEquals(1, a.counters().get(LinkCounter.INJECTED_CORRUPTIONS));
    }

    @Test
    void delaysTheFramesOfOneQp()
    {
        final FaultRule rule = FaultRule.delay(5_000).destQp(QPN);
        a.faults().addRule(rule);
        for (int psn = 0; psn < 3; psn++)
        {
            frames.send(a, B, Opcode.RC_SEND_ONLY, QPN, psn, 8);
            frames.send(a, B, Opcode.RC_SEND_ONLY, OTHER_QPN, 10 + psn, 8);
        }
        recorder.drain(b);
        assertEquals(List.of(10, 11, 12), recorder.psns());
        clock.advance(4_999);
        assertEquals(0, recorder.drain(b));
        clock.advance(1);
        assertEquals(3, recorder.drain(b));
        assertEquals(List.of(10, 11, 12, 0, 1, 2), recorder.psns());
        assertEquals(3, rule.hits());
        assertEquals(3, a.counters().get(LinkCounter.INJECTED_DELAYS));
    }

    @Test
    void reordersOneFrameBehindThreeLaterOnes()
    {
        a.faults().addRule(FaultRule.reorder(3).psn(5).once());
        for (int psn = 0; psn < 10; psn++)
        {
            frames.send(a, B, Opcode.RC_RDMA_WRITE_MIDDLE, QPN, psn, 8);
        }
        recorder.drain(b);
        assertEquals(List.of(0, 1, 2, 3, 4, 6, 7, 8, 5, 9), recorder.psns());
        assertEquals(1, a.counters().get(LinkCounter.INJECTED_DELAYS));
        assertEquals(0, a.reorderedFrames());
    }

    @Test
    void releasesAHeldFrameOnceItsWaitExpires()
    {
        a.faults().reordering(0.0, 1, 10_000).addRule(FaultRule.reorder(5).opcode(Opcode.RC_SEND_LAST));
        frames.send(a, B, Opcode.RC_SEND_FIRST, QPN, 0, 8);
        frames.send(a, B, Opcode.RC_SEND_LAST, QPN, 1, 8);
        recorder.drain(b);
        assertEquals(List.of(0), recorder.psns());
        assertEquals(1, a.reorderedFrames());

        clock.advance(9_999);
        assertEquals(0, a.flush() - 1, "only the first frame went out");
        assertEquals(1, a.reorderedFrames());
        clock.advance(1);
        a.flush();
        assertEquals(0, a.reorderedFrames());
        recorder.drain(b);
        assertEquals(List.of(0, 1), recorder.psns());
    }

    @Test
    void goesOutInOrderWhenEveryReorderSlotIsBusy()
    {
        final MemoryFabric small = MemoryFabric.builder().clock(clock).reorderSlots(2).build();
        try (small)
        {
            final MemoryLink x = small.attach(A, 1500);
            final MemoryLink y = small.attach(B, 1500);
            x.faults().addRule(FaultRule.reorder(10).times(3));
            for (int psn = 0; psn < 3; psn++)
            {
                frames.send(x, B, Opcode.RC_SEND_ONLY, QPN, psn, 8);
            }
            recorder.drain(y);
            assertEquals(List.of(2), recorder.psns());
            assertEquals(1, x.fabricCounters().get(FabricCounter.REORDER_OVERFLOW));
            assertEquals(2, x.counters().get(LinkCounter.INJECTED_DELAYS));
            assertEquals(2, x.releaseReordered());
            recorder.drain(y);
            assertEquals(List.of(2, 0, 1), recorder.psns());
        }
    }

    @Test
    void narrowsToOneDestination()
    {
        final MemoryLink c = fabric.attach(C, 1500);
        a.faults().addRule(FaultRule.drop().to(C));
        frames.send(a, B, Opcode.RC_SEND_ONLY, QPN, 1, 8);
        frames.send(a, C, Opcode.RC_SEND_ONLY, QPN, 2, 8);
        assertEquals(1, recorder.drain(b));
        assertEquals(0, recorder.drain(c));
    }

    @Test
    void matchesPsnRangesAcrossTheWrap()
    {
        a.faults().addRule(FaultRule.drop().psnRange(0xFF_FFFE, 1));
        for (final int psn : new int[]{0xFF_FFFD, 0xFF_FFFE, 0xFF_FFFF, 0, 1, 2})
        {
            frames.send(a, B, Opcode.RC_SEND_ONLY, QPN, psn, 8);
        }
        recorder.drain(b);
        assertEquals(List.of(0xFF_FFFD, 2), recorder.psns());
    }

    @Test
    void appliesTheFirstMatchingRuleAndSkipsPassFramesOn()
    {
        final FaultRule dropSecond = FaultRule.drop().psn(3).skip(1);
        final FaultRule duplicate = FaultRule.duplicate().psn(3);
        a.faults().addRule(dropSecond).addRule(duplicate);
        frames.send(a, B, Opcode.RC_SEND_ONLY, QPN, 3, 8);
        frames.send(a, B, Opcode.RC_SEND_ONLY, QPN, 3, 8);
        frames.send(a, B, Opcode.RC_SEND_ONLY, QPN, 3, 8);
        recorder.drain(b);

        assertEquals(List.of(3, 3), recorder.psns(), "the first is skipped by rule 1 and duplicated by rule 2");
        assertEquals(2, dropSecond.hits());
        assertEquals(1, duplicate.hits());
    }

    @Test
    void bthMatchersIgnoreOtherFramesButPlainRulesDoNot()
    {
        final UnsafeBuffer notRoce = new UnsafeBuffer(new byte[200]);
        final int length = frames.ipv4(notRoce, 0, A, B, Opcode.RC_SEND_ONLY, QPN, 1, 16);
        notRoce.putShort(14 + 20 + 2, (short)53, ByteOrder.BIG_ENDIAN);

        final FaultRule byOpcode = FaultRule.drop().opcode(Opcode.RC_SEND_ONLY);
        a.faults().addRule(byOpcode);
        assertTrue(a.send(notRoce, 0, length));
        assertEquals(1, recorder.drain(b));
        assertEquals(0, byOpcode.hits());

        final FaultRule everything = FaultRule.drop();
        a.faults().clearRules().addRule(everything);
        assertTrue(a.send(notRoce, 0, length));
        assertEquals(0, recorder.drain(b));
        assertEquals(1, everything.hits());
    }

    @Test
    void rulesAreRemovable()
    {
        final FaultRule rule = FaultRule.drop();
        a.faults().addRule(rule);
        assertEquals(List.of(rule), a.faults().rules());
        assertTrue(a.faults().removeRule(rule));
        assertFalse(a.faults().removeRule(rule));
        assertFalse(a.faults().isActive());
        frames.send(a, B, Opcode.RC_SEND_ONLY, QPN, 1, 8);
        assertEquals(1, recorder.drain(b));
    }

    @Test
    void installedRulesAreFrozen()
    {
        final FaultRule rule = FaultRule.drop().destQp(QPN);
        a.faults().addRule(rule);
        assertThrows(IllegalStateException.class, () -> rule.psn(1));
        assertThrows(IllegalStateException.class, () -> rule.once());
        assertThrows(IllegalStateException.class, () -> b.faults().addRule(rule));
    }

    @Test
    void rejectsBadRuleArguments()
    {
        assertThrows(IllegalArgumentException.class, () -> FaultRule.duplicate(0));
        assertThrows(IllegalArgumentException.class, () -> FaultRule.corrupt(4));
        assertThrows(IllegalArgumentException.class, () -> FaultRule.delay(0));
        assertThrows(IllegalArgumentException.class, () -> FaultRule.reorder(0));
        assertThrows(IllegalArgumentException.class, () -> FaultRule.drop().destQp(1 << 24));
        assertThrows(IllegalArgumentException.class, () -> FaultRule.drop().psn(-1));
        assertThrows(IllegalArgumentException.class, () -> FaultRule.drop().psnRange(10, 5));
        assertThrows(IllegalArgumentException.class, () -> FaultRule.drop().window(10, 10));
        assertThrows(IllegalArgumentException.class, () -> FaultRule.drop().forNs(0));
        assertThrows(IllegalArgumentException.class, () -> FaultRule.drop().skip(-1));
        assertThrows(IllegalArgumentException.class, () -> FaultRule.drop().times(0));
        assertThrows(IllegalArgumentException.class, () -> FaultRule.drop().opcode());
    }

    @Test
    void describesItselfReadably()
    {
        final FaultRule rule = FaultRule.drop().opcode(Opcode.RC_ACKNOWLEDGE).destQp(QPN).psn(5).once();
        assertEquals("DROP opcode=[RC_ACKNOWLEDGE] qpn=0x11 psn=5 limit=1 hits=0", rule.toString());
        assertEquals("DELAY delayNs=2000 operation=[RDMA_READ_RESPONSE] transport=[RC] psn=1..9 to=10.0.0.3" +
            " forNs=500 skip=2 limit=unlimited hits=0",
            FaultRule.delay(2000).operation(Operation.RDMA_READ_RESPONSE).transport(Transport.RC).psnRange(1, 9)
                .to(C).forNs(500).skip(2).toString());
        assertArrayEquals(new FaultAction[]{FaultAction.DROP}, new FaultAction[]{rule.action()});
    }
}
