package org.roce4j.wire.mad;

import org.agrona.MutableDirectBuffer;
import org.roce4j.wire.header.HeaderFlyweight;
import org.roce4j.wire.header.Ipv4Header;
import org.roce4j.wire.header.Ipv6Header;

/**
 * The RDMA CM private-data header (struct cma_hdr in drivers/infiniband/core/cma.c): the first 36 bytes of the
 * private data of a REQ sent by rdma_connect() in an IP port space, telling the passive side which IP addresses
 * and which active-side port the connection is for (IBA annex A11 "RDMA IP CM service"). The application's own
 * private data follows it, 92 - 36 = 56 bytes at most.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |  CMA Version  |IPVer  | Rsvd  |          Source Port          |   0
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                 Source IP Address (128)                       |   4
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |               Destination IP Address (128)                    |  20
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * The version is {@link #CMA_VERSION} (0; the kernel rejects others with -EINVAL); IPVer is 4 or 6 in the upper
 * nibble of byte 1 (cma_set_ip_ver). An IPv4 address sits in the last 4 bytes of its 16 with the 12 bytes before it
 * zero (union cma_ip_addr: {@code __be32 pad[3]; __be32 addr}) - not the ::ffff: form the REQ's GIDs use. The
 * source is the active side, the destination the passive side, and the port the active side's own port.
 */
public final class CmaHeader extends HeaderFlyweight
{
    /** Length of the header. */
    public static final int LENGTH = 36;
    /** Offset of the version byte. */
    public static final int VERSION_OFFSET = 0;
    /** Offset of the IP version byte. */
    public static final int IP_VERSION_OFFSET = 1;
    /** Offset of the active side's port. */
    public static final int PORT_OFFSET = 2;
    /** Offset of the source address. */
    public static final int SOURCE_OFFSET = 4;
    /** Offset of the destination address. */
    public static final int DESTINATION_OFFSET = 20;
    /** Offset of an IPv4 address within its 16-byte slot. */
    public static final int IPV4_IN_SLOT_OFFSET = 12;
    /** The only version the kernel accepts (CMA_VERSION). */
    public static final int CMA_VERSION = 0x00;

    /** {@inheritDoc} */
    public CmaHeader wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    /**
     * @return 36.
     */
    public int length()
    {
        return LENGTH;
    }

    /**
     * @return CMA version byte (0).
     */
    public int version()
    {
        return u8(VERSION_OFFSET);
    }

    /**
     * @param version CMA version byte.
     * @return this.
     */
    public CmaHeader version(final int version)
    {
        u8(VERSION_OFFSET, version);
        return this;
    }

    /**
     * @return IP version, 4 or 6 (upper nibble of byte 1).
     */
    public int ipVersion()
    {
        return u8(IP_VERSION_OFFSET) >>> 4;
    }

    /**
     * @param ipVersion 4 or 6; the low nibble is kept.
     * @return this.
     */
    public CmaHeader ipVersion(final int ipVersion)
    {
        bits(IP_VERSION_OFFSET, 0xF0, 4, ipVersion);
        return this;
    }

    /**
     * @return the active side's port.
     */
    public int port()
    {
        return u16(PORT_OFFSET);
    }

    /**
     * @param port the active side's port.
     * @return this.
     */
    public CmaHeader port(final int port)
    {
        u16(PORT_OFFSET, port);
        return this;
    }

    /**
     * @return high 64 bits of the source slot.
     */
    public long sourceHigh()
    {
        return i64(SOURCE_OFFSET);
    }

    /**
     * @return low 64 bits of the source slot.
     */
    public long sourceLow()
    {
        return i64(SOURCE_OFFSET + 8);
    }

    /**
     * @return high 64 bits of the destination slot.
     */
    public long destinationHigh()
    {
        return i64(DESTINATION_OFFSET);
    }

    /**
     * @return low 64 bits of the destination slot.
     */
    public long destinationLow()
    {
        return i64(DESTINATION_OFFSET + 8);
    }

    /**
     * @return the source IPv4 address (meaningful when {@link #ipVersion()} is 4).
     */
    public int sourceIpv4()
    {
        return i32(SOURCE_OFFSET + IPV4_IN_SLOT_OFFSET);
    }

    /**
     * @return the destination IPv4 address (meaningful when {@link #ipVersion()} is 4).
     */
    public int destinationIpv4()
    {
        return i32(DESTINATION_OFFSET + IPV4_IN_SLOT_OFFSET);
    }

    /**
     * Fill the header for IPv4 as cma_format_hdr does: version 0, IP version 4, zero padding before each address.
     *
     * @param sourcePort  the active side's port.
     * @param source      the active side's address.
     * @param destination the passive side's address.
     * @return this.
     */
    public CmaHeader ipv4(final int sourcePort, final int source, final int destination)
    {
        buffer.setMemory(offset, LENGTH, (byte)0);
        version(CMA_VERSION).ipVersion(4).port(sourcePort);
        i32(SOURCE_OFFSET + IPV4_IN_SLOT_OFFSET, source);
        i32(DESTINATION_OFFSET + IPV4_IN_SLOT_OFFSET, destination);
        return this;
    }

    /**
     * Fill the header for IPv6: version 0, IP version 6.
     *
     * @param sourcePort      the active side's port.
     * @param sourceHigh      high 64 bits of the active side's address.
     * @param sourceLow       low 64 bits of the active side's address.
     * @param destinationHigh high 64 bits of the passive side's address.
     * @param destinationLow  low 64 bits of the passive side's address.
     * @return this.
     */
    public CmaHeader ipv6(
        final int sourcePort,
        final long sourceHigh,
        final long sourceLow,
        final long destinationHigh,
        final long destinationLow)
    {
        version(CMA_VERSION);
        u8(IP_VERSION_OFFSET, 6 << 4);
        port(sourcePort);
        i64(SOURCE_OFFSET, sourceHigh);
        i64(SOURCE_OFFSET + 8, sourceLow);
        i64(DESTINATION_OFFSET, destinationHigh);
        i64(DESTINATION_OFFSET + 8, destinationLow);
        return this;
    }

    /**
     * @return the source address as text for the header's IP version. Allocates.
     */
    public String sourceToString()
    {
        return 4 == ipVersion() ? Ipv4Header.addressToString(sourceIpv4()) :
            Ipv6Header.addressToString(sourceHigh(), sourceLow());
    }

    /**
     * @return the destination address as text for the header's IP version. Allocates.
     */
    public String destinationToString()
    {
        return 4 == ipVersion() ? Ipv4Header.addressToString(destinationIpv4()) :
            Ipv6Header.addressToString(destinationHigh(), destinationLow());
    }
}
