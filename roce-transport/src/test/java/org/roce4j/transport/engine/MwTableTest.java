package org.roce4j.transport.engine;

import java.security.SecureRandom;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.MwType;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link MwTable}'s keys: a window's rkey is its 24-bit index and a key byte, and no region rkey ever carries a
 * window's index, so the index alone tells a window's rkey from a region's (rxe tells them apart by index range).
 * The key source is scripted to force the collisions.
 */
class MwTableTest
{
    /** A key source that returns the given values, in order. */
    private static final class ScriptedRandom extends SecureRandom
    {
        private static final long serialVersionUID = 1L;
        private final int[] values;
        private int next;

        ScriptedRandom(final int... values)
        {
            this.values = values;
        }

        @Override
        public int nextInt()
        {
            return values[next++];
        }
    }

    private static UnsafeBuffer memory()
    {
        return new UnsafeBuffer(new byte[64]);
    }

    @Test
    void windowIndexesAndRegionRkeysNeverShareAnIndex()
    {
        final ScriptedRandom random = new ScriptedRandom(
            0x0000_1111, 0xABCD_EF01, // region 1: lkey, rkey (index 0xABCDEF)
            0x00AB_CDEF, 0x0012_3456, 0x77, // window: index 0xABCDEF is taken by region 1's rkey, then 0x123456, key
            0x0000_2222, 0x1234_5600, 0x5555_5555); // region 2: lkey; rkey 0x123456xx is the window's, then another
        final MrTable regions = new MrTable(random);
        final MwTable windows = new MwTable(regions, random);
        final MemoryRegionEntry first = regions.register(0x1000, AccessFlags.LOCAL_WRITE, 1, memory());
        assertEquals(0xABCD_EF01, first.rkey());

        final MemoryWindowEntry mw = windows.alloc(MwType.TYPE_2, 1);
        assertEquals(0x1234_5677, mw.rkey());
        assertEquals(MemoryWindowEntry.State.FREE, mw.state());

        final MemoryRegionEntry second = regions.register(0x2000, AccessFlags.LOCAL_WRITE, 1, memory());
        assertEquals(0x5555_5555, second.rkey());
        // Any key byte under the window's index names the window, none names a region.
        assertSame(mw, windows.byRkey(0x1234_5600));
        assertNull(regions.byRkey(0x1234_5600));
        assertNull(windows.byRkey(first.rkey()));
        // Chosen keys may not take a window's index either.
        final IllegalArgumentException taken = assertThrows(IllegalArgumentException.class,
            () -> regions.registerWithKeys(0x3000, 0, 1, memory(), 0x3333, 0x1234_56AA));
        assertTrue(taken.getMessage().contains("0x123456aa"), taken.getMessage());
        assertEquals(1, windows.size());

        windows.dealloc(mw);
        assertEquals(MemoryWindowEntry.State.INVALID, mw.state());
        assertNull(windows.byRkey(mw.rkey()));
        assertThrows(IllegalArgumentException.class, () -> windows.dealloc(mw));
    }

    @Test
    void aType1WindowStartsValidAndUnbound()
    {
        final MwTable windows = new MwTable(new MrTable(new SecureRandom()), new SecureRandom());
        final MemoryWindowEntry mw = windows.alloc(MwType.TYPE_1, 3);
        // rxe_alloc_mw: type 1 starts RXE_MW_STATE_VALID with no length, so no access reaches anything.
        assertEquals(MemoryWindowEntry.State.VALID, mw.state());
        assertEquals(false, mw.isBound());
        assertEquals(MwType.TYPE_1, mw.type());
        assertEquals(false, mw.isValid(mw.rkey()));
    }
}
