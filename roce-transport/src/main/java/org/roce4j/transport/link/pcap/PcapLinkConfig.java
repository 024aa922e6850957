package org.roce4j.transport.link.pcap;

import java.util.Locale;

import org.roce4j.wire.header.EthernetHeader;
import org.roce4j.wire.header.Ipv4Header;

/**
 * Parsed form of a raw-Ethernet link spec:
 * <pre>
 * pcap:IFACE[,ip=IPV4][,mac=MAC]
 * </pre>
 * <ul>
 *   <li>{@code IFACE}: the network interface to capture on and send through (e.g. {@code veth0}, {@code eth1}).</li>
 *   <li>{@code ip}: the IPv4 address the link owns and answers ARP for; required unless the interface has exactly
 *   one IPv4 address (then that one is used).</li>
 *   <li>{@code mac}: the MAC address the link owns; the interface's own MAC by default. A different MAC puts the
 *   interface into promiscuous mode.</li>
 * </ul>
 *
 * @param spec  the spec as given.
 * @param iface interface name.
 * @param ipv4  the address as a big-endian int, or null when not given.
 * @param mac   the MAC in the low 48 bits, or null when not given.
 */
public record PcapLinkConfig(String spec, String iface, Integer ipv4, Long mac)
{
    /** Scheme that introduces a raw-Ethernet link spec. */
    public static final String SCHEME = "pcap";
    /** The spec grammar, for error messages and help texts. */
    public static final String GRAMMAR = "pcap:IFACE[,ip=IPV4][,mac=MAC]";

    /**
     * Parse a spec.
     *
     * @param spec such as {@code pcap:veth0,ip=10.77.0.1}.
     * @return the configuration.
     * @throws IllegalArgumentException naming the offending part and showing the grammar.
     */
    public static PcapLinkConfig parse(final String spec)
    {
        if (null == spec)
        {
            throw new IllegalArgumentException("pcap link spec is null; expected " + GRAMMAR);
        }
        final String text = spec.trim();
        final String prefix = SCHEME + ":";
        if (!text.regionMatches(true, 0, prefix, 0, prefix.length()))
        {
            throw new IllegalArgumentException("not a pcap link spec: '" + spec + "'; expected " + GRAMMAR);
        }
        final String[] parts = text.substring(prefix.length()).split(",", -1);
        final String iface = parts[0].trim();
        if (iface.isEmpty())
        {
            throw new IllegalArgumentException("pcap link spec '" + spec + "' has no interface; expected " + GRAMMAR);
        }
        Integer ipv4 = null;
        Long mac = null;
        for (int i = 1; i < parts.length; i++)
        {
            final String part = parts[i].trim();
            final int equals = part.indexOf('=');
            if (equals <= 0)
            {
                throw new IllegalArgumentException("pcap link spec '" + spec + "': option '" + part +
                    "' is not key=value; expected " + GRAMMAR);
            }
            final String key = part.substring(0, equals).trim().toLowerCase(Locale.ROOT);
            final String value = part.substring(equals + 1).trim();
            try
            {
                switch (key)
                {
                    case "ip":
                        ipv4 = Ipv4Header.parseAddress(value);
                        break;
                    case "mac":
                        mac = EthernetHeader.parseMac(value);
                        break;
                    default:
                        throw new IllegalArgumentException("unknown option '" + key + "' (valid: ip, mac)");
                }
            }
            catch (final IllegalArgumentException ex)
            {
                throw new IllegalArgumentException("pcap link spec '" + spec + "': " + ex.getMessage(), ex);
            }
        }
        if (null != mac && 0 != (mac & 0x0100_0000_0000L))
        {
            throw new IllegalArgumentException("pcap link spec '" + spec + "': MAC " +
                EthernetHeader.macToString(mac) + " is a multicast address");
        }
        return new PcapLinkConfig(spec, iface, ipv4, mac);
    }
}
