package org.roce4j.transport.link.memory;

import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

import org.agrona.concurrent.CachedNanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.roce4j.transport.link.FrameRecorder;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.transport.link.LinkCounter;
import org.roce4j.transport.link.TestFrames;
import org.roce4j.transport.link.fault.FaultInjector;
import org.roce4j.transport.link.fault.FaultRule;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.Opcode;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The random profile: each fault kind hits exactly the frames its seeded stream picks (predicted independently by
 * {@link FaultStreams}), and is counted.
 */
class RandomFaultTest
{
    private static final LinkAddress A = TestFrames.address(1);
    private static final LinkAddress B = TestFrames.address(2);
    private static final int QPN = 0x42;
    private static final int FRAMES = 10_000;

    private final CachedNanoClock clock = new CachedNanoClock();
    private final TestFrames frames = new TestFrames();
    private final FrameRecorder recorder = new FrameRecorder();
    private MemoryFabric fabric = new MemoryFabric(clock);

    @AfterEach
    void closeFabric()
    {
        fabric.close();
    }

    @Test
    void lossDropsExactlyTheFramesTheSeedPicks()
    {
        final long seed = 42;
        final MemoryLink a = fabric.attach(A, 1500);
        final MemoryLink b = fabric.attach(B, 1500);
        a.faults().seed(seed).loss(0.05);
        final boolean[] lost = FaultStreams.hits(seed, FaultStreams.LOSS, 0.05, FRAMES);
        final int expectedLost = FaultStreams.count(lost);

        sendAndDrain(a, b, FRAMES);

        final List<Integer> expected = new ArrayList<>();
        for (int psn = 0; psn < FRAMES; psn++)
        {
            if (!lost[psn])
            {
                expected.add(psn);
            }
        }
        assertEquals(expected, recorder.psns(), "seed " + seed);
        assertEquals(expectedLost, a.counters().get(LinkCounter.INJECTED_DROPS), "seed " + seed);
        assertTrue(expectedLost > 400 && expectedLost < 600, "about 5 % of 10,000: " + expectedLost);
        assertEquals(FRAMES, a.counters().get(LinkCounter.FRAMES_SENT));
        assertEquals(FRAMES - expectedLost, b.counters().get(LinkCounter.FRAMES_RECEIVED));
    }

    @Test
    void duplicationDeliversExactlyTheFramesTheSeedPicksTwice()
    {
        final long seed = 7;
        final MemoryLink a = fabric.attach(A, 1500);
        final MemoryLink b = fabric.attach(B, 1500);
        a.faults().seed(seed).duplication(0.03);
        final boolean[] duplicated = FaultStreams.hits(seed, FaultStreams.DUPLICATION, 0.03, FRAMES);

        sendAndDrain(a, b, FRAMES);

        final List<Integer> expected = new ArrayList<>();
        for (int psn = 0; psn < FRAMES; psn++)
        {
            expected.add(psn);
            if (duplicated[psn])
            {
                expected.add(psn);
            }
        }
        assertEquals(expected, recorder.psns(), "seed " + seed);
        assertEquals(FaultStreams.count(duplicated), a.counters().get(LinkCounter.INJECTED_DUPLICATES));
        assertEquals(FRAMES, recorder.count(FrameStatus.OK) - FaultStreams.count(duplicated));
    }

