package org.roce4j.wire.header;

import java.util.Arrays;
import java.util.Random;
import java.util.function.BiConsumer;
import java.util.function.Predicate;
import java.util.function.Supplier;

import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.wire.test.Hex;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Checks one header field against hand-assembled bytes: the setter writes exactly the expected bits, leaves every
 * other bit of the header (and the bytes around it) as it was, and the getter reads the value back whatever the
 * neighbouring bits hold. Each check runs over several backgrounds: all zeros, all ones, 0x5A, 0xA5 and random.
 */
final class FieldAssert
{
    /** Bytes before and after the header that no accessor may touch. */
    private static final int GUARD = 7;
    /** Room for the longest header (IPv6, 40 bytes) and more. */
    private static final int MAX_HEADER_LENGTH = 64;
    private static final int[] BACKGROUNDS = {0x00, 0xFF, 0x5A, 0xA5, -1};

    /**
     * Writes a field.
     *
     * @param <H> header type.
     */
    interface Setter<H>
    {
        void set(H header, long value);
    }

    /**
     * Reads a field.
     *
     * @param <H> header type.
     */
    interface Getter<H>
    {
        long get(H header);
    }

    private FieldAssert()
    {
    }

    /**
     * @param factory      makes the flyweight.
     * @param field        name for messages.
     * @param fieldOffset  byte offset of the first byte the field touches.
     * @param maskHex      the field's bits, one byte per byte from fieldOffset.
     * @param setter       writes the field.
     * @param getter       reads the field.
     * @param value        value to write.
     * @param expectedHex  hand-assembled bytes of the field for that value (bits outside the mask are 0).
     * @param expectedRead what the getter must return (differs from value when the setter truncates).
     * @param <H>          header type.
     */
    static <H extends HeaderFlyweight> void assertField(
        final Supplier<H> factory,
        final String field,
        final int fieldOffset,
        final String maskHex,
        final Setter<H> setter,
        final Getter<H> getter,
        final long value,
        final String expectedHex,
        final long expectedRead)
    {
        final byte[] mask = Hex.bytes(maskHex);
        final byte[] expected = Hex.bytes(expectedHex);
        assertEquals(mask.length, expected.length, field + ": mask and expected bytes differ in length");
        for (int i = 0; i < mask.length; i++)
        {
            assertEquals(0, expected[i] & ~mask[i], field + ": expected bits outside the mask at byte " + i);
        }
        final H header = factory.get();
        final byte[] bytes = new byte[GUARD + MAX_HEADER_LENGTH + GUARD];
        final Random random = new Random(fieldOffset * 31L + value);
        for (final int background : BACKGROUNDS)
        {
            if (background < 0)
            {
                random.nextBytes(bytes);
            }
            else
            {
                Arrays.fill(bytes, (byte)background);
            }
            final byte[] before = bytes.clone();
            header.wrap(new UnsafeBuffer(bytes), GUARD);
            setter.set(header, value);
            final String where = field + "=0x" + Long.toHexString(value) + " over background " +
                (background < 0 ? "random" : "0x" + Integer.toHexString(background));
            for (int i = 0; i < bytes.length; i++)
            {
                final int inField = i - GUARD - fieldOffset;
                final int want;
                if (inField >= 0 && inField < mask.length)
                {
                    want = (before[i] & ~mask[inField] | expected[inField] & mask[inField]) & 0xFF;
                }
                else
                {
                    want = before[i] & 0xFF;
                }
                final int index = i - GUARD;
                assertEquals(want, bytes[i] & 0xFF, () -> where + ": wrong byte at header offset " + index);
            }
            assertEquals(expectedRead, getter.get(header), where + ": getter");
        }
    }

    /**
     * As {@link #assertField(Supplier, String, int, String, Setter, Getter, long, String, long)} with the getter
     * returning the value written.
     */
    static <H extends HeaderFlyweight> void assertField(
        final Supplier<H> factory,
        final String field,
        final int fieldOffset,
        final String maskHex,
        final Setter<H> setter,
        final Getter<H> getter,
        final long value,
        final String expectedHex)
    {
        assertField(factory, field, fieldOffset, maskHex, setter, getter, value, expectedHex, value);
    }

    /**
     * A one-bit flag: checks both set and clear.
     */
    static <H extends HeaderFlyweight> void assertFlag(
        final Supplier<H> factory,
        final String field,
        final int fieldOffset,
        final int mask,
        final BiConsumer<H, Boolean> setter,
        final Predicate<H> getter)
    {
        final String maskHex = String.format("%02x", mask);
        assertField(factory, field, fieldOffset, maskHex, (h, v) -> setter.accept(h, 0 != v),
            h -> getter.test(h) ? 1 : 0, 1, maskHex);
        assertField(factory, field, fieldOffset, maskHex, (h, v) -> setter.accept(h, 0 != v),
            h -> getter.test(h) ? 1 : 0, 0, "00");
    }

    /**
     * @param header  wrapped over a buffer.
     * @param hexDump expected bytes from the header's first byte.
     */
    static void assertBytes(final HeaderFlyweight header, final String hexDump)
    {
        final byte[] expected = Hex.bytes(hexDump);
        final byte[] actual = new byte[expected.length];
        header.buffer().getBytes(header.offset(), actual);
        assertEquals(Hex.of(expected), Hex.of(actual));
    }

    /**
     * @param hexDump bytes of a header, to be placed at an odd offset (3) in a larger buffer.
     * @return a buffer holding them.
     */
    static UnsafeBuffer bufferAt3(final String hexDump)
    {
        final byte[] header = Hex.bytes(hexDump);
        final byte[] bytes = new byte[header.length + 8];
        System.arraycopy(header, 0, bytes, 3, header.length);
        return new UnsafeBuffer(bytes);
    }
}
