package org.roce4j.wire.decode;

import java.io.IOException;
import java.io.UncheckedIOException;

import org.agrona.MutableDirectBuffer;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.RoceFrameParser;
import org.roce4j.wire.pcap.LinkType;

/**
 * Prints frames for humans, in the spirit of {@code tshark -V} but for RoCEv2: every field of Ethernet (and
 * 802.1Q), IPv4 or IPv6, UDP, the BTH (reserved bits included), each extension header, the payload and the ICRC
 * with its verdict; inside UD packets to QP1 the MAD header and the CM message with the RDMA CM header. Frames that
 * are not RoCEv2 get one line each; broken RoCEv2 frames print what parsed and the {@link FrameStatus} reason.
 *
 * <p>Two styles: verbose (default, a block per frame) and {@linkplain #summary(boolean) summary} (one line per
 * frame: number, time, addresses, opcode, QPN, PSN, key fields, ICRC verdict). Either can be followed by a
 * {@linkplain #hexDump(boolean) hex dump}. The decoder counts what it saw; {@link #summaryLine()} is the contract
 * line {@code summary: frames=N roce=M icrc_ok=K icrc_bad=B} where a RoCEv2 frame is a UDP/4791 packet whose BTH
 * was reached, and every RoCEv2 frame lands in exactly one of icrc_ok and icrc_bad.
 *
 * <p>This is a tool, not the data path: it allocates freely while formatting. Each frame's text is built in memory
 * and written to the {@link Appendable} in one call; an {@link IOException} from it is rethrown as
 * {@link UncheckedIOException}. Not thread safe.
 */
public final class FrameDecoder
{
    /** Pass as the timestamp of frames that have none (built in memory, pcapng simple packets). */
    public static final long NO_TIMESTAMP = Long.MIN_VALUE;

    private final Appendable out;
    private final Text text = new Text();
    private final DecodedFrame frame = new DecodedFrame();
    private final RoceFrameParser parser = frame.parser();
    private final MadPrinter madPrinter = new MadPrinter();
    private final VerbosePrinter verbosePrinter = new VerbosePrinter(text, frame, madPrinter);
    private final SummaryPrinter summaryPrinter = new SummaryPrinter(text, frame, madPrinter);

    private boolean summary;
    private boolean hexDump;
    private boolean lastWasBlock;
    private long frames;
    private long roceFrames;
    private long icrcOk;
    private long icrcBad;

    /**
     * @param out where the text goes (a PrintStream, PrintWriter, StringBuilder...).
     */
    public FrameDecoder(final Appendable out)
    {
        this.out = out;
    }

    /**
     * @param summary true for one line per frame instead of a block.
     * @return this.
     */
    public FrameDecoder summary(final boolean summary)
    {
        this.summary = summary;
        return this;
    }

    /**
     * In summary mode, whether each line starts with the frame number and time (default) or with the packet
     * description alone (for callers that print their own prefix, such as the live demo).
     *
     * @param numbered false to leave the number and time out.
     * @return this.
     */
    public FrameDecoder numbered(final boolean numbered)
    {
        summaryPrinter.numbered(numbered);
        return this;
    }

    /**
     * For frames whose ICRC cannot be checked (the kernel UDP link rebuilds received frames around the UDP payload,
     * so their IP header is not the one the sender's ICRC covers): the summary says {@code icrc=unverified} instead
     * of judging it. Applies to the following {@link #decode} calls.
     *
     * @param unverifiable true when the next frames' ICRCs cannot be checked.
     * @return this.
     */
    public FrameDecoder icrcUnverifiable(final boolean unverifiable)
    {
        summaryPrinter.icrcUnverifiable(unverifiable);
        return this;
    }

    /**
     * @param hexDump true to follow each frame with a hex dump of its captured bytes.
     * @return this.
     */
    public FrameDecoder hexDump(final boolean hexDump)
    {
        this.hexDump = hexDump;
        return this;
    }

