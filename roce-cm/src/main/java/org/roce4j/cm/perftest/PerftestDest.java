package org.roce4j.cm.perftest;

import java.util.Locale;

import org.roce4j.cm.oob.QpInfo;
import org.roce4j.wire.addr.Gid;

/**
 * One QP's record in perftest's exchange ({@code struct pingpong_dest} in perftest_resources.h, filled by
 * set_up_connection): what the peer needs to connect to the QP and to address its buffer.
 *
 * @param lid      local identifier (0 on RoCE).
 * @param outReads outstanding RDMA READs/atomics the QP allows: the peer's max_rd_atomic and this side's
 *                 max_dest_rd_atomic (perftest: the device's max_qp_rd_atom for read/atomic tests, else 1).
 * @param qpn      QP number, 24 bits.
 * @param psn      starting PSN, 24 bits.
 * @param rkey     remote key of the QP's buffer.
 * @param vaddr    address of the QP's receive/target buffer.
 * @param gidHigh  high 64 bits of the GID (bytes 0..7 in wire order).
 * @param gidLow   low 64 bits of the GID.
 * @param srqn     SRQ number (XRC and DC only; 0 otherwise).
 */
public record PerftestDest(
    int lid, int outReads, int qpn, int psn, int rkey, long vaddr, long gidHigh, long gidLow, int srqn)
{
    /**
     * Validates the ranges the wire format can carry.
     *
     * @throws IllegalArgumentException naming the field out of range.
     */
    public PerftestDest
    {
        if (lid < 0 || lid > 0xFFFF)
        {
            throw new IllegalArgumentException("LID must be 0..0xffff, got " + lid);
        }
        if (outReads < 0 || outReads > 0xFFFF)
        {
            throw new IllegalArgumentException("out_reads must be 0..0xffff, got " + outReads);
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
     * @return the connection attributes {@link org.roce4j.cm.QpSetup} takes.
     */
    public QpInfo toQpInfo()
    {
        return new QpInfo(lid, qpn, psn, gidHigh, gidLow, rkey, vaddr);
    }

    /**
     * @return true when the GID is IPv4-mapped ({@code ::ffff:a.b.c.d}); perftest refuses to connect an
     *     IPv4-mapped GID to one that is not (ctx_check_gid_compatibility).
     */
    public boolean isIpv4MappedGid()
    {
        return Gid.isIpv4Mapped(gidHigh, gidLow);
    }

    /**
     * @return e.g. {@code LID 0000 QPN 0x0011 PSN 0x444cc5 OUT 0x80 RKey 0x0003d9 VAddr 0x00561de39e7000}.
     */
    public String toString()
    {
        return String.format(Locale.ROOT, "LID %04x QPN 0x%06x PSN 0x%06x OUT 0x%x RKey 0x%08x VAddr 0x%016x GID " +
            "%016x%016x", lid, qpn, psn, outReads, rkey, vaddr, gidHigh, gidLow);
    }
}
