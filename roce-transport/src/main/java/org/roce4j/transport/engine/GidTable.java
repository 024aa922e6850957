package org.roce4j.transport.engine;

import java.util.List;

import org.roce4j.transport.link.LinkAddress;
import org.roce4j.wire.addr.Gid;

/**
 * The port's GID table, as ib core builds it for an rxe device from the netdev's addresses (roce_gid_mgmt.c, listed
 * by {@link LinkAddress#gids()}): index 0 the link-local IPv6 address derived from the MAC (fe80::/64, modified
 * EUI-64), then one IPv4-mapped GID ::ffff:a.b.c.d per IPv4 address, then each global IPv6 address. Immutable once
 * built, so any thread may read it.
 *
 * <p>rxe_recv.c's rxe_chk_dgid asks this table whether a packet is for us ({@link #contains}); address handles and
 * connected QPs name their source address by index ({@link AddressResolution}).
 */
final class GidTable
{
    /** Index of the link-local GID (fe80::/64 + EUI-64 of the MAC). */
    static final int LINK_LOCAL_INDEX = 0;
    /** Index of the first IPv4-mapped GID (::ffff:a.b.c.d) on a link with an IPv4 address. */
    static final int IPV4_MAPPED_INDEX = 1;

    private final long[] high;
    private final long[] low;
    private final String listing;

    /**
     * @param address the link's MAC and addresses.
     */
    GidTable(final LinkAddress address)
    {
        final List<Gid> gids = address.gids();
        high = new long[gids.size()];
        low = new long[gids.size()];
        final StringBuilder text = new StringBuilder();
        for (int i = 0; i < gids.size(); i++)
        {
            high[i] = gids.get(i).high();
            low[i] = gids.get(i).low();
            text.append(0 == i ? "" : ", ").append(i).append(' ').append(describe(gids.get(i)));
        }
        listing = text.toString();
    }

    /**
     * @return number of entries: 1 + the link's IPv4 addresses + its global IPv6 addresses.
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
     * @param gidHigh high 64 bits of a GID.
     * @param gidLow  low 64 bits.
     * @return its index, or -1 when it is not one of ours.
     */
    int indexOf(final long gidHigh, final long gidLow)
    {
        for (int i = 0; i < high.length; i++)
        {
            if (gidHigh == high[i] && gidLow == low[i])
            {
                return i;
            }
        }
        return -1;
    }

    /**
     * @param gidHigh high 64 bits of a GID (an IPv6 destination address).
     * @param gidLow  low 64 bits.
     * @return true when it is one of ours (rxe_chk_dgid).
     */
    boolean contains(final long gidHigh, final long gidLow)
    {
        for (int i = 0; i < high.length; i++)
        {
            if (gidHigh == high[i] && gidLow == low[i])
            {
                return true;
            }
        }
        return false;
    }

    /**
     * @return every entry with its index and kind, e.g. {@code 0 link-local fe80::ff:fe00:1, 1 IPv4-mapped
     *     ::ffff:10.0.0.1}, for messages naming the table.
     */
    String listing()
    {
        return listing;
    }

    private static String describe(final Gid gid)
    {
        if (Gid.isLinkLocal(gid.high()))
        {
            return "link-local " + gid;
        }
        return (gid.isIpv4Mapped() ? "IPv4-mapped " : "IPv6 ") + gid;
    }
}