    /**
     * Decode and print one Ethernet frame.
     *
     * @param frameNumber    1-based, as printed.
     * @param timestampNs    capture time in ns since the epoch, or {@link #NO_TIMESTAMP}.
     * @param buffer         holding the frame.
     * @param offset         of the Ethernet header.
     * @param capturedLength bytes of the frame available.
     * @param originalLength bytes the frame had on the wire (at least capturedLength).
     * @return the parser's verdict on the frame.
     */
    public FrameStatus decode(
        final long frameNumber,
        final long timestampNs,
        final MutableDirectBuffer buffer,
        final int offset,
        final int capturedLength,
        final int originalLength)
    {
        frames++;
        frame.noteTimestamp(timestampNs);
        final FrameStatus status = parser.parse(buffer, offset, capturedLength, true);
        final boolean roce = reachedBth(status);
        if (roce)
        {
            checkIcrc(buffer);
        }
        text.reset();
        final boolean block;
        if (summary)
        {
            summaryPrinter.summaryLine(frameNumber, timestampNs, status, roce);
            block = false;
        }
        else if (roce || !(status.isNotRoce() || FrameStatus.TRUNCATED_ETHERNET == status))
        {
            verbosePrinter.verbose(frameNumber, timestampNs, capturedLength, Math.max(originalLength, capturedLength),
                status, roce);
            block = true;
        }
        else
        {
            verbosePrinter.frameLine(frameNumber, timestampNs, Math.max(originalLength, capturedLength));
            text.builder().append(": ").append(NonRoceDescriber.describe(parser)).append('\n');
            block = false;
        }
        if (hexDump)
        {
            Text.hexDump(text.builder(), buffer, offset, capturedLength);
        }
        flush(block || hexDump);
        return status;
    }

    /**
     * Report a record whose link type is not Ethernet: one line, counted as a frame but not decoded.
     *
     * @param frameNumber    1-based.
     * @param timestampNs    capture time or {@link #NO_TIMESTAMP}.
     * @param linkType       the record's pcap link type.
     * @param capturedLength bytes of the record.
     */
    public void unsupportedLinkType(
        final long frameNumber, final long timestampNs, final int linkType, final int capturedLength)
    {
        frames++;
        frame.noteTimestamp(timestampNs);
        text.reset();
        if (summary)
        {
            summaryPrinter.summaryPrefix(frameNumber, timestampNs);
        }
        else
        {
            verbosePrinter.frameLine(frameNumber, timestampNs, capturedLength);
            text.builder().append(": ");
        }
        text.builder().append("link type ").append(linkType).append(linkTypeName(linkType))
            .append(" not decoded (only Ethernet, link type 1, is)\n");
        flush(false);
    }

    /**
     * @return records seen.
     */
    public long frames()
    {
        return frames;
    }

    /**
     * @return RoCEv2 frames: UDP/4791 packets whose BTH was reached.
     */
    public long roceFrames()
    {
        return roceFrames;
    }

    /**
     * @return RoCEv2 frames whose ICRC verified.
     */
    public long icrcOk()
    {
        return icrcOk;
    }

    /**
     * @return RoCEv2 frames whose ICRC was wrong.
     */
    public long icrcBad()
    {
        return icrcBad;
    }

    /**
     * @return {@code summary: frames=N roce=M icrc_ok=K icrc_bad=B} (no newline).
     */
    public String summaryLine()
    {
        return "summary: frames=" + frames + " roce=" + roceFrames + " icrc_ok=" + icrcOk + " icrc_bad=" + icrcBad;
    }

    /**
     * Print {@link #summaryLine()} and a newline.
     */
    public void printSummaryLine()
    {
        text.reset();
        text.builder().append(summaryLine()).append('\n');
        flush(false);
    }

    /**
     * @param status from the parser.
     * @return true when the packet went to UDP port 4791 and was long enough for its BTH to be read.
     */
    public static boolean reachedBth(final FrameStatus status)
    {
        switch (status)
        {
            case OK:
            case UNKNOWN_OPCODE:
            case BAD_TRANSPORT_VERSION:
            case TRUNCATED_HEADERS:
            case UNEXPECTED_PAYLOAD:
            case PAD_INCONSISTENT:
            case BAD_ICRC:
                return true;
            default:
                return false;
        }
    }

    private void checkIcrc(final MutableDirectBuffer buffer)
    {
        roceFrames++;
        if (frame.checkIcrc(buffer))
        {
            icrcOk++;
        }
        else
        {
            icrcBad++;
        }
    }

    private void flush(final boolean block)
    {
        final StringBuilder sb = text.builder();
        try
        {
            if (block && frames > 1 && !lastWasBlock)
            {
                out.append('\n');
            }
            if (block)
            {
                sb.append('\n');
            }
            out.append(sb);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        lastWasBlock = block;
    }

    private static String linkTypeName(final int linkType)
    {
        switch (linkType)
        {
            case LinkType.RAW:
                return " (raw IP)";
            case LinkType.LINUX_SLL:
                return " (Linux cooked capture, tcpdump -i any)";
            case 276:
                return " (Linux cooked capture v2)";
            case 0:
                return " (BSD loopback)";
            case 105:
                return " (IEEE 802.11)";
            case 127:
                return " (802.11 radiotap)";
            default:
                return "";
        }
    }
}
