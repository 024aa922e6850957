package org.roce4j.wire.header;

import org.agrona.MutableDirectBuffer;

/**
 * UDP header (RFC 768). RoCEv2 packets go to destination port 4791.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |          Source Port          |       Destination Port        |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |            Length             |           Checksum            |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * rxe sends checksum 0 (the ICRC protects the packet) and a source port of {@code 0xC000 + hash(QPN)}; the ICRC
 * covers the ports and the length, and masks the checksum.
 */
public final class UdpHeader extends HeaderFlyweight
{
    /** Header length. */
    public static final int LENGTH = 8;
    /** Offset of the source port. */
    public static final int SOURCE_PORT_OFFSET = 0;
    /** Offset of the destination port. */
    public static final int DESTINATION_PORT_OFFSET = 2;
    /** Offset of the length. */
    public static final int LENGTH_OFFSET = 4;
    /** Offset of the checksum. */
    public static final int CHECKSUM_OFFSET = 6;
    /** IANA port of RoCEv2 (ROCE_V2_UDP_DPORT in rxe_net.c). */
    public static final int ROCE_V2_PORT = 4791;

    /** {@inheritDoc} */
    public UdpHeader wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    /**
     * @return 8.
     */
    public int length()
    {
        return LENGTH;
    }

    /**
     * @return source port.
     */
    public int sourcePort()
    {
        return u16(SOURCE_PORT_OFFSET);
    }

    /**
     * @param port source port.
     * @return this.
     */
    public UdpHeader sourcePort(final int port)
    {
        u16(SOURCE_PORT_OFFSET, port);
        return this;
    }

    /**
     * @return destination port.
     */
    public int destinationPort()
    {
        return u16(DESTINATION_PORT_OFFSET);
    }

    /**
     * @param port destination port.
     * @return this.
     */
    public UdpHeader destinationPort(final int port)
    {
        u16(DESTINATION_PORT_OFFSET, port);
        return this;
    }

    /**
     * @return the length field: header plus data.
     */
    public int datagramLength()
    {
        return u16(LENGTH_OFFSET);
    }

    /**
     * @param length header plus data in bytes.
     * @return this.
     */
    public UdpHeader datagramLength(final int length)
    {
        u16(LENGTH_OFFSET, length);
        return this;
    }

    /**
     * @return checksum field (0 means "not computed" over IPv4).
     */
    public int checksum()
    {
        return u16(CHECKSUM_OFFSET);
    }

    /**
     * @param checksum value.
     * @return this.
     */
    public UdpHeader checksum(final int checksum)
    {
        u16(CHECKSUM_OFFSET, checksum);
        return this;
    }
}
