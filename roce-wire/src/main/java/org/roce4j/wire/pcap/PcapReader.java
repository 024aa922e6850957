package org.roce4j.wire.pcap;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.wire.AgronaAccess;

/**
 * Reads classic pcap files (either byte order, microsecond or nanosecond timestamps) and pcapng files (Section
 * Header, Interface Description, Enhanced Packet, Simple Packet and the obsolete Packet block; other blocks are
 * skipped), which is what tcpdump, dumpcap and Wireshark write by default.
 *
 * <p>Records are read one at a time into a buffer that is reused (and only grown for a larger record), so reading a
 * capture does not allocate per packet. The record stays valid until the next call to {@link #next()}. An enhanced
 * packet block's direction (its epb_flags option, as {@link PcapngWriter} and dumpcap write it) is
 * {@link #direction()}.
 */
public final class PcapReader implements AutoCloseable
{
    /** {@link #direction()}: not recorded (classic pcap, or no epb_flags). */
    public static final int DIRECTION_UNKNOWN = 0;
    /** {@link #direction()}: received (inbound). */
    public static final int DIRECTION_INBOUND = 1;
    /** {@link #direction()}: sent (outbound). */
    public static final int DIRECTION_OUTBOUND = 2;

    private static final int PCAP_MAGIC_MICROS = 0xA1B2C3D4;
    private static final int PCAP_MAGIC_NANOS = 0xA1B23C4D;
    private static final int PCAPNG_SECTION_HEADER = 0x0A0D0D0A;
    private static final int PCAPNG_BYTE_ORDER_MAGIC = 0x1A2B3C4D;
    private static final int PCAPNG_INTERFACE_DESCRIPTION = 0x00000001;
    private static final int PCAPNG_OBSOLETE_PACKET = 0x00000002;
    private static final int PCAPNG_SIMPLE_PACKET = 0x00000003;
    private static final int PCAPNG_ENHANCED_PACKET = 0x00000006;
    private static final int PCAPNG_OPTION_END = 0;
    private static final int PCAPNG_OPTION_IF_TSRESOL = 9;
    /** epb_flags: a 32-bit word whose bits 0..1 are the direction (pcapng section 4.3.1). */
    private static final int PCAPNG_OPTION_EPB_FLAGS = 2;
    /** Refuse records larger than this: no link roce4j reads has frames near it, so it means a corrupt file. */
    private static final int MAX_RECORD = 16 * 1024 * 1024;

    private final String name;
    private final InputStream in;
    private final boolean pcapng;
    private final byte[] header = new byte[32];
    private final UnsafeBuffer headerView = new UnsafeBuffer(header);
    private final List<Interface> interfaces = new ArrayList<>();
    private ByteOrder order;
    private int classicLinkType;
    private boolean classicNanos;
    private byte[] data = new byte[65536];
    private final UnsafeBuffer buffer = new UnsafeBuffer(data);
    private final UnsafeBuffer optionsView = new UnsafeBuffer(new byte[0]);
    private int capturedLength;
    private int originalLength;
    private long timestampNs;
    private int linkType;
    private int direction;
    private byte[] options = new byte[64];
    private long index;

    private static final class Interface
    {
        final int linkType;
        final int snapLength;
        long unitsPerSecond = 1_000_000L;
        boolean powerOfTwo;
        int exponent = 6;

        Interface(final int linkType, final int snapLength)
        {
            this.linkType = linkType;
            this.snapLength = snapLength;
        }

        long toNanos(final long units)
        {
            if (powerOfTwo)
            {
                // Rare: resolution 2^-exponent seconds.
                return (long)(units * (1e9 / Math.pow(2, exponent)));
            }
            if (1_000_000_000L == unitsPerSecond)
            {
                return units;
            }
            if (unitsPerSecond < 1_000_000_000L)
            {
                return units * (1_000_000_000L / unitsPerSecond);
            }
            return units / (unitsPerSecond / 1_000_000_000L);
        }
    }

