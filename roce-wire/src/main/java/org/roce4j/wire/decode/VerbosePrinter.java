package org.roce4j.wire.decode;

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

/**
 * The verbose style of the {@link FrameDecoder}, in the spirit of {@code tshark -V}: a block per frame with every
 * field of Ethernet (and 802.1Q), IPv4 or IPv6, UDP, the BTH (reserved bits included), each extension header, the
 * payload (MADs through the {@link MadPrinter}) and the ICRC with its verdict, and the status of a broken frame.
 * Package private: the decoder's own plumbing; it allocates freely while formatting.
 */
final class VerbosePrinter
{
    /** Bytes of payload shown in the verbose preview line. */
    private static final int PAYLOAD_PREVIEW_BYTES = 16;
    private static final DateTimeFormatter TIME_FORMAT =
        DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSSSSS 'UTC'").withZone(ZoneOffset.UTC);
    private static final String[] ECN_NAMES = {"Not-ECT", "ECT(1)", "ECT(0)", "CE"};

    private final Text text;
    private final DecodedFrame frame;
    private final RoceFrameParser parser;
    private final MadPrinter madPrinter;

    /**
     * @param text       where the lines go.
     * @param frame      the frame being decoded and its ICRC verdict.
     * @param madPrinter prints MADs inside UD packets to QP1.
     */
    VerbosePrinter(final Text text, final DecodedFrame frame, final MadPrinter madPrinter)
    {
        this.text = text;
        this.frame = frame;
        this.parser = frame.parser();
        this.madPrinter = madPrinter;
    }

    void frameLine(final long frameNumber, final long timestampNs, final int wireLength)
    {
        final StringBuilder sb = text.builder();
        sb.append("Frame ").append(frameNumber).append(" (").append(wireLength).append(" bytes");
        if (FrameDecoder.NO_TIMESTAMP != timestampNs)
        {
            sb.append(", +").append(frame.relativeSeconds(timestampNs)).append(" s");
        }
        sb.append(')');
    }

    void verbose(
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
        if (FrameDecoder.NO_TIMESTAMP != timestampNs)
        {
            sb.append(", ").append(TIME_FORMAT.format(Instant.ofEpochSecond(0, timestampNs)))
                .append(" (+").append(frame.relativeSeconds(timestampNs)).append(" s)");
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
        if (DecodedFrame.headersParsed(status))
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
                Math.max(0, frame.icrcOffset() - parser.bthOffset() - BthHeader.LENGTH) + ")");
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
        text.field("Opcode", Text.hex(bth.opcode(), 2) + " " + DecodedFrame.opcodeName(bth.opcode()));
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
            final int dataAndPad = frame.icrcOffset() - parser.payloadOffset();
            text.section("Data and pad: " + dataAndPad + " bytes, PadCnt " + parser.bth().padCount());
            return;
        }
        if (!opcode.hasPayload())
        {
            return;
        }
        final int length = parser.payloadLength();
        text.section("Payload: " + length + " bytes, pad " + parser.padCount());
        if (frame.isMad(opcode))
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
        final String carried = Text.hex(frame.carriedIcrc() & 0xFFFF_FFFFL, 8) + " (wire bytes " +
            Text.hexBytes(parser.buffer(), frame.icrcOffset(), Icrc.LENGTH, Icrc.LENGTH) + ")";
        text.section("Invariant CRC: " + carried + (frame.icrcCorrect() ? " [correct]" :
            " [incorrect, should be " + Text.hex(frame.expectedIcrc() & 0xFFFF_FFFFL, 8) + "]" +
            (parser.rxeFlushIcrc() ? " [rxe's FLUSH ICRC: the headers counted twice, rxe_opcode.c gives RC_FLUSH no " +
            "payload offset]" : "")));
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
}
