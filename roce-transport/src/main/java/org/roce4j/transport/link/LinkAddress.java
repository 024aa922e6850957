package org.roce4j.transport.link;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.addr.Mac;
import org.roce4j.wire.header.Ipv4Header;

/**
 * The layer-2 and layer-3 identity of a link: its MAC and the set of IP addresses it owns, IPv4 and/or IPv6, in the
 * order they were given. The device derives its GID table from it the way rxe does ({@link #gids()}): index 0 the
 * IPv6 link-local address made from the MAC (modified EUI-64), then one IPv4-mapped GID per IPv4 address, then each
 * IPv6 address that is not link-local.
 *
 * <p>The first IPv4 address is the link's primary one ({@link #ipv4()}, 0 for an IPv6-only link); the per-frame
 * checks ({@link #ownsIpv4(int)}, {@link #ownsIpv6(long, long)}) read arrays and never allocate. Immutable.
 */
public final class LinkAddress
{
    private final long mac;
    private final List<Gid> ips;
    private final int[] ipv4s;
    private final long[] ipv6High;
    private final long[] ipv6Low;

    /**
     * A link with one IPv4 address (or none).
     *
     * @param mac  MAC address in the low 48 bits (0 for links without layer 2 of their own, such as kernel UDP).
     * @param ipv4 IPv4 address as a big-endian int; 0 for none.
     */
    public LinkAddress(final long mac, final int ipv4)
    {
        this(mac, 0 == ipv4 ? List.of() : List.of(Gid.ofIpv4(ipv4)));
    }

    /**
     * A link with a set of addresses.
     *
     * @param mac MAC address in the low 48 bits (0 for links without layer 2 of their own).
     * @param ips the addresses, IPv4 ones as their IPv4-mapped GIDs; none twice.
     * @throws IllegalArgumentException for a repeated, multicast or unspecified address.
     */
    public LinkAddress(final long mac, final List<Gid> ips)
    {
        this.mac = mac;
        this.ips = Collections.unmodifiableList(new ArrayList<>(ips));
        int v4 = 0;
        for (final Gid ip : ips)
        {
            if (Gid.ZERO.equals(ip) || ip.isMulticast() || (ip.isIpv4Mapped() && 0 == ip.ipv4()))
            {
                throw new IllegalArgumentException("a link cannot own the address " + ip);
            }
            if (ips.indexOf(ip) != ips.lastIndexOf(ip))
            {
                throw new IllegalArgumentException("address " + ip + " given twice");
            }
            v4 += ip.isIpv4Mapped() ? 1 : 0;
        }
        ipv4s = new int[v4];
        ipv6High = new long[ips.size() - v4];
        ipv6Low = new long[ips.size() - v4];
        int i4 = 0;
        int i6 = 0;
        for (final Gid ip : ips)
        {
            if (ip.isIpv4Mapped())
            {
                ipv4s[i4++] = ip.ipv4();
            }
            else
            {
                ipv6High[i6] = ip.high();
                ipv6Low[i6++] = ip.low();
            }
        }
    }

    /**
     * A link address from text, e.g. {@code LinkAddress.of("02:00:00:00:00:01", "10.0.0.1")} or
     * {@code LinkAddress.of("02:00:00:00:00:01", "fd00:77::1")}.
     *
     * @param mac six hex octets separated by ':' or '-'.
     * @param ip  an IPv4 or IPv6 address.
     * @return the address.
     * @throws IllegalArgumentException naming the part that is not a MAC or not an IP address.
     */
    public static LinkAddress of(final String mac, final String ip)
    {
        return new LinkAddress(Mac.parse(requireText(mac, "mac")), List.of(Gid.parse(requireText(ip, "ip"))));
    }

    /**
     * A link address for one IP address alone, with a MAC made from it ({@link #defaultMac(List)}).
     *
     * @param ip an IPv4 (dotted quad) or IPv6 address.
     * @return the address, e.g. MAC 02:00:0a:00:00:01 for 10.0.0.1.
     * @throws IllegalArgumentException when it is not an IP address.
     */
    public static LinkAddress ofIp(final String ip)
    {
        final List<Gid> ips = List.of(Gid.parse(requireText(ip, "ip")));
        return new LinkAddress(defaultMac(ips), ips);
    }

    /**
     * A link address for an IPv4 address alone, with a MAC made from it: {@code 02:00:a:b:c:d} in hex
     * ({@link Mac#ofIpv4(int)}).
     *
     * @param ipv4 a dotted quad.
     * @return the address, e.g. MAC 02:00:0a:00:00:01 for 10.0.0.1.
     * @throws IllegalArgumentException when it is not an IPv4 address.
     */
    public static LinkAddress ofIpv4(final String ipv4)
    {
        final int address = Ipv4Header.parseAddress(requireText(ipv4, "ipv4"));
        return new LinkAddress(Mac.ofIpv4(address), address);
    }

    /**
     * The MAC a link gets when none is configured: made from its first IPv4 address ({@link Mac#ofIpv4(int)}), or
     * else from its first IPv6 address ({@link Mac#ofIpv6(long)}).
     *
     * @param ips the link's addresses, at least one.
     * @return the MAC.
     * @throws IllegalArgumentException when there is no address.
     */
    public static long defaultMac(final List<Gid> ips)
    {
        for (final Gid ip : ips)
        {
            if (ip.isIpv4Mapped())
            {
                return Mac.ofIpv4(ip.ipv4());
            }
        }
        if (ips.isEmpty())
        {
            throw new IllegalArgumentException("a link needs at least one IP address");
        }
        return Mac.ofIpv6(ips.get(0).low());
    }

