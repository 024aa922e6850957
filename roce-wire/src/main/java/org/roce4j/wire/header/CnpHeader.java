package org.roce4j.wire.header;

import org.agrona.MutableDirectBuffer;

/**
 * The 16 reserved bytes that follow the BTH of a RoCEv2 Congestion Notification Packet (IBA A17.9.3, opcode 0x81).
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                                                               |
 *  +                                                               +
 *  |                     Reserved (128), zero                      |
 *  +                                                               +
 *  |                                                               |
 *  +                                                               +
 *  |                                                               |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * A CNP is BTH (opcode 0x81, BECN set, P_Key 0xFFFF, DestQP = the notified QP, PSN 0, AckReq 0) + these 16 bytes +
 * ICRC: IP length 60 and UDP length 40 over IPv4. rxe neither sends nor handles CNPs; ConnectX NICs send them
 * (DCQCN), often from UDP source port 0.
 */
public final class CnpHeader extends HeaderFlyweight
{
    /** Length of the reserved area. */
    public static final int LENGTH = 16;

    /** {@inheritDoc} */
    public CnpHeader wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    /**
     * @return 16.
     */
    public int length()
    {
        return LENGTH;
    }

    /**
     * @return first 8 reserved bytes.
     */
    public long reservedHigh()
    {
        return i64(0);
    }

    /**
     * @return last 8 reserved bytes.
     */
    public long reservedLow()
    {
        return i64(8);
    }

    /**
     * Zero the reserved bytes, as senders must.
     *
     * @return this.
     */
    public CnpHeader clear()
    {
        i64(0, 0L);
        i64(8, 0L);
        return this;
    }

    /**
     * @param high first 8 reserved bytes.
     * @param low  last 8 reserved bytes.
     * @return this.
     */
    public CnpHeader reserved(final long high, final long low)
    {
        i64(0, high);
        i64(8, low);
        return this;
    }
}
