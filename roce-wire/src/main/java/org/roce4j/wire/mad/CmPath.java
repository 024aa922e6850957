package org.roce4j.wire.mad;

import org.agrona.MutableDirectBuffer;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.header.HeaderFlyweight;

/**
 * One path of a CM REQ: the primary path at REQ byte 52 or the alternate path at REQ byte 96 (IBA 12.6.5 table 106;
 * CM_REQ_PRIMARY_* and CM_REQ_ALTERNATE_* in include/rdma/ibta_vol1_c12.h). Offsets below are from the path's
 * first byte.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |        Local Port LID         |        Remote Port LID        |   0
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                    Local Port GID (128)                       |   4
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                    Remote Port GID (128)                      |  20
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |            Flow Label (20)            |  Rsvd6    |PacketRate |  36
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  | Traffic Class |   Hop Limit   |  SL   |L|Rsv| AckTmout|S| Rsv |  40
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * L = Subnet Local, AckTmout = Local ACK Timeout (5 bits, 4.096 µs * 2^value), S = SAP Supported (alternate path
 * only; REQ byte 139). On RoCE the GIDs are the IP addresses ({@link Gid}); the Linux CM sends LID 0xFFFF (permissive)
 * for both ends when the hop limit is above 1 and fills flow label, traffic class and hop limit from the route.
 * Note: Wireshark 3.x/4.x decodes the flow label from 2 bytes only and so shows a wrong flow label and packet rate;
 * the layout here is the kernel's.
 */
public final class CmPath extends HeaderFlyweight
{
    /** Bytes of one path. */
    public static final int LENGTH = 44;
    /** Offset of the local port LID. */
    public static final int LOCAL_LID_OFFSET = 0;
    /** Offset of the remote port LID. */
    public static final int REMOTE_LID_OFFSET = 2;
    /** Offset of the local port GID. */
    public static final int LOCAL_GID_OFFSET = 4;
    /** Offset of the remote port GID. */
    public static final int REMOTE_GID_OFFSET = 20;
    /** Offset of the 32-bit word holding flow label (bits 31..12) and packet rate (bits 5..0). */
    public static final int FLOW_LABEL_OFFSET = 36;
    /** Offset of the byte holding the packet rate in its low 6 bits. */
    public static final int PACKET_RATE_OFFSET = 39;
    /** Offset of the traffic class. */
    public static final int TRAFFIC_CLASS_OFFSET = 40;
    /** Offset of the hop limit. */
    public static final int HOP_LIMIT_OFFSET = 41;
    /** Offset of the SL / Subnet Local byte. */
    public static final int SL_OFFSET = 42;
    /** Offset of the Local ACK Timeout byte. */
    public static final int LOCAL_ACK_TIMEOUT_OFFSET = 43;

    /** Flow label bits of the word at {@link #FLOW_LABEL_OFFSET}. */
    public static final int FLOW_LABEL_MASK = 0xF_FFFF;
    /** Shift of the flow label in that word. */
    public static final int FLOW_LABEL_SHIFT = 12;
    /** The permissive LID the Linux CM sends for RoCE paths that leave the subnet (IB_LID_PERMISSIVE). */
    public static final int PERMISSIVE_LID = 0xFFFF;

    /** {@inheritDoc} */
    public CmPath wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    /**
     * @return 44.
     */
    public int length()
    {
        return LENGTH;
    }

    /**
     * @return local port LID.
     */
    public int localLid()
    {
        return u16(LOCAL_LID_OFFSET);
    }

    /**
     * @param lid local port LID.
     * @return this.
     */
    public CmPath localLid(final int lid)
    {
        u16(LOCAL_LID_OFFSET, lid);
        return this;
    }

    /**
     * @return remote port LID.
     */
    public int remoteLid()
    {
        return u16(REMOTE_LID_OFFSET);
    }

    /**
     * @param lid remote port LID.
     * @return this.
     */
    public CmPath remoteLid(final int lid)
    {
        u16(REMOTE_LID_OFFSET, lid);
        return this;
    }

    /**
     * @return high 64 bits of the local port GID (the sender's own address).
     */
    public long localGidHigh()
    {
        return i64(LOCAL_GID_OFFSET);
    }

    /**
     * @return low 64 bits of the local port GID.
     */
    public long localGidLow()
    {
        return i64(LOCAL_GID_OFFSET + 8);
    }

