package org.roce4j.transport.link.ethernet;

import java.nio.ByteBuffer;

import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.transport.link.LinkCounter;
import org.roce4j.transport.link.LinkCounters;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.addr.Mac;
import org.roce4j.wire.header.ArpHeader;
import org.roce4j.wire.header.EthernetHeader;

/**
 * ARP for a link's IPv4 addresses (RFC 826): answers requests for any address the link owns, learns senders into the
 * {@link NeighbourTable} by the merge rule (update a known sender; add it when the packet is addressed to the link),
 * and broadcasts requests for the table. Ignores probes (sender 0.0.0.0, RFC 5227), group or zero sender MACs, and
 * its own addresses coming back. Frames are built in one preallocated buffer, padded to the Ethernet minimum.
 * Single threaded.
 */
final class ArpAgent
{
    private final LinkAddress address;
    private final NeighbourTable table;
    private final LinkCounters counters;
    private final EthernetLayer layer;
    private final UnsafeBuffer out = new UnsafeBuffer(ByteBuffer.allocateDirect(EthernetHeader.MIN_FRAME_LENGTH));
    private final EthernetHeader ethernet = new EthernetHeader();
    private final ArpHeader arpOut = new ArpHeader();
    private final ArpHeader arpIn = new ArpHeader();

    ArpAgent(final EthernetLayer layer, final LinkAddress address, final NeighbourTable table,
        final LinkCounters counters)
    {
        this.layer = layer;
        this.address = address;
        this.table = table;
        this.counters = counters;
    }

    /**
     * Handle a received ARP packet.
     *
     * @param buffer    holding the frame.
     * @param arpOffset of the ARP packet.
     * @param available bytes from the ARP packet to the end of the frame.
     */
    void onArp(final MutableDirectBuffer buffer, final int arpOffset, final int available)
    {
        if (available < ArpHeader.LENGTH)
        {
            return;
        }
        final ArpHeader arp = arpIn.wrap(buffer, arpOffset);
        if (!arp.isEthernetIpv4())
        {
            return;
        }
        final int senderIp = arp.senderIp();
        final long senderMac = arp.senderMac();
        final boolean forUs = address.ownsIpv4(arp.targetIp());
        if (0 != senderIp && !address.ownsIpv4(senderIp) && Mac.isUnicast(senderMac))
        {
            table.learn(Gid.IPV4_MAPPED_HIGH, Gid.ipv4MappedLow(senderIp), senderMac, forUs);
        }
        if (forUs && ArpHeader.OPERATION_REQUEST == arp.operation())
        {
            send(ArpHeader.OPERATION_REPLY, senderMac, arp.targetIp(), senderMac, senderIp);
            counters.increment(LinkCounter.ARP_REPLIES_SENT);
        }
    }

    /**
     * Broadcast a request for an address, from the link's primary IPv4 address.
     *
     * @param targetIp the address to resolve.
     */
    void request(final int targetIp)
    {
        send(ArpHeader.OPERATION_REQUEST, Mac.BROADCAST, address.ipv4(), 0L, targetIp);
        counters.increment(LinkCounter.ARP_REQUESTS_SENT);
    }

    private void send(final int operation, final long destinationMac, final int senderIp, final long targetMac,
        final int targetIp)
    {
        final long mac = address.mac();
        ethernet.wrap(out, 0).destination(destinationMac).source(mac).etherType(EthernetHeader.ETHERTYPE_ARP);
        arpOut.wrap(out, EthernetHeader.LENGTH)
            .ethernetIpv4(operation)
            .senderMac(mac)
            .senderIp(senderIp)
            .targetMac(targetMac)
            .targetIp(targetIp);
        final int end = EthernetHeader.LENGTH + ArpHeader.LENGTH;
        out.setMemory(end, EthernetHeader.MIN_FRAME_LENGTH - end, (byte)0);
        layer.transmitControl(out, EthernetHeader.MIN_FRAME_LENGTH);
    }
}
