package org.roce4j.transport.link.ethernet;

import java.util.function.LongSupplier;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.collections.Long2LongHashMap;
import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.transport.link.FrameTap;
import org.roce4j.transport.link.FrameTaps;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.transport.link.LinkCounter;
import org.roce4j.transport.link.LinkCounters;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.addr.Mac;
import org.roce4j.wire.header.EthernetHeader;
import org.roce4j.wire.header.Ipv4Header;
import org.roce4j.wire.header.Ipv6Header;
import org.roce4j.wire.header.NeighborDiscoveryHeader;

import static java.nio.ByteOrder.BIG_ENDIAN;

/**
 * Layer 2 for a link that carries whole Ethernet frames (pcap, tunnel): one neighbour table for IPv4 and IPv6
 * ({@link NeighbourTable}), one ARP agent, one Neighbor Discovery agent, one {@link NeighbourPolicy}. The link keeps
 * only its medium (a socket or a capture handle), which this layer sends through ({@link Medium}).
 *
 * <p><b>Sending</b> ({@link #send}). A frame whose destination MAC is not {@code 00:00:00:00:00:00} goes out as it is
 * (tests use that to misaddress frames). Otherwise its destination MAC is filled in: IPv4 broadcast and multicast map
 * as RFC 1112 says, IPv6 multicast as RFC 2464 says, an IPv4-mapped IPv6 destination counts as its IPv4 address;
 * every other destination gets the configured peer MAC when there is one, or the MAC the neighbour table resolved by
 * ARP (IPv4) or Neighbor Discovery (IPv6). A frame to an unresolved destination is held ({@link NeighbourTable})
 * and sent once the answer comes; held frames that find the pool full, frames to a neighbour that never answers and
 * frames that cannot be resolved at all (not IP) count in {@link LinkCounter#SEND_UNRESOLVED}.
 *
 * <p><b>Receiving</b> ({@link #receive}). ARP addressed to the link's MAC or broadcast goes to the ARP agent, and
 * Neighbor Solicitations and Advertisements to the ND agent; neither reaches the engine. Other frames reach it only
 * when addressed to the link's MAC, the broadcast MAC or the MAC of a multicast group the engine joined
 * ({@link #joinGroup}, as rxe_mcast_add puts it on the netdev) and, for IP, to one of its addresses (or an IP
 * multicast or broadcast address): everything else, runts, foreign EtherTypes, other ICMPv6 (router solicitations,
 * multicast listener reports) and frames to groups nobody joined included, counts in
 * {@link LinkCounter#RECEIVE_FILTERED}.
 *
 * <p><b>Time.</b> Retries run from {@link #service()}, which the link calls on flush and poll; the clock is given.
 * Every frame sent and received, ARP and ND included, is shown to the {@link #tap(FrameTap) taps} as it crosses.
 * Single threaded: the thread driving the link.
 */
public final class EthernetLayer
{
    /** {@link Medium#transmit} and {@link #send}: the frame went out. */
    public static final int SENT = 0;
    /** The medium pushed back: try again later. */
    public static final int RETRY = 1;
    /** The frame was dropped (and counted). */
    public static final int DROPPED = 2;
    /** The frame waits for its destination's MAC. */
    public static final int HELD = 3;

    private static final System.Logger LOG = System.getLogger(EthernetLayer.class.getName());
    /** IPv4 limited broadcast 255.255.255.255. */
    private static final int IPV4_BROADCAST = -1;
    /** {@link #resolveDestination} result: no way to resolve this destination. */
    private static final long UNROUTABLE = -2L;

    /**
     * The medium under the layer: puts one whole frame on the wire.
     */
    @FunctionalInterface
    public interface Medium
    {
        /**
         * @param buffer holding the frame (native memory).
         * @param offset of the frame.
         * @param length of the frame.
         * @return {@link #SENT}, {@link #RETRY} or {@link #DROPPED} (counted by the medium in SEND_ERRORS).
         */
        int transmit(UnsafeBuffer buffer, int offset, int length);
    }

