package org.roce4j.transport.link.memory;

import java.util.Arrays;

import org.roce4j.transport.link.LinkAddress;

/**
 * An immutable snapshot of the fabric's attached ports, indexed by IPv4 address and by MAC with open addressing
 * (linear probing), so a sender finds its destination without locks or allocation. Attaching or closing a port
 * publishes a new snapshot (copy on write); senders holding the old one finish their frame against it.
 */
final class RouteTable
{
    /** The table of a fabric with no port. */
    static final RouteTable EMPTY = new RouteTable(new MemoryLink[0]);

    /** Fibonacci hashing multiplier, 2^32 / golden ratio, spreads consecutive addresses over the table. */
    private static final int HASH_MULTIPLIER = 0x9E37_79B9;
    /** The hash index tables are kept at most half full so probe sequences stay short. */
    private static final int LOAD_FACTOR_INVERSE = 2;

    private final MemoryLink[] ports;
    private final int mask;
    private final int shift;
    private final int[] ipv4Keys;
    private final MemoryLink[] ipv4Ports;
    private final long[] macKeys;
    private final MemoryLink[] macPorts;

    private RouteTable(final MemoryLink[] ports)
    {
        this.ports = ports;
        final int size = Math.max(4, Integer.highestOneBit(Math.max(1, ports.length * LOAD_FACTOR_INVERSE)) << 1);
        this.mask = size - 1;
        this.shift = 32 - Integer.numberOfTrailingZeros(size);
        this.ipv4Keys = new int[size];
        this.ipv4Ports = new MemoryLink[size];
        this.macKeys = new long[size];
        this.macPorts = new MemoryLink[size];
        for (final MemoryLink port : ports)
        {
            final LinkAddress address = port.address();
            int i = hash(address.ipv4());
            while (null != ipv4Ports[i])
            {
                i = (i + 1) & mask;
            }
            ipv4Keys[i] = address.ipv4();
            ipv4Ports[i] = port;
            int j = hash(Long.hashCode(address.mac()));
            while (null != macPorts[j])
            {
                j = (j + 1) & mask;
            }
            macKeys[j] = address.mac();
            macPorts[j] = port;
        }
    }

    private int hash(final int key)
    {
        return (key * HASH_MULTIPLIER) >>> shift;
    }

    /**
     * @param ipv4 address as a big-endian int.
     * @return the port owning it, or null.
     */
    MemoryLink byIpv4(final int ipv4)
    {
        int i = hash(ipv4);
        MemoryLink port;
        while (null != (port = ipv4Ports[i]))
        {
            if (ipv4 == ipv4Keys[i])
            {
                return port;
            }
            i = (i + 1) & mask;
        }
        return null;
    }

    /**
     * @param mac in the low 48 bits.
     * @return the port owning it, or null.
     */
    MemoryLink byMac(final long mac)
    {
        int i = hash(Long.hashCode(mac));
        MemoryLink port;
        while (null != (port = macPorts[i]))
        {
            if (mac == macKeys[i])
            {
                return port;
            }
            i = (i + 1) & mask;
        }
        return null;
    }

    /**
     * Route an IPv6 destination the way the ports' GID tables define them: {@code ::ffff:a.b.c.d} (GID index 1)
     * to the port with that IPv4 address, {@code fe80::/64} with a modified EUI-64 interface identifier (GID index
     * 0) to the port with that MAC.
     *
     * @param high 64 bits of the destination.
     * @param low  64 bits of the destination.
     * @return the port, or null.
     */
    MemoryLink byIpv6(final long high, final long low)
    {
        if (LinkAddress.IPV4_MAPPED_HIGH == high &&
            LinkAddress.IPV4_MAPPED_LOW_PREFIX == (low & 0xFFFF_FFFF_0000_0000L))
        {
            return byIpv4((int)low);
        }
        // Modified EUI-64 (RFC 4291 appendix A): bytes 3..4 of the identifier are ff:fe, bit 0x02 of the first
        // byte is the inverted universal/local bit.
        if (LinkAddress.LINK_LOCAL_HIGH == high && 0xFFFEL == ((low >>> 24) & 0xFFFFL))
        {
            final long upper = ((low >>> 40) & 0xFF_FFFFL) ^ 0x02_0000L;
            return byMac((upper << 24) | (low & 0xFF_FFFFL));
        }
        return null;
    }

    /**
     * @param ipv4 address as a big-endian int.
     * @param mac  in the low 48 bits.
     * @return the port using either, or null.
     */
    MemoryLink conflicting(final int ipv4, final long mac)
    {
        final MemoryLink port = byIpv4(ipv4);
        return null != port ? port : byMac(mac);
    }

    /**
     * @param port to add.
     * @return a new table with the port.
     */
    RouteTable with(final MemoryLink port)
    {
        final MemoryLink[] more = Arrays.copyOf(ports, ports.length + 1);
        more[ports.length] = port;
        return new RouteTable(more);
    }

    /**
     * @param port to remove.
     * @return a new table without the port, or this when it is not in the table.
     */
    RouteTable without(final MemoryLink port)
    {
        for (int i = 0; i < ports.length; i++)
        {
            if (ports[i] == port)
            {
                final MemoryLink[] fewer = new MemoryLink[ports.length - 1];
                System.arraycopy(ports, 0, fewer, 0, i);
                System.arraycopy(ports, i + 1, fewer, i, ports.length - i - 1);
                return new RouteTable(fewer);
            }
        }
        return this;
    }

    /**
     * @return the attached ports (a copy).
     */
    MemoryLink[] ports()
    {
        return ports.clone();
    }

    /**
     * @return number of attached ports.
     */
    int size()
    {
        return ports.length;
    }
}
