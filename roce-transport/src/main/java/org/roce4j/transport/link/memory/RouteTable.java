package org.roce4j.transport.link.memory;

import java.util.Arrays;

import org.roce4j.transport.link.LinkAddress;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.addr.Mac;

/**
 * An immutable snapshot of the fabric's attached ports, indexed by every IPv4 address, every IPv6 address and the MAC
 * of each, with open addressing (linear probing), so a sender finds its destination without locks or allocation.
 * Attaching or closing a port publishes a new snapshot (copy on write); senders holding the old one finish their
 * frame against it.
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
    private final long[] ipv6HighKeys;
    private final long[] ipv6LowKeys;
    private final MemoryLink[] ipv6Ports;

    private RouteTable(final MemoryLink[] ports)
    {
        this.ports = ports;
        int addresses = ports.length;
        for (final MemoryLink port : ports)
        {
            addresses += port.address().ips().size();
        }
        final int size = Math.max(4, Integer.highestOneBit(Math.max(1, addresses * LOAD_FACTOR_INVERSE)) << 1);
        this.mask = size - 1;
        this.shift = 32 - Integer.numberOfTrailingZeros(size);
        this.ipv4Keys = new int[size];
        this.ipv4Ports = new MemoryLink[size];
        this.macKeys = new long[size];
        this.macPorts = new MemoryLink[size];
        this.ipv6HighKeys = new long[size];
        this.ipv6LowKeys = new long[size];
        this.ipv6Ports = new MemoryLink[size];
        for (final MemoryLink port : ports)
        {
            final LinkAddress address = port.address();
            for (final Gid ip : address.ips())
            {
                if (ip.isIpv4Mapped())
                {
                    int i = hash(ip.ipv4());
                    while (null != ipv4Ports[i])
                    {
                        i = (i + 1) & mask;
                    }
                    ipv4Keys[i] = ip.ipv4();
                    ipv4Ports[i] = port;
                }
                else
                {
                    int i = hash(Long.hashCode(ip.high() ^ ip.low()));
                    while (null != ipv6Ports[i])
                    {
                        i = (i + 1) & mask;
                    }
                    ipv6HighKeys[i] = ip.high();
                    ipv6LowKeys[i] = ip.low();
                    ipv6Ports[i] = port;
                }
            }
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
     * Route an IPv6 destination: to the port owning it, else the way the ports' GID tables define them:
     * {@code ::ffff:a.b.c.d} to the port with that IPv4 address, {@code fe80::/64} with a modified EUI-64 interface
     * identifier (GID index 0) to the port with that MAC.
     *
     * @param high 64 bits of the destination.
     * @param low  64 bits of the destination.
     * @return the port, or null.
     */
    MemoryLink byIpv6(final long high, final long low)
    {
        if (Gid.isIpv4Mapped(high, low))
        {
            return byIpv4((int)low);
        }
        int i = hash(Long.hashCode(high ^ low));
        MemoryLink port;
        while (null != (port = ipv6Ports[i]))
        {
            if (high == ipv6HighKeys[i] && low == ipv6LowKeys[i])
            {
                return port;
            }
            i = (i + 1) & mask;
        }
        final long mac = Gid.macOfLinkLocal(high, low);
        return Mac.NONE == mac ? null : byMac(mac);
    }

    /**
     * @param address a port's MAC and addresses.
     * @return an open port using any of them, or null.
     */
    MemoryLink conflicting(final LinkAddress address)
    {
        for (final Gid ip : address.ips())
        {
            final MemoryLink port = ip.isIpv4Mapped() ? byIpv4(ip.ipv4()) : byIpv6(ip.high(), ip.low());
            if (null != port)
            {
                return port;
            }
        }
        return byMac(address.mac());
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
     * @param index 0 .. {@link #size()} - 1.
     * @return that attached port (no copy: the send path floods multicast frames through this).
     */
    MemoryLink port(final int index)
    {
        return ports[index];
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
