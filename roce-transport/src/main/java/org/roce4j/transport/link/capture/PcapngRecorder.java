package org.roce4j.transport.link.capture;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.NanoClock;
import org.roce4j.transport.link.FrameTap;
import org.roce4j.wire.pcap.PcapngWriter;

/**
 * The one recorder of a link's frames: a {@link FrameTap} that writes every frame it is shown to a pcapng file
 * ({@link PcapngWriter}) with its direction (inbound or outbound) and a nanosecond timestamp, so Wireshark shows who
 * sent what. Used by {@link CaptureLink} ({@code --pcap FILE}) and by the tunnel link's {@code pcap=FILE} option.
 *
 * <p>If the file cannot be written, recording stops and {@link #close()} throws the error. Timestamps are the wall
 * clock when the recorder was created plus the given {@link NanoClock}'s progress since, so a test clock gives
 * repeatable files. Writes are synchronized with {@link #close()}, which another thread may call; a capture costs
 * a copy of each frame into the file's buffer.
 */
public final class PcapngRecorder implements FrameTap, AutoCloseable
{
    private final Path path;
    private final NanoClock clock;
    private final long epochBaseNs;
    private final long nanoBase;
    private PcapngWriter writer;
    private IOException error;
    private long frames;

    private PcapngRecorder(final Path path, final PcapngWriter writer, final NanoClock clock)
    {
        this.path = path;
        this.writer = writer;
        this.clock = clock;
        this.nanoBase = clock.nanoTime();
        this.epochBaseNs = System.currentTimeMillis() * 1_000_000L;
    }

    /**
     * Create the file (and its directory) and write the pcapng headers.
     *
     * @param path     of the file.
     * @param linkName written as the interface's name.
     * @param clock    time source of the timestamps.
     * @return the recorder.
     * @throws IOException naming the file when it cannot be created.
     */
    public static PcapngRecorder create(final Path path, final String linkName, final NanoClock clock)
        throws IOException
    {
        try
        {
            final Path parent = path.toAbsolutePath().getParent();
            if (null != parent)
            {
                Files.createDirectories(parent);
            }
            return new PcapngRecorder(path, new PcapngWriter(path, "roce4j", linkName), clock);
        }
        catch (final IOException ex)
        {
            throw new IOException("cannot create pcap file " + path + ": " + ex, ex);
        }
    }

    /** {@inheritDoc} */
    public synchronized void onFrame(final boolean outgoing, final boolean dropped, final DirectBuffer buffer,
        final int offset, final int length)
    {
        if (null == writer || dropped)
        {
            return;
        }
        try
        {
            writer.write(buffer, offset, length, epochBaseNs + (clock.nanoTime() - nanoBase),
                outgoing ? PcapngWriter.OUTBOUND : PcapngWriter.INBOUND);
            frames++;
        }
        catch (final IOException ex)
        {
            error = ex;
            closeQuietly();
        }
    }

    /**
     * @return the file.
     */
    public Path path()
    {
        return path;
    }

    /**
     * @return frames recorded so far.
     */
    public synchronized long frames()
    {
        return frames;
    }

    /**
     * Flush and close the file. Idempotent.
     *
     * @throws UncheckedIOException when recording failed at any point.
     */
    public synchronized void close()
    {
        if (null != writer)
        {
            try
            {
                writer.close();
            }
            catch (final IOException ex)
            {
                if (null == error)
                {
                    error = ex;
                }
            }
            writer = null;
        }
        if (null != error)
        {
            final IOException failure = error;
            error = null;
            throw new UncheckedIOException("recording " + path + " failed: " + failure.getMessage(), failure);
        }
    }

    private void closeQuietly()
    {
        try
        {
            writer.close();
        }
        catch (final IOException ignore)
        {
            // The first error is the one reported.
        }
        writer = null;
    }
}
