package org.roce4j.transport.link.host;

import java.io.IOException;
import java.net.Inet6Address;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.NativeLong;
import com.sun.jna.Platform;
import org.roce4j.wire.addr.Mac;

/**
 * The one home of what links ask the kernel about an interface, always in the calling thread's network namespace
 * (java.net.NetworkInterface does not see the namespace of a thread that entered another one with setns(2)):
 * <ul>
 *   <li>ioctl(2) requests on a {@code struct ifreq} through a socket the calling thread creates
 *   (netdevice(7)): the MTU (SIOCGIFMTU) and the NIC's multicast MAC filter (SIOCADDMULTI, SIOCDELMULTI: what
 *   {@code ip maddr add|del} does);</li>
 *   <li>the interface (name, index) holding an IPv6 address, from {@code /proc/thread-self/net/if_inet6}.</li>
 * </ul>
 */
public final class InterfaceRequests
{
    /** AF_INET (bits/socket.h); also the socket netdevice(7) ioctls go through. */
    private static final int AF_INET = 2;
    /** AF_UNSPEC (bits/socket.h): the family SIOCADDMULTI wants in ifr_hwaddr (dev_ifsioc). */
    private static final short AF_UNSPEC = 0;
    /** SOCK_DGRAM (bits/socket_type.h). */
    private static final int SOCK_DGRAM = 2;
    /** SIOCGIFMTU (linux/sockios.h). */
    static final long SIOCGIFMTU = 0x8921;
    /** SIOCADDMULTI (linux/sockios.h): add a MAC to the interface's multicast filter. */
    private static final long SIOCADDMULTI = 0x8931;
    /** SIOCDELMULTI (linux/sockios.h): remove it. */
    private static final long SIOCDELMULTI = 0x8932;
    /** sizeof(struct ifreq) on Linux. */
    private static final int IFREQ_LENGTH = 40;
    /** IFNAMSIZ (linux/if.h): the name field, NUL terminated; the union (ifr_mtu, ifr_hwaddr) follows it. */
    static final int IFNAMSIZ = 16;
    /** Offset of sa_data in ifr_hwaddr (after the 2-byte sa_family). */
    private static final int HWADDR_DATA_OFFSET = IFNAMSIZ + 2;
    /** Columns of a row of if_inet6: address (32 hex digits), index (hex), prefix, scope, flags, name. */
    private static final int IF_INET6_COLUMNS = 6;
    private static final System.Logger LOG = System.getLogger(InterfaceRequests.class.getName());

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

    /**
     * An interface as if_inet6 names it.
     *
     * @param name  e.g. {@code eth0}.
     * @param index its ifindex.
     */
    public record Ipv6Interface(String name, int index)
    {
    }

    private InterfaceRequests()
    {
    }

    /**
     * @param iface interface name.
     * @return a {@code struct ifreq} with the name filled in.
     * @throws IllegalArgumentException when the name does not fit IFNAMSIZ.
     */
    static byte[] ifreq(final String iface)
    {
        final byte[] name = iface.getBytes(StandardCharsets.US_ASCII);
        if (name.length >= IFNAMSIZ)
        {
            throw new IllegalArgumentException("interface name " + iface + " is longer than " + (IFNAMSIZ - 1));
        }
        final byte[] ifreq = new byte[IFREQ_LENGTH];
        System.arraycopy(name, 0, ifreq, 0, name.length);
        return ifreq;
    }

    /**
     * ioctl(2) on a fresh AF_INET socket of the calling thread's namespace.
     *
     * @param request SIOC*.
     * @param ifreq   copied in and out.
     * @return 0, or the errno; -1 when libc cannot be called here (not Linux, no JNA).
     */
    static int ioctl(final long request, final byte[] ifreq)
    {
        if (!Platform.isLinux())
        {
            return -1;
        }
        try
        {
            final LibC libc = Native.load(Platform.C_LIBRARY_NAME, LibC.class);
            final int fd = libc.socket(AF_INET, SOCK_DGRAM, 0);
            if (fd < 0)
            {
                return Native.getLastError();
            }
            try
            {
                return 0 == libc.ioctl(fd, new NativeLong(request), ifreq) ? 0 : Native.getLastError();
            }
            finally
            {
                libc.close(fd);
            }
        }
        catch (final LinkageError ex)
        {
            return -1;
        }
    }

    /**
     * Add a MAC to an interface's multicast filter (SIOCADDMULTI, as {@code ip maddr add}; dev_mc_add_global: one
     * global entry per MAC, however often added), so the NIC hands its frames up without promiscuous mode.
     *
     * @param iface interface name.
     * @param mac   a multicast MAC.
     * @throws IllegalStateException naming the errno when the kernel refuses (EPERM without CAP_NET_ADMIN).
     */
    public static void addMulticastMac(final String iface, final long mac)
    {
        multicastRequest(SIOCADDMULTI, "SIOCADDMULTI", iface, mac);
    }

    /**
     * Remove a MAC added with {@link #addMulticastMac} (SIOCDELMULTI, as {@code ip maddr del}).
     *
     * @param iface interface name.
     * @param mac   the multicast MAC.
     * @throws IllegalStateException naming the errno when the kernel refuses.
     */
    public static void deleteMulticastMac(final String iface, final long mac)
    {
        multicastRequest(SIOCDELMULTI, "SIOCDELMULTI", iface, mac);
    }

    private static void multicastRequest(final long request, final String what, final String iface, final long mac)
    {
        final byte[] ifreq = ifreq(iface);
        final ByteBuffer hwaddr = ByteBuffer.wrap(ifreq);
        hwaddr.order(ByteOrder.nativeOrder()).putShort(IFNAMSIZ, AF_UNSPEC);
        for (int i = 0; i < Mac.LENGTH; i++)
        {
            ifreq[HWADDR_DATA_OFFSET + i] = (byte)(mac >>> (8 * (Mac.LENGTH - 1 - i)));
        }
        final int errno = ioctl(request, ifreq);
        if (0 != errno)
        {
            throw new IllegalStateException(what + " of " + Mac.toString(mac) + " on " + iface + " failed: " +
                (-1 == errno ? "libc cannot be called here" : "errno " + errno +
                    (1 == errno ? " (EPERM: needs CAP_NET_ADMIN)" : "")));
        }
    }

    /**
     * The interface holding an IPv6 address, from {@code /proc/thread-self/net/if_inet6} (the calling thread's
     * network namespace).
     *
     * @param address a local IPv6 address.
     * @return its interface, or null when no interface of this namespace holds it.
     */
    public static Ipv6Interface ofIpv6Address(final Inet6Address address)
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
                if (columns.length >= IF_INET6_COLUMNS && hex.toString().equals(columns[0]))
                {
                    return new Ipv6Interface(columns[5], Integer.parseInt(columns[1], 16));
                }
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            LOG.log(System.Logger.Level.DEBUG, "cannot read if_inet6: " + ex);
        }
        return null;
    }
}