    private PcapReader(final String name, final InputStream in) throws IOException
    {
        this.name = name;
        this.in = in;
        readFully(header, 0, 4, "file header");
        final int first = headerView.getInt(0, ByteOrder.BIG_ENDIAN);
        if (PCAPNG_SECTION_HEADER == first)
        {
            pcapng = true;
            readSectionHeaderRest();
        }
        else
        {
            pcapng = false;
            if (PCAP_MAGIC_MICROS == first || PCAP_MAGIC_NANOS == first)
            {
                order = ByteOrder.BIG_ENDIAN;
            }
            else if (PCAP_MAGIC_MICROS == Integer.reverseBytes(first) ||
                PCAP_MAGIC_NANOS == Integer.reverseBytes(first))
            {
                order = ByteOrder.LITTLE_ENDIAN;
            }
            else
            {
                throw new PcapFormatException(name + ": not a pcap or pcapng file (magic 0x" +
                    Integer.toHexString(first) + ")");
            }
            classicNanos = PCAP_MAGIC_NANOS == headerView.getInt(0, order);
            readFully(header, 4, 20, "file header");
            classicLinkType = headerView.getInt(20, order);
        }
    }

    /**
     * Open a capture file.
     *
     * @param path of a pcap or pcapng file.
     * @return a reader positioned before the first record.
     * @throws IOException naming the file when it is missing, unreadable or not a capture.
     */
    public static PcapReader open(final Path path) throws IOException
    {
        AgronaAccess.require();
        final InputStream in;
        try
        {
            in = new BufferedInputStream(Files.newInputStream(path), 1 << 16);
        }
        catch (final NoSuchFileException ex)
        {
            throw new NoSuchFileException(path.toString(), null, "no such file");
        }
        try
        {
            return new PcapReader(path.toString(), in);
        }
        catch (final IOException | RuntimeException ex)
        {
            in.close();
            throw ex;
        }
    }

    /**
     * Read from a stream (which this reader closes).
     *
     * @param name for error messages.
     * @param in   the capture bytes.
     * @return a reader positioned before the first record.
     * @throws IOException when the stream is not a capture.
     */
    public static PcapReader open(final String name, final InputStream in) throws IOException
    {
        AgronaAccess.require();
        return new PcapReader(name, new BufferedInputStream(in, 1 << 16));
    }

    /**
     * Advance to the next packet record.
     *
     * @return false at the end of the file.
     * @throws IOException when the file is cut short or corrupt.
     */
    public boolean next() throws IOException
    {
        final boolean found = pcapng ? nextPcapng() : nextClassic();
        if (found)
        {
            index++;
        }
        return found;
    }

    private boolean nextClassic() throws IOException
    {
        direction = DIRECTION_UNKNOWN;
        if (!readHeaderOrEof(16))
        {
            return false;
        }
        final long seconds = headerView.getInt(0, order) & 0xFFFF_FFFFL;
        final long fraction = headerView.getInt(4, order) & 0xFFFF_FFFFL;
        final int included = headerView.getInt(8, order);
        originalLength = headerView.getInt(12, order);
        checkRecordLength(included);
        readData(included);
        timestampNs = seconds * 1_000_000_000L + (classicNanos ? fraction : fraction * 1000L);
        linkType = classicLinkType;
        return true;
    }

