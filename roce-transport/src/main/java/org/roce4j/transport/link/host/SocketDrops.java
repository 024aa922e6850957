package org.roce4j.transport.link.host;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import java.util.function.LongSupplier;

import org.roce4j.transport.link.LinkCounter;
import org.roce4j.transport.link.LinkCounters;

/**
 * The one reader of what the kernel dropped for a link's socket or capture handle (receive buffer full, capture
 * ring full), folded into {@link LinkCounter#RECEIVE_ERRORS} so that, on an idle link, frames sent by the peer =
 * FRAMES_RECEIVED + RECEIVE_ERRORS + RECEIVE_FILTERED. Three sources:
 * <ul>
 *   <li>{@link #procTable(InetSocketAddress)}: the last column ("drops", {@code sk_drops}) of {@code /proc/net/udp}
 *   or {@code /proc/net/udp6}, for a NIO {@link java.nio.channels.DatagramChannel}, which cannot ask for
 *   SO_MEMINFO. The table is opened through {@code /proc/thread-self/net} on the thread that opens the socket, so it
 *   shows the network namespace the socket lives in whichever thread reads it later. A row is the socket's when
 *   its local address is the socket's bound address and port and its remote address is unset. Reading allocates
 *   nothing, but costs a procfs walk of every UDP socket.</li>
 *   <li>{@link #soMeminfo(RawOption)}: getsockopt(SOL_SOCKET, SO_MEMINFO), word SK_MEMINFO_DROPS, for a native
 *   socket (the udp link's).</li>
 *   <li>{@link #of(LongSupplier)}: any other running total, such as libpcap's pcap_stats drops.</li>
 * </ul>
 * {@link #countInto(LinkCounters, long, long)} reads at most once per period (callers call it on idle polls) and adds
 * the growth since the last reading. Single threaded: the thread that counts is the counters' writer.
 */
public final class SocketDrops implements AutoCloseable
{
    /** What {@link #read()} returns when the count cannot be read (no procfs, socket not listed). */
    public static final long UNKNOWN = -1;

    /** SOL_SOCKET (asm-generic/socket.h). */
    private static final int SOL_SOCKET = 1;
    /** SO_MEMINFO (asm-generic/socket.h): u32[SK_MEMINFO_VARS] of socket memory counters. */
    private static final int SO_MEMINFO = 55;
    /** SK_MEMINFO_VARS (linux/sock_diag.h). */
    private static final int SK_MEMINFO_VARS = 9;
    /** SK_MEMINFO_DROPS (linux/sock_diag.h): datagrams the kernel dropped for this socket (buffer full, ...). */
    private static final int SK_MEMINFO_DROPS = 8;
    /** Table bytes read: some 1,700 rows of /proc/net/udp (about 150 bytes each). */
    private static final int MAX_TABLE_BYTES = 256 * 1024;
    /** Columns of the local and the remote address (column 0 is "sl"); the drop count is the last column. */
    private static final int LOCAL_COLUMN = 1;
    private static final int REMOTE_COLUMN = 2;

    /**
     * Reads a raw socket option into a buffer, as Netty's {@code Socket.getRawOpt} does.
     */
    @FunctionalInterface
    public interface RawOption
    {
        /**
         * @param level  SOL_*.
         * @param option SO_*.
         * @param out    receives the option's bytes in native order.
         * @throws IOException when the call fails.
         */
        void get(int level, int option, ByteBuffer out) throws IOException;
    }

    private final FileChannel table;
    private final byte[] local;
    private final byte[] unsetRemote;
    /** Direct, so reads need no temporary copy; rows past its end (a host with thousands of sockets) are unseen. */
    private final ByteBuffer buffer;
    private final RawOption rawOption;
    private final LongSupplier total;
    private long counted;
    private long nextReadNs;
    private boolean readBefore;

    private SocketDrops(
        final FileChannel table, final String local, final String unsetRemote, final RawOption rawOption,
        final LongSupplier total)
    {
        this.table = table;
        this.local = null == local ? null : local.getBytes(StandardCharsets.US_ASCII);
        this.unsetRemote = null == unsetRemote ? null : unsetRemote.getBytes(StandardCharsets.US_ASCII);
        this.rawOption = rawOption;
        this.total = total;
        this.buffer = null != table ? ByteBuffer.allocateDirect(MAX_TABLE_BYTES) : null != rawOption ?
            ByteBuffer.allocateDirect(SK_MEMINFO_VARS * Integer.BYTES).order(ByteOrder.nativeOrder()) : null;
    }

    /**
     * Read a native socket's drops with SO_MEMINFO.
     *
     * @param rawOption reads the socket's options.
     * @return the reader.
     */
    public static SocketDrops soMeminfo(final RawOption rawOption)
    {
        return new SocketDrops(null, null, null, rawOption, null);
    }

    /**
     * Read drops from a running total kept elsewhere.
     *
     * @param total returns the total so far, or {@link #UNKNOWN}.
     * @return the reader.
     */
    public static SocketDrops of(final LongSupplier total)
    {
        return new SocketDrops(null, null, null, null, total);
    }

    /**
     * Open the socket table of the calling thread's network namespace.
     *
     * @param bound the socket's bound address and port.
     * @return the reader, or null when procfs cannot be read (drops then stay uncounted).
     */
    public static SocketDrops procTable(final InetSocketAddress bound)
    {
        final boolean ipv4 = bound.getAddress() instanceof Inet4Address;
        try
        {
            final FileChannel table = FileChannel.open(
                Path.of("/proc/thread-self/net", ipv4 ? "udp" : "udp6"), StandardOpenOption.READ);
            final String unset = ipv4 ? "00000000:0000" : "00000000000000000000000000000000:0000";
            return new SocketDrops(table, procAddress(bound), unset, null, null);
        }
        catch (final IOException | UnsupportedOperationException ex)
        {
            return null;
        }
    }