    private final String name;
    private final LinkAddress address;
    private final long ownMac;
    private final long peerMac;
    private final NeighbourPolicy policy;
    private final Medium medium;
    private final LinkCounters counters;
    private final LongSupplier nanoClock;
    private final NeighbourTable table;
    private final ArpAgent arp;
    private final NeighbourDiscovery nd;
    private final FrameTaps taps = new FrameTaps();
    /** Group MACs joined, with the number of joined groups that map to each (groups may share a MAC). */
    private final Long2LongHashMap joinedMacs = new Long2LongHashMap(0L);
    private long unresolvedHigh;
    private long unresolvedLow;
    private long lastFailureLogNs;
    private boolean failureLogged;

    /**
     * @param name           of the link, for log lines.
     * @param address        the link's MAC and addresses.
     * @param peerMac        a fixed destination MAC for every unicast frame, or {@link Mac#NONE} to resolve.
     * @param policy         how neighbours are resolved.
     * @param maxFrameLength longest frame the link carries (held frames are copied into slots this long).
     * @param medium         the link's socket or capture handle.
     * @param counters       the link's counters.
     * @param nanoClock      time source of the retries.
     */
    public EthernetLayer(
        final String name,
        final LinkAddress address,
        final long peerMac,
        final NeighbourPolicy policy,
        final int maxFrameLength,
        final Medium medium,
        final LinkCounters counters,
        final LongSupplier nanoClock)
    {
        this.name = name;
        this.address = address;
        this.ownMac = address.mac();
        this.peerMac = peerMac;
        this.policy = policy;
        this.medium = medium;
        this.counters = counters;
        this.nanoClock = nanoClock;
        this.table = new NeighbourTable(policy, maxFrameLength, new Actions());
        this.arp = new ArpAgent(this, address, table, counters);
        this.nd = new NeighbourDiscovery(this, address, table, counters);
    }

    /**
     * @param tap shown every frame sent and received from now on.
     */
    public void tap(final FrameTap tap)
    {
        taps.add(tap);
    }

    /**
     * Send an engine frame: fill in its destination MAC and put it on the medium, or hold it for resolution.
     *
     * @param buffer holding the frame (native memory; held frames are copied out).
     * @param offset of the frame.
     * @param length of the frame.
     * @return {@link #SENT}, {@link #RETRY} (nothing happened), {@link #DROPPED} or {@link #HELD}.
     */
    public int send(final UnsafeBuffer buffer, final int offset, final int length)
    {
        long destination = Mac.read(buffer, offset + EthernetHeader.DESTINATION_OFFSET);
        if (0 == destination)
        {
            destination = resolveDestination(buffer, offset, length);
            if (Mac.NONE == destination)
            {
                return hold(buffer, offset, length);
            }
            if (UNROUTABLE == destination)
            {
                counters.increment(LinkCounter.SEND_UNRESOLVED);
                return DROPPED;
            }
            Mac.write(buffer, offset + EthernetHeader.DESTINATION_OFFSET, destination);
        }
        return transmit(buffer, offset, length, true);
    }

