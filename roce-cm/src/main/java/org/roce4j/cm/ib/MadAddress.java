package org.roce4j.cm.ib;

import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.header.BthHeader;

/**
 * Where a MAD comes from or goes to: a GID (on RoCEv2 an IP address: IPv4-mapped or IPv6) and a QP number (1, the
 * GSI QP, for every CM MAD).
 *
 * @param gidHigh high 64 bits of the GID.
 * @param gidLow  low 64 bits of the GID.
 * @param qpn     the QP number, 24 bits.
 */
public record MadAddress(long gidHigh, long gidLow, int qpn)
{
    /**
     * @param ipv4 an IPv4 address as a big-endian int.
     * @return that address as {@code ::ffff:a.b.c.d} on QP1.
     */
    public static MadAddress ipv4(final int ipv4)
    {
        return new MadAddress(0, Gid.ipv4MappedLow(ipv4), BthHeader.GSI_QPN);
    }

    /**
     * @return true for an IPv4-mapped GID.
     */
    public boolean isIpv4()
    {
        return Gid.isIpv4Mapped(gidHigh, gidLow);
    }

    /**
     * @return the IPv4 address (meaningful when {@link #isIpv4()}).
     */
    public int ipv4()
    {
        return (int)gidLow;
    }

    /**
     * @return e.g. {@code 10.77.0.2 qp 1}.
     */
    public String toString()
    {
        return Gid.toString(gidHigh, gidLow) + " qp " + qpn;
    }
}