    private static String requireText(final String text, final String name)
    {
        if (null == text)
        {
            throw new IllegalArgumentException(name + " must not be null");
        }
        return text;
    }

    /**
     * @return MAC address in the low 48 bits (0 for a link without layer 2 of its own).
     */
    public long mac()
    {
        return mac;
    }

    /**
     * @return the primary IPv4 address (the first given) as a big-endian int, or 0 when the link has none.
     */
    public int ipv4()
    {
        return 0 == ipv4s.length ? 0 : ipv4s[0];
    }

    /**
     * @return every address the link owns, in the order given; IPv4 ones as IPv4-mapped GIDs.
     */
    public List<Gid> ips()
    {
        return ips;
    }

    /**
     * @return the IPv4 addresses, in the order given (a copy).
     */
    public int[] ipv4s()
    {
        return ipv4s.clone();
    }

    /**
     * @return the IPv6 addresses given (not the link-local one made from the MAC), in order.
     */
    public List<Gid> ipv6s()
    {
        final List<Gid> result = new ArrayList<>(ipv6High.length);
        for (int i = 0; i < ipv6High.length; i++)
        {
            result.add(new Gid(ipv6High[i], ipv6Low[i]));
        }
        return result;
    }

    /**
     * @return the first IPv6 address given, or null when the link has none but its link-local one.
     */
    public Gid primaryIpv6()
    {
        return 0 == ipv6High.length ? null : new Gid(ipv6High[0], ipv6Low[0]);
    }

    /**
     * @return true when the link has an IPv4 address.
     */
    public boolean hasIpv4()
    {
        return ipv4s.length > 0;
    }

    /**
     * @param ipv4 big-endian IPv4 address.
     * @return true when it is one of the link's.
     */
    public boolean ownsIpv4(final int ipv4)
    {
        for (final int own : ipv4s)
        {
            if (own == ipv4)
            {
                return true;
            }
        }
        return false;
    }

    /**
     * @param high 64 bits of an IPv6 address.
     * @param low  64 bits of an IPv6 address.
     * @return true for one of the link's IPv6 addresses, its link-local address (when it has a MAC), or the
     *     IPv4-mapped form of one of its IPv4 addresses.
     */
    public boolean ownsIpv6(final long high, final long low)
    {
        for (int i = 0; i < ipv6High.length; i++)
        {
            if (ipv6High[i] == high && ipv6Low[i] == low)
            {
                return true;
            }
        }
        if (0 != mac && Gid.LINK_LOCAL_HIGH == high && Gid.linkLocalLow(mac) == low)
        {
            return true;
        }
        return Gid.isIpv4Mapped(high, low) && ownsIpv4((int)low);
    }

    /**
     * @return the link-local GID made from the MAC: fe80:: and its modified EUI-64 identifier.
     */
    public Gid linkLocal()
    {
        return Gid.linkLocal(mac);
    }

    /**
     * @return low 64 bits of the link-local GID ({@link Gid#linkLocalLow(long)} of the MAC).
     */
    public long linkLocalLow()
    {
        return Gid.linkLocalLow(mac);
    }

    /**
     * @return low 64 bits of {@code ::ffff:} and the primary IPv4 address.
     */
    public long ipv4MappedLow()
    {
        return Gid.ipv4MappedLow(ipv4());
    }

    /**
     * The GID table rxe builds for a port with these addresses (rxe lists the kernel's RoCEv2 GIDs of the netdev in
     * the order the kernel adds them: the link-local address first, then IPv4 addresses as IPv4-mapped GIDs, then
     * the other IPv6 addresses).
     *
     * @return the GIDs, index 0 first.
     */
    public List<Gid> gids()
    {
        final List<Gid> gids = new ArrayList<>(1 + ips.size());
        gids.add(linkLocal());
        for (final int ipv4 : ipv4s)
        {
            gids.add(Gid.ofIpv4(ipv4));
        }
        for (int i = 0; i < ipv6High.length; i++)
        {
            if (!Gid.isLinkLocal(ipv6High[i]))
            {
                gids.add(new Gid(ipv6High[i], ipv6Low[i]));
            }
        }
        return gids;
    }

    /** {@inheritDoc} */
    public boolean equals(final Object other)
    {
        return other instanceof LinkAddress && mac == ((LinkAddress)other).mac && ips.equals(((LinkAddress)other).ips);
    }

    /** {@inheritDoc} */
    public int hashCode()
    {
        return Long.hashCode(mac) * 31 + ips.hashCode();
    }

    /**
     * @return e.g. {@code mac=52:54:00:12:34:56 ip=10.77.0.1 gid0=fe80::5054:ff:fe12:3456 gid1=::ffff:10.77.0.1}.
     */
    public String toString()
    {
        final StringBuilder sb = new StringBuilder("mac=").append(Mac.toString(mac));
        for (final Gid ip : ips)
        {
            sb.append(" ip=").append(ip.isIpv4Mapped() ? Ipv4Header.addressToString(ip.ipv4()) : ip.toString());
        }
        final List<Gid> gids = gids();
        for (int i = 0; i < gids.size(); i++)
        {
            sb.append(" gid").append(i).append('=').append(gids.get(i));
        }
        return sb.toString();
    }
}