    /**
     * @param high 64 bits.
     * @param low  64 bits.
     * @return this.
     */
    public CmPath localGid(final long high, final long low)
    {
        i64(LOCAL_GID_OFFSET, high);
        i64(LOCAL_GID_OFFSET + 8, low);
        return this;
    }

    /**
     * @return high 64 bits of the remote port GID (the receiver's address).
     */
    public long remoteGidHigh()
    {
        return i64(REMOTE_GID_OFFSET);
    }

    /**
     * @return low 64 bits of the remote port GID.
     */
    public long remoteGidLow()
    {
        return i64(REMOTE_GID_OFFSET + 8);
    }

    /**
     * @param high 64 bits.
     * @param low  64 bits.
     * @return this.
     */
    public CmPath remoteGid(final long high, final long low)
    {
        i64(REMOTE_GID_OFFSET, high);
        i64(REMOTE_GID_OFFSET + 8, low);
        return this;
    }

    /**
     * @return flow label, 20 bits.
     */
    public int flowLabel()
    {
        return (i32(FLOW_LABEL_OFFSET) >>> FLOW_LABEL_SHIFT) & FLOW_LABEL_MASK;
    }

    /**
     * @param flowLabel 20 bits; the reserved bits and packet rate sharing the word are kept.
     * @return this.
     */
    public CmPath flowLabel(final int flowLabel)
    {
        final int word = i32(FLOW_LABEL_OFFSET);
        final int mask = FLOW_LABEL_MASK << FLOW_LABEL_SHIFT;
        i32(FLOW_LABEL_OFFSET, (word & ~mask) | ((flowLabel << FLOW_LABEL_SHIFT) & mask));
        return this;
    }

    /**
     * @return the 6 reserved bits between flow label and packet rate.
     */
    public int reservedAfterFlowLabel()
    {
        return (i32(FLOW_LABEL_OFFSET) >>> 6) & 0x3F;
    }

    /**
     * @return packet rate, 6 bits (IBA table 225 encoding, e.g. 3 = 2.5 Gb/s, 7 = 40 Gb/s).
     */
    public int packetRate()
    {
        return u8(PACKET_RATE_OFFSET) & 0x3F;
    }

    /**
     * @param rate packet rate, 6 bits.
     * @return this.
     */
    public CmPath packetRate(final int rate)
    {
        bits(PACKET_RATE_OFFSET, 0x3F, 0, rate);
        return this;
    }

    /**
     * @return traffic class (the IP TOS / IPv6 traffic class on RoCE).
     */
    public int trafficClass()
    {
        return u8(TRAFFIC_CLASS_OFFSET);
    }

    /**
     * @param trafficClass traffic class.
     * @return this.
     */
    public CmPath trafficClass(final int trafficClass)
    {
        u8(TRAFFIC_CLASS_OFFSET, trafficClass);
        return this;
    }

    /**
     * @return hop limit (the IP TTL on RoCE).
     */
    public int hopLimit()
    {
        return u8(HOP_LIMIT_OFFSET);
    }

    /**
     * @param hopLimit hop limit.
     * @return this.
     */
    public CmPath hopLimit(final int hopLimit)
    {
        u8(HOP_LIMIT_OFFSET, hopLimit);
        return this;
    }

    /**
     * @return service level, 4 bits.
     */
    public int sl()
    {
        return u8(SL_OFFSET) >>> 4;
    }

    /**
     * @param sl service level, 4 bits.
     * @return this.
     */
    public CmPath sl(final int sl)
    {
        bits(SL_OFFSET, 0xF0, 4, sl);
        return this;
    }

    /**
     * @return Subnet Local: the path stays in the subnet (the Linux CM sets it when the hop limit is 0 or 1).
     */
    public boolean subnetLocal()
    {
        return 0 != (u8(SL_OFFSET) & 0x08);
    }

    /**
     * @param subnetLocal Subnet Local.
     * @return this.
     */
    public CmPath subnetLocal(final boolean subnetLocal)
    {
        bit(SL_OFFSET, 0x08, subnetLocal);
        return this;
    }

    /**
     * @return local ACK timeout, 5 bits: the transport ACK timeout is 4.096 µs * 2^value.
     */
    public int localAckTimeout()
    {
        return u8(LOCAL_ACK_TIMEOUT_OFFSET) >>> 3;
    }

    /**
     * @param timeout 5 bits.
     * @return this.
     */
    public CmPath localAckTimeout(final int timeout)
    {
        bits(LOCAL_ACK_TIMEOUT_OFFSET, 0xF8, 3, timeout);
        return this;
    }
}