    @ParameterizedTest(name = "ipv6={0}")
    @ValueSource(booleans = {false, true})
    void everyCorruptedFrameFailsTheReceiversChecks(final boolean ipv6)
    {
        final long seed = 1234;
        final MemoryLink a = fabric.attach(A, 1500);
        final MemoryLink b = fabric.attach(B, 1500);
        a.faults().seed(seed).corruption(0.1, 3);
        final boolean[] corrupted = FaultStreams.hits(seed, FaultStreams.CORRUPTION, 0.1, FRAMES);

        final UnsafeBuffer original = new UnsafeBuffer(new byte[2048]);
        final int[] flippedBits = new int[4];
        for (int psn = 0; psn < FRAMES; psn++)
        {
            final int payloadLength = psn % 1400;
            final int index = a.tryClaim(a.maxFrameLength());
            final int length = ipv6 ?
                frames.ipv6(a.sendBuffer(), index, A, B, 0 == (psn & 1), Opcode.RC_SEND_ONLY, QPN, psn, payloadLength) :
                frames.ipv4(a.sendBuffer(), index, A, B, Opcode.RC_SEND_ONLY, QPN, psn, payloadLength);
            a.sendBuffer().getBytes(index, original, 0, length);
            a.commit(index, length);
            recorder.clear();
            assertEquals(1, b.poll(recorder, 10));
            final FrameRecorder.Frame frame = recorder.frames().get(0);
            final String where = "frame " + psn + " seed " + seed;
            // The switch fills in the destination MAC; everything else must match unless corrupted.
            original.putShort(0, (short)(B.mac() >>> 32), ByteOrder.BIG_ENDIAN);
            original.putInt(2, (int)B.mac(), ByteOrder.BIG_ENDIAN);
            final int bits = differingBits(original, frame.bytes(), 14);
            assertEquals(0, differingBits(original, frame.bytes(), 0) - bits, "Ethernet header untouched, " + where);
            if (corrupted[psn])
            {
                assertTrue(bits >= 1 && bits <= 3, "1..3 bits flipped: " + bits + ", " + where);
                assertNotEquals(FrameStatus.OK, frame.status(), where);
                flippedBits[bits]++;
            }
            else
            {
                assertEquals(0, bits, where);
                assertEquals(FrameStatus.OK, frame.status(), where);
            }
        }
        final int expected = FaultStreams.count(corrupted);
        assertEquals(expected, a.counters().get(LinkCounter.INJECTED_CORRUPTIONS), "seed " + seed);
        assertEquals(expected, flippedBits[1] + flippedBits[2] + flippedBits[3]);
        assertTrue(flippedBits[1] > 0 && flippedBits[2] > 0 && flippedBits[3] > 0, "1, 2 and 3 bits all occur");
    }

    @Test
    void corruptionIsMostlyCaughtByTheIcrc()
    {
        final long seed = 99;
        final MemoryLink a = fabric.attach(A, 1500);
        final MemoryLink b = fabric.attach(B, 1500);
        a.faults().seed(seed).corruption(1.0, 1);
        sendAndDrain(a, b, 2000);

        assertEquals(0, recorder.count(FrameStatus.OK));
        // Most bytes of a 1 KiB packet are payload, which only the ICRC covers.
        assertTrue(recorder.count(FrameStatus.BAD_ICRC) > 1800, "bad ICRC: " + recorder.count(FrameStatus.BAD_ICRC));
        assertTrue(recorder.count(FrameStatus.BAD_IP_CHECKSUM) > 0, "some flips land in the IPv4 header");
    }

    @Test
    void reorderingHoldsExactlyTheFramesTheSeedPicks()
    {
        final long seed = 5;
        final int maxLater = 4;
        final MemoryLink a = fabric.attach(A, 1500);
        final MemoryLink b = fabric.attach(B, 1500);
        a.faults().seed(seed).reordering(0.05, maxLater);
        final boolean[] held = FaultStreams.hits(seed, FaultStreams.REORDERING, 0.05, FRAMES);

        for (int psn = 0; psn < FRAMES; psn++)
        {
            frames.send(a, B, Opcode.RC_SEND_ONLY, QPN, psn, 16);
        }
        a.releaseReordered();
        recorder.drain(b);

        final List<Integer> psns = recorder.psns();
        assertEquals(FRAMES, psns.size(), "reordering loses nothing");
        assertEquals(FRAMES, new HashSet<>(psns).size(), "and duplicates nothing");
        assertEquals(FaultStreams.count(held), a.counters().get(LinkCounter.INJECTED_DELAYS), "seed " + seed);
        int previous = -1;
        for (int position = 0; position < FRAMES; position++)
        {
            final int psn = psns.get(position);
            if (!held[psn])
            {
                assertTrue(psn > previous, "frames not held keep their order, seed " + seed);
                previous = psn;
            }
            else if (psn < FRAMES - maxLater)
            {
                int overtakenBy = 0;
                for (int before = 0; before < position; before++)
                {
                    overtakenBy += psns.get(before) > psn ? 1 : 0;
                }
                assertTrue(overtakenBy >= 1, "held frame " + psn + " is overtaken, seed " + seed);
            }
        }
    }

