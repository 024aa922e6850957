package org.roce4j.cm.oob;

/**
 * What two peers exchange out of band to connect their QPs: LID, QPN, PSN and GID, and for RDMA tools the rkey
 * and virtual address of a buffer.
 *
 * @param lid     local identifier (0 on RoCE).
 * @param qpn     QP number, 24 bits.
 * @param psn     starting PSN, 24 bits.
 * @param gidHigh high 64 bits of the GID.
 * @param gidLow  low 64 bits of the GID.
 * @param rkey    remote key of the advertised buffer (0 when none).
 * @param vaddr   virtual address of the advertised buffer (0 when none).
 */
public record QpInfo(int lid, int qpn, int psn, long gidHigh, long gidLow, int rkey, long vaddr)
{
    /**
     * Validates the ranges.
     *
     * @throws IllegalArgumentException naming the field out of range.
     */
    public QpInfo
    {
        if (lid < 0 || lid > 0xFFFF)
        {
            throw new IllegalArgumentException("LID must be 0..0xffff, got " + lid);
        }
        if (qpn < 0 || qpn > 0xFF_FFFF)
        {
            throw new IllegalArgumentException("QPN must be 24 bits, got 0x" + Integer.toHexString(qpn));
        }
        if (psn < 0 || psn > 0xFF_FFFF)
        {
            throw new IllegalArgumentException("PSN must be 24 bits, got 0x" + Integer.toHexString(psn));
        }
    }

    /**
     * A QP without an advertised buffer.
     *
     * @param lid     local identifier.
     * @param qpn     QP number.
     * @param psn     starting PSN.
     * @param gidHigh high 64 bits of the GID.
     * @param gidLow  low 64 bits of the GID.
     * @return the info.
     */
    public static QpInfo of(final int lid, final int qpn, final int psn, final long gidHigh, final long gidLow)
    {
        return new QpInfo(lid, qpn, psn, gidHigh, gidLow, 0, 0);
    }

    /**
     * @return true when the GID is not all zeros (ibv_rc_pingpong without -g sends a zero GID).
     */
    public boolean hasGid()
    {
        return 0 != gidHigh || 0 != gidLow;
    }

    /**
     * @return e.g. {@code LID 0x0000, QPN 0x000011, PSN 0x4d8a5c, GID ::ffff:10.77.0.2}, as ibv_rc_pingpong prints.
     */
    public String toString()
    {
        return GidText.address(this);
    }
}