    /**
     * Take a received frame: answer and learn from ARP and Neighbor Discovery, filter what is not the link's.
     *
     * @param buffer holding the frame.
     * @param offset of the frame.
     * @param length of the frame.
     * @return true when the frame is for the engine (counted in FRAMES_RECEIVED), false when it was consumed or
     *     filtered.
     */
    public boolean receive(final MutableDirectBuffer buffer, final int offset, final int length)
    {
        if (!taps.isEmpty())
        {
            taps.onFrame(false, buffer, offset, length);
        }
        if (length < EthernetHeader.LENGTH)
        {
            counters.increment(LinkCounter.RECEIVE_FILTERED);
            return false;
        }
        final long destination = Mac.read(buffer, offset + EthernetHeader.DESTINATION_OFFSET);
        int etherType = buffer.getShort(offset + EthernetHeader.TYPE_OFFSET, BIG_ENDIAN) & 0xFFFF;
        int ipOffset = offset + EthernetHeader.LENGTH;
        if (EthernetHeader.TPID_8021Q == etherType && length >= EthernetHeader.VLAN_LENGTH)
        {
            etherType = buffer.getShort(offset + EthernetHeader.INNER_TYPE_OFFSET, BIG_ENDIAN) & 0xFFFF;
            ipOffset = offset + EthernetHeader.VLAN_LENGTH;
        }
        final int available = offset + length - ipOffset;
        final boolean ours = ownMac == destination;
        if (EthernetHeader.ETHERTYPE_ARP == etherType)
        {
            if (ours || Mac.BROADCAST == destination)
            {
                counters.increment(LinkCounter.ARP_RECEIVED);
                arp.onArp(buffer, ipOffset, available);
            }
            else
            {
                counters.increment(LinkCounter.RECEIVE_FILTERED);
            }
            return false;
        }
        if (!ours && !Mac.isGroup(destination))
        {
            counters.increment(LinkCounter.RECEIVE_FILTERED);
            return false;
        }
        if (EthernetHeader.ETHERTYPE_IPV4 == etherType)
        {
            if (available >= Ipv4Header.LENGTH && !isOurs(buffer.getInt(ipOffset + Ipv4Header.DESTINATION_OFFSET,
                BIG_ENDIAN)))
            {
                counters.increment(LinkCounter.RECEIVE_FILTERED);
                return false;
            }
        }
        else if (EthernetHeader.ETHERTYPE_IPV6 == etherType)
        {
            if (nd.isNeighbourDiscovery(buffer, ipOffset, available))
            {
                counters.increment(LinkCounter.ND_RECEIVED);
                nd.onMessage(buffer, Mac.read(buffer, offset + EthernetHeader.SOURCE_OFFSET), ipOffset, available);
                return false;
            }
            if (available >= Ipv6Header.LENGTH && NeighborDiscoveryHeader.NEXT_HEADER_ICMPV6 ==
                (buffer.getByte(ipOffset + Ipv6Header.NEXT_HEADER_OFFSET) & 0xFF))
            {
                // Other ICMPv6 (router solicitations, multicast listener reports, echo): nothing for the engine.
                counters.increment(LinkCounter.RECEIVE_FILTERED);
                return false;
            }
            if (available >= Ipv6Header.LENGTH && !isOurs(
                buffer.getLong(ipOffset + Ipv6Header.DESTINATION_OFFSET, BIG_ENDIAN),
                buffer.getLong(ipOffset + Ipv6Header.DESTINATION_OFFSET + 8, BIG_ENDIAN)))
            {
                counters.increment(LinkCounter.RECEIVE_FILTERED);
                return false;
            }
        }
        else
        {
            counters.increment(LinkCounter.RECEIVE_FILTERED);
            return false;
        }
        if (!ours && Mac.BROADCAST != destination && 0 == joinedMacs.get(destination))
        {
            // A group MAC no joined group maps to (Neighbor Discovery's groups were taken above).
            counters.increment(LinkCounter.RECEIVE_FILTERED);
            return false;
        }
        counters.increment(LinkCounter.FRAMES_RECEIVED);
        counters.add(LinkCounter.BYTES_RECEIVED, length);
        return true;
    }

    /**
     * Run the resolution timers and send held frames whose MAC is known. Cheap when nothing is being resolved.
     */
    public void service()
    {
        if (table.resolvingCount() > 0 || table.heldFrames() > 0)
        {
            table.service(nanoClock.getAsLong());
        }
    }

    /**
     * Start resolving an IPv4 neighbour ahead of traffic (nothing happens with a fixed peer MAC).
     *
     * @param ipv4 the neighbour's address.
     */
    public void resolve(final int ipv4)
    {
        resolve(Gid.IPV4_MAPPED_HIGH, Gid.ipv4MappedLow(ipv4));
    }

    /**
     * Start resolving a neighbour ahead of traffic (nothing happens with a fixed peer MAC, or for multicast).
     *
     * @param high 64 bits of the address (IPv4-mapped for IPv4).
     * @param low  64 bits of the address.
     */
    public void resolve(final long high, final long low)
    {
        if (Mac.NONE == peerMac && !Gid.isMulticastGroup(high, low))
        {
            table.resolve(high, low, nanoClock.getAsLong());
            service();
        }
    }

