package org.roce4j.bench.baseline;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.header.EthernetHeader;
import org.roce4j.wire.header.Ipv4Header;
import org.roce4j.wire.header.Ipv6Header;
import org.roce4j.wire.header.UdpHeader;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The raw pcap baseline's frames: the same addressing the pcap link sends, IPv4 for the veth medium and IPv6 for
 * veth6, so the raw and link sides of a measurement move frames of the same length.
 */
class RawPcapFrameTest
{
    private static final long MAC_A = 0x02_00_00_00_00_0AL;
    private static final long MAC_B = 0x02_00_00_00_00_0BL;

    @Test
    void ipv4FrameCarriesTheAddressesAndLengths()
    {
        final byte[] bytes = RawPcap.frame(MAC_A, MAC_B, "10.97.1.1", "10.97.1.2", 100);
        final UnsafeBuffer buffer = new UnsafeBuffer(bytes);
        assertEquals(EthernetHeader.LENGTH + Ipv4Header.LENGTH + UdpHeader.LENGTH + 100, bytes.length);
        final EthernetHeader ethernet = new EthernetHeader().wrap(buffer, 0);
        assertEquals(EthernetHeader.ETHERTYPE_IPV4, ethernet.etherType());
        assertEquals(MAC_B, ethernet.destination());
        final Ipv4Header ip = new Ipv4Header().wrap(buffer, EthernetHeader.LENGTH);
        assertEquals(Ipv4Header.parseAddress("10.97.1.2"), ip.destination());
        assertEquals(Ipv4Header.LENGTH + UdpHeader.LENGTH + 100, ip.totalLength());
    }

    @Test
    void ipv6FrameCarriesTheAddressesAndLengths()
    {
        final byte[] bytes = RawPcap.frame(MAC_A, MAC_B, "fd00:97::11", "fd00:97::12", 100);
        final UnsafeBuffer buffer = new UnsafeBuffer(bytes);
        assertEquals(EthernetHeader.LENGTH + Ipv6Header.LENGTH + UdpHeader.LENGTH + 100, bytes.length);
        final EthernetHeader ethernet = new EthernetHeader().wrap(buffer, 0);
        assertEquals(EthernetHeader.ETHERTYPE_IPV6, ethernet.etherType());
        assertEquals(MAC_A, ethernet.source());
        final Ipv6Header ip = new Ipv6Header().wrap(buffer, EthernetHeader.LENGTH);
        assertEquals(6, ip.version());
        assertEquals(0, ip.trafficClass());
        assertEquals(0, ip.flowLabel());
        assertEquals(Ipv6Header.NEXT_HEADER_UDP, ip.nextHeader());
        assertEquals(UdpHeader.LENGTH + 100, ip.payloadLength());
        assertEquals(Gid.parse("fd00:97::11"), new Gid(ip.sourceHigh(), ip.sourceLow()));
        assertEquals(Gid.parse("fd00:97::12"), new Gid(ip.destinationHigh(), ip.destinationLow()));
        final UdpHeader udp = new UdpHeader().wrap(buffer, EthernetHeader.LENGTH + Ipv6Header.LENGTH);
        assertEquals(UdpHeader.ROCE_V2_PORT, udp.destinationPort());
        assertEquals(UdpHeader.LENGTH + 100, udp.datagramLength());
    }
}