    @Test
    void fixedDelayDeliversDelayedFramesOnceTheClockHasAdvanced()
    {
        final long seed = 11;
        final long delayNs = 10_000;
        final int count = 1000;
        fabric = MemoryFabric.builder().clock(clock).delaySlots(count).build();
        final MemoryLink a = fabric.attach(A, 1500);
        final MemoryLink b = fabric.attach(B, 1500);
        a.faults().seed(seed).delay(0.2, delayNs, 0);
        final boolean[] delayed = FaultStreams.hits(seed, FaultStreams.DELAY, 0.2, count);
        final int delayedCount = FaultStreams.count(delayed);

        clock.update(1_000_000);
        for (int psn = 0; psn < count; psn++)
        {
            frames.send(a, B, Opcode.RC_SEND_ONLY, QPN, psn, 16);
        }
        recorder.drain(b);
        final List<Integer> prompt = new ArrayList<>();
        final List<Integer> late = new ArrayList<>();
        for (int psn = 0; psn < count; psn++)
        {
            (delayed[psn] ? late : prompt).add(psn);
        }
        assertEquals(prompt, recorder.psns(), "seed " + seed);
        assertEquals(delayedCount, b.heldFrames());
        assertEquals(delayedCount, a.counters().get(LinkCounter.INJECTED_DELAYS));

        recorder.clear();
        clock.advance(delayNs - 1);
        assertEquals(0, recorder.drain(b), "not due yet");
        clock.advance(1);
        assertEquals(delayedCount, recorder.drain(b));
        assertEquals(late, recorder.psns(), "equal delays keep the sending order");
        assertEquals(0, b.heldFrames());
        assertEquals(count, b.counters().get(LinkCounter.FRAMES_RECEIVED));
    }

    @Test
    void jitterDeliversEachFrameWhenItsOwnDueTimeComes()
    {
        final long seed = 3;
        final long fixedNs = 1000;
        final long jitterNs = 2000;
        final int count = 200;
        final MemoryLink a = fabric.attach(A, 1500);
        final MemoryLink b = fabric.attach(B, 1500);
        a.faults().seed(seed).delay(1.0, fixedNs, jitterNs);
        final SplittableRandom jitter = FaultStreams.detail(seed, FaultStreams.DELAY);
        final long[] dueNs = new long[count];
        for (int psn = 0; psn < count; psn++)
        {
            dueNs[psn] = fixedNs + jitter.nextLong(jitterNs + 1);
        }

        for (int psn = 0; psn < count; psn++)
        {
            frames.send(a, B, Opcode.RC_SEND_ONLY, QPN, psn, 16);
        }
        final long step = 50;
        final List<Integer> expectedOrder = new ArrayList<>();
        for (long nowNs = 0; nowNs <= fixedNs + jitterNs + step; nowNs += step)
        {
            clock.update(nowNs);
            final List<Integer> dueNow = new ArrayList<>();
            for (int psn = 0; psn < count; psn++)
            {
                if (dueNs[psn] <= nowNs && dueNs[psn] > nowNs - step)
                {
                    dueNow.add(psn);
                }
            }
            final long[] due = dueNs;
            dueNow.sort((x, y) -> due[x] != due[y] ? Long.compare(due[x], due[y]) : Integer.compare(x, y));
            expectedOrder.addAll(dueNow);
            final int before = recorder.size();
            recorder.drain(b);
            assertEquals(dueNow.size(), recorder.size() - before, "frames due by " + nowNs + " ns, seed " + seed);
        }
        assertEquals(expectedOrder, recorder.psns(), "earliest due first, seed " + seed);
        assertEquals(count, expectedOrder.size());
    }

    @Test
    void aFrameBecomingDueDuringAPollDoesNotOvertakeAnEarlierHeldFrame()
    {
        // A clock that moves on every reading, the way a real one does between two readings in one poll.
        final long[] time = {0};
        final long[] step = {1};
        final MemoryFabric steppingFabric = new MemoryFabric(() ->
        {
            final long now = time[0];
            time[0] += step[0];
            return now;
        });
        try (steppingFabric)
        {
            final MemoryLink a = steppingFabric.attach(A, 1500);
            final MemoryLink b = steppingFabric.attach(B, 1500);
            a.faults().addRule(FaultRule.delay(10));                   // reads 0
            frames.send(a, B, Opcode.RC_SEND_ONLY, QPN, 1, 8);         // reads 1: due at 11
            assertEquals(0, b.poll(recorder, 10));                     // reads 2: held
            frames.send(a, B, Opcode.RC_SEND_ONLY, QPN, 2, 8);         // reads 3: due at 13
            step[0] = 10;
            assertEquals(0, b.poll(recorder, 10), "at 4 neither is due");
            assertEquals(2, b.poll(recorder, 10), "at 14 both are");
            assertEquals(List.of(1, 2), recorder.psns());
        }
    }

