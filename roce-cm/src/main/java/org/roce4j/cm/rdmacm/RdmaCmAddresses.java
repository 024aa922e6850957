package org.roce4j.cm.rdmacm;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.roce4j.transport.link.LinkAddress;
import org.roce4j.verbs.RdmaDevice;
import org.roce4j.wire.addr.Gid;

/**
 * The addresses {@link RdmaCm} works with (cma.c's address handling: cma_acquire_dev_by_src_ip, source address
 * selection): which IPs belong to the device, its first global IPv6 address, the node GUID it sends, and the text
 * that names them in error messages. Immutable; any thread.
 */
final class RdmaCmAddresses
{
    private final LinkAddress linkAddress;

    /**
     * @param linkAddress the device link's addresses.
     */
    RdmaCmAddresses(final LinkAddress linkAddress)
    {
        this.linkAddress = linkAddress;
    }

    /**
     * @param ip an IPv4 or IPv6 address.
     * @return true when it is one of the device's addresses.
     */
    boolean isOurs(final InetAddress ip)
    {
        if (ip instanceof Inet4Address)
        {
            return linkAddress.ownsIpv4(ipv4Of(ip));
        }
        final Gid gid = Gid.of(ip);
        return linkAddress.ownsIpv6(gid.high(), gid.low());
    }

    /**
     * @return the device's first IPv6 address that is not link-local, or null.
     */
    Gid firstGlobalIpv6()
    {
        for (final Gid gid : linkAddress.ipv6s())
        {
            if (!Gid.isLinkLocal(gid.high()))
            {
                return gid;
            }
        }
        return null;
    }

    /**
     * @return the device's addresses, comma separated, its link-local one last (for error messages).
     */
    String describe()
    {
        final StringBuilder text = new StringBuilder();
        for (final Gid gid : linkAddress.ips())
        {
            text.append(gid.toInetAddress().getHostAddress()).append(", ");
        }
        return text.append(linkAddress.linkLocal().toInetAddress().getHostAddress()).toString();
    }

    /**
     * @param ip an IPv4 address.
     * @return its 32 bits, first octet highest.
     */
    static int ipv4Of(final InetAddress ip)
    {
        return ByteBuffer.wrap(ip.getAddress()).order(ByteOrder.BIG_ENDIAN).getInt();
    }

    /**
     * @param device the device.
     * @param high   high 64 bits of a GID.
     * @param low    low 64 bits.
     * @return true when the GID is in the device's GID table.
     */
    static boolean isLocalGid(final RdmaDevice device, final long high, final long low)
    {
        return device.findGidIndex(high, low) >= 0;
    }

    /**
     * The node GUID rxe derives from the MAC (EUI-64); a link without a MAC of its own (kernel UDP) gets one from
     * its IPv4 address instead, so two such roce4j nodes do not share a GUID.
     *
     * @param device the device.
     * @return the CA GUID its CM sends.
     */
    static long caGuid(final RdmaDevice device)
    {
        final LinkAddress address = device.link().address();
        if (0 != address.mac())
        {
            return device.queryDevice().nodeGuid();
        }
        // 0x02: a locally administered EUI-64, then "ff:fe" style filler and the IPv4 address.
        return 0x0200_00FF_0000_0000L | (address.ipv4() & 0xFFFF_FFFFL);
    }

    /**
     * @param address a socket address, or null.
     * @return {@code ip:port}, or "-" for null.
     */
    static String format(final InetSocketAddress address)
    {
        return null == address ? "-" : address.getAddress().getHostAddress() + ":" + address.getPort();
    }

    /**
     * @param what    "listen" or "destination", for the message.
     * @param address the address whose port to check.
     * @throws IllegalArgumentException for a port outside 1..65535.
     */
    static void checkPort(final String what, final InetSocketAddress address)
    {
        if (address.getPort() < 1 || address.getPort() > 65535)
        {
            throw new IllegalArgumentException(what + " port must be 1..65535, got " + address.getPort());
        }
    }
}