    private boolean nextPcapng() throws IOException
    {
        while (true)
        {
            if (!readHeaderOrEof(8))
            {
                return false;
            }
            final int type = headerView.getInt(0, order);
            final int totalLength = headerView.getInt(4, order);
            if (PCAPNG_SECTION_HEADER == type)
            {
                // A new section: its byte order may differ; the length we read may be in the wrong order.
                readFully(header, 8, 4, "section header");
                final int magic = headerView.getInt(8, ByteOrder.BIG_ENDIAN);
                order = PCAPNG_BYTE_ORDER_MAGIC == magic ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN;
                final int length = headerView.getInt(4, order);
                checkBlockLength(length, 28);
                interfaces.clear();
                skip(length - 12);
                continue;
            }
            checkBlockLength(totalLength, 12);
            final int bodyLength = totalLength - 12;
            switch (type)
            {
                case PCAPNG_INTERFACE_DESCRIPTION:
                    readInterface(bodyLength);
                    break;
                case PCAPNG_ENHANCED_PACKET:
                {
                    readFully(header, 0, 20, "enhanced packet block");
                    final int interfaceId = headerView.getInt(0, order);
                    final long high = headerView.getInt(4, order) & 0xFFFF_FFFFL;
                    final long low = headerView.getInt(8, order) & 0xFFFF_FFFFL;
                    final int captured = headerView.getInt(12, order);
                    originalLength = headerView.getInt(16, order);
                    final Interface iface = iface(interfaceId);
                    checkRecordLength(captured);
                    if (20 + captured > bodyLength)
                    {
                        throw new PcapFormatException(name + ": enhanced packet block " + (index + 1) +
                            " is shorter than its packet");
                    }
                    readData(captured);
                    readEnhancedPacketOptions(bodyLength - 20 - captured);
                    timestampNs = iface.toNanos((high << 32) | low);
                    linkType = iface.linkType;
                    return true;
                }
                case PCAPNG_SIMPLE_PACKET:
                {
                    readFully(header, 0, 4, "simple packet block");
                    originalLength = headerView.getInt(0, order);
                    final Interface iface = iface(0);
                    int captured = originalLength;
                    if (iface.snapLength > 0 && captured > iface.snapLength)
                    {
                        captured = iface.snapLength;
                    }
                    captured = Math.min(captured, bodyLength - 4);
                    checkRecordLength(captured);
                    readData(captured);
                    skip(bodyLength - 4 - captured + 4);
                    direction = DIRECTION_UNKNOWN;
                    timestampNs = 0;
                    linkType = iface.linkType;
                    return true;
                }
                case PCAPNG_OBSOLETE_PACKET:
                {
                    readFully(header, 0, 20, "packet block");
                    final int interfaceId = headerView.getShort(0, order) & 0xFFFF;
                    final long high = headerView.getInt(4, order) & 0xFFFF_FFFFL;
                    final long low = headerView.getInt(8, order) & 0xFFFF_FFFFL;
                    final int captured = headerView.getInt(12, order);
                    originalLength = headerView.getInt(16, order);
                    final Interface iface = iface(interfaceId);
                    checkRecordLength(captured);
                    if (20 + captured > bodyLength)
                    {
                        throw new PcapFormatException(name + ": packet block is shorter than its packet");
                    }
                    readData(captured);
                    skip(bodyLength - 20 - captured + 4);
                    direction = DIRECTION_UNKNOWN;
                    timestampNs = iface.toNanos((high << 32) | low);
                    linkType = iface.linkType;
                    return true;
                }
                default:
                    skip(bodyLength + 4);
                    break;
            }
        }
    }

    /**
     * Read what follows an enhanced packet's data: padding to 32 bits, options, the trailing block length. Only
     * epb_flags is kept.
     */
    private void readEnhancedPacketOptions(final int afterData) throws IOException
    {
        direction = DIRECTION_UNKNOWN;
        final int padding = (4 - (capturedLength & 3)) & 3;
        final int optionsLength = afterData - padding;
        if (optionsLength < 4)
        {
            skip(afterData + 4);
            return;
        }
        skip(padding);
        if (optionsLength > options.length)
        {
            options = new byte[optionsLength];
        }
        readFully(options, 0, optionsLength, "enhanced packet options");
        skip(4);
        final UnsafeBuffer view = optionsView;
        view.wrap(options, 0, optionsLength);
        int at = 0;
        while (at + 4 <= optionsLength)
        {
            final int code = view.getShort(at, order) & 0xFFFF;
            final int length = view.getShort(at + 2, order) & 0xFFFF;
            if (PCAPNG_OPTION_END == code)
            {
                break;
            }
            if (PCAPNG_OPTION_EPB_FLAGS == code && 4 == length && at + 8 <= optionsLength)
            {
                direction = view.getInt(at + 4, order) & 3;
            }
            at += 4 + ((length + 3) & ~3);
        }
    }

    private void readSectionHeaderRest() throws IOException
    {
        readFully(header, 4, 8, "section header");
        final int magic = headerView.getInt(8, ByteOrder.BIG_ENDIAN);
        if (PCAPNG_BYTE_ORDER_MAGIC == magic)
        {
            order = ByteOrder.BIG_ENDIAN;
        }
        else if (PCAPNG_BYTE_ORDER_MAGIC == Integer.reverseBytes(magic))
        {
            order = ByteOrder.LITTLE_ENDIAN;
        }
        else
        {
            throw new PcapFormatException(name + ": pcapng section header has a bad byte-order magic");
        }
        final int length = headerView.getInt(4, order);
        checkBlockLength(length, 28);
        skip(length - 12);
    }

