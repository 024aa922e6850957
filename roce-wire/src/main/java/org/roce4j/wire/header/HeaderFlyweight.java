package org.roce4j.wire.header;

import org.agrona.MutableDirectBuffer;

import static java.nio.ByteOrder.BIG_ENDIAN;

/**
 * Base of every header codec: a movable window over a buffer at an offset.
 *
 * <p>A flyweight owns no bytes. {@link #wrap(MutableDirectBuffer, int)} points it at a header inside a frame and
 * every accessor reads or writes that buffer directly, always in network (big-endian) byte order. Wrapping
 * allocates nothing, so one instance per header type is reused for every packet on a path.
 *
 * <p>Accessors do no validation beyond what Agrona's bounds checks do; the frame parser checks lengths before a
 * flyweight is wrapped over received bytes.
 */
public abstract class HeaderFlyweight
{
    /** Buffer holding the header; {@code null} until wrapped. */
    protected MutableDirectBuffer buffer;

    /** Offset of the header's first byte in {@link #buffer}. */
    protected int offset;

    /**
     * Point this flyweight at a header.
     *
     * @param buffer holding the header.
     * @param offset of the header's first byte.
     * @return this flyweight.
     */
    public HeaderFlyweight wrap(final MutableDirectBuffer buffer, final int offset)
    {
        // A receive or send path wraps the same buffer packet after packet: skipping the unchanged reference store
        // skips the collector's write barrier too (with G1 a card check and, for long-lived flyweights in the old
        // generation, a StoreLoad fence per store).
        if (buffer != this.buffer)
        {
            this.buffer = buffer;
        }
        this.offset = offset;
        return this;
    }

    /**
     * @return the wrapped buffer.
     */
    public MutableDirectBuffer buffer()
    {
        return buffer;
    }

    /**
     * @return offset of the header's first byte in the wrapped buffer.
     */
    public int offset()
    {
        return offset;
    }

    /**
     * @return number of bytes this header occupies on the wire.
     */
    public abstract int length();

    /**
     * Unsigned byte at a field offset.
     *
     * @param fieldOffset relative to the header start.
     * @return value 0..255.
     */
    protected final int u8(final int fieldOffset)
    {
        return buffer.getByte(offset + fieldOffset) & 0xFF;
    }

    /**
     * Write the low 8 bits of a value.
     *
     * @param fieldOffset relative to the header start.
     * @param value       to write.
     */
    protected final void u8(final int fieldOffset, final int value)
    {
        buffer.putByte(offset + fieldOffset, (byte)value);
    }

    /**
     * Unsigned big-endian 16-bit field.
     *
     * @param fieldOffset relative to the header start.
     * @return value 0..65535.
     */
    protected final int u16(final int fieldOffset)
    {
        return buffer.getShort(offset + fieldOffset, BIG_ENDIAN) & 0xFFFF;
    }

    /**
     * Write a big-endian 16-bit field.
     *
     * @param fieldOffset relative to the header start.
     * @param value       low 16 bits are written.
     */
    protected final void u16(final int fieldOffset, final int value)
    {
        buffer.putShort(offset + fieldOffset, (short)value, BIG_ENDIAN);
    }

    /**
     * Big-endian 24-bit field.
     *
     * @param fieldOffset relative to the header start.
     * @return value 0..0xFFFFFF.
     */
    protected final int u24(final int fieldOffset)
    {
        return (u8(fieldOffset) << 16) | u16(fieldOffset + 1);
    }

    /**
     * Write a big-endian 24-bit field.
     *
     * @param fieldOffset relative to the header start.
     * @param value       low 24 bits are written.
     */
    protected final void u24(final int fieldOffset, final int value)
    {
        u8(fieldOffset, value >>> 16);
        u16(fieldOffset + 1, value);
    }

    /**
     * Big-endian 32-bit field as a signed int (callers widen with {@code & 0xFFFF_FFFFL} when they need unsigned).
     *
     * @param fieldOffset relative to the header start.
     * @return the raw 32 bits.
     */
    protected final int i32(final int fieldOffset)
    {
        return buffer.getInt(offset + fieldOffset, BIG_ENDIAN);
    }

    /**
     * Write a big-endian 32-bit field.
     *
     * @param fieldOffset relative to the header start.
     * @param value       the raw 32 bits.
     */
    protected final void i32(final int fieldOffset, final int value)
    {
        buffer.putInt(offset + fieldOffset, value, BIG_ENDIAN);
    }

    /**
     * Big-endian 64-bit field.
     *
     * @param fieldOffset relative to the header start.
     * @return the raw 64 bits.
     */
    protected final long i64(final int fieldOffset)
    {
        return buffer.getLong(offset + fieldOffset, BIG_ENDIAN);
    }

    /**
     * Write a big-endian 64-bit field.
     *
     * @param fieldOffset relative to the header start.
     * @param value       the raw 64 bits.
     */
    protected final void i64(final int fieldOffset, final long value)
    {
        buffer.putLong(offset + fieldOffset, value, BIG_ENDIAN);
    }

    /**
     * Big-endian 48-bit field (a MAC address) as the low 48 bits of a long.
     *
     * @param fieldOffset relative to the header start.
     * @return value 0..2^48-1.
     */
    protected final long u48(final int fieldOffset)
    {
        return ((long)u16(fieldOffset) << 32) | (i32(fieldOffset + 2) & 0xFFFF_FFFFL);
    }

    /**
     * Write a big-endian 48-bit field.
     *
     * @param fieldOffset relative to the header start.
     * @param value       low 48 bits are written.
     */
    protected final void u48(final int fieldOffset, final long value)
    {
        u16(fieldOffset, (int)(value >>> 32));
        i32(fieldOffset + 2, (int)value);
    }

    /**
     * Set or clear one bit of a byte field, leaving the other bits alone.
     *
     * @param fieldOffset relative to the header start.
     * @param mask        the bit.
     * @param set         its new value.
     */
    protected final void bit(final int fieldOffset, final int mask, final boolean set)
    {
        final int old = u8(fieldOffset);
        u8(fieldOffset, set ? old | mask : old & ~mask);
    }

    /**
     * Replace the bits under a mask in a byte field.
     *
     * @param fieldOffset relative to the header start.
     * @param mask        bits of the field within the byte.
     * @param shift       position of the field's lowest bit.
     * @param value       new field value (unshifted).
     */
    protected final void bits(final int fieldOffset, final int mask, final int shift, final int value)
    {
        final int old = u8(fieldOffset);
        u8(fieldOffset, (old & ~mask) | ((value << shift) & mask));
    }
}
