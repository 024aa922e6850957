package org.roce4j.wire;

import org.junit.jupiter.api.Test;
import org.roce4j.wire.test.Seeded;
import org.roce4j.wire.test.SeededRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * 24-bit PSN arithmetic across the 0xFFFFFF -> 0 wrap (IBA 9.7.1; rxe psn_compare()).
 */
@Seeded
class PsnTest
{
    @Test
    void wrapsFromMaxToZero()
    {
        assertEquals(0, Psn.next(0xFF_FFFF));
        assertEquals(1, Psn.next(0));
        assertEquals(0, Psn.add(0xFF_FFFF, 1));
        assertEquals(5, Psn.add(0xFF_FFFE, 7));
        assertEquals(0xFF_FFFF, Psn.add(0, -1));
        assertEquals(0xFF_FFF0, Psn.add(0x10, -0x20));
        assertEquals(0, Psn.add(0x80_0000, 0x80_0000));
    }

    @Test
    void comparesAcrossTheWrap()
    {
        assertTrue(Psn.compare(0, 0xFF_FFFF) > 0, "0 comes after 0xFFFFFF");
        assertTrue(Psn.compare(0xFF_FFFF, 0) < 0);
        assertEquals(0, Psn.compare(0x12_3456, 0x12_3456));
        assertEquals(1, Psn.diff(0, 0xFF_FFFF));
        assertEquals(-1, Psn.diff(0xFF_FFFF, 0));
        assertEquals(16, Psn.diff(0x0F, 0xFF_FFFF));
        // The ordering horizon is half the space: 2^23 - 1 ahead is after, 2^23 ahead wraps to before.
        assertEquals(Psn.HALF_SPACE - 1, Psn.diff(Psn.HALF_SPACE - 1, 0));
        assertTrue(Psn.compare(Psn.HALF_SPACE - 1, 0) > 0);
        assertEquals(-Psn.HALF_SPACE, Psn.diff(Psn.HALF_SPACE, 0));
        assertTrue(Psn.compare(Psn.HALF_SPACE, 0) < 0);
        assertEquals(0x80_0000, Psn.HALF_SPACE);
        assertEquals(0xFF_FFFF, Psn.MASK);
    }

    @Test
    void rangesAcrossTheWrap()
    {
        assertTrue(Psn.inRange(0xFF_FFFF, 0xFF_FFFE, 2));
        assertTrue(Psn.inRange(0, 0xFF_FFFE, 2));
        assertTrue(Psn.inRange(2, 0xFF_FFFE, 2));
        assertFalse(Psn.inRange(3, 0xFF_FFFE, 2));
        assertFalse(Psn.inRange(0xFF_FFFD, 0xFF_FFFE, 2));
        assertTrue(Psn.inRange(7, 7, 7));
    }

    @Test
    void agreesWithModularReferenceOnRandomPairs(final SeededRandom random)
    {
        for (int i = 0; i < 100_000; i++)
        {
            final int a = random.nextInt(1 << 24);
            final int b = i % 2 == 0 ? random.nextInt(1 << 24) : (a + random.nextInt(-1000, 1000)) & 0xFF_FFFF;
            long distance = ((long)a - b) & 0xFF_FFFFL;
            if (distance >= 1 << 23)
            {
                distance -= 1 << 24;
            }
            assertEquals(distance, Psn.diff(a, b), () -> "diff " + a + " " + b);
            assertEquals(Long.signum(distance), Integer.signum(Psn.compare(a, b)), () -> "compare " + a + " " + b);
            final int delta = random.nextInt(-(1 << 23), 1 << 23);
            final int sum = Psn.add(b, delta);
            assertEquals(Math.floorMod((long)b + delta, 1L << 24), sum);
            assertEquals(delta, Psn.diff(sum, b));
        }
    }
}
