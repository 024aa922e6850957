package org.roce4j.cm.oob;

import org.roce4j.wire.addr.Gid;

/**
 * GIDs as the rdma-core examples print them: {@code inet_ntop(AF_INET6)}, so an IPv4-mapped GID reads
 * {@code ::ffff:10.77.0.2} and an unset one {@code ::}.
 */
public final class GidText
{
    private GidText()
    {
    }

    /**
     * @param high 64 bits of the GID.
     * @param low  64 bits of the GID.
     * @return the text.
     */
    public static String format(final long high, final long low)
    {
        return Gid.toString(high, low);
    }

    /**
     * @param info a QP's info.
     * @return {@code LID 0x0000, QPN 0x000011, PSN 0x4d8a5c, GID ::ffff:10.77.0.2}, the pingpong examples' layout.
     */
    public static String address(final QpInfo info)
    {
        return String.format(java.util.Locale.ROOT, "LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID %s", info.lid(),
            info.qpn(), info.psn(), format(info.gidHigh(), info.gidLow()));
    }
}
