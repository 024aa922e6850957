package org.roce4j.wire.decode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

import org.agrona.MutableDirectBuffer;
import org.roce4j.wire.ExtHeader;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.Icrc;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.Operation;
import org.roce4j.wire.RoceFrameParser;
import org.roce4j.wire.Transport;
import org.roce4j.wire.addr.Mac;
import org.roce4j.wire.header.AethHeader;
import org.roce4j.wire.header.AtomicEthHeader;
import org.roce4j.wire.header.BthHeader;
import org.roce4j.wire.header.DethHeader;
import org.roce4j.wire.header.EthernetHeader;
import org.roce4j.wire.header.FethHeader;
import org.roce4j.wire.header.Ipv4Header;
import org.roce4j.wire.header.Ipv6Header;
import org.roce4j.wire.header.RethHeader;
import org.roce4j.wire.header.UdpHeader;
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

    /** Bytes of payload shown in the verbose preview line. */
    private static final int PAYLOAD_PREVIEW_BYTES = 16;
    private static final DateTimeFormatter TIME_FORMAT =
        DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSSSSS 'UTC'").withZone(ZoneOffset.UTC);
    private static final String[] ECN_NAMES = {"Not-ECT", "ECT(1)", "ECT(0)", "CE"};

    private final Appendable out;
    private final RoceFrameParser parser = new RoceFrameParser();
    private final Icrc icrc = new Icrc();
    private final MadPrinter madPrinter = new MadPrinter();
    private final Text text = new Text();

    private boolean summary;
    private boolean numbered = true;
    private boolean hexDump;
    private boolean icrcUnverifiable;
    private boolean lastWasBlock;
    private long firstTimestampNs = NO_TIMESTAMP;
    private long frames;
    private long roceFrames;
    private long icrcOk;
    private long icrcBad;

    private int icrcOffset;
    private int carriedIcrc;
    private int expectedIcrc;

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
        this.numbered = numbered;
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
        this.icrcUnverifiable = unverifiable;
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
        noteTimestamp(timestampNs);
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
            summaryLine(frameNumber, timestampNs, status, roce);
            block = false;
        }
        else if (roce || !(status.isNotRoce() || FrameStatus.TRUNCATED_ETHERNET == status))
        {
            verbose(frameNumber, timestampNs, capturedLength, Math.max(originalLength, capturedLength), status, roce);
            block = true;
        }
        else
        {
            frameLine(frameNumber, timestampNs, Math.max(originalLength, capturedLength));
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
        noteTimestamp(timestampNs);
        text.reset();
        if (summary)
        {
            summaryPrefix(frameNumber, timestampNs);
        }
        else
        {
            frameLine(frameNumber, timestampNs, capturedLength);
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

    private void noteTimestamp(final long timestampNs)
    {
        if (NO_TIMESTAMP == firstTimestampNs && NO_TIMESTAMP != timestampNs)
        {
            firstTimestampNs = timestampNs;
        }
    }

    private void checkIcrc(final MutableDirectBuffer buffer)
    {
        icrcOffset = parser.udpOffset() + parser.udp().datagramLength() - Icrc.LENGTH;
        carriedIcrc = Icrc.read(buffer, icrcOffset);
        expectedIcrc = parser.icrcVerified() ? parser.computedIcrc() :
            icrc.compute(buffer, parser.ipOffset(), parser.ipVersion(), parser.ipHeaderLength(), icrcOffset);
        roceFrames++;
        if (carriedIcrc == expectedIcrc)
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

    // ---------------------------------------------------------------------------------------------------------------
    // Verbose
    // ---------------------------------------------------------------------------------------------------------------

    private void frameLine(final long frameNumber, final long timestampNs, final int wireLength)
    {
        final StringBuilder sb = text.builder();
        sb.append("Frame ").append(frameNumber).append(" (").append(wireLength).append(" bytes");
        if (NO_TIMESTAMP != timestampNs)
        {
            sb.append(", +").append(relativeSeconds(timestampNs)).append(" s");
        }
        sb.append(')');
    }

    private void verbose(
        final long frameNumber,
        final long timestampNs,
        final int capturedLength,
        final int wireLength,
        final FrameStatus status,
        final boolean roce)
    {
        final StringBuilder sb = text.builder();
        sb.append("Frame ").append(frameNumber).append(": ").append(wireLength).append(" bytes on wire, ")
            .append(capturedLength).append(" bytes captured");
        if (NO_TIMESTAMP != timestampNs)
        {
            sb.append(", ").append(TIME_FORMAT.format(Instant.ofEpochSecond(0, timestampNs)))
                .append(" (+").append(relativeSeconds(timestampNs)).append(" s)");
        }
        sb.append('\n');

        printEthernet();
        if (FrameStatus.TRUNCATED_IP == status)
        {
            statusLine(status);
            return;
        }
        if (4 == parser.ipVersion())
        {
            printIpv4(status);
        }
        else
        {
            printIpv6();
        }
        if (!roce && FrameStatus.UDP_LENGTH_MISMATCH != status && FrameStatus.TRUNCATED_BTH != status)
        {
            statusLine(status);
            return;
        }
        printUdp();
        if (!roce)
        {
            statusLine(status);
            return;
        }
        printBth();
        final Opcode opcode = parser.opcode();
        final boolean headersParsed = FrameStatus.OK == status || FrameStatus.BAD_ICRC == status ||
            FrameStatus.UNEXPECTED_PAYLOAD == status || FrameStatus.PAD_INCONSISTENT == status;
        if (headersParsed)
        {
            for (int i = 0, n = opcode.extHeaderCount(); i < n; i++)
            {
                printExtHeader(opcode, opcode.extHeader(i));
            }
            printPayload(opcode, status);
        }
        else if (FrameStatus.TRUNCATED_HEADERS == status)
        {
            text.section("Extension headers: truncated (" + opcode.name() + " needs " +
                (opcode.headerLength() - BthHeader.LENGTH) + " bytes after the BTH, the packet has " +
                Math.max(0, icrcOffset - parser.bthOffset() - BthHeader.LENGTH) + ")");
        }
        printIcrc();
        if (FrameStatus.OK != status)
        {
            statusLine(status);
        }
    }

    private void statusLine(final FrameStatus status)
    {
        text.section("Status: " + status.name() + " (" + status.description() + ")");
    }

    private void printEthernet()
    {
        final EthernetHeader eth = parser.ethernet();
        final String destination = Mac.toString(eth.destination());
        final String source = Mac.toString(eth.source());
        text.section("Ethernet II, Src: " + source + ", Dst: " + destination);
        text.field("Destination", destination);
        text.field("Source", source);
        if (eth.hasVlanTag())
        {
            text.field("802.1Q Tag", "PCP " + eth.priority() + ", DEI " + (eth.dropEligible() ? 1 : 0) + ", VID " +
                eth.vlanId() + " (TPID 0x8100, TCI " + Text.hex(eth.tci(), 4) + ")");
        }
        final int etherType = eth.etherType();
        text.field("Type", etherTypeName(etherType) + " (" + Text.hex(etherType, 4) + ")");
    }

    private void printIpv4(final FrameStatus status)
    {
        final Ipv4Header ip = parser.ipv4();
        final String source = Ipv4Header.addressToString(ip.source());
        final String destination = Ipv4Header.addressToString(ip.destination());
        text.section("Internet Protocol Version 4, Src: " + source + ", Dst: " + destination);
        text.field(1, "Version", ip.version());
        text.field("Header Length", ip.headerLengthWords() * 4 + " bytes (" + ip.headerLengthWords() + ")");
        text.field("Differentiated Services", Text.hex(ip.tos(), 2) + " (DSCP " + ip.dscp() + ", ECN " + ip.ecn() +
            ": " + ECN_NAMES[ip.ecn()] + ")");
        text.field(1, "Total Length", ip.totalLength());
        text.field("Identification", Text.hex(ip.identification(), 4) + " (" + ip.identification() + ")");
        final int flags = ip.flagsAndFragmentOffset() >>> 13;
        text.field("Flags", Text.hex(flags, 1) + (ip.dontFragment() ? " (Don't fragment)" : "") +
            (ip.moreFragments() ? " (More fragments)" : ""));
        text.flag(2, "Reserved bit", 0 != (flags & 0x4));
        text.flag(2, "Don't fragment", ip.dontFragment());
        text.flag(2, "More fragments", ip.moreFragments());
        text.field(1, "Fragment Offset", ip.fragmentOffset());
        text.field(1, "Time to Live", ip.ttl());
        text.field("Protocol", (Ipv4Header.PROTOCOL_UDP == ip.protocol() ? "UDP" : "other") + " (" + ip.protocol() +
            ")");
        final String checksum = Text.hex(ip.checksum(), 4);
        // Before these two checks pass the header length is unknown, so the checksum cannot be computed safely.
        final boolean lengthKnown = FrameStatus.BAD_IP_VERSION != status && FrameStatus.BAD_IP_HEADER_LENGTH != status;
        if (!lengthKnown)
        {
            text.field("Header Checksum", checksum + " [not verified: " + status.description() + "]");
        }
        else
        {
            final int expected = ip.computeChecksum();
            text.field("Header Checksum", checksum + (expected == ip.checksum() ? " [correct]" :
                " [incorrect, should be " + Text.hex(expected, 4) + "]"));
        }
        text.field("Source Address", source);
        text.field("Destination Address", destination);
        final int optionsLength = lengthKnown ? parser.ipHeaderLength() - Ipv4Header.LENGTH : 0;
        if (lengthKnown && optionsLength > 0)
        {
            text.field("Options", optionsLength + " bytes: " +
                Text.hexBytes(parser.buffer(), parser.ipOffset() + Ipv4Header.LENGTH, optionsLength, 40));
        }
    }

    private void printIpv6()
    {
        final Ipv6Header ip = parser.ipv6();
        final String source = Ipv6Header.addressToString(ip.sourceHigh(), ip.sourceLow());
        final String destination = Ipv6Header.addressToString(ip.destinationHigh(), ip.destinationLow());
        text.section("Internet Protocol Version 6, Src: " + source + ", Dst: " + destination);
        text.field(1, "Version", ip.version());
        final int trafficClass = ip.trafficClass();
        text.field("Traffic Class", Text.hex(trafficClass, 2) + " (DSCP " + (trafficClass >>> 2) + ", ECN " +
            (trafficClass & 3) + ": " + ECN_NAMES[trafficClass & 3] + ")");
        text.field("Flow Label", Text.hex(ip.flowLabel(), 5));
        text.field(1, "Payload Length", ip.payloadLength());
        text.field("Next Header", (Ipv6Header.NEXT_HEADER_UDP == ip.nextHeader() ? "UDP" : "other") + " (" +
            ip.nextHeader() + ")");
        text.field(1, "Hop Limit", ip.hopLimit());
        text.field("Source Address", source);
        text.field("Destination Address", destination);
    }

    private void printUdp()
    {
        final UdpHeader udp = parser.udp();
        text.section("User Datagram Protocol, Src Port: " + udp.sourcePort() + ", Dst Port: " + udp.destinationPort());
        text.field(1, "Source Port", udp.sourcePort());
        text.field("Destination Port", udp.destinationPort() + " (RoCEv2)");
        text.field(1, "Length", udp.datagramLength());
        text.field("Checksum", Text.hex(udp.checksum(), 4) +
            (0 == udp.checksum() ? " (none; RoCEv2 relies on the ICRC)" : " [not verified]"));
    }

    private void printBth()
    {
        final BthHeader bth = parser.bth();
        final Opcode opcode = parser.opcode();
        text.section("Base Transport Header (BTH)");
        text.field("Opcode", Text.hex(bth.opcode(), 2) + " " + opcodeName(bth.opcode()));
        text.flag(1, "Solicited Event", bth.solicitedEvent());
        text.flag(1, "MigReq", bth.migReq());
        text.field(1, "Pad Count", bth.padCount());
        text.field(1, "Transport Header Version", bth.transportVersion());
        text.field("Partition Key", Text.hex(bth.pkey(), 4) +
            (BthHeader.DEFAULT_PKEY == bth.pkey() ? " (default, full membership)" : ""));
        text.flag(1, "FECN", bth.fecn());
        text.flag(1, "BECN", bth.becn());
        text.field("Reserved (6 bits)", Text.hex(bth.resv6a(), 2));
        text.field("Destination QP", Text.hex(bth.destQp(), 6) + " (" + bth.destQp() + ")" +
            (BthHeader.GSI_QPN == bth.destQp() ? " GSI" : ""));
        text.flag(1, "Acknowledge Request", bth.ackReq());
        text.field("Reserved (7 bits)", Text.hex(bth.resv7(), 2));
        text.field("Packet Sequence Number", bth.psn() + " (" + Text.hex(bth.psn(), 6) + ")");
        if (null != opcode && Transport.CNP == opcode.transport())
        {
            text.field("Note", "congestion notification for QP " + Text.hex(bth.destQp(), 6));
        }
    }

    private void printExtHeader(final Opcode opcode, final ExtHeader header)
    {
        switch (header)
        {
            case RETH:
            {
                final RethHeader reth = parser.reth();
                text.section("RDMA Extended Transport Header (RETH)");
                text.field("Virtual Address", Text.hex(reth.va(), 16));
                text.field("Remote Key", Text.hex(reth.rkey() & 0xFFFF_FFFFL, 8));
                text.field(1, "DMA Length", reth.dmaLength());
                break;
            }
            case AETH:
            {
                final AethHeader aeth = parser.aeth();
                final int syndrome = aeth.syndrome();
                text.section("ACK Extended Transport Header (AETH)");
                text.field("Syndrome", Text.hex(syndrome, 2) + " " + AethHeader.describe(syndrome));
                text.field(2, "Reserved bit", syndrome >>> 7);
                text.field(2, "Type", (AethHeader.type(syndrome) >>> 5) + " (" + aethTypeName(syndrome) + ")");
                text.field(2, "Value", AethHeader.value(syndrome));
                text.field("Message Sequence Number", aeth.msn() + " (" + Text.hex(aeth.msn(), 6) + ")");
                break;
            }
            case ATOMIC_ETH:
            {
                final AtomicEthHeader atomic = parser.atomicEth();
                text.section("Atomic Extended Transport Header (AtomicETH)");
                text.field("Virtual Address", Text.hex(atomic.va(), 16));
                text.field("Remote Key", Text.hex(atomic.rkey() & 0xFFFF_FFFFL, 8));
                text.field(Operation.FETCH_ADD == opcode.operation() ? "Add Data" : "Swap Data",
                    Text.hex(atomic.swapAdd(), 16));
                text.field("Compare Data", Text.hex(atomic.compare(), 16));
                break;
            }
            case ATOMIC_ACK_ETH:
                text.section("Atomic Acknowledge Extended Transport Header (AtomicAckETH)");
                text.field("Original Remote Data", Text.hex(parser.atomicAckEth().originalData(), 16));
                break;
            case DETH:
            {
                final DethHeader deth = parser.deth();
                final long qkey = deth.qkey() & 0xFFFF_FFFFL;
                text.section("Datagram Extended Transport Header (DETH)");
                text.field("Queue Key", Text.hex(qkey, 8) + (DethHeader.GSI_QKEY == deth.qkey() ? " (GSI QP1 Q_Key)" :
                    0 != (deth.qkey() & DethHeader.CONTROLLED_QKEY_BIT) ? " (controlled)" : ""));
                text.field("Reserved", Text.hex(deth.reserved(), 2));
                text.field("Source QP", Text.hex(deth.srcQp(), 6) + " (" + deth.srcQp() + ")");
                break;
            }
            case IMM_DT:
                text.section("Immediate Data (ImmDt)");
                text.field("Immediate Data", Text.hex(parser.immDt().immediate() & 0xFFFF_FFFFL, 8));
                break;
            case IETH:
                text.section("Invalidate Extended Transport Header (IETH)");
                text.field("R_Key to Invalidate", Text.hex(parser.ieth().rkey() & 0xFFFF_FFFFL, 8));
                break;
            case FETH:
            {
                final FethHeader feth = parser.feth();
                text.section("Flush Extended Transport Header (FETH)");
                text.field("Word", Text.hex(feth.word() & 0xFFFF_FFFFL, 8));
                text.field("Selectivity Level", feth.selectivityLevel() + " (" +
                    (0 == feth.selectivityLevel() ? "memory region range" : "whole memory region") + ")");
                text.field("Placement Type", feth.placementType() + " (" + placementName(feth.placementType()) + ")");
                break;
            }
            case CNP_RESERVED:
                text.section("CNP Reserved (16 bytes)");
                text.field("Reserved", Text.hexBytes(parser.buffer(), parser.extOffset(ExtHeader.CNP_RESERVED),
                    ExtHeader.CNP_RESERVED.length(), ExtHeader.CNP_RESERVED.length()));
                break;
            default:
                break;
        }
    }

    private void printPayload(final Opcode opcode, final FrameStatus status)
    {
        final MutableDirectBuffer buffer = parser.buffer();
        if (FrameStatus.UNEXPECTED_PAYLOAD == status || FrameStatus.PAD_INCONSISTENT == status)
        {
            final int dataAndPad = icrcOffset - parser.payloadOffset();
            text.section("Data and pad: " + dataAndPad + " bytes, PadCnt " + parser.bth().padCount());
            return;
        }
        if (!opcode.hasPayload())
        {
            return;
        }
        final int length = parser.payloadLength();
        text.section("Payload: " + length + " bytes, pad " + parser.padCount());
        if (isMad(opcode))
        {
            madPrinter.print(text, buffer, parser.payloadOffset(), length);
        }
        else if (length > 0)
        {
            text.field("Data", preview(buffer, parser.payloadOffset(), length));
        }
    }

    private void printIcrc()
    {
        final String carried = Text.hex(carriedIcrc & 0xFFFF_FFFFL, 8) + " (wire bytes " +
            Text.hexBytes(parser.buffer(), icrcOffset, Icrc.LENGTH, Icrc.LENGTH) + ")";
        text.section("Invariant CRC: " + carried + (carriedIcrc == expectedIcrc ? " [correct]" :
            " [incorrect, should be " + Text.hex(expectedIcrc & 0xFFFF_FFFFL, 8) + "]"));
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Summary
    // ---------------------------------------------------------------------------------------------------------------

    private void summaryPrefix(final long frameNumber, final long timestampNs)
    {
        if (!numbered)
        {
            return;
        }
        final StringBuilder sb = text.builder();
        final String number = Long.toString(frameNumber);
        for (int i = number.length(); i < 6; i++)
        {
            sb.append(' ');
        }
        sb.append(number).append(' ');
        final String time = NO_TIMESTAMP == timestampNs ? "-" : relativeSeconds(timestampNs);
        for (int i = time.length(); i < 11; i++)
        {
            sb.append(' ');
        }
        sb.append(time).append("  ");
    }

    private void summaryLine(final long frameNumber, final long timestampNs, final FrameStatus status,
        final boolean roce)
    {
        summaryPrefix(frameNumber, timestampNs);
        final StringBuilder sb = text.builder();
        if (!roce && (status.isNotRoce() || FrameStatus.TRUNCATED_ETHERNET == status))
        {
            sb.append(NonRoceDescriber.describe(parser)).append('\n');
            return;
        }
        final EthernetHeader eth = parser.ethernet();
        if (eth.hasVlanTag())
        {
            sb.append("[vlan ").append(eth.vlanId()).append("] ");
        }
        if (FrameStatus.TRUNCATED_IP == status)
        {
            sb.append("[").append(status.name()).append(": ").append(status.description()).append("]\n");
            return;
        }
        final boolean udpReached = roce || FrameStatus.UDP_LENGTH_MISMATCH == status ||
            FrameStatus.TRUNCATED_BTH == status;
        final String sourcePort = udpReached ? Integer.toString(parser.udp().sourcePort()) : null;
        if (4 == parser.ipVersion())
        {
            final Ipv4Header ip = parser.ipv4();
            sb.append(Ipv4Header.addressToString(ip.source()));
            if (null != sourcePort)
            {
                sb.append(':').append(sourcePort);
            }
            sb.append(" -> ").append(Ipv4Header.addressToString(ip.destination()));
        }
        else
        {
            final Ipv6Header ip = parser.ipv6();
            sb.append('[').append(Ipv6Header.addressToString(ip.sourceHigh(), ip.sourceLow())).append(']');
            if (null != sourcePort)
            {
                sb.append(':').append(sourcePort);
            }
            sb.append(" -> [").append(Ipv6Header.addressToString(ip.destinationHigh(), ip.destinationLow()))
                .append(']');
        }
        if (roce)
        {
            summarizeRoce(status);
            sb.append(" icrc=");
            if (icrcUnverifiable)
            {
                sb.append("unverified");
            }
            else if (carriedIcrc == expectedIcrc)
            {
                sb.append("ok");
            }
            else
            {
                sb.append("BAD(should be ").append(Text.hex(expectedIcrc & 0xFFFF_FFFFL, 8)).append(')');
            }
        }
        if (FrameStatus.OK != status && FrameStatus.BAD_ICRC != status)
        {
            sb.append(" [").append(status.name()).append(": ").append(status.description()).append(']');
        }
        sb.append('\n');
    }

    private void summarizeRoce(final FrameStatus status)
    {
        final StringBuilder sb = text.builder();
        final BthHeader bth = parser.bth();
        final Opcode opcode = parser.opcode();
        sb.append(' ').append(opcodeName(bth.opcode()))
            .append(" qp=").append(Text.hex(bth.destQp(), 6))
            .append(" psn=").append(bth.psn());
        if (bth.ackReq())
        {
            sb.append(" ackreq");
        }
        if (bth.solicitedEvent())
        {
            sb.append(" se");
        }
        if (bth.migReq())
        {
            sb.append(" mig");
        }
        if (bth.fecn())
        {
            sb.append(" fecn");
        }
        if (bth.becn())
        {
            sb.append(" becn");
        }
        if (BthHeader.DEFAULT_PKEY != bth.pkey())
        {
            sb.append(" pkey=").append(Text.hex(bth.pkey(), 4));
        }
        final boolean headersParsed = FrameStatus.OK == status || FrameStatus.BAD_ICRC == status ||
            FrameStatus.UNEXPECTED_PAYLOAD == status || FrameStatus.PAD_INCONSISTENT == status;
        if (!headersParsed)
        {
            return;
        }
        for (int i = 0, n = opcode.extHeaderCount(); i < n; i++)
        {
            summarizeExtHeader(sb, opcode, opcode.extHeader(i));
        }
        if (opcode.hasPayload() && (FrameStatus.OK == status || FrameStatus.BAD_ICRC == status))
        {
            sb.append(" len=").append(parser.payloadLength());
            if (isMad(opcode))
            {
                madPrinter.summarize(sb, parser.buffer(), parser.payloadOffset(), parser.payloadLength());
            }
        }
    }

    private void summarizeExtHeader(final StringBuilder sb, final Opcode opcode, final ExtHeader header)
    {
        switch (header)
        {
            case RETH:
            {
                final RethHeader reth = parser.reth();
                sb.append(" va=").append(Text.hex(reth.va(), 16))
                    .append(" rkey=").append(Text.hex(reth.rkey() & 0xFFFF_FFFFL, 8))
                    .append(" dmalen=").append(reth.dmaLength());
                break;
            }
            case AETH:
            {
                final int syndrome = parser.aeth().syndrome();
                final int value = AethHeader.value(syndrome);
                switch (AethHeader.type(syndrome))
                {
                    case AethHeader.TYPE_ACK:
                        sb.append(" ACK credits=").append(AethHeader.CREDIT_CODE_UNLIMITED == value ? "unlimited" :
                            Integer.toString(AethHeader.credits(value)));
                        break;
                    case AethHeader.TYPE_RNR_NAK:
                        sb.append(" RNR_NAK timer=").append(value).append(" (")
                            .append(Text.duration(AethHeader.rnrTimerNs(value))).append(')');
                        break;
                    case AethHeader.TYPE_NAK:
                    {
                        final AethHeader.NakCode nak = AethHeader.NakCode.of(value);
                        sb.append(" NAK ").append(null == nak ? "reserved code " + value : nak.name());
                        break;
                    }
                    default:
                        sb.append(" syndrome=").append(Text.hex(syndrome, 2)).append("(reserved)");
                        break;
                }
                sb.append(" msn=").append(parser.aeth().msn());
                break;
            }
            case ATOMIC_ETH:
            {
                final AtomicEthHeader atomic = parser.atomicEth();
                sb.append(" va=").append(Text.hex(atomic.va(), 16))
                    .append(" rkey=").append(Text.hex(atomic.rkey() & 0xFFFF_FFFFL, 8))
                    .append(Operation.FETCH_ADD == opcode.operation() ? " add=" : " swap=")
                    .append(Text.hex(atomic.swapAdd(), 16));
                if (Operation.COMPARE_SWAP == opcode.operation())
                {
                    sb.append(" compare=").append(Text.hex(atomic.compare(), 16));
                }
                break;
            }
            case ATOMIC_ACK_ETH:
                sb.append(" orig=").append(Text.hex(parser.atomicAckEth().originalData(), 16));
                break;
            case DETH:
                sb.append(" qkey=").append(Text.hex(parser.deth().qkey() & 0xFFFF_FFFFL, 8))
                    .append(" srcqp=").append(Text.hex(parser.deth().srcQp(), 6));
                break;
            case IMM_DT:
                sb.append(" imm=").append(Text.hex(parser.immDt().immediate() & 0xFFFF_FFFFL, 8));
                break;
            case IETH:
                sb.append(" inv_rkey=").append(Text.hex(parser.ieth().rkey() & 0xFFFF_FFFFL, 8));
                break;
            case FETH:
                sb.append(" sel=").append(parser.feth().selectivityLevel())
                    .append(" plt=").append(parser.feth().placementType());
                break;
            default:
                break;
        }
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Helpers
    // ---------------------------------------------------------------------------------------------------------------

    private boolean isMad(final Opcode opcode)
    {
        return Transport.UD == opcode.transport() && BthHeader.GSI_QPN == parser.bth().destQp();
    }

    private String relativeSeconds(final long timestampNs)
    {
        final long delta = timestampNs - firstTimestampNs;
        final long micros = delta / 1000;
        final StringBuilder sb = new StringBuilder(16);
        if (micros < 0)
        {
            sb.append('-');
        }
        final long abs = Math.abs(micros);
        sb.append(abs / 1_000_000).append('.');
        final String fraction = Long.toString(abs % 1_000_000);
        for (int i = fraction.length(); i < 6; i++)
        {
            sb.append('0');
        }
        return sb.append(fraction).toString();
    }

    private static String opcodeName(final int code)
    {
        final Opcode opcode = Opcode.of(code);
        return null == opcode ? "unknown opcode" : opcode.name();
    }

    private static String preview(final MutableDirectBuffer buffer, final int offset, final int length)
    {
        final int shown = Math.min(length, PAYLOAD_PREVIEW_BYTES);
        final StringBuilder sb = new StringBuilder(Text.hexBytes(buffer, offset, length, PAYLOAD_PREVIEW_BYTES));
        sb.append("  \"");
        for (int i = 0; i < shown; i++)
        {
            final int b = buffer.getByte(offset + i) & 0xFF;
            sb.append(b >= 0x20 && b < 0x7F ? (char)b : '.');
        }
        sb.append(length > shown ? "\"..." : "\"");
        return sb.toString();
    }

    private static String aethTypeName(final int syndrome)
    {
        switch (AethHeader.type(syndrome))
        {
            case AethHeader.TYPE_ACK:
                return "ACK";
            case AethHeader.TYPE_RNR_NAK:
                return "RNR NAK";
            case AethHeader.TYPE_NAK:
                return "NAK";
            default:
                return "reserved";
        }
    }

    private static String placementName(final int placementType)
    {
        switch (placementType)
        {
            case FethHeader.PLACEMENT_GLOBAL:
                return "global visibility";
            case FethHeader.PLACEMENT_PERSISTENT:
                return "persistence";
            case FethHeader.PLACEMENT_GLOBAL | FethHeader.PLACEMENT_PERSISTENT:
                return "global visibility and persistence";
            default:
                return "reserved";
        }
    }

    private static String etherTypeName(final int etherType)
    {
        switch (etherType)
        {
            case EthernetHeader.ETHERTYPE_IPV4:
                return "IPv4";
            case EthernetHeader.ETHERTYPE_IPV6:
                return "IPv6";
            case EthernetHeader.ETHERTYPE_ARP:
                return "ARP";
            default:
                return "other";
        }
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
