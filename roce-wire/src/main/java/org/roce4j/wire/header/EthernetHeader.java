package org.roce4j.wire.header;

import org.agrona.MutableDirectBuffer;

/**
 * Ethernet II header with an optional IEEE 802.1Q tag.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                    Destination MAC (48)                       |
 *  +                               +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                               |        Source MAC (48)        |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+                               +
 *  |                                                               |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |   EtherType, or TPID 0x8100   |  (802.1Q only) PCP|D|  VID    |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |  (802.1Q only) inner EtherType|
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * Untagged the header is 14 bytes; with an 802.1Q tag it is 18 and the EtherType that names the payload follows
 * the tag. {@link #etherType()} always returns that payload EtherType.
 */
public final class EthernetHeader extends HeaderFlyweight
{
    /** Length of an untagged header. */
    public static final int LENGTH = 14;
    /** Length of an 802.1Q tagged header. */
    public static final int VLAN_LENGTH = 18;
    /** Offset of the destination MAC. */
    public static final int DESTINATION_OFFSET = 0;
    /** Offset of the source MAC. */
    public static final int SOURCE_OFFSET = 6;
    /** Offset of the EtherType or the 802.1Q TPID. */
    public static final int TYPE_OFFSET = 12;
    /** Offset of the 802.1Q Tag Control Information when tagged. */
    public static final int TCI_OFFSET = 14;
    /** Offset of the inner EtherType when tagged. */
    public static final int INNER_TYPE_OFFSET = 16;

    /** EtherType of IPv4. */
    public static final int ETHERTYPE_IPV4 = 0x0800;
    /** EtherType of ARP. */
    public static final int ETHERTYPE_ARP = 0x0806;
    /** EtherType of IPv6. */
    public static final int ETHERTYPE_IPV6 = 0x86DD;
    /** Tag Protocol Identifier of an IEEE 802.1Q tag. */
    public static final int TPID_8021Q = 0x8100;

    /** Shortest Ethernet frame without its FCS (IEEE 802.3: 64 bytes less the 4-byte FCS); shorter ones are padded. */
    public static final int MIN_FRAME_LENGTH = 60;

    /** {@inheritDoc} */
    public EthernetHeader wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    /**
     * @return 18 when an 802.1Q tag is present, else 14.
     */
    public int length()
    {
        return hasVlanTag() ? VLAN_LENGTH : LENGTH;
    }

    /**
     * @return destination MAC in the low 48 bits.
     */
    public long destination()
    {
        return u48(DESTINATION_OFFSET);
    }

    /**
     * @param mac destination MAC in the low 48 bits.
     * @return this.
     */
    public EthernetHeader destination(final long mac)
    {
        u48(DESTINATION_OFFSET, mac);
        return this;
    }

    /**
     * @return source MAC in the low 48 bits.
     */
    public long source()
    {
        return u48(SOURCE_OFFSET);
    }

    /**
     * @param mac source MAC in the low 48 bits.
     * @return this.
     */
    public EthernetHeader source(final long mac)
    {
        u48(SOURCE_OFFSET, mac);
        return this;
    }

    /**
     * @return the 16 bits at offset 12: the EtherType, or 0x8100 when tagged.
     */
    public int outerType()
    {
        return u16(TYPE_OFFSET);
    }

    /**
     * @return true when bytes 12..13 hold the 802.1Q TPID.
     */
    public boolean hasVlanTag()
    {
        return TPID_8021Q == outerType();
    }

    /**
     * @return the EtherType that names the payload (after the tag when tagged).
     */
    public int etherType()
    {
        return hasVlanTag() ? u16(INNER_TYPE_OFFSET) : u16(TYPE_OFFSET);
    }

    /**
     * Write an untagged EtherType at offset 12. Use {@link #vlanTag(int, boolean, int, int)} for a tagged frame.
     *
     * @param etherType of the payload.
     * @return this.
     */
    public EthernetHeader etherType(final int etherType)
    {
        u16(TYPE_OFFSET, etherType);
        return this;
    }

    /**
     * Write an 802.1Q tag followed by the payload EtherType.
     *
     * @param priority  PCP, 3 bits.
     * @param dropEligible DEI bit.
     * @param vlanId    VID, 12 bits.
     * @param etherType of the payload.
     * @return this.
     */
    public EthernetHeader vlanTag(final int priority, final boolean dropEligible, final int vlanId, final int etherType)
    {
        u16(TYPE_OFFSET, TPID_8021Q);
        u16(TCI_OFFSET, ((priority & 0x7) << 13) | (dropEligible ? 0x1000 : 0) | (vlanId & 0xFFF));
        u16(INNER_TYPE_OFFSET, etherType);
        return this;
    }

    /**
     * @return the Tag Control Information (only meaningful when tagged).
     */
    public int tci()
    {
        return u16(TCI_OFFSET);
    }

    /**
     * @return Priority Code Point, bits 15..13 of the TCI.
     */
    public int priority()
    {
        return tci() >>> 13;
    }

    /**
     * @return Drop Eligible Indicator, bit 12 of the TCI.
     */
    public boolean dropEligible()
    {
        return 0 != (tci() & 0x1000);
    }

    /**
     * @return VLAN identifier, bits 11..0 of the TCI.
     */
    public int vlanId()
    {
        return tci() & 0xFFF;
    }
}
