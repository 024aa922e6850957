package org.roce4j.interop;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.agrona.concurrent.UnsafeBuffer;
import org.pcap4j.core.BpfProgram;
import org.pcap4j.core.NotOpenException;
import org.pcap4j.core.PcapHandle;
import org.pcap4j.core.PcapNativeException;
import org.pcap4j.core.PcapNetworkInterface;
import org.pcap4j.core.PcapStat;
import org.roce4j.transport.link.pcap.PcapReaderThread;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.Operation;
import org.roce4j.wire.RoceFrameParser;
import org.roce4j.wire.pcap.PcapWriter;

/**
 * Watches the tap of a tap-mode rxe peer from inside its namespace (Pcap4J, both directions, BPF
 * {@code udp port 4791}) while a test runs, so what really crossed the wire is checked whatever link roce4j used:
 * every RoCEv2 frame's ICRC (the only check of rxe's ICRCs when roce4j's side is a kernel UDP socket, which cannot
 * see them), the IPv4 identification and DF of the frames sent to the guest (the kernel writes those for the udp
 * link: they must be 0 and set, or rxe drops the frame), and the SEND payload bytes each way. The first
 * {@value #PCAP_LIMIT_BYTES} bytes of frames also go to a pcap file for a human to look at.
 */
final class TapCapture implements AutoCloseable
{
    /** How much of the capture is written to the pcap file: enough for the first thousands of frames. */
    static final long PCAP_LIMIT_BYTES = 16L << 20;
    /** Capture snapshot length: a 9000-byte IP MTU frame fits whole. */
    private static final int SNAPLEN = 65535;
    /** Kernel capture buffer: some 3,500 jumbo frames. */
    private static final int BUFFER_BYTES = 32 << 20;
    /** pcap read timeout; {@link #close()} wakes the reader with pcap_breakloop in any case. */
    private static final int READ_TIMEOUT_MS = 50;
    /** Problems quoted in full in {@link Summary#problems()}. */
    private static final int MAX_PROBLEMS = 5;
    /** How long opening the capture may take. */
    private static final long OPEN_TIMEOUT_S = 30;

    /**
     * What the capture saw.
     *
     * @param framesToGuest       RoCEv2 frames towards the guest.
     * @param framesFromGuest     RoCEv2 frames from the guest.
     * @param sendBytesToGuest    SEND payload bytes towards the guest (retransmissions included).
     * @param sendBytesFromGuest  SEND payload bytes from the guest (retransmissions included).
     * @param badFrames           frames that failed to parse or carried a bad ICRC.
     * @param kernelHeaderToGuest frames towards the guest with IPv4 identification 0 and DF set.
     * @param captureDrops        frames the capture lost (libpcap's drop counts); byte and frame counts are lower
     *                            bounds then.
     * @param problems            the first few bad frames, described.
     * @param pcap                the file holding the start of the capture.
     */
    record Summary(
        long framesToGuest,
        long framesFromGuest,
        long sendBytesToGuest,
        long sendBytesFromGuest,
        long badFrames,
        long kernelHeaderToGuest,
        long captureDrops,
        List<String> problems,
        Path pcap)
    {
        /**
         * @return a one-line account.
         */
        public String toString()
        {
            return "tap capture: " + framesToGuest + " RoCE frames to the guest (" + sendBytesToGuest +
                " SEND payload bytes, " + kernelHeaderToGuest + " with IPv4 ID 0 and DF), " + framesFromGuest +
                " from it (" + sendBytesFromGuest + " SEND payload bytes), " + badFrames + " bad, " + captureDrops +
                " lost by the capture; start in " + pcap + (problems.isEmpty() ? "" : "; problems: " + problems);
        }
    }

    private final long guestMac;
    private final Path pcap;
    private final RoceFrameParser parser = new RoceFrameParser();
    private final UnsafeBuffer frameView = new UnsafeBuffer(new byte[0]);
    private final List<String> problems = new ArrayList<>();
    private final CompletableFuture<PcapHandle> opened = new CompletableFuture<>();
    private PcapHandle handle;
    private Thread reader;
    private PcapWriter writer;
    private long pcapBytes;
    private volatile boolean running = true;
    private long index;
    private long framesToGuest;
    private long framesFromGuest;
    private long sendBytesToGuest;
    private long sendBytesFromGuest;
    private long badFrames;
    private long kernelHeaderToGuest;
    private Summary summary;

    private TapCapture(final long guestMac, final Path pcap)
    {
        this.guestMac = guestMac;
        this.pcap = pcap;
    }

    /**
     * @return the pcap file it writes.
     */
    Path file()
    {
        return pcap;
    }

