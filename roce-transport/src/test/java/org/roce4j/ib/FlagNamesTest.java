package org.roce4j.ib;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.function.IntFunction;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The text of access flags, send flags and QP attribute masks: known bits by name in declaration order, unknown bits
 * in hex, "none"; and each name table checked whole against the constants it names.
 */
class FlagNamesTest
{
    @Test
    void accessFlags()
    {
        assertEquals("none", AccessFlags.toString(0));
        assertEquals("LOCAL_WRITE|REMOTE_READ",
            AccessFlags.toString(AccessFlags.REMOTE_READ | AccessFlags.LOCAL_WRITE));
        assertEquals("LOCAL_WRITE|REMOTE_WRITE|REMOTE_READ|REMOTE_ATOMIC|MW_BIND|FLUSH_GLOBAL|FLUSH_PERSISTENT|" +
            "REMOTE_INVALIDATE",
            AccessFlags.toString(AccessFlags.ALL_MR));
        assertEquals("REMOTE_ATOMIC|MW_BIND|ZERO_BASED|0x40",
            AccessFlags.toString(AccessFlags.REMOTE_ATOMIC | 0x70));
        // ZERO_BASED is named (a window's bind may ask for it, and is refused) but no region takes it.
        assertEveryBitNamed(AccessFlags.class, AccessFlags.ALL_MR | AccessFlags.ZERO_BASED, AccessFlags::toString);
    }

    @Test
    void sendFlags()
    {
        assertEquals("none", SendFlags.toString(0));
        assertEquals("FENCE|SIGNALED|SOLICITED|INLINE", SendFlags.toString(SendFlags.ALL));
        assertEquals("SIGNALED|INLINE", SendFlags.toString(SendFlags.INLINE | SendFlags.SIGNALED));
        assertEquals("0x80000000", SendFlags.toString(0x8000_0000));
        assertEveryBitNamed(SendFlags.class, SendFlags.ALL, SendFlags::toString);
    }

    @Test
    void qpAttrMask()
    {
        assertEquals("none", QpAttrMask.toString(0));
        assertEquals("STATE|PATH_MTU|DEST_QPN",
            QpAttrMask.toString(QpAttrMask.DEST_QPN | QpAttrMask.STATE | QpAttrMask.PATH_MTU));
        assertEquals("STATE|0x800000", QpAttrMask.toString(QpAttrMask.STATE | 1 << 23));
        assertEveryBitNamed(QpAttrMask.class, QpAttrMask.ALL, QpAttrMask::toString);
    }

    /**
     * Every public single-bit constant of the class prints as its own name, and together they make up {@code all}:
     * so the class's bit and name tables hold every flag, in step.
     */
    private static void assertEveryBitNamed(final Class<?> type, final int all, final IntFunction<String> toString)
    {
        int seen = 0;
        for (final Field field : type.getDeclaredFields())
        {
            final int modifiers = field.getModifiers();
            if (Modifier.isPublic(modifiers) && Modifier.isStatic(modifiers) && int.class == field.getType())
            {
                final int value = getInt(field);
                if (1 == Integer.bitCount(value))
                {
                    assertEquals(field.getName(), toString.apply(value), type.getSimpleName() + "." + field.getName());
                    seen |= value;
                }
            }
        }
        assertEquals(all, seen, type.getSimpleName() + ": single-bit constants against ALL");
    }

    private static int getInt(final Field field)
    {
        try
        {
            return field.getInt(null);
        }
        catch (final IllegalAccessException ex)
        {
            throw new AssertionError(field.getName(), ex);
        }
    }
}
