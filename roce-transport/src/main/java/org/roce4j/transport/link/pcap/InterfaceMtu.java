package org.roce4j.transport.link.pcap;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.NativeLong;
import com.sun.jna.Platform;

/**
 * Reads an interface's MTU with ioctl(SIOCGIFMTU) on a socket created by the calling thread, so it sees the
 * interfaces of the thread's network namespace (java.net.NetworkInterface lists only interfaces with addresses,
 * and /sys shows the namespace it was mounted in). Falls back to /sys/class/net, then to 1500.
 */
final class InterfaceMtu
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
     * @return its MTU.
     */
    static int of(final String iface)
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