    /**
     * Start watching; returns once the capture is open, so no frame sent afterwards is missed.
     *
     * @param network   the peer's tap network.
     * @param guestMac  the MAC of the guest's RoCE NIC (tells the directions apart, over IPv4 and IPv6).
     * @param pcapName  file name (without extension) under {@code interop-tests/target/pcaps}.
     * @return the running capture.
     * @throws IOException when the pcap file or the capture cannot be opened.
     */
    static TapCapture start(final TapNetwork network, final long guestMac, final String pcapName)
        throws IOException
    {
        final Path pcap = PeerTools.targetDir().resolve("pcaps").resolve(pcapName + ".pcap");
        Files.createDirectories(pcap.getParent());
        final TapCapture capture = new TapCapture(guestMac, pcap);
        capture.writer = new PcapWriter(pcap);
        capture.reader = network.startThread("tap-capture-" + pcapName, () -> capture.run(network.tap()));
        try
        {
            capture.handle = capture.opened.get(OPEN_TIMEOUT_S, TimeUnit.SECONDS);
        }
        catch (final ExecutionException ex)
        {
            capture.writer.close();
            throw new IOException("cannot capture on " + network.tap() + " in " + network.name() + ": " +
                ex.getCause().getMessage(), ex.getCause());
        }
        catch (final TimeoutException ex)
        {
            capture.writer.close();
            throw new IOException("capture on " + network.tap() + " did not open within " + OPEN_TIMEOUT_S + " s", ex);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            capture.writer.close();
            throw new IOException("interrupted opening the capture", ex);
        }
        return capture;
    }

    /**
     * Stop (idempotent) and account.
     *
     * @return what was seen.
     */
    synchronized Summary stop()
    {
        if (null != summary)
        {
            return summary;
        }
        running = false;
        PcapReaderThread.stop(handle, reader, READ_TIMEOUT_MS);
        long drops = 0;
        try
        {
            final PcapStat stats = handle.getStats();
            drops = stats.getNumPacketsDropped() + stats.getNumPacketsDroppedByIf();
        }
        catch (final PcapNativeException | NotOpenException ex)
        {
            problems.add("no capture statistics: " + ex.getMessage());
            drops = -1;
        }
        handle.close();
        try
        {
            writer.close();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot finish " + pcap, ex);
        }
        summary = new Summary(framesToGuest, framesFromGuest, sendBytesToGuest, sendBytesFromGuest, badFrames,
            kernelHeaderToGuest, drops, List.copyOf(problems), pcap);
        return summary;
    }

    /**
     * Same as {@link #stop()}, for try-with-resources.
     */
    public void close()
    {
        stop();
    }

    /**
     * The reader thread, already inside the namespace.
     */
    private void run(final String tap)
    {
        final PcapHandle capture;
        try
        {
            capture = new PcapHandle.Builder(tap)
                .snaplen(SNAPLEN)
                .promiscuousMode(PcapNetworkInterface.PromiscuousMode.NONPROMISCUOUS)
                .timeoutMillis(READ_TIMEOUT_MS)
                .bufferSize(BUFFER_BYTES)
                .immediateMode(true)
                .build();
            capture.setFilter("udp port 4791", BpfProgram.BpfCompileMode.OPTIMIZE);
        }
        catch (final PcapNativeException | NotOpenException | RuntimeException ex)
        {
            opened.completeExceptionally(ex);
            return;
        }
        opened.complete(capture);
        try
        {
            while (running)
            {
                final byte[] frame = capture.getNextRawPacket();
                if (null != frame)
                {
                    onFrame(frame, capture.getTimestamp());
                }
            }
        }
        catch (final NotOpenException ex)
        {
            // Closed by stop().
        }
    }

    private void onFrame(final byte[] frame, final Timestamp timestamp)
    {
        final long frameIndex = index++;
        if (pcapBytes < PCAP_LIMIT_BYTES)
        {
            pcapBytes += frame.length;
            try
            {
                writer.write(frame, (timestamp.getTime() / 1000) * 1_000_000_000L + timestamp.getNanos());
            }
            catch (final IOException ex)
            {
                problem("cannot write " + pcap + ": " + ex.getMessage());
                pcapBytes = PCAP_LIMIT_BYTES;
            }
        }
        frameView.wrap(frame);
        final FrameStatus status = parser.parse(frameView, 0, frame.length);
        if (status.isNotRoce())
        {
            return;
        }
        final boolean fromGuest = guestMac == parser.ethernet().source();
        if (FrameStatus.OK != status)
        {
            badFrames++;
            problem("frame " + frameIndex + (fromGuest ? " from" : " to") + " the guest: " + status);
            return;
        }
        final long sendBytes = Operation.SEND == parser.opcode().operation() ? parser.payloadLength() : 0;
        if (fromGuest)
        {
            framesFromGuest++;
            sendBytesFromGuest += sendBytes;
        }
        else
        {
            framesToGuest++;
            sendBytesToGuest += sendBytes;
            if (4 == parser.ipVersion() && 0 == parser.ipv4().identification() && parser.ipv4().dontFragment())
            {
                kernelHeaderToGuest++;
            }
        }
    }

    private void problem(final String text)
    {
        if (problems.size() < MAX_PROBLEMS)
        {
            problems.add(text);
        }
    }
}
