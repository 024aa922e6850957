package org.roce4j.transport.link.pcap;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.roce4j.transport.link.LinkSpec;
import org.roce4j.transport.link.ethernet.NeighbourPolicy;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.addr.Mac;

/**
 * Parsed form of a raw-Ethernet link spec ({@link #GRAMMAR}):
 * <ul>
 *   <li>{@code IFACE}: the network interface to capture on and send through (e.g. {@code veth0}, {@code eth1}).</li>
 *   <li>{@code ip}: an address the link owns, IPv4 or IPv6, answering ARP or Neighbor Solicitations for it; may be
 *   repeated ({@code ip=10.77.0.1,ip=fd00:77::1}). Without one the link takes the interface's IPv4 address when
 *   it has exactly one.</li>
 *   <li>{@code mac}: the MAC address the link owns; the interface's own MAC by default. A different MAC (or an IPv6
 *   address, whose solicitations go to multicast groups the interface has not joined) puts the interface into
 *   promiscuous mode.</li>
 *   <li>{@code arp-retries}, {@code arp-interval-ms}, {@code arp-queue}, {@code neighbours}: the
 *   {@link NeighbourPolicy} for ARP and Neighbor Discovery.</li>
 * </ul>
 *
 * @param spec       the spec as given.
 * @param iface      interface name.
 * @param ips        the addresses given (IPv4 ones IPv4-mapped), possibly none.
 * @param mac        the MAC, or {@link Mac#NONE} when not given.
 * @param neighbours how neighbours are resolved.
 */
public record PcapLinkConfig(String spec, String iface, List<Gid> ips, long mac, NeighbourPolicy neighbours)
{
    /** Scheme that introduces a raw-Ethernet link spec. */
    public static final String SCHEME = "pcap";
    /** The spec grammar, for error messages and help texts. */
    public static final String GRAMMAR = "pcap:IFACE[,ip=IP]...[,mac=MAC]" + LinkSpec.NEIGHBOUR_GRAMMAR;

    private static final List<String> OPTIONS;

    static
    {
        final List<String> options = new ArrayList<>(List.of("ip", "mac"));
        options.addAll(LinkSpec.NEIGHBOUR_OPTIONS);
        OPTIONS = List.copyOf(options);
    }

    /**
     * Parse a spec.
     *
     * @param spec such as {@code pcap:veth0,ip=10.77.0.1}.
     * @return the configuration.
     * @throws IllegalArgumentException naming the offending part and showing the grammar.
     */
    public static PcapLinkConfig parse(final String spec)
    {
        final LinkSpec parsed = LinkSpec.parse(spec, SCHEME, "interface", GRAMMAR, OPTIONS, Set.of("ip"));
        return new PcapLinkConfig(parsed.spec(), parsed.head(), List.copyOf(parsed.ipOptions("ip")),
            parsed.macOption("mac"), parsed.neighbourPolicy());
    }

    /**
     * @return the first IPv4 address given as a big-endian int, or null when none was.
     */
    public Integer ipv4()
    {
        for (final Gid ip : ips)
        {
            if (ip.isIpv4Mapped())
            {
                return ip.ipv4();
            }
        }
        return null;
    }
}
