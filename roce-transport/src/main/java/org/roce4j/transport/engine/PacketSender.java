package org.roce4j.transport.engine;

import org.roce4j.transport.TransportCounter;
import org.roce4j.transport.TransportCounters;
import org.roce4j.transport.cc.CongestionControl;
import org.roce4j.transport.link.Link;
import org.roce4j.wire.Icrc;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RoceFrameBuilder;
import org.roce4j.wire.header.EthernetHeader;
import org.roce4j.wire.header.Ipv6Header;
import org.roce4j.wire.header.UdpHeader;

/**
 * Builds packets straight into the link's send buffer: claim, write Ethernet/IP/UDP/BTH from an address vector,
 * let the caller add extension headers and payload, then finish (pad, lengths, ICRC) and commit.
 *
 * <p>The destination MAC is left zero: the link owns layer 2 and fills it in. With congestion control on, the ECN bits
 * of every packet's traffic class are ECT(0) ({@link CongestionControl#dataTrafficClass(int)}).
 */
final class PacketSender
{
    /** Largest L2+L3+L4 overhead in front of the BTH: tagged Ethernet, IPv6 and UDP. */
    private static final int MAX_OUTER_HEADERS = EthernetHeader.VLAN_LENGTH + Ipv6Header.LENGTH + UdpHeader.LENGTH;
    /** At most 3 pad bytes follow the payload. */
    private static final int MAX_PAD = 3;
    /** The IPv6 flow label rxe writes on every frame (see {@link #begin}). */
    static final int RXE_IPV6_FLOW_LABEL = 0;

    private final Link link;
    private final long sourceMac;
    private final TransportCounters counters;
    private final CongestionControl congestion;
    private final RoceFrameBuilder builder = new RoceFrameBuilder();
    private int claimIndex = -1;
    private int lastFrameLength;

    PacketSender(final Link link, final TransportCounters counters, final CongestionControl congestion)
    {
        this.link = link;
        this.sourceMac = link.address().mac();
        this.counters = counters;
        this.congestion = congestion;
    }

    /**
     * Claim room and write the headers up to and including the BTH (P_Key 0xFFFF, flags clear).
     *
     * @param address    where the packet goes.
     * @param opcode     its opcode.
     * @param destQp     destination QP.
     * @param psn        PSN.
     * @param maxPayload the most payload bytes that will follow.
     * @return false when the link has no room (counted); nothing was claimed.
     */
    boolean begin(final AddressVector address, final Opcode opcode, final int destQp, final int psn,
        final int maxPayload)
    {
        final int maxLength = MAX_OUTER_HEADERS + opcode.headerLength() + maxPayload + MAX_PAD + Icrc.LENGTH;
        final int index = link.tryClaim(maxLength);
        if (index < 0)
        {
            counters.increment(TransportCounter.LINK_BACK_PRESSURE);
            return false;
        }
        claimIndex = index;
        builder.wrap(link.sendBuffer(), index).ethernet(0L, sourceMac);
        final int trafficClass = congestion.dataTrafficClass(address.trafficClass());
        if (address.ipv6())
        {
            builder.ipv6(address.sourceHigh(), address.sourceLow(), address.destinationHigh(),
                address.destinationLow());
            // rxe writes flow label 0 in every IPv6 header (rxe_net.c prepare_ipv6_hdr: ip6_flow_hdr(ip6h, prio, 0));
            // the address's flow label only picks the UDP source port (rdma_get_udp_sport). Seen against rxe: its
            // REQ over IPv6 names flow label sport * 31 + dport, its data frames carry 0.
            builder.ipv6Header().versionClassFlow(trafficClass, RXE_IPV6_FLOW_LABEL).hopLimit(address.hopLimit());
        }
        else
        {
            builder.ipv4(address.sourceIpv4(), address.destinationIpv4(), trafficClass, address.hopLimit());
        }
        builder.udp(address.udpSourcePort()).bth(opcode, destQp, psn);
        return true;
    }

    /**
     * @return the builder positioned after the BTH, for extension headers and payload.
     */
    RoceFrameBuilder builder()
    {
        return builder;
    }

    /**
     * Finish and commit the packet begun last.
     *
     * @param payloadBytes payload length, for the counters.
     */
    void end(final int payloadBytes)
    {
        final int length = builder.finish();
        link.commit(claimIndex, length);
        claimIndex = -1;
        lastFrameLength = length;
        counters.increment(TransportCounter.PACKETS_SENT);
        if (payloadBytes > 0)
        {
            counters.add(TransportCounter.PAYLOAD_BYTES_SENT, payloadBytes);
        }
    }

    /**
     * @return the length of the frame {@link #end(int)} sent last, Ethernet header to ICRC (the pacer's measure).
     */
    int lastFrameLength()
    {
        return lastFrameLength;
    }

    /**
     * Give up the packet begun last.
     */
    void abort()
    {
        if (claimIndex >= 0)
        {
            link.abort(claimIndex);
            claimIndex = -1;
        }
    }
}
