package org.roce4j.transport.link.memory;

import java.util.Locale;

import org.roce4j.transport.link.LinkAddress;
import org.roce4j.wire.header.EthernetHeader;

/**
 * Parsed form of a spec for a port of this JVM's default fabric ({@link MemoryFabric#defaultFabric()}):
 * <pre>
 * memory:IPV4[,mac=MAC][,mtu=1500]
 * </pre>
 * <ul>
 *   <li>{@code IPV4}: the port's address; every device of the JVM opened with such a spec reaches the others by it.
 *   </li>
 *   <li>{@code mac}: the port's MAC; without it {@link LinkAddress#ofIpv4(String)} makes one from the address.</li>
 *   <li>{@code mtu}: the IP MTU, {@link MemoryFabric#MIN_MTU} to {@link MemoryFabric#MAX_MTU}, 1500 by default
 *   (9000 carries 4096-byte RoCE packets).</li>
 * </ul>
 *
 * @param spec    the spec as given.
 * @param address MAC and IPv4 address of the port.
 * @param mtu     its IP MTU.
 */
public record MemoryLinkConfig(String spec, LinkAddress address, int mtu)
{
    /** Scheme that introduces the spec; alone ({@code memory}) it names the whole in-process fabric of a command. */
    public static final String SCHEME = "memory";
    /** The spec grammar, for error messages and help texts. */
    public static final String GRAMMAR = "memory:IPV4[,mac=MAC][,mtu=1500]";
    /** The IP MTU of a port whose spec gives none: Ethernet's. */
    public static final int DEFAULT_MTU = 1500;

    /**
     * Parse a spec.
     *
     * @param spec such as {@code memory:10.0.0.1,mtu=9000}.
     * @return the configuration.
     * @throws IllegalArgumentException naming the offending part and showing the grammar.
     */
    public static MemoryLinkConfig parse(final String spec)
    {
        if (null == spec)
        {
            throw new IllegalArgumentException("memory link spec is null; expected " + GRAMMAR);
        }
        final String text = spec.trim();
        final String prefix = SCHEME + ":";
        if (!text.regionMatches(true, 0, prefix, 0, prefix.length()))
        {
            throw new IllegalArgumentException("not a memory port spec: '" + spec + "'; expected " + GRAMMAR);
        }
        final String[] parts = text.substring(prefix.length()).split(",", -1);
        final String ipv4 = parts[0].trim();
        String mac = null;
        int mtu = DEFAULT_MTU;
        try
        {
            if (ipv4.isEmpty())
            {
                throw new IllegalArgumentException("no address");
            }
            for (int i = 1; i < parts.length; i++)
            {
                final String part = parts[i].trim();
                final int equals = part.indexOf('=');
                if (equals <= 0)
                {
                    throw new IllegalArgumentException("option '" + part + "' is not key=value");
                }
                final String key = part.substring(0, equals).trim().toLowerCase(Locale.ROOT);
                final String value = part.substring(equals + 1).trim();
                switch (key)
                {
                    case "mac":
                        EthernetHeader.parseMac(value);
                        mac = value;
                        break;
                    case "mtu":
                        mtu = parseMtu(value);
                        break;
                    default:
                        throw new IllegalArgumentException("unknown option '" + key + "' (valid: mac, mtu)");
                }
            }
            final LinkAddress address = null == mac ? LinkAddress.ofIpv4(ipv4) : LinkAddress.of(mac, ipv4);
            return new MemoryLinkConfig(text, address, mtu);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException("memory link spec '" + spec + "': " + ex.getMessage() +
                "; expected " + GRAMMAR, ex);
        }
    }

    private static int parseMtu(final String value)
    {
        final int mtu;
        try
        {
            mtu = Integer.parseInt(value);
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("mtu '" + value + "' is not a number", ex);
        }
        if (mtu < MemoryFabric.MIN_MTU || mtu > MemoryFabric.MAX_MTU)
        {
            throw new IllegalArgumentException("mtu " + mtu + " is outside " + MemoryFabric.MIN_MTU + ".." +
                MemoryFabric.MAX_MTU);
        }
        return mtu;
    }
}