    @Test
    void fullHoldAreaDropsAndCountsOnTheReceiver()
    {
        fabric = MemoryFabric.builder().clock(clock).delaySlots(8).build();
        final MemoryLink a = fabric.attach(A, 1500);
        final MemoryLink b = fabric.attach(B, 1500);
        a.faults().delay(1.0, 1000, 0);
        for (int psn = 0; psn < 10; psn++)
        {
            frames.send(a, B, Opcode.RC_SEND_ONLY, QPN, psn, 16);
        }
        assertEquals(0, b.poll(recorder, 100));
        assertEquals(2, b.fabricCounters().get(FabricCounter.HOLD_OVERFLOW));
        assertEquals(2, b.counters().get(LinkCounter.RECEIVE_ERRORS));
        assertEquals(10, a.counters().get(LinkCounter.INJECTED_DELAYS));
        clock.advance(1000);
        assertEquals(8, recorder.drain(b));
        assertEquals(List.of(0, 1, 2, 3, 4, 5, 6, 7), recorder.psns());
    }

    @Test
    void sameSeedSameOutcomeDifferentSeedDifferentOutcome()
    {
        final List<byte[]> first = scenario(2024);
        final List<byte[]> second = scenario(2024);
        final List<byte[]> other = scenario(2025);

        assertEquals(first.size(), second.size());
        for (int i = 0; i < first.size(); i++)
        {
            assertArrayEquals(first.get(i), second.get(i), "frame " + i);
        }
        boolean differs = first.size() != other.size();
        for (int i = 0; !differs && i < first.size(); i++)
        {
            differs = !java.util.Arrays.equals(first.get(i), other.get(i));
        }
        assertTrue(differs, "another seed gives another outcome");
    }

    @Test
    void faultKindsDrawFromIndependentStreams()
    {
        final long seed = 77;
        final int count = 2000;
        final MemoryLink a = fabric.attach(A, 1500);
        final MemoryLink b = fabric.attach(B, 1500);
        a.faults().seed(seed).loss(0.1).duplication(0.2).delay(0.3, 0, 5).corruption(0.1, 1);
        final boolean[] lost = FaultStreams.hits(seed, FaultStreams.LOSS, 0.1, count);
        final boolean[] corrupted = FaultStreams.hits(seed, FaultStreams.CORRUPTION, 0.1, count);

        for (int psn = 0; psn < count; psn++)
        {
            frames.send(a, B, Opcode.RC_SEND_ONLY, QPN, psn, 1000);
            clock.advance(10);
            recorder.drain(b);
        }
        clock.advance(10);
        recorder.drain(b);
        assertEquals(0, b.fabricCounters().total(), "nothing lost in the hold area");

        // Enabling duplication, delay and corruption changes nothing about which frames are lost, and the frames
        // that arrive intact are exactly those neither lost nor corrupted.
        final Set<Integer> expectedIntact = new HashSet<>();
        for (int psn = 0; psn < count; psn++)
        {
            if (!lost[psn] && !corrupted[psn])
            {
                expectedIntact.add(psn);
            }
        }
        final Set<Integer> intact = new HashSet<>();
        for (final FrameRecorder.Frame frame : recorder.frames())
        {
            if (FrameStatus.OK == frame.status())
            {
                intact.add(frame.psn());
            }
        }
        final Set<Integer> missing = new HashSet<>(expectedIntact);
        missing.removeAll(intact);
        final Set<Integer> unexpected = new HashSet<>(intact);
        unexpected.removeAll(expectedIntact);
        assertTrue(missing.isEmpty() && unexpected.isEmpty(),
            "seed " + seed + ": missing " + missing + ", unexpected " + unexpected);
        assertEquals(FaultStreams.count(lost), a.counters().get(LinkCounter.INJECTED_DROPS), "seed " + seed);
    }

