package org.roce4j.transport.engine;

import org.roce4j.transport.link.LinkAddress;
import org.roce4j.wire.addr.Gid;

/**
 * The port's GID table, as ib core builds it for an rxe device from the netdev's addresses: index 0 the link-local
 * IPv6 address derived from the MAC (EUI-64), index 1 the IPv4-mapped address ::ffff:a.b.c.d. Immutable once built,
 * so any thread may read it.
 *
 * <p>rxe_recv.c's rxe_chk_dgid asks this table whether a packet is for us ({@link #contains}); address handles and
 * connected QPs name their source address by index ({@link AddressResolution}).
 */
final class GidTable
{
    /** Index of the link-local GID (fe80::/64 + EUI-64 of the MAC). */
    static final int LINK_LOCAL_INDEX = 0;
    /** Index of the IPv4-mapped GID (::ffff:a.b.c.d), the one RoCEv2 over IPv4 uses. */
    static final int IPV4_MAPPED_INDEX = 1;

    private final long[] high = new long[2];
    private final long[] low = new long[2];

    /**
     * @param address the link's MAC and IPv4 address.
     */
    GidTable(final LinkAddress address)
    {
        high[LINK_LOCAL_INDEX] = Gid.LINK_LOCAL_HIGH;
        low[LINK_LOCAL_INDEX] = address.linkLocalLow();
        high[IPV4_MAPPED_INDEX] = Gid.IPV4_MAPPED_HIGH;
        low[IPV4_MAPPED_INDEX] = address.ipv4MappedLow();
    }

    /**
     * @return number of entries (2).
     */
    int length()
    {
        return high.length;
    }

    /**
     * @param index 0 .. {@link #length()} - 1.
     * @return high 64 bits of that GID.
     */
    long high(final int index)
    {
        return high[index];
    }

    /**
     * @param index 0 .. {@link #length()} - 1.
     * @return low 64 bits of that GID.
     */
    long low(final int index)
    {
        return low[index];
    }

    /**
     * @param index a source GID index from an address handle or QP attributes.
     * @return true when the table has that entry.
     */
    boolean isValidIndex(final int index)
    {
        return index >= 0 && index < high.length;
    }

    /**
     * @param gidHigh high 64 bits of a GID (an IPv6 destination address).
     * @param gidLow  low 64 bits.
     * @return true when it is one of ours (rxe_chk_dgid).
     */
    boolean contains(final long gidHigh, final long gidLow)
    {
        return (gidHigh == high[LINK_LOCAL_INDEX] && gidLow == low[LINK_LOCAL_INDEX]) ||
            (gidHigh == high[IPV4_MAPPED_INDEX] && gidLow == low[IPV4_MAPPED_INDEX]);
    }
}
