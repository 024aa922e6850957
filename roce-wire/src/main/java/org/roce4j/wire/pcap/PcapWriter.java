package org.roce4j.wire.pcap;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Writes classic pcap (little-endian, nanosecond timestamps by default, link type Ethernet), readable by tcpdump,
 * Wireshark, tshark and {@link PcapReader}.
 *
 * <p>{@link #write} copies the frame through a reused array and allocates nothing per record. Writes are
 * synchronized so the send and receive sides of a link may share one writer.
 */
public final class PcapWriter implements AutoCloseable
{
    private static final int MAGIC_MICROS = 0xA1B2C3D4;
    private static final int MAGIC_NANOS = 0xA1B23C4D;
    private static final int VERSION_MAJOR = 2;
    private static final int VERSION_MINOR = 4;
    /** Snap length written in the header: large enough for any jumbo frame. */
    public static final int SNAP_LENGTH = 262144;

    private final OutputStream out;
    private final boolean nanos;
    private final byte[] header = new byte[24];
    private final UnsafeBuffer headerView = new UnsafeBuffer(header);
    private byte[] copy = new byte[16384];

    /**
     * Create (or truncate) a file and write the pcap header, with nanosecond timestamps and link type Ethernet.
     *
     * @param path of the file.
     * @throws IOException when it cannot be written.
     */
    public PcapWriter(final Path path) throws IOException
    {
        this(Files.newOutputStream(path), LinkType.ETHERNET, true);
    }

    /**
     * Write a pcap stream.
     *
     * @param out      destination, closed by {@link #close()}.
     * @param linkType of the records, see {@link LinkType}.
     * @param nanos    true for nanosecond timestamps, false for microseconds.
     * @throws IOException when the header cannot be written.
     */
    public PcapWriter(final OutputStream out, final int linkType, final boolean nanos) throws IOException
    {
        this.out = new BufferedOutputStream(out, 1 << 16);
        this.nanos = nanos;
        headerView.putInt(0, nanos ? MAGIC_NANOS : MAGIC_MICROS, ByteOrder.LITTLE_ENDIAN);
        headerView.putShort(4, (short)VERSION_MAJOR, ByteOrder.LITTLE_ENDIAN);
        headerView.putShort(6, (short)VERSION_MINOR, ByteOrder.LITTLE_ENDIAN);
        headerView.putInt(8, 0, ByteOrder.LITTLE_ENDIAN);
        headerView.putInt(12, 0, ByteOrder.LITTLE_ENDIAN);
        headerView.putInt(16, SNAP_LENGTH, ByteOrder.LITTLE_ENDIAN);
        headerView.putInt(20, linkType, ByteOrder.LITTLE_ENDIAN);
        this.out.write(header, 0, 24);
    }

    /**
     * Append one record.
     *
     * @param buffer      holding the frame.
     * @param offset      of the frame.
     * @param length      of the frame.
     * @param timestampNs capture time in nanoseconds since the epoch.
     * @throws IOException when it cannot be written.
     */
    public synchronized void write(final DirectBuffer buffer, final int offset, final int length,
        final long timestampNs)
        throws IOException
    {
        final long seconds = timestampNs / 1_000_000_000L;
        final long fractionNs = timestampNs % 1_000_000_000L;
        headerView.putInt(0, (int)seconds, ByteOrder.LITTLE_ENDIAN);
        headerView.putInt(4, (int)(nanos ? fractionNs : fractionNs / 1000L), ByteOrder.LITTLE_ENDIAN);
        headerView.putInt(8, length, ByteOrder.LITTLE_ENDIAN);
        headerView.putInt(12, length, ByteOrder.LITTLE_ENDIAN);
        out.write(header, 0, 16);
        if (length > copy.length)
        {
            copy = new byte[Math.max(length, copy.length * 2)];
        }
        buffer.getBytes(offset, copy, 0, length);
        out.write(copy, 0, length);
    }

    /**
     * Append one record from an array.
     *
     * @param frame       bytes of the frame.
     * @param timestampNs capture time in nanoseconds since the epoch.
     * @throws IOException when it cannot be written.
     */
    public void write(final byte[] frame, final long timestampNs) throws IOException
    {
        write(new UnsafeBuffer(frame), 0, frame.length, timestampNs);
    }

    /**
     * Push buffered records to the file.
     *
     * @throws IOException when it cannot be written.
     */
    public synchronized void flush() throws IOException
    {
        out.flush();
    }

    /**
     * Flush and close the file.
     *
     * @throws IOException when it cannot be written.
     */
    public synchronized void close() throws IOException
    {
        out.close();
    }
}