    @Test
    void ratesChangeAtRunTimeAndReseedingReplays()
    {
        final MemoryLink a = fabric.attach(A, 1500);
        final MemoryLink b = fabric.attach(B, 1500);
        a.faults().loss(1.0);
        sendAndDrain(a, b, 10);
        assertEquals(0, recorder.size());
        assertTrue(a.faults().isActive());
        a.faults().loss(0.0);
        assertFalse(a.faults().isActive());
        sendAndDrain(a, b, 10);
        assertEquals(10, recorder.size());

        recorder.clear();
        a.faults().seed(8).loss(0.5);
        sendAndDrain(a, b, 100);
        final List<Integer> run = recorder.psns();
        recorder.clear();
        a.faults().seed(8);
        sendAndDrain(a, b, 100);
        assertEquals(run, recorder.psns(), "seed() restarts the streams");
        assertEquals(8, a.faults().seed());
        assertEquals(0.5, a.faults().lossRate());

        a.faults().duplication(0.1).corruption(0.1, 2).reordering(0.1, 3).delay(0.1, 10, 0);
        a.faults().reset();
        assertFalse(a.faults().isActive());
        assertEquals(0.0, a.faults().lossRate());
        assertEquals(0.0, a.faults().duplicationRate());
        assertEquals(0.0, a.faults().corruptionRate());
        assertEquals(0.0, a.faults().reorderRate());
        assertEquals(0.0, a.faults().delayRate());
    }

    @Test
    void rejectsBadRates()
    {
        final FaultInjector faults = fabric.attach(A, 1500).faults();
        assertThrows(IllegalArgumentException.class, () -> faults.loss(1.5));
        assertThrows(IllegalArgumentException.class, () -> faults.loss(-0.1));
        assertThrows(IllegalArgumentException.class, () -> faults.duplication(Double.NaN));
        assertThrows(IllegalArgumentException.class, () -> faults.corruption(0.1, 4));
        assertThrows(IllegalArgumentException.class, () -> faults.corruption(0.1, 0));
        assertThrows(IllegalArgumentException.class, () -> faults.reordering(0.1, 0));
        assertThrows(IllegalArgumentException.class, () -> faults.reordering(0.1, 2, 0));
        assertThrows(IllegalArgumentException.class, () -> faults.delay(0.1, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> faults.delay(0.1, -1, 10));
        assertFalse(faults.isActive());
    }

    private List<byte[]> scenario(final long seed)
    {
        final CachedNanoClock scenarioClock = new CachedNanoClock();
        try (MemoryFabric scenarioFabric = new MemoryFabric(scenarioClock))
        {
            final MemoryLink a = scenarioFabric.attach(A, 1500);
            final MemoryLink b = scenarioFabric.attach(B, 1500);
            a.faults().seed(seed).loss(0.05).duplication(0.02).corruption(0.02, 3).reordering(0.02, 5)
                .delay(0.05, 500, 1500);
            final FrameRecorder received = new FrameRecorder();
            for (int psn = 0; psn < 3000; psn++)
            {
                frames.send(a, B, Opcode.RC_RDMA_WRITE_MIDDLE, QPN, psn, psn % 700);
                scenarioClock.advance(100);
                if (0 == psn % 10)
                {
                    b.poll(received, 64);
                }
            }
            scenarioClock.advance(10_000_000);
            a.flush();
            received.drain(b);
            final List<byte[]> bytes = new ArrayList<>();
            for (final FrameRecorder.Frame frame : received.frames())
            {
                bytes.add(frame.bytes());
            }
            assertTrue(a.counters().get(LinkCounter.INJECTED_DROPS) > 0);
            assertTrue(a.counters().get(LinkCounter.INJECTED_DUPLICATES) > 0);
            assertTrue(a.counters().get(LinkCounter.INJECTED_CORRUPTIONS) > 0);
            assertTrue(a.counters().get(LinkCounter.INJECTED_DELAYS) > 0);
            assertEquals(3000 - a.counters().get(LinkCounter.INJECTED_DROPS) +
                a.counters().get(LinkCounter.INJECTED_DUPLICATES), bytes.size(), "conservation, seed " + seed);
            return bytes;
        }
    }

    private void sendAndDrain(final MemoryLink from, final MemoryLink to, final int count)
    {
        for (int psn = 0; psn < count; psn++)
        {
            frames.send(from, to.address(), Opcode.RC_SEND_ONLY, QPN, psn, 1000);
            if (0 == psn % 100)
            {
                recorder.drain(to);
            }
        }
        recorder.drain(to);
    }

    private static int differingBits(final UnsafeBuffer expected, final byte[] actual, final int from)
    {
        int bits = 0;
        for (int i = from; i < actual.length; i++)
        {
            bits += Integer.bitCount((expected.getByte(i) ^ actual[i]) & 0xFF);
        }
        return bits;
    }
}