    private void readInterface(final int bodyLength) throws IOException
    {
        if (bodyLength < 8)
        {
            throw new PcapFormatException(name + ": interface description block too short");
        }
        final byte[] body = new byte[bodyLength];
        readFully(body, 0, bodyLength, "interface description block");
        skip(4);
        final UnsafeBuffer view = new UnsafeBuffer(body);
        final Interface iface = new Interface(view.getShort(0, order) & 0xFFFF, view.getInt(4, order));
        int at = 8;
        while (at + 4 <= bodyLength)
        {
            final int code = view.getShort(at, order) & 0xFFFF;
            final int length = view.getShort(at + 2, order) & 0xFFFF;
            if (PCAPNG_OPTION_END == code)
            {
                break;
            }
            if (PCAPNG_OPTION_IF_TSRESOL == code && length >= 1 && at + 4 < bodyLength)
            {
                final int resolution = body[at + 4] & 0xFF;
                if (0 != (resolution & 0x80))
                {
                    iface.powerOfTwo = true;
                    iface.exponent = resolution & 0x7F;
                }
                else
                {
                    iface.unitsPerSecond = 1;
                    for (int i = 0; i < (resolution & 0x7F) && i < 18; i++)
                    {
                        iface.unitsPerSecond *= 10;
                    }
                }
            }
            at += 4 + ((length + 3) & ~3);
        }
        interfaces.add(iface);
    }

    private Interface iface(final int id) throws PcapFormatException
    {
        if (id < 0 || id >= interfaces.size())
        {
            throw new PcapFormatException(name + ": packet refers to undefined interface " + id);
        }
        return interfaces.get(id);
    }

    private void checkBlockLength(final int length, final int minimum) throws PcapFormatException
    {
        if (length < minimum || 0 != (length & 3) || length > MAX_RECORD)
        {
            throw new PcapFormatException(name + ": corrupt pcapng block length " + length);
        }
    }

    private void checkRecordLength(final int length) throws PcapFormatException
    {
        if (length < 0 || length > MAX_RECORD)
        {
            throw new PcapFormatException(name + ": corrupt record length " + length + " at record " + (index + 1));
        }
    }

    private void readData(final int length) throws IOException
    {
        if (length > data.length)
        {
            data = new byte[Math.max(length, data.length * 2)];
            buffer.wrap(data);
        }
        readFully(data, 0, length, "record " + (index + 1));
        capturedLength = length;
    }

    private boolean readHeaderOrEof(final int length) throws IOException
    {
        final int first = in.read(header, 0, length);
        if (first < 0)
        {
            return false;
        }
        if (first < length)
        {
            readFully(header, first, length - first, "record header " + (index + 1));
        }
        return true;
    }

    private void readFully(final byte[] target, final int offset, final int length, final String what)
        throws IOException
    {
        int done = 0;
        while (done < length)
        {
            final int n = in.read(target, offset + done, length - done);
            if (n < 0)
            {
                throw new PcapFormatException(name + ": file ends inside " + what);
            }
            done += n;
        }
    }

    private void skip(final long length) throws IOException
    {
        long left = length;
        while (left > 0)
        {
            final long n = in.skip(left);
            if (n <= 0)
            {
                if (in.read() < 0)
                {
                    throw new PcapFormatException(name + ": file ends inside a block");
                }
                left--;
            }
            else
            {
                left -= n;
            }
        }
    }

    /**
     * @return true when the file is pcapng.
     */
    public boolean isPcapng()
    {
        return pcapng;
    }

    /**
     * @return buffer holding the current record's bytes from index 0.
     */
    public UnsafeBuffer buffer()
    {
        return buffer;
    }

    /**
     * @return bytes of the current record that were captured.
     */
    public int capturedLength()
    {
        return capturedLength;
    }

    /**
     * @return length the packet had on the wire.
     */
    public int originalLength()
    {
        return originalLength;
    }

    /**
     * @return timestamp in nanoseconds since the epoch (0 when the format has none).
     */
    public long timestampNs()
    {
        return timestampNs;
    }

    /**
     * @return link type of the current record, see {@link LinkType}.
     */
    public int linkType()
    {
        return linkType;
    }

    /**
     * @return the current record's direction: {@link #DIRECTION_INBOUND}, {@link #DIRECTION_OUTBOUND} or
     *     {@link #DIRECTION_UNKNOWN}.
     */
    public int direction()
    {
        return direction;
    }

    /**
     * @return 1-based number of the current record, as Wireshark numbers frames.
     */
    public long index()
    {
        return index;
    }

    /**
     * @return the capture's copy of the current record as a new array (allocates; for tests and tools).
     */
    public byte[] copyRecord()
    {
        final byte[] copy = new byte[capturedLength];
        System.arraycopy(data, 0, copy, 0, capturedLength);
        return copy;
    }

    /**
     * Close the file.
     *
     * @throws IOException from the stream.
     */
    public void close() throws IOException
    {
        in.close();
    }
}
