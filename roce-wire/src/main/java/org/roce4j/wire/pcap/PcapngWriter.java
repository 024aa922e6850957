package org.roce4j.wire.pcap;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Writes pcapng (the pcapng draft, IETF opsawg): one section (little-endian), one Ethernet interface with nanosecond
 * timestamps (if_tsresol 9), and one Enhanced Packet Block per frame carrying its direction in the epb_flags option
 * (bits 0..1: 01 inbound, 10 outbound), which Wireshark shows under the frame's packet flags and filters as
 * {@code frame.packet_flags_direction == 2} (outbound). Readable by Wireshark, tshark, tcpdump (libpcap 1.1 and
 * later) and {@link PcapReader}, which returns the direction.
 *
 * <p>{@link #write} copies the frame through a reused array and allocates nothing per record. Not thread safe: one
 * writer per thread (a link's send and receive sides are driven by one thread).
 */
public final class PcapngWriter implements AutoCloseable
{
    /** {@link #write} direction: a frame received. */
    public static final int INBOUND = PcapReader.DIRECTION_INBOUND;
    /** {@link #write} direction: a frame sent. */
    public static final int OUTBOUND = PcapReader.DIRECTION_OUTBOUND;

    private static final int SECTION_HEADER_BLOCK = 0x0A0D_0D0A;
    private static final int BYTE_ORDER_MAGIC = 0x1A2B_3C4D;
    private static final int INTERFACE_DESCRIPTION_BLOCK = 1;
    private static final int ENHANCED_PACKET_BLOCK = 6;
    private static final int OPTION_END = 0;
    private static final int OPTION_SHB_USERAPPL = 4;
    private static final int OPTION_IF_NAME = 2;
    private static final int OPTION_IF_TSRESOL = 9;
    private static final int OPTION_EPB_FLAGS = 2;
    /** if_tsresol 9: timestamps in units of 10^-9 s. */
    private static final int NANOSECOND_RESOLUTION = 9;
    /** Enhanced packet block without packet data: header 8, fields 20, epb_flags option 8, end 4, trailer 4. */
    private static final int EPB_OVERHEAD = 44;
    private static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;

    private final OutputStream out;
    private final byte[] scratch = new byte[64];
    private final UnsafeBuffer view = new UnsafeBuffer(scratch);
    private byte[] copy = new byte[16384];

    /**
     * Create (or truncate) a file and write the section and interface headers.
     *
     * @param path        of the file.
     * @param application written as shb_userappl, e.g. {@code roce4j}.
     * @param interfaceName written as if_name, e.g. the link's name.
     * @throws IOException when it cannot be written.
     */
    public PcapngWriter(final Path path, final String application, final String interfaceName) throws IOException
    {
        this(Files.newOutputStream(path), application, interfaceName);
    }

    /**
     * Write a pcapng stream.
     *
     * @param out           destination, closed by {@link #close()}.
     * @param application   written as shb_userappl.
     * @param interfaceName written as if_name.
     * @throws IOException when the headers cannot be written.
     */
    public PcapngWriter(final OutputStream out, final String application, final String interfaceName)
        throws IOException
    {
        this.out = new BufferedOutputStream(out, 1 << 16);
        final byte[] app = application.getBytes(StandardCharsets.UTF_8);
        final int sectionLength = 28 + optionLength(app.length) + 4;
        putInt(0, SECTION_HEADER_BLOCK);
        putInt(4, sectionLength);
        putInt(8, BYTE_ORDER_MAGIC);
        view.putShort(12, (short)1, ORDER);
        view.putShort(14, (short)0, ORDER);
        view.putLong(16, -1L, ORDER);
        this.out.write(scratch, 0, 24);
        writeOption(OPTION_SHB_USERAPPL, app);
        writeEnd(sectionLength);

        final byte[] name = interfaceName.getBytes(StandardCharsets.UTF_8);
        final int interfaceLength = 20 + optionLength(name.length) + 8 + 4;
        putInt(0, INTERFACE_DESCRIPTION_BLOCK);
        putInt(4, interfaceLength);
        view.putShort(8, (short)LinkType.ETHERNET, ORDER);
        view.putShort(10, (short)0, ORDER);
        putInt(12, PcapWriter.SNAP_LENGTH);
        this.out.write(scratch, 0, 16);
        writeOption(OPTION_IF_NAME, name);
        view.putShort(0, (short)OPTION_IF_TSRESOL, ORDER);
        view.putShort(2, (short)1, ORDER);
        putInt(4, NANOSECOND_RESOLUTION);
        this.out.write(scratch, 0, 8);
        writeEnd(interfaceLength);
    }

    /**
     * Append one frame.
     *
     * @param buffer      holding the frame.
     * @param offset      of the frame.
     * @param length      of the frame.
     * @param timestampNs capture time in nanoseconds since the epoch.
     * @param direction   {@link #INBOUND} or {@link #OUTBOUND}.
     * @throws IOException when it cannot be written.
     */
    public void write(final DirectBuffer buffer, final int offset, final int length, final long timestampNs,
        final int direction) throws IOException
    {
        final int padded = (length + 3) & ~3;
        final int blockLength = EPB_OVERHEAD + padded;
        putInt(0, ENHANCED_PACKET_BLOCK);
        putInt(4, blockLength);
        putInt(8, 0);
        putInt(12, (int)(timestampNs >>> 32));
        putInt(16, (int)timestampNs);
        putInt(20, length);
        putInt(24, length);
        out.write(scratch, 0, 28);
        if (padded > copy.length)
        {
            copy = new byte[Math.max(padded, copy.length * 2)];
        }
        buffer.getBytes(offset, copy, 0, length);
        for (int i = length; i < padded; i++)
        {
            copy[i] = 0;
        }
        out.write(copy, 0, padded);
        view.putShort(0, (short)OPTION_EPB_FLAGS, ORDER);
        view.putShort(2, (short)4, ORDER);
        putInt(4, direction & 3);
        putInt(8, OPTION_END);
        putInt(12, blockLength);
        out.write(scratch, 0, 16);
    }

    /**
     * Push buffered records to the file.
     *
     * @throws IOException when it cannot be written.
     */
    public void flush() throws IOException
    {
        out.flush();
    }

    /**
     * Flush and close the file.
     *
     * @throws IOException when it cannot be written.
     */
    public void close() throws IOException
    {
        out.close();
    }

    private static int optionLength(final int valueLength)
    {
        return 4 + ((valueLength + 3) & ~3);
    }

    private void writeOption(final int code, final byte[] value) throws IOException
    {
        view.putShort(0, (short)code, ORDER);
        view.putShort(2, (short)value.length, ORDER);
        out.write(scratch, 0, 4);
        out.write(value);
        out.write(new byte[(4 - (value.length & 3)) & 3]);
    }

    private void writeEnd(final int blockLength) throws IOException
    {
        putInt(0, OPTION_END);
        putInt(4, blockLength);
        out.write(scratch, 0, 8);
    }

    private void putInt(final int index, final int value)
    {
        view.putInt(index, value, ORDER);
    }
}
