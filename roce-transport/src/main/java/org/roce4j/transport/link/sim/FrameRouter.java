package org.roce4j.transport.link.sim;

import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.header.EthernetHeader;
import org.roce4j.wire.header.Ipv4Header;
import org.roce4j.wire.header.Ipv6Header;

import static java.nio.ByteOrder.BIG_ENDIAN;

/**
 * A {@link SimSwitch}'s forwarding table: which port each attached address is behind, looked up on a frame's
 * destination IP address as the ports' GID tables hold them (IPv4, IPv4-mapped IPv6, link-local IPv6), past an
 * 802.1Q tag. Also tells the switch's marking where a frame's IP header starts. Single threaded (the switch's
 * thread), allocation-free on lookups.
 */
final class FrameRouter
{
    private final Int2ObjectHashMap<SwitchPort> byIpv4 = new Int2ObjectHashMap<>();
    private final Long2ObjectHashMap<SwitchPort> byLinkLocal = new Long2ObjectHashMap<>();
    /** Where the IP header of the frame {@link #etherType} looked at last starts. */
    private int ipOffset;

    /**
     * @param address of an endpoint.
     * @return true when its IPv4 address is attached already.
     */
    boolean has(final LinkAddress address)
    {
        return byIpv4.containsKey(address.ipv4());
    }

    void add(final SwitchPort port)
    {
        byIpv4.put(port.address().ipv4(), port);
        byLinkLocal.put(port.address().linkLocalLow(), port);
    }

    void remove(final SwitchPort port)
    {
        byIpv4.remove(port.address().ipv4());
        byLinkLocal.remove(port.address().linkLocalLow());
    }

    /**
     * @return where the IP header of the frame last given to {@link #ipVersion} or {@link #route} starts.
     */
    int ipOffset()
    {
        return ipOffset;
    }

    /**
     * @return the frame's EtherType, past an 802.1Q tag if it has one; {@link #ipOffset} is then where its IP header
     *     starts.
     */
    private int etherType(final UnsafeBuffer frame, final int index)
    {
        final int outer = frame.getShort(index + EthernetHeader.TYPE_OFFSET, BIG_ENDIAN) & 0xFFFF;
        if (EthernetHeader.TPID_8021Q == outer)
        {
            ipOffset = index + EthernetHeader.VLAN_LENGTH;
            return frame.getShort(index + EthernetHeader.INNER_TYPE_OFFSET, BIG_ENDIAN) & 0xFFFF;
        }
        ipOffset = index + EthernetHeader.LENGTH;
        return outer;
    }

    /**
     * @param frame  holding the frame.
     * @param index  of the frame.
     * @param length of the frame.
     * @return 4 or 6 when the frame holds a whole IPv4 or IPv6 header, {@link #ipOffset} then being where it starts;
     *     0 for anything else.
     */
    int ipVersion(final UnsafeBuffer frame, final int index, final int length)
    {
        final int etherType = etherType(frame, index);
        if (EthernetHeader.ETHERTYPE_IPV4 == etherType && ipOffset + Ipv4Header.LENGTH <= index + length)
        {
            return 4;
        }
        if (EthernetHeader.ETHERTYPE_IPV6 == etherType && ipOffset + Ipv6Header.LENGTH <= index + length)
        {
            return 6;
        }
        return 0;
    }

    /**
     * @param frame  holding the frame.
     * @param index  of the frame.
     * @param length of the frame.
     * @return the port the frame's destination IP address (IPv4, IPv4-mapped or link-local IPv6) is attached to, or
     *     null.
     */
    SwitchPort route(final UnsafeBuffer frame, final int index, final int length)
    {
        final int ipVersion = ipVersion(frame, index, length);
        final int ip = ipOffset;
        if (4 == ipVersion)
        {
            return byIpv4.get(frame.getInt(ip + Ipv4Header.DESTINATION_OFFSET, BIG_ENDIAN));
        }
        if (6 == ipVersion)
        {
            final long high = frame.getLong(ip + Ipv6Header.DESTINATION_OFFSET, BIG_ENDIAN);
            final long low = frame.getLong(ip + Ipv6Header.DESTINATION_OFFSET + 8, BIG_ENDIAN);
            if (Gid.isIpv4Mapped(high, low))
            {
                return byIpv4.get((int)low);
            }
            if (Gid.isLinkLocal(high))
            {
                return byLinkLocal.get(low);
            }
        }
        return null;
    }
}
