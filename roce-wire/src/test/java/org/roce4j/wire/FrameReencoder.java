package org.roce4j.wire;

import org.agrona.MutableDirectBuffer;
import org.roce4j.wire.header.BthHeader;
import org.roce4j.wire.header.EthernetHeader;
import org.roce4j.wire.header.Ipv4Header;
import org.roce4j.wire.header.Ipv6Header;

/**
 * Rebuilds a parsed frame with {@link RoceFrameBuilder} from its parsed field values only, so tests can check that
 * parsing and building are exact inverses.
 */
public final class FrameReencoder
{
    private final RoceFrameBuilder builder = new RoceFrameBuilder();

    /**
     * @param parsed a parser holding an OK frame.
     * @param target buffer to build into.
     * @param offset where to start.
     * @return length of the rebuilt frame.
     */
    public int reencode(final RoceFrameParser parsed, final MutableDirectBuffer target, final int offset)
    {
        final EthernetHeader eth = parsed.ethernet();
        builder.wrap(target, offset);
        if (eth.hasVlanTag())
        {
            builder.ethernet(eth.destination(), eth.source(), eth.priority(), eth.vlanId());
            builder.ethernetHeader().vlanTag(eth.priority(), eth.dropEligible(), eth.vlanId(), 0);
        }
        else
        {
            builder.ethernet(eth.destination(), eth.source());
        }
        if (4 == parsed.ipVersion())
        {
            final Ipv4Header ip = parsed.ipv4();
            builder.ipv4(ip.source(), ip.destination());
            builder.ipv4Header()
                .tos(ip.tos())
                .identification(ip.identification())
                .flagsAndFragmentOffset(ip.flagsAndFragmentOffset())
                .ttl(ip.ttl());
        }
        else
        {
            final Ipv6Header ip = parsed.ipv6();
            builder.ipv6(ip.sourceHigh(), ip.sourceLow(), ip.destinationHigh(), ip.destinationLow());
            builder.ipv6Header().versionClassFlow(ip.trafficClass(), ip.flowLabel()).hopLimit(ip.hopLimit());
        }
        builder.udp(parsed.udp().sourcePort());
        builder.udpHeader().checksum(parsed.udp().checksum());

        final BthHeader bth = parsed.bth();
        final Opcode opcode = parsed.opcode();
        builder.bth(opcode, bth.destQp(), bth.psn());
        builder.bthHeader()
            .solicitedEvent(bth.solicitedEvent())
            .migReq(bth.migReq())
            .pkey(bth.pkey())
            .fecn(bth.fecn())
            .becn(bth.becn())
            .resv6a(bth.resv6a())
            .ackReq(bth.ackReq())
            .resv7(bth.resv7());
        for (int i = 0; i < opcode.extHeaderCount(); i++)
        {
            switch (opcode.extHeader(i))
            {
                case RETH:
                    builder.reth().va(parsed.reth().va()).rkey(parsed.reth().rkey())
                        .dmaLength(parsed.reth().dmaLength());
                    break;
                case AETH:
                    builder.aeth().syndrome(parsed.aeth().syndrome()).msn(parsed.aeth().msn());
                    break;
                case ATOMIC_ETH:
                    builder.atomicEth().va(parsed.atomicEth().va()).rkey(parsed.atomicEth().rkey())
                        .swapAdd(parsed.atomicEth().swapAdd()).compare(parsed.atomicEth().compare());
                    break;
                case ATOMIC_ACK_ETH:
                    builder.atomicAckEth().originalData(parsed.atomicAckEth().originalData());
                    break;
                case DETH:
                    builder.deth().qkey(parsed.deth().qkey()).reserved(parsed.deth().reserved())
                        .srcQp(parsed.deth().srcQp());
                    break;
                case IMM_DT:
                    builder.immDt().immediate(parsed.immDt().immediate());
                    break;
                case IETH:
                    builder.ieth().rkey(parsed.ieth().rkey());
                    break;
                case FETH:
                    builder.feth().word(parsed.feth().word());
                    break;
                case CNP_RESERVED:
                    builder.cnp().reserved(parsed.cnp().reservedHigh(), parsed.cnp().reservedLow());
                    break;
                default:
                    throw new IllegalStateException("unhandled " + opcode.extHeader(i));
            }
        }
        builder.payload(parsed.buffer(), parsed.payloadOffset(), parsed.payloadLength());
        return builder.finish();
    }
}
