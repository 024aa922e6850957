package org.roce4j.transport.engine;

import org.roce4j.transport.provider.AhOps;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.header.Ipv4Header;
import org.roce4j.wire.header.Ipv6Header;

/**
 * Where packets of a QP (RC/UC) or a UD send go: the IP addresses both ends use (derived from the source GID
 * index and the destination GID), the traffic class and hop limit, and the UDP source port.
 *
 * <p>Like rxe's rxe_av, this is resolved once (at modify-to-RTR or address-handle creation) so the per-packet path
 * only copies fields. The destination MAC is not here: the link resolves it. An address handle of the Verbs API
 * holds one as its {@link AhOps}.
 */
final class AddressVector implements AhOps
{
    /** Hop limit ibv_rc_pingpong sets when it uses a GRH. */
    public static final int DEFAULT_HOP_LIMIT = 64;

    private boolean ipv6;
    private int sourceIpv4;
    private int destinationIpv4;
    private long sourceHigh;
    private long sourceLow;
    private long destinationHigh;
    private long destinationLow;
    private int trafficClass;
    private int hopLimit = DEFAULT_HOP_LIMIT;
    private int flowLabel;
    private int serviceLevel;
    private int udpSourcePort = 0xC000;

    /**
     * Set both ends from GIDs: an IPv4-mapped GID (::ffff:a.b.c.d) means IPv4, anything else IPv6. Both ends must
     * be of the same family.
     *
     * @param sourceGidHigh      high 64 bits of the local GID.
     * @param sourceGidLow       low 64 bits of the local GID.
     * @param destinationGidHigh high 64 bits of the remote GID.
     * @param destinationGidLow  low 64 bits of the remote GID.
     * @return this.
     * @throws IllegalArgumentException when one GID is IPv4-mapped and the other is not.
     */
    public AddressVector gids(
        final long sourceGidHigh, final long sourceGidLow, final long destinationGidHigh, final long destinationGidLow)
    {
        final boolean sourceV4 = isIpv4Mapped(sourceGidHigh, sourceGidLow);
        final boolean destinationV4 = isIpv4Mapped(destinationGidHigh, destinationGidLow);
        if (sourceV4 != destinationV4)
        {
            throw new IllegalArgumentException("source GID " + Ipv6Header.addressToString(sourceGidHigh, sourceGidLow) +
                " and destination GID " + Ipv6Header.addressToString(destinationGidHigh, destinationGidLow) +
                " are of different IP families (RoCEv2 needs both IPv4-mapped or both IPv6)");
        }
        ipv6 = !sourceV4;
        sourceHigh = sourceGidHigh;
        sourceLow = sourceGidLow;
        destinationHigh = destinationGidHigh;
        destinationLow = destinationGidLow;
        sourceIpv4 = (int)sourceGidLow;
        destinationIpv4 = (int)destinationGidLow;
        return this;
    }

    /**
     * @param high 64 bits of a GID.
     * @param low  64 bits of a GID.
     * @return true for ::ffff:a.b.c.d.
     */
    public static boolean isIpv4Mapped(final long high, final long low)
    {
        return Gid.isIpv4Mapped(high, low);
    }

    /**
     * Copy another vector.
     *
     * @param other to copy.
     * @return this.
     */
    public AddressVector copyFrom(final AddressVector other)
    {
        ipv6 = other.ipv6;
        sourceIpv4 = other.sourceIpv4;
        destinationIpv4 = other.destinationIpv4;
        sourceHigh = other.sourceHigh;
        sourceLow = other.sourceLow;
        destinationHigh = other.destinationHigh;
        destinationLow = other.destinationLow;
        trafficClass = other.trafficClass;
        hopLimit = other.hopLimit;
        flowLabel = other.flowLabel;
        serviceLevel = other.serviceLevel;
        udpSourcePort = other.udpSourcePort;
        return this;
    }

    /**
     * @return true for IPv6, false for IPv4.
     */
    public boolean ipv6()
    {
        return ipv6;
    }

    /**
     * @return local IPv4 address (when IPv4).
     */
    public int sourceIpv4()
    {
        return sourceIpv4;
    }

    /**
     * @return remote IPv4 address (when IPv4).
     */
    public int destinationIpv4()
    {
        return destinationIpv4;
    }

    /**
     * @return local GID / IPv6 address, high half.
     */
    public long sourceHigh()
    {
        return sourceHigh;
    }

    /**
     * @return local GID / IPv6 address, low half.
     */
    public long sourceLow()
    {
        return sourceLow;
    }

    /**
     * @return remote GID / IPv6 address, high half.
     */
    public long destinationHigh()
    {
        return destinationHigh;
    }

    /**
     * @return remote GID / IPv6 address, low half.
     */
    public long destinationLow()
    {
        return destinationLow;
    }

    /**
     * @return traffic class, copied into the IPv4 TOS or IPv6 traffic class as rxe does.
     */
    public int trafficClass()
    {
        return trafficClass;
    }

    /**
     * @param trafficClass 0..255.
     * @return this.
     */
    public AddressVector trafficClass(final int trafficClass)
    {
        this.trafficClass = trafficClass & 0xFF;
        return this;
    }

    /**
     * @return hop limit, copied into the IPv4 TTL or IPv6 hop limit.
     */
    public int hopLimit()
    {
        return hopLimit;
    }

    /**
     * @param hopLimit 0..255 (0 is replaced by {@link #DEFAULT_HOP_LIMIT}: a packet with TTL 0 would not leave).
     * @return this.
     */
    public AddressVector hopLimit(final int hopLimit)
    {
        this.hopLimit = 0 == hopLimit ? DEFAULT_HOP_LIMIT : hopLimit & 0xFF;
        return this;
    }

    /**
     * @return flow label (IPv6); rxe sends 0.
     */
    public int flowLabel()
    {
        return flowLabel;
    }

    /**
     * @param flowLabel 20 bits.
     * @return this.
     */
    public AddressVector flowLabel(final int flowLabel)
    {
        this.flowLabel = flowLabel & 0xFFFFF;
        return this;
    }

    /**
     * @return service level (kept for query; RoCE maps it to priority outside the packet).
     */
    public int serviceLevel()
    {
        return serviceLevel;
    }

    /**
     * @param serviceLevel 0..15.
     * @return this.
     */
    public AddressVector serviceLevel(final int serviceLevel)
    {
        this.serviceLevel = serviceLevel & 0xF;
        return this;
    }

    /**
     * @return UDP source port of packets on this path.
     */
    public int udpSourcePort()
    {
        return udpSourcePort;
    }

    /**
     * @param port UDP source port.
     * @return this.
     */
    public AddressVector udpSourcePort(final int port)
    {
        this.udpSourcePort = port & 0xFFFF;
        return this;
    }

    /**
     * @return e.g. {@code 10.77.0.1 -> 10.77.0.2 tc=0 hl=64 sport=49169}.
     */
    public String toString()
    {
        final String source = ipv6 ? Ipv6Header.addressToString(sourceHigh, sourceLow) :
            Ipv4Header.addressToString(sourceIpv4);
        final String destination = ipv6 ? Ipv6Header.addressToString(destinationHigh, destinationLow) :
            Ipv4Header.addressToString(destinationIpv4);
        return source + " -> " + destination + " tc=" + trafficClass + " hl=" + hopLimit + " sport=" + udpSourcePort;
    }
}
