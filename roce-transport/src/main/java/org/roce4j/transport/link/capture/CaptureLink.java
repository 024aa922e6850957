package org.roce4j.transport.link.capture;

import java.io.IOException;
import java.nio.file.Path;

import org.agrona.concurrent.NanoClock;
import org.roce4j.transport.link.ForwardingLink;
import org.roce4j.transport.link.Link;

/**
 * Records every frame a link puts on and takes from its medium to a pcapng file, with its direction: the link's
 * decorator for {@code --pcap FILE}. It installs a {@link PcapngRecorder} through {@link Link#tapFrames}, so the file
 * holds the frames as they cross the medium (destination MACs filled in, the udp link's kernel rewrite applied), the
 * link's own ARP and Neighbor Discovery frames included; over a {@code FaultyLink} it sees outgoing frames after the
 * faults and incoming ones before. {@link #close()} closes the link, then the file.
 */
public final class CaptureLink extends ForwardingLink
{
    private final PcapngRecorder recorder;

    /**
     * @param delegate the link to record.
     * @param file     the pcapng file to create.
     * @param clock    time source of the timestamps.
     * @throws IOException              when the file cannot be created.
     * @throws IllegalArgumentException when the link cannot show its frames.
     */
    public CaptureLink(final Link delegate, final Path file, final NanoClock clock) throws IOException
    {
        super(delegate);
        recorder = PcapngRecorder.create(file, delegate.name(), clock);
        if (!delegate.tapFrames(recorder))
        {
            recorder.close();
            throw new IllegalArgumentException("link " + delegate.name() + " cannot show its frames for recording");
        }
    }

    /**
     * @return the recorder (its file and frame count).
     */
    public PcapngRecorder recorder()
    {
        return recorder;
    }

    /**
     * Close the link, then flush and close the file.
     *
     * @throws java.io.UncheckedIOException when recording failed.
     */
    public void close()
    {
        try
        {
            delegate.close();
        }
        finally
        {
            recorder.close();
        }
    }
}
