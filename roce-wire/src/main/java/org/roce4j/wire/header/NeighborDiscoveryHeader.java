package org.roce4j.wire.header;

import org.agrona.MutableDirectBuffer;
import org.roce4j.wire.addr.Mac;

/**
 * An IPv6 Neighbor Solicitation or Neighbor Advertisement (RFC 4861 sections 4.3 and 4.4): an ICMPv6 message (RFC
 * 4443) carried in an IPv6 packet with next header 58 and hop limit 255, followed by options, of which a RoCEv2
 * link needs the source and target link-layer address options (section 4.6.1).
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  | Type (135/136)|   Code (0)    |           Checksum            |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |R|S|O|                     Reserved (NS: all reserved)         |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                                                               |
 *  +                       Target Address (128)                    +
 *  |                                                               |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  | Option type   | Length (x8 B) |  Link-layer address (48) ...  |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * The checksum covers the IPv6 pseudo-header (source, destination, upper-layer length, next header 58; RFC 8200
 * section 8.1) and the whole ICMPv6 message. A message with an option of length 0 is invalid (RFC 4861 section
 * 4.6): {@link #linkLayerOption(int, int)} then reports it.
 */
public final class NeighborDiscoveryHeader extends HeaderFlyweight
{
    /** Next-header value of ICMPv6 in the IPv6 header. */
    public static final int NEXT_HEADER_ICMPV6 = 58;
    /** Hop limit every Neighbor Discovery message is sent with and must arrive with (RFC 4861 section 7.1.1). */
    public static final int HOP_LIMIT = 255;
    /** ICMPv6 type of a Neighbor Solicitation. */
    public static final int TYPE_NEIGHBOR_SOLICITATION = 135;
    /** ICMPv6 type of a Neighbor Advertisement. */
    public static final int TYPE_NEIGHBOR_ADVERTISEMENT = 136;
    /** Offset of the ICMPv6 type. */
    public static final int TYPE_OFFSET = 0;
    /** Offset of the ICMPv6 code. */
    public static final int CODE_OFFSET = 1;
    /** Offset of the ICMPv6 checksum. */
    public static final int CHECKSUM_OFFSET = 2;
    /** Offset of the flags word (NA) or reserved word (NS). */
    public static final int FLAGS_OFFSET = 4;
    /** Offset of the target address. */
    public static final int TARGET_OFFSET = 8;
    /** Length of the message without options. */
    public static final int LENGTH = 24;
    /** Length of a link-layer address option for Ethernet: type, length 1 (8 bytes), MAC. */
    public static final int LINK_LAYER_OPTION_LENGTH = 8;
    /** Option type: source link-layer address (in solicitations). */
    public static final int OPTION_SOURCE_LINK_LAYER = 1;
    /** Option type: target link-layer address (in advertisements). */
    public static final int OPTION_TARGET_LINK_LAYER = 2;
    /** NA flag: sent by a router. */
    public static final int FLAG_ROUTER = 0x8000_0000;
    /** NA flag: sent in response to a solicitation. */
    public static final int FLAG_SOLICITED = 0x4000_0000;
    /** NA flag: override an existing cache entry. */
    public static final int FLAG_OVERRIDE = 0x2000_0000;
    /** {@link #linkLayerOption} result: an option has length 0, so the message must be discarded. */
    public static final long MALFORMED_OPTIONS = -2L;

    /** {@inheritDoc} */
    public NeighborDiscoveryHeader wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    /**
     * @return {@link #LENGTH}, without options.
     */
    public int length()
    {
        return LENGTH;
    }

    /**
     * @return ICMPv6 type.
     */
    public int type()
    {
        return u8(TYPE_OFFSET);
    }

    /**
     * @return ICMPv6 code (0 for Neighbor Discovery).
     */
    public int code()
    {
        return u8(CODE_OFFSET);
    }

    /**
     * @return the carried checksum.
     */
    public int checksum()
    {
        return u16(CHECKSUM_OFFSET);
    }

    /**
     * @return the R, S and O flags of an advertisement in the top bits.
     */
    public int flags()
    {
        return i32(FLAGS_OFFSET);
    }

    /**
     * @return high 64 bits of the target address.
     */
    public long targetHigh()
    {
        return i64(TARGET_OFFSET);
    }

    /**
     * @return low 64 bits of the target address.
     */
    public long targetLow()
    {
        return i64(TARGET_OFFSET + 8);
    }

