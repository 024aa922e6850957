package org.roce4j.wire.header;

import org.agrona.MutableDirectBuffer;

import static java.nio.ByteOrder.BIG_ENDIAN;

/**
 * Base Transport Header (IBA 9.2), the first InfiniBand header of every RoCEv2 packet.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |    OpCode     |S|M|Pad|  TVer |        Partition Key          |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |F|B|  Resv6a   |             Destination QP (24)               |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |A|   Resv7     |          Packet Sequence Number (24)          |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * S = Solicited Event, M = MigReq, Pad = PadCnt (bytes of pad before the ICRC), TVer = transport header version
 * (must be 0), F = FECN, B = BECN, A = AckReq. Byte 4 (F, B, Resv6a) is masked to ones in the ICRC
 * (rxe_icrc.c "exclude bth.resv8a"). The masks follow rxe_hdr.h.
 */
public final class BthHeader extends HeaderFlyweight
{
    /** Header length. */
    public static final int LENGTH = 12;
    /** Offset of the opcode. */
    public static final int OPCODE_OFFSET = 0;
    /** Offset of the SE/M/PadCnt/TVer byte. */
    public static final int FLAGS_OFFSET = 1;
    /** Offset of the partition key. */
    public static final int PKEY_OFFSET = 2;
    /** Offset of the FECN/BECN/Resv6a byte (masked in the ICRC). */
    public static final int FECN_BECN_OFFSET = 4;
    /** Offset of the 24-bit destination QP. */
    public static final int DEST_QP_OFFSET = 5;
    /** Offset of the AckReq/Resv7 byte. */
    public static final int ACK_REQ_OFFSET = 8;
    /** Offset of the 24-bit PSN. */
    public static final int PSN_OFFSET = 9;

    /** Solicited Event bit in byte 1 (BTH_SE_MASK). */
    public static final int SE_MASK = 0x80;
    /** MigReq bit in byte 1 (BTH_MIG_MASK). */
    public static final int MIG_REQ_MASK = 0x40;
    /** PadCnt bits in byte 1 (BTH_PAD_MASK). */
    public static final int PAD_MASK = 0x30;
    /** Shift of PadCnt in byte 1. */
    public static final int PAD_SHIFT = 4;
    /** Transport header version bits in byte 1 (BTH_TVER_MASK). */
    public static final int TVER_MASK = 0x0F;
    /** FECN bit in byte 4. */
    public static final int FECN_MASK = 0x80;
    /** BECN bit in byte 4; a RoCEv2 CNP sets it (IBA A17.9.3). */
    public static final int BECN_MASK = 0x40;
    /** Resv6a bits in byte 4. */
    public static final int RESV6A_MASK = 0x3F;
    /** AckReq bit in byte 8 (BTH_ACK_MASK). */
    public static final int ACK_REQ_MASK = 0x80;
    /** Resv7 bits in byte 8. */
    public static final int RESV7_MASK = 0x7F;
    /** 24-bit QPN and PSN mask (BTH_QPN_MASK, BTH_PSN_MASK). */
    public static final int MASK_24 = 0xFF_FFFF;
    /** The default (full-membership) partition key rxe always sends (IB_DEFAULT_PKEY_FULL). */
    public static final int DEFAULT_PKEY = 0xFFFF;
    /** QPN of the General Services Interface QP that carries MADs. */
    public static final int GSI_QPN = 1;
    /** Destination QPN of multicast packets (IB_MULTICAST_QPN). */
    public static final int MULTICAST_QPN = 0xFF_FFFF;

    /** {@inheritDoc} */
    public BthHeader wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    /**
     * @return 12.
     */
    public int length()
    {
        return LENGTH;
    }

    /**
     * Read the opcode without wrapping a flyweight.
     *
     * @param buffer    holding the packet.
     * @param bthOffset of the BTH.
     * @return the opcode byte.
     */
    public static int opcode(final MutableDirectBuffer buffer, final int bthOffset)
    {
        return buffer.getByte(bthOffset + OPCODE_OFFSET) & 0xFF;
    }

    /**
     * @return opcode byte: transport class in bits 7..5, operation in bits 4..0.
     */
    public int opcode()
    {
        return u8(OPCODE_OFFSET);
    }

    /**
     * @param opcode byte.
     * @return this.
     */
    public BthHeader opcode(final int opcode)
    {
        u8(OPCODE_OFFSET, opcode);
        return this;
    }

    /**
     * @return the SE/M/PadCnt/TVer byte as a whole.
     */
    public int flags()
    {
        return u8(FLAGS_OFFSET);
    }

    /**
     * @param flags the SE/M/PadCnt/TVer byte as a whole.
     * @return this.
     */
    public BthHeader flags(final int flags)
    {
        u8(FLAGS_OFFSET, flags);
        return this;
    }

    /**
     * @return Solicited Event.
     */
    public boolean solicitedEvent()
    {
        return 0 != (u8(FLAGS_OFFSET) & SE_MASK);
    }

    /**
     * @param se Solicited Event.
     * @return this.
     */
    public BthHeader solicitedEvent(final boolean se)
    {
        bit(FLAGS_OFFSET, SE_MASK, se);
        return this;
    }