    /**
     * An address as the kernel prints it in /proc/net/udp: each 32-bit word of the address in network byte
     * order printed as a host-order hexadecimal number (%08X; so 127.0.0.1 is 0100007F on little-endian
     * machines), a colon, the port in hexadecimal (%04X).
     *
     * @param address bound address and port.
     * @return the text.
     */
    public static String procAddress(final InetSocketAddress address)
    {
        final byte[] bytes = address.getAddress().getAddress();
        final ByteBuffer words = ByteBuffer.wrap(bytes).order(ByteOrder.nativeOrder());
        final StringBuilder text = new StringBuilder();
        for (int i = 0; i < bytes.length; i += Integer.BYTES)
        {
            text.append(String.format(Locale.ROOT, "%08X", words.getInt(i)));
        }
        return text.append(String.format(Locale.ROOT, ":%04X", address.getPort())).toString();
    }

    /**
     * @return the drops so far, or {@link #UNKNOWN}.
     */
    public long read()
    {
        if (null != total)
        {
            return total.getAsLong();
        }
        try
        {
            buffer.clear();
            if (null != rawOption)
            {
                rawOption.get(SOL_SOCKET, SO_MEMINFO, buffer);
                return buffer.getInt(SK_MEMINFO_DROPS * Integer.BYTES) & 0xFFFF_FFFFL;
            }
            long position = 0;
            int read;
            while (buffer.hasRemaining() && (read = table.read(buffer, position)) > 0)
            {
                position += read;
            }
            return dropsIn(buffer, buffer.position(), local, unsetRemote);
        }
        catch (final IOException ex)
        {
            return UNKNOWN;
        }
    }

    /**
     * Add the drops since the last reading to {@link LinkCounter#RECEIVE_ERRORS}, reading at most once per period
     * (the socket or handle is the link's own, so every drop it ever had is the link's).
     *
     * @param counters the link's counters (the caller's thread is their writer).
     * @param nowNs    current time.
     * @param periodNs least time between readings.
     */
    public void countInto(final LinkCounters counters, final long nowNs, final long periodNs)
    {
        if (readBefore && nowNs - nextReadNs < 0)
        {
            return;
        }
        readBefore = true;
        nextReadNs = nowNs + periodNs;
        final long drops = read();
        if (drops > counted)
        {
            counters.add(LinkCounter.RECEIVE_ERRORS, drops - counted);
            counted = drops;
        }
    }

    /**
     * Find the socket's row without allocating: compare the local and remote address columns byte by byte.
     *
     * @param table       /proc/net/udp bytes from index 0.
     * @param length      bytes in the table.
     * @param local       the socket's local address as printed there.
     * @param unsetRemote the remote address of an unconnected socket as printed there.
     * @return the drops (last column) of the first matching row, or {@link #UNKNOWN}.
     */
    public static long dropsIn(final ByteBuffer table, final int length, final byte[] local, final byte[] unsetRemote)
    {
        int lineStart = 0;
        while (lineStart < length)
        {
            int lineEnd = lineStart;
            while (lineEnd < length && '\n' != table.get(lineEnd))
            {
                lineEnd++;
            }
            final int localStart = columnStart(table, lineStart, lineEnd, LOCAL_COLUMN);
            final int remoteStart = columnStart(table, lineStart, lineEnd, REMOTE_COLUMN);
            if (remoteStart >= 0 && matches(table, localStart, lineEnd, local) &&
                matches(table, remoteStart, lineEnd, unsetRemote))
            {
                return lastNumber(table, lineStart, lineEnd);
            }
            lineStart = lineEnd + 1;
        }
        return UNKNOWN;
    }

    /**
     * @return index of the first byte of a whitespace-separated column, or -1.
     */
    private static int columnStart(final ByteBuffer table, final int from, final int to, final int column)
    {
        int index = from;
        int seen = -1;
        while (index < to)
        {
            while (index < to && ' ' == table.get(index))
            {
                index++;
            }
            if (index == to)
            {
                return -1;
            }
            if (++seen == column)
            {
                return index;
            }
            while (index < to && ' ' != table.get(index))
            {
                index++;
            }
        }
        return -1;
    }

    /**
     * @return true when the column at {@code start} is exactly {@code text}.
     */
    private static boolean matches(final ByteBuffer table, final int start, final int lineEnd, final byte[] text)
    {
        if (start < 0 || start + text.length > lineEnd)
        {
            return false;
        }
        for (int i = 0; i < text.length; i++)
        {
            if (text[i] != table.get(start + i))
            {
                return false;
            }
        }
        final int after = start + text.length;
        return after == lineEnd || ' ' == table.get(after);
    }

    /**
     * @return the decimal number ending the line, or {@link #UNKNOWN}.
     */
    private static long lastNumber(final ByteBuffer table, final int lineStart, final int lineEnd)
    {
        int end = lineEnd;
        while (end > lineStart && ' ' == table.get(end - 1))
        {
            end--;
        }
        int start = end;
        while (start > lineStart && table.get(start - 1) >= '0' && table.get(start - 1) <= '9')
        {
            start--;
        }
        if (start == end)
        {
            return UNKNOWN;
        }
        long value = 0;
        for (int i = start; i < end; i++)
        {
            value = value * 10 + (table.get(i) - '0');
        }
        return value;
    }

    /**
     * Release the table, if any.
     */
    public void close()
    {
        if (null == table)
        {
            return;
        }
        try
        {
            table.close();
        }
        catch (final IOException ignore)
        {
            // A procfs read handle holds nothing to lose.
        }
    }
}