    /**
     * Accept frames to a multicast group's MAC from now on (engine thread; the link's {@code joinGroup}).
     *
     * @param high 64 bits of the group's GID (IPv4-mapped for IPv4).
     * @param low  64 bits of the group's GID.
     * @return the group's MAC when this join is the first to it (a link with a NIC filter adds it there), else
     *     {@link Mac#NONE}.
     * @throws IllegalArgumentException when the GID is not a multicast group.
     */
    public long joinGroup(final long high, final long low)
    {
        final long mac = groupMac(high, low);
        final long joined = joinedMacs.get(mac);
        joinedMacs.put(mac, joined + 1);
        return 0 == joined ? mac : Mac.NONE;
    }

    /**
     * Stop accepting a group's frames once no joined group maps to its MAC (the link's {@code leaveGroup}).
     *
     * @param high 64 bits of the group's GID.
     * @param low  64 bits of the group's GID.
     * @return the group's MAC when no joined group maps to it any more (a link with a NIC filter removes it there),
     *     else {@link Mac#NONE}.
     */
    public long leaveGroup(final long high, final long low)
    {
        final long mac = groupMac(high, low);
        final long joined = joinedMacs.get(mac);
        if (joined > 1)
        {
            joinedMacs.put(mac, joined - 1);
            return Mac.NONE;
        }
        if (0 == joined)
        {
            return Mac.NONE;
        }
        joinedMacs.remove(mac);
        return mac;
    }

    /**
     * @return every MAC a joined group maps to (a link with a NIC filter removes them on close).
     */
    public long[] joinedGroupMacs()
    {
        final long[] macs = new long[joinedMacs.size()];
        final Long2LongHashMap.KeyIterator keys = joinedMacs.keySet().iterator();
        for (int i = 0; i < macs.length; i++)
        {
            macs[i] = keys.nextValue();
        }
        return macs;
    }

    private static long groupMac(final long high, final long low)
    {
        final long mac = Mac.ofMulticastGroup(high, low);
        if (Mac.NONE == mac)
        {
            throw new IllegalArgumentException(Gid.toString(high, low) + " is not a multicast group");
        }
        return mac;
    }

    /**
     * @param high 64 bits of a neighbour's address (IPv4-mapped for IPv4).
     * @param low  64 bits of the address.
     * @return what the link knows about its MAC.
     */
    public NeighbourState state(final long high, final long low)
    {
        return table.state(high, low);
    }

    /**
     * @param high 64 bits of a neighbour's address (IPv4-mapped for IPv4).
     * @param low  64 bits of the address.
     * @return the MAC frames to it carry now (the peer MAC when one is configured), or {@link Mac#NONE}.
     */
    public long resolvedMac(final long high, final long low)
    {
        return Mac.NONE != peerMac ? peerMac : table.learntMac(high, low);
    }

    /**
     * @return frames waiting for resolution right now.
     */
    public int heldFrames()
    {
        return table.heldFrames();
    }

    /**
     * @return the resolution policy.
     */
    public NeighbourPolicy policy()
    {
        return policy;
    }

    /**
     * Put one of the link's own frames (ARP, Neighbor Discovery) on the medium; counted by the agent that built it.
     *
     * @param buffer holding the frame at index 0 (native memory).
     * @param length of the frame.
     */
    void transmitControl(final UnsafeBuffer buffer, final int length)
    {
        transmit(buffer, 0, length, false);
    }

    private int transmit(final UnsafeBuffer buffer, final int offset, final int length, final boolean engineFrame)
    {
        final int result = medium.transmit(buffer, offset, length);
        if (SENT == result)
        {
            if (engineFrame)
            {
                counters.increment(LinkCounter.FRAMES_SENT);
                counters.add(LinkCounter.BYTES_SENT, length);
            }
            if (!taps.isEmpty())
            {
                taps.onFrame(true, buffer, offset, length);
            }
        }
        return result;
    }

    private int hold(final UnsafeBuffer buffer, final int offset, final int length)
    {
        final long high = unresolvedHigh;
        final long low = unresolvedLow;
        if (!table.hold(high, low, buffer, offset, length, nanoClock.getAsLong()))
        {
            counters.increment(LinkCounter.SEND_UNRESOLVED);
            return DROPPED;
        }
        counters.increment(LinkCounter.FRAMES_HELD);
        table.service(nanoClock.getAsLong());
        return HELD;
    }

