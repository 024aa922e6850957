package org.roce4j.wire.decode;

import org.roce4j.wire.ExtHeader;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.Operation;
import org.roce4j.wire.RoceFrameParser;
import org.roce4j.wire.header.AethHeader;
import org.roce4j.wire.header.AtomicEthHeader;
import org.roce4j.wire.header.BthHeader;
import org.roce4j.wire.header.EthernetHeader;
import org.roce4j.wire.header.Ipv4Header;
import org.roce4j.wire.header.Ipv6Header;
import org.roce4j.wire.header.RethHeader;

/**
 * The summary style of the {@link FrameDecoder}: one line per frame with number, time, addresses, opcode, QPN, PSN,
 * the key fields of each extension header, a MAD's summary and the ICRC verdict. Package private: the decoder's own
 * plumbing; it allocates freely while formatting.
 */
final class SummaryPrinter
{
    private final Text text;
    private final DecodedFrame frame;
    private final RoceFrameParser parser;
    private final MadPrinter madPrinter;
    private boolean numbered = true;
    private boolean icrcUnverifiable;

    /**
     * @param text       where the line goes.
     * @param frame      the frame being decoded and its ICRC verdict.
     * @param madPrinter summarizes MADs inside UD packets to QP1.
     */
    SummaryPrinter(final Text text, final DecodedFrame frame, final MadPrinter madPrinter)
    {
        this.text = text;
        this.frame = frame;
        this.parser = frame.parser();
        this.madPrinter = madPrinter;
    }

    /**
     * @param numbered false to leave the frame number and time out of each line.
     */
    void numbered(final boolean numbered)
    {
        this.numbered = numbered;
    }

    /**
     * @param unverifiable true to print {@code icrc=unverified} instead of a verdict.
     */
    void icrcUnverifiable(final boolean unverifiable)
    {
        this.icrcUnverifiable = unverifiable;
    }

    void summaryPrefix(final long frameNumber, final long timestampNs)
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
        final String time = FrameDecoder.NO_TIMESTAMP == timestampNs ? "-" : frame.relativeSeconds(timestampNs);
        for (int i = time.length(); i < 11; i++)
        {
            sb.append(' ');
        }
        sb.append(time).append("  ");
    }

    void summaryLine(final long frameNumber, final long timestampNs, final FrameStatus status,
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
            else if (frame.icrcCorrect())
            {
                sb.append("ok");
            }
            else
            {
                sb.append("BAD(should be ").append(Text.hex(frame.expectedIcrc() & 0xFFFF_FFFFL, 8))
                    .append(parser.rxeFlushIcrc() ? "; rxe's FLUSH ICRC" : "").append(')');
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
        sb.append(' ').append(DecodedFrame.opcodeName(bth.opcode()))
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
        if (!DecodedFrame.headersParsed(status))
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
            if (frame.isMad(opcode))
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
}