    /**
     * @return MigReq; rxe always sends 0, ConnectX may send 1, receivers accept both.
     */
    public boolean migReq()
    {
        return 0 != (u8(FLAGS_OFFSET) & MIG_REQ_MASK);
    }

    /**
     * @param migReq MigReq.
     * @return this.
     */
    public BthHeader migReq(final boolean migReq)
    {
        bit(FLAGS_OFFSET, MIG_REQ_MASK, migReq);
        return this;
    }

    /**
     * @return PadCnt: 0..3 pad bytes after the payload so that it ends on a 4-byte boundary.
     */
    public int padCount()
    {
        return (u8(FLAGS_OFFSET) & PAD_MASK) >>> PAD_SHIFT;
    }

    /**
     * @param padCount 0..3.
     * @return this.
     */
    public BthHeader padCount(final int padCount)
    {
        bits(FLAGS_OFFSET, PAD_MASK, PAD_SHIFT, padCount);
        return this;
    }

    /**
     * @return transport header version; IBA requires 0 and rxe drops anything else.
     */
    public int transportVersion()
    {
        return u8(FLAGS_OFFSET) & TVER_MASK;
    }

    /**
     * @param tver transport header version (0).
     * @return this.
     */
    public BthHeader transportVersion(final int tver)
    {
        bits(FLAGS_OFFSET, TVER_MASK, 0, tver);
        return this;
    }

    /**
     * @return partition key.
     */
    public int pkey()
    {
        return u16(PKEY_OFFSET);
    }

    /**
     * @param pkey partition key.
     * @return this.
     */
    public BthHeader pkey(final int pkey)
    {
        u16(PKEY_OFFSET, pkey);
        return this;
    }

    /**
     * @return Forward Explicit Congestion Notification.
     */
    public boolean fecn()
    {
        return 0 != (u8(FECN_BECN_OFFSET) & FECN_MASK);
    }

    /**
     * @param fecn FECN.
     * @return this.
     */
    public BthHeader fecn(final boolean fecn)
    {
        bit(FECN_BECN_OFFSET, FECN_MASK, fecn);
        return this;
    }

    /**
     * @return Backward Explicit Congestion Notification.
     */
    public boolean becn()
    {
        return 0 != (u8(FECN_BECN_OFFSET) & BECN_MASK);
    }

    /**
     * @param becn BECN.
     * @return this.
     */
    public BthHeader becn(final boolean becn)
    {
        bit(FECN_BECN_OFFSET, BECN_MASK, becn);
        return this;
    }

    /**
     * @return the 6 reserved bits of byte 4.
     */
    public int resv6a()
    {
        return u8(FECN_BECN_OFFSET) & RESV6A_MASK;
    }

    /**
     * @param value the 6 reserved bits of byte 4.
     * @return this.
     */
    public BthHeader resv6a(final int value)
    {
        bits(FECN_BECN_OFFSET, RESV6A_MASK, 0, value);
        return this;
    }

    /**
     * Read the destination QP without wrapping a flyweight.
     *
     * @param buffer    holding the packet.
     * @param bthOffset of the BTH.
     * @return the 24-bit QPN.
     */
    public static int destQp(final MutableDirectBuffer buffer, final int bthOffset)
    {
        return buffer.getInt(bthOffset + FECN_BECN_OFFSET, BIG_ENDIAN) & MASK_24;
    }

    /**
     * @return destination QP number, 24 bits.
     */
    public int destQp()
    {
        return u24(DEST_QP_OFFSET);
    }

    /**
     * @param qpn destination QP, 24 bits.
     * @return this.
     */
    public BthHeader destQp(final int qpn)
    {
        u24(DEST_QP_OFFSET, qpn);
        return this;
    }

    /**
     * @return AckReq: the requester asks for an acknowledgement of this packet.
     */
    public boolean ackReq()
    {
        return 0 != (u8(ACK_REQ_OFFSET) & ACK_REQ_MASK);
    }

    /**
     * @param ackReq AckReq.
     * @return this.
     */
    public BthHeader ackReq(final boolean ackReq)
    {
        bit(ACK_REQ_OFFSET, ACK_REQ_MASK, ackReq);
        return this;
    }

    /**
     * @return the 7 reserved bits of byte 8.
     */
    public int resv7()
    {
        return u8(ACK_REQ_OFFSET) & RESV7_MASK;
    }

    /**
     * @param value the 7 reserved bits of byte 8.
     * @return this.
     */
    public BthHeader resv7(final int value)
    {
        bits(ACK_REQ_OFFSET, RESV7_MASK, 0, value);
        return this;
    }

    /**
     * Read the PSN without wrapping a flyweight.
     *
     * @param buffer    holding the packet.
     * @param bthOffset of the BTH.
     * @return the 24-bit PSN.
     */
    public static int psn(final MutableDirectBuffer buffer, final int bthOffset)
    {
        return buffer.getInt(bthOffset + ACK_REQ_OFFSET, BIG_ENDIAN) & MASK_24;
    }

    /**
     * @return packet sequence number, 24 bits.
     */
    public int psn()
    {
        return u24(PSN_OFFSET);
    }

    /**
     * @param psn packet sequence number, 24 bits.
     * @return this.
     */
    public BthHeader psn(final int psn)
    {
        u24(PSN_OFFSET, psn);
        return this;
    }
}