    /**
     * Find a link-layer address option.
     *
     * @param messageLength bytes of the ICMPv6 message, options included.
     * @param optionType    {@link #OPTION_SOURCE_LINK_LAYER} or {@link #OPTION_TARGET_LINK_LAYER}.
     * @return the MAC, {@link Mac#NONE} when absent, or {@link #MALFORMED_OPTIONS}.
     */
    public long linkLayerOption(final int messageLength, final int optionType)
    {
        long found = Mac.NONE;
        int at = LENGTH;
        while (at + 2 <= messageLength)
        {
            final int type = u8(at);
            final int units = u8(at + 1);
            if (0 == units || at + units * 8 > messageLength)
            {
                return MALFORMED_OPTIONS;
            }
            if (optionType == type && units * 8 >= 2 + Mac.LENGTH && Mac.NONE == found)
            {
                found = u48(at + 2);
            }
            at += units * 8;
        }
        return found;
    }

    /**
     * Write a Neighbor Solicitation with a source link-layer address option; the checksum is left 0.
     *
     * @param targetHigh high 64 bits of the address to resolve.
     * @param targetLow  low 64 bits of the address to resolve.
     * @param sourceMac  the sender's MAC.
     * @return the message length ({@link #LENGTH} + {@link #LINK_LAYER_OPTION_LENGTH}).
     */
    public int neighborSolicitation(final long targetHigh, final long targetLow, final long sourceMac)
    {
        return write(TYPE_NEIGHBOR_SOLICITATION, 0, targetHigh, targetLow, OPTION_SOURCE_LINK_LAYER, sourceMac);
    }

    /**
     * Write a Neighbor Advertisement with a target link-layer address option; the checksum is left 0.
     *
     * @param flags      {@link #FLAG_SOLICITED}, {@link #FLAG_OVERRIDE}, ...
     * @param targetHigh high 64 bits of the advertised address.
     * @param targetLow  low 64 bits of the advertised address.
     * @param targetMac  its MAC.
     * @return the message length ({@link #LENGTH} + {@link #LINK_LAYER_OPTION_LENGTH}).
     */
    public int neighborAdvertisement(final int flags, final long targetHigh, final long targetLow, final long targetMac)
    {
        return write(TYPE_NEIGHBOR_ADVERTISEMENT, flags, targetHigh, targetLow, OPTION_TARGET_LINK_LAYER, targetMac);
    }

    private int write(
        final int type, final int flags, final long targetHigh, final long targetLow, final int optionType,
        final long mac)
    {
        u8(TYPE_OFFSET, type);
        u8(CODE_OFFSET, 0);
        u16(CHECKSUM_OFFSET, 0);
        i32(FLAGS_OFFSET, flags);
        i64(TARGET_OFFSET, targetHigh);
        i64(TARGET_OFFSET + 8, targetLow);
        u8(LENGTH, optionType);
        u8(LENGTH + 1, 1);
        u48(LENGTH + 2, mac);
        return LENGTH + LINK_LAYER_OPTION_LENGTH;
    }

    /**
     * The unfolded one's-complement sum of the IPv6 pseudo-header and the message as it stands.
     *
     * @param sourceHigh      high 64 bits of the IPv6 source.
     * @param sourceLow       low 64 bits of the IPv6 source.
     * @param destinationHigh high 64 bits of the IPv6 destination.
     * @param destinationLow  low 64 bits of the IPv6 destination.
     * @param messageLength   bytes of the ICMPv6 message.
     * @return the sum.
     */
    public long sum(
        final long sourceHigh, final long sourceLow, final long destinationHigh, final long destinationLow,
        final int messageLength)
    {
        long sum = InternetChecksum.add(0, sourceHigh);
        sum = InternetChecksum.add(sum, sourceLow);
        sum = InternetChecksum.add(sum, destinationHigh);
        sum = InternetChecksum.add(sum, destinationLow);
        sum += messageLength + NEXT_HEADER_ICMPV6;
        return InternetChecksum.add(sum, buffer, offset, messageLength);
    }

    /**
     * Compute and store the checksum (the field must be 0, as the writers leave it).
     *
     * @param sourceHigh      high 64 bits of the IPv6 source.
     * @param sourceLow       low 64 bits of the IPv6 source.
     * @param destinationHigh high 64 bits of the IPv6 destination.
     * @param destinationLow  low 64 bits of the IPv6 destination.
     * @param messageLength   bytes of the ICMPv6 message.
     * @return this.
     */
    public NeighborDiscoveryHeader updateChecksum(
        final long sourceHigh, final long sourceLow, final long destinationHigh, final long destinationLow,
        final int messageLength)
    {
        u16(CHECKSUM_OFFSET, 0);
        u16(CHECKSUM_OFFSET, InternetChecksum.checksum(
            sum(sourceHigh, sourceLow, destinationHigh, destinationLow, messageLength)));
        return this;
    }
}
