package org.roce4j.wire.pcap;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Assembles pcapng files block by block (pcapng draft, IETF opsawg): Section Header, Interface Description,
 * Enhanced / Simple / obsolete Packet blocks and arbitrary other blocks, in either byte order.
 */
final class PcapngBuilder
{
    static final int SECTION_HEADER = 0x0A0D0D0A;
    static final int INTERFACE_DESCRIPTION = 1;
    static final int OBSOLETE_PACKET = 2;
    static final int SIMPLE_PACKET = 3;
    static final int NAME_RESOLUTION = 4;
    static final int ENHANCED_PACKET = 6;
    static final int OPTION_COMMENT = 1;
    static final int OPTION_IF_TSRESOL = 9;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private ByteOrder order = ByteOrder.LITTLE_ENDIAN;

    /** A Section Header Block with a comment option; later blocks use its byte order. */
    PcapngBuilder section(final ByteOrder byteOrder)
    {
        order = byteOrder;
        final ByteBuffer body = allocate(16 + 12 + 4);
        body.putInt(0x1A2B3C4D).putShort((short)1).putShort((short)0).putLong(-1L);
        option(body, OPTION_COMMENT, "roce4j".getBytes(StandardCharsets.US_ASCII));
        body.putShort((short)0).putShort((short)0);
        return block(SECTION_HEADER, body);
    }

    /** An Interface Description Block; tsresol &lt; 0 leaves the option out (microseconds). */
    PcapngBuilder iface(final int linkType, final int snapLength, final int tsresol)
    {
        final ByteBuffer body = allocate(8 + 8 + 4);
        body.putShort((short)linkType).putShort((short)0).putInt(snapLength);
        if (tsresol >= 0)
        {
            option(body, OPTION_IF_TSRESOL, new byte[] {(byte)tsresol});
        }
        body.putShort((short)0).putShort((short)0);
        return block(INTERFACE_DESCRIPTION, body);
    }

    /** An Enhanced Packet Block with a comment option. */
    PcapngBuilder enhanced(final int interfaceId, final long timestamp, final byte[] data, final int originalLength)
    {
        final ByteBuffer body = allocate(20 + padded(data.length) + 12 + 4);
        body.putInt(interfaceId).putInt((int)(timestamp >>> 32)).putInt((int)timestamp).putInt(data.length)
            .putInt(originalLength);
        body.put(data).position(20 + padded(data.length));
        option(body, OPTION_COMMENT, "frame".getBytes(StandardCharsets.US_ASCII));
        body.putShort((short)0).putShort((short)0);
        return block(ENHANCED_PACKET, body);
    }

    /** A Simple Packet Block (interface 0, no timestamp). */
    PcapngBuilder simple(final byte[] data)
    {
        final ByteBuffer body = allocate(4 + padded(data.length));
        body.putInt(data.length).put(data).position(body.capacity());
        return block(SIMPLE_PACKET, body);
    }

    /** An obsolete Packet Block. */
    PcapngBuilder obsolete(final int interfaceId, final long timestamp, final byte[] data)
    {
        final ByteBuffer body = allocate(20 + padded(data.length));
        body.putShort((short)interfaceId).putShort((short)0).putInt((int)(timestamp >>> 32)).putInt((int)timestamp)
            .putInt(data.length).putInt(data.length).put(data).position(body.capacity());
        return block(OBSOLETE_PACKET, body);
    }

    /** Any other block, which readers skip. */
    PcapngBuilder other(final int type, final int bodyLength)
    {
        final ByteBuffer body = allocate(padded(bodyLength));
        for (int i = 0; i < bodyLength; i++)
        {
            body.put((byte)i);
        }
        body.position(body.capacity());
        return block(type, body);
    }

    byte[] bytes()
    {
        return out.toByteArray();
    }

    private PcapngBuilder block(final int type, final ByteBuffer body)
    {
        final int bodyLength = body.position();
        final ByteBuffer block = allocate(12 + bodyLength);
        block.putInt(type).putInt(12 + bodyLength).put(body.array(), 0, bodyLength).putInt(12 + bodyLength);
        out.writeBytes(block.array());
        return this;
    }

    private ByteBuffer allocate(final int length)
    {
        return ByteBuffer.allocate(length).order(order);
    }

    private static void option(final ByteBuffer body, final int code, final byte[] value)
    {
        body.putShort((short)code).putShort((short)value.length).put(value);
        body.position(body.position() + padded(value.length) - value.length);
    }

    private static int padded(final int length)
    {
        return (length + 3) & ~3;
    }
}
