package org.roce4j.transport.link.udp;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Platform;

/**
 * What {@link LinuxSendmmsg} and {@link LinuxRecvmmsg} share: the LP64 Linux layouts of the structures
 * sendmmsg(2) and recvmmsg(2) take (x86-64 and aarch64), and binding a class's native methods to libc.
 * <pre>
 * struct mmsghdr  { struct msghdr msg_hdr;  // 56 bytes
 *                   unsigned int msg_len; } // + 4, padded to 64
 * struct msghdr   { void *msg_name;         //  0
 *                   socklen_t msg_namelen;  //  8
 *                   struct iovec *msg_iov;  // 16
 *                   size_t msg_iovlen;      // 24
 *                   void *msg_control;      // 32
 *                   size_t msg_controllen;  // 40
 *                   int msg_flags; }        // 48
 * struct iovec    { void *iov_base; size_t iov_len; }             // 16 bytes
 * struct sockaddr_in { sa_family_t family; in_port_t port;         // host order, network order
 *                      struct in_addr addr; char zero[8]; }        // network order; 16 bytes
 * struct sockaddr_in6 { sa_family_t family; in_port_t port;        // host order, network order
 *                       uint32_t flowinfo; struct in6_addr addr;   // network order
 *                       uint32_t scope_id; }                       // 28 bytes
 * </pre>
 */
final class LinuxMmsg
{
    /** sizeof(struct mmsghdr). */
    static final int MMSGHDR_LENGTH = 64;
    /** sizeof(struct iovec). */
    static final int IOVEC_LENGTH = 16;
    /** sizeof(struct sockaddr_in). */
    static final int SOCKADDR_IN_LENGTH = 16;
    /** sizeof(struct sockaddr_in6). */
    static final int SOCKADDR_IN6_LENGTH = 28;
    /** sockaddr_in6.sin6_addr (network order). */
    static final int SIN6_ADDR_OFFSET = 8;
    /** AF_INET (bits/socket.h). */
    static final short AF_INET = 2;
    /** AF_INET6 (bits/socket.h). */
    static final short AF_INET6 = 10;
    /** msghdr.msg_name. */
    static final int MSG_NAME_OFFSET = 0;
    /** msghdr.msg_namelen. */
    static final int MSG_NAMELEN_OFFSET = 8;
    /** msghdr.msg_iov. */
    static final int MSG_IOV_OFFSET = 16;
    /** msghdr.msg_iovlen. */
    static final int MSG_IOVLEN_OFFSET = 24;
    /** msghdr.msg_flags. */
    static final int MSG_FLAGS_OFFSET = 48;
    /** mmsghdr.msg_len: bytes sent or received for this message. */
    static final int MSG_LEN_OFFSET = 56;
    /** iovec.iov_base. */
    static final int IOV_BASE_OFFSET = 0;
    /** iovec.iov_len. */
    static final int IOV_LEN_OFFSET = 8;
    /** sockaddr_in.sin_port (network order). */
    static final int SIN_PORT_OFFSET = 2;
    /** sockaddr_in.sin_addr (network order). */
    static final int SIN_ADDR_OFFSET = 4;

    private LinuxMmsg()
    {
    }

    /**
     * Bind the native methods of a class to libc (JNA direct mapping).
     *
     * @param type    the class declaring the native methods.
     * @param purpose the system call, for the message when this platform's layouts do not apply.
     * @return null when bound, else why it could not be (the class then refuses to be used, naming it).
     */
    static Throwable registerWithLibc(final Class<?> type, final String purpose)
    {
        try
        {
            if (!Platform.isLinux() || !Platform.is64Bit())
            {
                throw new UnsupportedOperationException(
                    purpose + " structures are laid out for 64-bit Linux; this is " + System.getProperty("os.name") +
                    " " + System.getProperty("os.arch"));
            }
            Native.register(type, NativeLibrary.getInstance(Platform.C_LIBRARY_NAME));
            return null;
        }
        catch (final Throwable ex)
        {
            return ex;
        }
    }
}
