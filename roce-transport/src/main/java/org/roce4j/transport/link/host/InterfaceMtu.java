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

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.NativeLong;
import com.sun.jna.Platform;
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
    /** AF_INET (bits/socket.h). */
    private static final int AF_INET = 2;
    /** SOCK_DGRAM (bits/socket_type.h). */
    private static final int SOCK_DGRAM = 2;
    /** SIOCGIFMTU (linux/sockios.h). */
    private static final long SIOCGIFMTU = 0x8921;
    /** sizeof(struct ifreq) on Linux. */
    private static final int IFREQ_LENGTH = 40;
    /** IFNAMSIZ (linux/if.h): the name field, NUL terminated. */
    private static final int IFNAMSIZ = 16;
    /** Ethernet's MTU, when nothing else can be read. */
    private static final int DEFAULT_MTU = 1500;
    private static final System.Logger LOG = System.getLogger(InterfaceMtu.class.getName());

    /** The libc calls used. */
    interface LibC extends Library
    {
        /**
         * @param domain   AF_*.
         * @param type     SOCK_*.
         * @param protocol 0.
         * @return fd or -1.
         */
        int socket(int domain, int type, int protocol);

        /**
         * @param fd       socket.
         * @param request  SIOC*.
         * @param argument struct ifreq, copied in and out.
         * @return 0 or -1.
         */
        int ioctl(int fd, NativeLong request, byte[] argument);

        /**
         * @param fd to close.
         * @return 0 or -1.
         */
        int close(int fd);
    }

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
            final String iface = ipv6Interface((Inet6Address)address);
            if (null != iface)
            {
                return ofInterface(iface);
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

    /**
     * The interface holding an IPv6 address, from {@code /proc/thread-self/net/if_inet6} (the calling thread's network
     * namespace, which java.net.NetworkInterface does not see from a thread that entered another one): rows of the
     * address as 32 hex digits, index, prefix length, scope, flags and the interface's name.
     */
    private static String ipv6Interface(final Inet6Address address)
    {
        final StringBuilder hex = new StringBuilder(32);
        for (final byte b : address.getAddress())
        {
            hex.append(Character.forDigit((b >>> 4) & 0xF, 16)).append(Character.forDigit(b & 0xF, 16));
        }
        try
        {
            for (final String line : Files.readAllLines(Path.of("/proc/thread-self/net/if_inet6"),
                StandardCharsets.US_ASCII))
            {
                final String[] columns = line.trim().split("\\s+");
                if (columns.length >= 6 && hex.toString().equals(columns[0]))
                {
                    return columns[5];
                }
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            LOG.log(System.Logger.Level.DEBUG, "cannot read if_inet6: " + ex);
        }
        return null;
    }

    private static int read(final String iface)
    {
        final byte[] name = iface.getBytes(StandardCharsets.US_ASCII);
        if (Platform.isLinux() && name.length < IFNAMSIZ)
        {
            try
            {
                final LibC libc = Native.load(Platform.C_LIBRARY_NAME, LibC.class);
                final int fd = libc.socket(AF_INET, SOCK_DGRAM, 0);
                if (fd >= 0)
                {
                    try
                    {
                        final byte[] ifreq = new byte[IFREQ_LENGTH];
                        System.arraycopy(name, 0, ifreq, 0, name.length);
                        if (0 == libc.ioctl(fd, new NativeLong(SIOCGIFMTU), ifreq))
                        {
                            return ByteBuffer.wrap(ifreq).order(ByteOrder.nativeOrder()).getInt(IFNAMSIZ);
                        }
                    }
                    finally
                    {
                        libc.close(fd);
                    }
                }
            }
            catch (final LinkageError ex)
            {
                // No JNA for this platform: fall through to sysfs.
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