    /**
     * @return the MAC, {@link Mac#NONE} to hold the frame for {@link #unresolvedHigh}/{@link #unresolvedLow}, or
     *     {@link #UNROUTABLE}.
     */
    private long resolveDestination(final DirectBuffer buffer, final int offset, final int length)
    {
        int etherType = buffer.getShort(offset + EthernetHeader.TYPE_OFFSET, BIG_ENDIAN) & 0xFFFF;
        int ipOffset = offset + EthernetHeader.LENGTH;
        if (EthernetHeader.TPID_8021Q == etherType && length >= EthernetHeader.VLAN_LENGTH)
        {
            etherType = buffer.getShort(offset + EthernetHeader.INNER_TYPE_OFFSET, BIG_ENDIAN) & 0xFFFF;
            ipOffset = offset + EthernetHeader.VLAN_LENGTH;
        }
        final int available = offset + length - ipOffset;
        if (EthernetHeader.ETHERTYPE_IPV4 == etherType && available >= Ipv4Header.LENGTH)
        {
            return ipv4Mac(buffer.getInt(ipOffset + Ipv4Header.DESTINATION_OFFSET, BIG_ENDIAN));
        }
        if (EthernetHeader.ETHERTYPE_IPV6 == etherType && available >= Ipv6Header.LENGTH)
        {
            final long high = buffer.getLong(ipOffset + Ipv6Header.DESTINATION_OFFSET, BIG_ENDIAN);
            final long low = buffer.getLong(ipOffset + Ipv6Header.DESTINATION_OFFSET + 8, BIG_ENDIAN);
            if (Gid.isMulticast(high))
            {
                return Mac.ofMulticastGroup(high, low);
            }
            if (Gid.isIpv4Mapped(high, low))
            {
                return ipv4Mac((int)low);
            }
            return unicastMac(high, low);
        }
        return Mac.NONE != peerMac ? peerMac : UNROUTABLE;
    }

    private long ipv4Mac(final int ipv4)
    {
        if (IPV4_BROADCAST == ipv4)
        {
            return Mac.BROADCAST;
        }
        if (Gid.isIpv4Multicast(ipv4))
        {
            return Mac.ofMulticastGroup(Gid.IPV4_MAPPED_HIGH, Gid.ipv4MappedLow(ipv4));
        }
        return unicastMac(Gid.IPV4_MAPPED_HIGH, Gid.ipv4MappedLow(ipv4));
    }

    private long unicastMac(final long high, final long low)
    {
        if (Mac.NONE != peerMac)
        {
            return peerMac;
        }
        final long known = table.lookup(high, low);
        if (Mac.NONE == known)
        {
            unresolvedHigh = high;
            unresolvedLow = low;
        }
        return known;
    }

    private boolean isOurs(final int ipv4)
    {
        return address.ownsIpv4(ipv4) || IPV4_BROADCAST == ipv4 || Gid.isIpv4Multicast(ipv4);
    }

    private boolean isOurs(final long high, final long low)
    {
        return address.ownsIpv6(high, low) || Gid.isMulticast(high);
    }

    /**
     * What the neighbour table asks of the link.
     */
    private final class Actions implements NeighbourTable.Listener
    {
        public void solicit(final long high, final long low)
        {
            if (Gid.isIpv4Mapped(high, low))
            {
                arp.request((int)low);
            }
            else
            {
                nd.solicit(high, low);
            }
        }

        public boolean transmitHeld(final UnsafeBuffer buffer, final int offset, final int length)
        {
            return RETRY != transmit(buffer, offset, length, true);
        }

        public void dropped(final long high, final long low, final int frames, final boolean failed)
        {
            counters.add(LinkCounter.SEND_UNRESOLVED, frames);
            if (!failed)
            {
                return;
            }
            counters.increment(LinkCounter.RESOLUTION_FAILURES);
            final long nowNs = nanoClock.getAsLong();
            if (!failureLogged || nowNs - lastFailureLogNs > policy.intervalNs())
            {
                failureLogged = true;
                lastFailureLogNs = nowNs;
                LOG.log(System.Logger.Level.WARNING, "link {0}: no answer from {1} after {2} requests; dropped {3} " +
                    "frame(s) to it", name, Gid.toString(high, low), policy.requests(), frames);
            }
        }
    }
}
