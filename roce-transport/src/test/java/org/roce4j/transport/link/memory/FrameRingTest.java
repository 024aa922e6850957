package org.roce4j.transport.link.memory;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The memory fabric's inbound ring: order, wrap-around with padding, back-pressure, records claimed but not yet
 * committed, stale payload bytes that look like tags, and two producers against one consumer.
 */
class FrameRingTest
{
    private static final int TYPE = 7;

    @Test
    void recordsComeOutInOrderAcrossManyWraps()
    {
        final FrameRing ring = new FrameRing(4096);
        final List<Integer> seen = new ArrayList<>();
        int next = 0;
        final Random random = new Random(42);
        for (int round = 0; round < 2000; round++)
        {
            final int count = 1 + random.nextInt(5);
            for (int i = 0; i < count; i++)
            {
                final int length = 4 + random.nextInt(ring.maxPayloadLength() - 4);
                final int index = ring.tryClaim(TYPE, length);
                if (index < 0)
                {
                    break;
                }
                ring.buffer().setMemory(index, length, (byte)(next * 31));
                ring.buffer().putInt(index, next++);
                ring.commit(index);
            }
            ring.read((type, buffer, index, length) ->
            {
                assertEquals(TYPE, type);
                final int value = buffer.getInt(index);
                for (int b = 4; b < length; b++)
                {
                    assertEquals((byte)(value * 31), buffer.getByte(index + b), "payload of record " + value);
                }
                seen.add(value);
                return true;
            }, Integer.MAX_VALUE);
        }
        assertEquals(next, seen.size());
        for (int i = 0; i < seen.size(); i++)
        {
            assertEquals(i, seen.get(i));
        }
        assertTrue(next > 4000, "wrapped many times: " + next);
    }

    @Test
    void fullRingRefusesAndFreesAsItIsRead()
    {
        final FrameRing ring = new FrameRing(1024);
        int claimed = 0;
        while (true)
        {
            final int index = ring.tryClaim(TYPE, 48);
            if (index < 0)
            {
                break;
            }
            ring.commit(index);
            claimed++;
        }
        assertEquals(1024 / 64, claimed, "64-byte records fill a 1 KiB ring exactly");
        assertEquals(1, ring.read((type, buffer, index, length) -> true, 1));
        assertTrue(ring.tryClaim(TYPE, 48) >= 0, "room again after a read");
        assertThrows(IllegalArgumentException.class, () -> ring.tryClaim(TYPE, ring.maxPayloadLength() + 1));
    }

    @Test
    void aLaterCommitWaitsForAnEarlierClaim()
    {
        final FrameRing ring = new FrameRing(4096);
        final int first = ring.tryClaim(TYPE, 100);
        final int second = ring.tryClaim(TYPE, 100);
        ring.commit(second);
        assertEquals(0, ring.read((type, buffer, index, length) -> true, 10), "the first is not committed yet");
        ring.commit(first);
        assertEquals(2, ring.read((type, buffer, index, length) -> true, 10));
    }

    @Test
    void payloadBytesThatLookLikeTagsAreNeverTakenForRecords()
    {
        final FrameRing ring = new FrameRing(1024);
        // Fill each payload with 8-byte words equal to what future tags (positions + 1) will be.
        for (int lap = 0; lap < 50; lap++)
        {
            final int index = ring.tryClaim(TYPE, 1024 / 8 - FrameRing.HEADER_LENGTH);
            assertTrue(index >= 0);
            for (int b = 0; b + 8 <= 1024 / 8 - FrameRing.HEADER_LENGTH; b += 8)
            {
                ring.buffer().putLong(index + b, ring.size() + b + 1);
            }
            ring.commit(index);
            final int claimedOnly = ring.tryClaim(TYPE, 8);
            assertEquals(1, ring.read((type, buffer, i, length) -> true, 10), "only the committed record");
            assertEquals(0, ring.read((type, buffer, i, length) -> true, 10), "the claimed one is not committed");
            ring.commit(claimedOnly);
            assertEquals(1, ring.read((type, buffer, i, length) -> true, 10));
        }
    }

    @Test
    void twoProducersOneConsumer() throws InterruptedException
    {
        final long seed = 20261121L;
        final FrameRing ring = new FrameRing(64 * 1024);
        final int perProducer = 100_000;
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        final Thread[] producers = new Thread[2];
        for (int p = 0; p < producers.length; p++)
        {
            final int producer = p;
            producers[p] = new Thread(() ->
            {
                final Random random = new Random(seed + producer);
                try
                {
                    for (int i = 0; i < perProducer; i++)
                    {
                        // Sequence (4), length (4), and a last byte after them: at least 9 bytes.
                        final int length = 9 + random.nextInt(600);
                        int index;
                        while ((index = ring.tryClaim(producer, length)) < 0)
                        {
                            if (stop.get())
                            {
                                return;
                            }
                            Thread.onSpinWait();
                        }
                        ring.buffer().putInt(index, i);
                        ring.buffer().putInt(index + 4, length);
                        ring.buffer().putByte(index + length - 1, (byte)i);
                        ring.commit(index);
                    }
                }
                catch (final Throwable ex)
                {
                    failure.set(ex);
                }
            });
            producers[p].start();
        }
        final int[] expected = new int[2];
        final String[] error = new String[1];
        while (expected[0] + expected[1] < 2 * perProducer && null == failure.get())
        {
            ring.read((type, buffer, index, length) ->
            {
                final int sequence = buffer.getInt(index);
                if (sequence != expected[type] || length != buffer.getInt(index + 4) ||
                    (byte)sequence != buffer.getByte(index + length - 1))
                {
                    error[0] = "producer " + type + " record " + sequence + " length " + length + ", expected " +
                        expected[type] + " (seed " + seed + ")";
                }
                expected[type]++;
                return null == error[0];
            }, 64);
            if (null != error[0])
            {
                break;
            }
        }
        stop.set(true);
        for (final Thread producer : producers)
        {
            producer.join();
        }
        assertNull(failure.get());
        assertNull(error[0]);
        assertEquals(perProducer, expected[0]);
        assertEquals(perProducer, expected[1]);
    }
}
