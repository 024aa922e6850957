package org.roce4j.wire.mad;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.roce4j.wire.header.HeaderFlyweight;

/**
 * Base of the CM message flyweights: a view of the 232 bytes of class data that follow the {@link MadHeader} in a
 * CM-class MAD (IBA 12.6). Field offsets in the subclasses count from the first byte of this data, i.e. from MAD
 * byte 24, exactly as the IBA tables and include/rdma/ibta_vol1_c12.h give them (that header adds the 24 itself).
 *
 * <p>{@link #wrap(MutableDirectBuffer, int)} takes the offset of the CM data; {@link #wrapMad(MutableDirectBuffer,
 * int)} takes the offset of the MAD. Every CM message ends with private data that runs to the end of the MAD; its
 * offset and length are per message.
 *
 * <p>Bit fields follow the IBA convention (and iba.h's): bit 0 of a byte is its most significant bit, so "a
 * 5-bit field at byte 43" is bits 7..3 of that byte in the usual numbering.
 */
public abstract class CmMessage extends HeaderFlyweight
{
    /** Bytes of CM data after the MAD header. */
    public static final int LENGTH = MadHeader.DATA_LENGTH;
    /** Offset of the Local Communication ID, the same in every message that has one. */
    public static final int LOCAL_COMM_ID_OFFSET = 0;
    /** Offset of the Remote Communication ID in REP, REJ, MRA, RTU, DREQ and DREP. */
    public static final int REMOTE_COMM_ID_OFFSET = 4;

    /** {@inheritDoc} */
    public CmMessage wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    /**
     * Point this flyweight at the CM data of a MAD.
     *
     * @param buffer    holding the MAD.
     * @param madOffset offset of the MAD's first byte (its common header).
     * @return this.
     */
    public CmMessage wrapMad(final MutableDirectBuffer buffer, final int madOffset)
    {
        return wrap(buffer, madOffset + MadHeader.LENGTH);
    }

    /**
     * @return 232: the CM data runs to the end of the MAD.
     */
    public int length()
    {
        return LENGTH;
    }

    /**
     * @return the attribute this message is sent as.
     */
    public abstract CmAttribute attribute();

    /**
     * @return offset of the private data from the start of the CM data.
     */
    public abstract int privateDataOffset();

    /**
     * @return bytes of private data.
     */
    public final int privateDataLength()
    {
        return LENGTH - privateDataOffset();
    }

    /**
     * @return the sender's communication ID.
     */
    public final int localCommId()
    {
        return i32(LOCAL_COMM_ID_OFFSET);
    }

    /**
     * @param commId the sender's communication ID.
     * @return this.
     */
    public CmMessage localCommId(final int commId)
    {
        i32(LOCAL_COMM_ID_OFFSET, commId);
        return this;
    }

    /**
     * Zero all 232 bytes, so that reserved fields and unused private data go out as zeros (as the kernel's
     * zero-allocated MADs do).
     *
     * @return this.
     */
    public CmMessage clear()
    {
        buffer.setMemory(offset, LENGTH, (byte)0);
        return this;
    }

    /**
     * Copy the whole private-data area out.
     *
     * @param destination       to copy into.
     * @param destinationOffset where to start.
     */
    public final void getPrivateData(final MutableDirectBuffer destination, final int destinationOffset)
    {
        destination.putBytes(destinationOffset, buffer, offset + privateDataOffset(), privateDataLength());
    }

    /**
     * Copy private data in and zero the rest of the private-data area.
     *
     * @param source       holding the data.
     * @param sourceOffset where it starts.
     * @param length       bytes, at most {@link #privateDataLength()}.
     * @throws IllegalArgumentException when the data does not fit.
     */
    public final void putPrivateData(final DirectBuffer source, final int sourceOffset, final int length)
    {
        final int capacity = privateDataLength();
        if (length < 0 || length > capacity)
        {
            throw new IllegalArgumentException(attribute().shortName() + " private data holds 0.." + capacity +
                " bytes, got " + length);
        }
        final int at = offset + privateDataOffset();
        buffer.putBytes(at, source, sourceOffset, length);
        buffer.setMemory(at + length, capacity - length, (byte)0);
    }

    /**
     * @return offset of the private data in the wrapped buffer, e.g. to wrap a {@link CmaHeader} over it.
     */
    public final int privateDataBufferOffset()
    {
        return offset + privateDataOffset();
    }

    /**
     * Read {@code width} bits of a byte, counted from its most significant bit as IBA does.
     *
     * @param fieldOffset byte offset.
     * @param bitOffset   first bit, 0 = most significant.
     * @param width       number of bits.
     * @return the field value.
     */
    protected final int bitsAt(final int fieldOffset, final int bitOffset, final int width)
    {
        return (u8(fieldOffset) >>> (8 - bitOffset - width)) & ((1 << width) - 1);
    }

    /**
     * Write {@code width} bits of a byte, counted from its most significant bit, leaving the other bits alone.
     *
     * @param fieldOffset byte offset.
     * @param bitOffset   first bit, 0 = most significant.
     * @param width       number of bits.
     * @param value       new value; bits above {@code width} are ignored.
     */
    protected final void bitsAt(final int fieldOffset, final int bitOffset, final int width, final int value)
    {
        final int shift = 8 - bitOffset - width;
        bits(fieldOffset, ((1 << width) - 1) << shift, shift, value);
    }
}
