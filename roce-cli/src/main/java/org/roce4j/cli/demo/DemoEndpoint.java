package org.roce4j.cli.demo;

/**
 * One side of the demo conversation: its addresses and its QP. The defaults use locally administered MACs and the
 * documentation address ranges (RFC 5737 192.0.2.0/24, RFC 3849 2001:db8::/32), so demo output never names a real
 * host.
 *
 * @param mac           Ethernet address in the low 48 bits.
 * @param ipv4          IPv4 address as a big-endian int.
 * @param ipv6High      high 64 bits of the IPv6 address.
 * @param ipv6Low       low 64 bits of the IPv6 address.
 * @param qpn           the endpoint's QP number.
 * @param udpSourcePort UDP source port of the QP (rxe uses 0xC000 + a hash of the QPN).
 */
public record DemoEndpoint(long mac, int ipv4, long ipv6High, long ipv6Low, int qpn, int udpSourcePort)
{
    /** High 64 bits of 2001:db8::/64. */
    private static final long DOC_PREFIX = 0x2001_0db8_0000_0000L;

    /** The requester side: 02:00:00:00:00:01, 192.0.2.1, 2001:db8::1, QP 0x11. */
    public static final DemoEndpoint A = new DemoEndpoint(0x0200_0000_0001L, 0xC000_0201, DOC_PREFIX, 1, 0x11, 0xC011);
    /** The responder side: 02:00:00:00:00:02, 192.0.2.2, 2001:db8::2, QP 0x12. */
    public static final DemoEndpoint B = new DemoEndpoint(0x0200_0000_0002L, 0xC000_0202, DOC_PREFIX, 2, 0x12, 0xC012);
}
