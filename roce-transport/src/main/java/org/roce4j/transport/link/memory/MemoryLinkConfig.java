package org.roce4j.transport.link.memory;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.roce4j.transport.link.LinkAddress;
import org.roce4j.transport.link.LinkSpec;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.addr.Mac;

/**
 * Parsed form of a spec for a port of this JVM's default fabric ({@link MemoryFabric#defaultFabric()}),
 * {@link #GRAMMAR}:
 * <ul>
 *   <li>{@code IP}: the port's address, IPv4 or IPv6; every device of the JVM opened with such a spec reaches the
 *   others by it. More addresses follow as {@code ip=IP}.</li>
 *   <li>{@code mac}: the port's MAC; without it {@link LinkAddress#defaultMac(List)} makes one from the first
 *   address.</li>
 *   <li>{@code mtu}: the IP MTU, {@link MemoryFabric#MIN_MTU} to {@link MemoryFabric#MAX_MTU}, 1500 by default
 *   (9000 carries 4096-byte RoCE packets).</li>
 * </ul>
 *
 * @param spec    the spec as given.
 * @param address MAC and addresses of the port.
 * @param mtu     its IP MTU.
 */
public record MemoryLinkConfig(String spec, LinkAddress address, int mtu)
{
    /** Scheme that introduces the spec; alone ({@code memory}) it names the whole in-process fabric of a command. */
    public static final String SCHEME = "memory";
    /** The spec grammar, for error messages and help texts. */
    public static final String GRAMMAR = "memory:IP[,ip=IP]...[,mac=MAC][,mtu=1500]";
    /** The IP MTU of a port whose spec gives none: Ethernet's. */
    public static final int DEFAULT_MTU = 1500;

    /**
     * Parse a spec.
     *
     * @param spec such as {@code memory:10.0.0.1,mtu=9000} or {@code memory:fd00::1,ip=10.0.0.1}.
     * @return the configuration.
     * @throws IllegalArgumentException naming the offending part and showing the grammar.
     */
    public static MemoryLinkConfig parse(final String spec)
    {
        final LinkSpec parsed = LinkSpec.parse(spec, SCHEME, "address", GRAMMAR, List.of("ip", "mac", "mtu"),
            Set.of("ip"));
        final List<Gid> ips = new ArrayList<>();
        ips.add(parsed.ip(parsed.head()));
        ips.addAll(parsed.ipOptions("ip"));
        final long mac = parsed.macOption("mac");
        final int mtu = parsed.intOption("mtu", DEFAULT_MTU, MemoryFabric.MIN_MTU, MemoryFabric.MAX_MTU);
        try
        {
            return new MemoryLinkConfig(parsed.spec(), new LinkAddress(Mac.NONE == mac ? LinkAddress.defaultMac(ips) :
                mac, ips), mtu);
        }
        catch (final IllegalArgumentException ex)
        {
            throw parsed.error(ex.getMessage());
        }
    }
}
