package org.roce4j.transport.link.host;

import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.roce4j.transport.link.Link;

/**
 * The one reader of a link's IP MTU from the host, capped at {@link Link#MAX_IP_MTU}:
 * <ul>
 *   <li>{@link #ofInterface(String)}: by interface name, with ioctl(SIOCGIFMTU) on a socket created by the calling
 *   thread, so it sees the interfaces of the thread's network namespace (java.net.NetworkInterface lists only
 *   interfaces with addresses, and /sys shows the namespace it was mounted in); falls back to /sys/class/net, then
 *   to 1500 (the pcap link);</li>
 *   <li>{@link #ofAddress(InetAddress)}: of the interface holding an address (the udp link's bound address): the
 *   loopback's for 127/8 and ::1, 1500 when the address is on no interface (binding will then fail with a clear
 *   message).</li>
 * </ul>
 */
public final class InterfaceMtu
{
    /** Ethernet's MTU, when nothing else can be read. */
    private static final int DEFAULT_MTU = 1500;
    private static final System.Logger LOG = System.getLogger(InterfaceMtu.class.getName());

    private InterfaceMtu()
    {
    }

    /**
     * @param iface interface name.
     * @return its MTU, at most {@link Link#MAX_IP_MTU}.
     */
    public static int ofInterface(final String iface)
    {
        return Math.min(read(iface), Link.MAX_IP_MTU);
    }

    /**
     * @param address a local address.
     * @return the MTU of the interface holding it, at most {@link Link#MAX_IP_MTU}.
     */
    public static int ofAddress(final InetAddress address)
    {
        if (address instanceof Inet6Address && !address.isLoopbackAddress())
        {
            final InterfaceRequests.Ipv6Interface iface = InterfaceRequests.ofIpv6Address((Inet6Address)address);
            if (null != iface)
            {
                return ofInterface(iface.name());
            }
        }
        int mtu = DEFAULT_MTU;
        try
        {
            NetworkInterface nic = NetworkInterface.getByInetAddress(address);
            if (null == nic && address.isLoopbackAddress())
            {
                // By name: enumerating every interface fails on a thread that entered another network namespace
                // with setns(2) (the JDK lists names from the process's /proc/net, then queries them through a socket
                // of the thread's namespace), and the whole 127/8 (and ::1) is on lo.
                nic = NetworkInterface.getByName("lo");
            }
            if (null != nic && nic.getMTU() > 0)
            {
                mtu = nic.getMTU();
            }
        }
        catch (final SocketException ex)
        {
            LOG.log(System.Logger.Level.DEBUG, "cannot read the MTU for " + address + ": " + ex);
        }
        return Math.min(mtu, Link.MAX_IP_MTU);
    }

    private static int read(final String iface)
    {
        if (iface.getBytes(StandardCharsets.US_ASCII).length < InterfaceRequests.IFNAMSIZ)
        {
            final byte[] ifreq = InterfaceRequests.ifreq(iface);
            if (0 == InterfaceRequests.ioctl(InterfaceRequests.SIOCGIFMTU, ifreq))
            {
                return ByteBuffer.wrap(ifreq).order(ByteOrder.nativeOrder()).getInt(InterfaceRequests.IFNAMSIZ);
            }
        }
        try
        {
            return Integer.parseInt(Files.readString(Path.of("/sys/class/net", iface, "mtu")).trim());
        }
        catch (final IOException | RuntimeException ex)
        {
            return DEFAULT_MTU;
        }
    }
}
