package org.roce4j.transport.link.udp;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import com.sun.jna.Native;
import org.agrona.concurrent.UnsafeBuffer;

import static java.nio.ByteOrder.BIG_ENDIAN;
import static org.roce4j.transport.link.udp.LinuxMmsg.*;

/**
 * A batch of datagrams for sendmmsg(2), sent from the calling thread on a socket someone else owns (here: the
 * socket Netty opened), with the payloads left where they are (iovecs point into the caller's memory).
 *
 * <p>Netty's native transports do use sendmmsg, but only from their event loop, which would cost a thread hop and
 * a copy per frame; and Netty's public per-datagram send allocates the destination address arrays on every call.
 * This class calls libc through a JNA direct mapping (JNA already comes with Pcap4J) with every structure
 * preallocated in native memory: no allocation, no copy, one system call per batch.
 *
 * <p>Layouts: the LP64 Linux ones (x86-64 and aarch64), in {@link LinuxMmsg}.
 *
 * <p>Not thread safe: one batch per sending thread.
 */
final class LinuxSendmmsg
{
    /** MSG_DONTWAIT from bits/socket.h: never block, even if the socket was opened in blocking mode. */
    static final int MSG_DONTWAIT = 0x40;
    /** EAGAIN / EWOULDBLOCK (asm-generic/errno-base.h): the socket's send buffer is full. */
    static final int EAGAIN = 11;
    /** EINTR (asm-generic/errno-base.h): interrupted by a signal before anything was sent. */
    static final int EINTR = 4;
    /** ENOBUFS (asm-generic/errno.h): the device queue is full; a transient condition, retried later. */
    static final int ENOBUFS = 105;
    /** Largest vlen the kernel accepts (UIO_MAXIOV). */
    static final int MAX_VLEN = 1024;

    private static final Throwable UNAVAILABILITY_CAUSE;

    static
    {
        UNAVAILABILITY_CAUSE = LinuxMmsg.registerWithLibc(LinuxSendmmsg.class, "sendmmsg");
    }

    private final int capacity;
    private final UnsafeBuffer memory;
    private final long base;
    private final long iovecBase;
    private final long sockaddrBase;
    private final int iovecOffset;
    private final int sockaddrOffset;
    private final int sockaddrLength;

    /**
     * @param capacity most datagrams per batch, at most {@link #MAX_VLEN}.
     * @param ipv6     true for a socket of AF_INET6 (sockaddr_in6 destinations).
     */
    LinuxSendmmsg(final int capacity, final boolean ipv6)
    {
        if (null != UNAVAILABILITY_CAUSE)
        {
            throw new IllegalStateException("sendmmsg through libc is not available: " + UNAVAILABILITY_CAUSE,
                UNAVAILABILITY_CAUSE);
        }
        if (capacity < 1 || capacity > MAX_VLEN)
        {
            throw new IllegalArgumentException("batch capacity must be 1.." + MAX_VLEN + ", got " + capacity);
        }
        this.capacity = capacity;
        sockaddrLength = ipv6 ? SOCKADDR_IN6_LENGTH : SOCKADDR_IN_LENGTH;
        iovecOffset = capacity * MMSGHDR_LENGTH;
        sockaddrOffset = iovecOffset + capacity * IOVEC_LENGTH;
        final ByteBuffer direct = ByteBuffer.allocateDirect(sockaddrOffset + capacity * sockaddrLength);
        memory = new UnsafeBuffer(direct);
        base = memory.addressOffset();
        iovecBase = base + iovecOffset;
        sockaddrBase = base + sockaddrOffset;
        final ByteOrder host = ByteOrder.nativeOrder();
        for (int i = 0; i < capacity; i++)
        {
            final int header = i * MMSGHDR_LENGTH;
            memory.putLong(header + MSG_NAME_OFFSET, sockaddrBase + (long)i * sockaddrLength, host);
            memory.putInt(header + MSG_NAMELEN_OFFSET, sockaddrLength, host);
            memory.putLong(header + MSG_IOV_OFFSET, iovecBase + (long)i * IOVEC_LENGTH, host);
            memory.putLong(header + MSG_IOVLEN_OFFSET, 1L, host);
            memory.putShort(sockaddrOffset + i * sockaddrLength, ipv6 ? AF_INET6 : AF_INET, host);
        }
    }

    /**
     * @return null when sendmmsg can be called here, otherwise why not.
     */
    static Throwable unavailabilityCause()
    {
        return UNAVAILABILITY_CAUSE;
    }

    /**
     * @return most datagrams per batch.
     */
    int capacity()
    {
        return capacity;
    }

    /**
     * Describe one datagram of the batch.
     *
     * @param slot           0 .. capacity - 1.
     * @param payloadAddress native address of the UDP payload.
     * @param payloadLength  its length.
     * @param ipv4           destination address, big-endian int.
     * @param port           destination port.
     */
    void set(final int slot, final long payloadAddress, final int payloadLength, final int ipv4, final int port)
    {
        final ByteOrder host = ByteOrder.nativeOrder();
        final int iovec = iovecOffset + slot * IOVEC_LENGTH;
        memory.putLong(iovec + IOV_BASE_OFFSET, payloadAddress, host);
        memory.putLong(iovec + IOV_LEN_OFFSET, payloadLength, host);
        final int sockaddr = sockaddrOffset + slot * SOCKADDR_IN_LENGTH;
        memory.putShort(sockaddr + SIN_PORT_OFFSET, (short)port, BIG_ENDIAN);
        memory.putInt(sockaddr + SIN_ADDR_OFFSET, ipv4, BIG_ENDIAN);
    }

    /**
     * Describe one datagram of the batch to an IPv6 destination (an AF_INET6 batch).
     *
     * @param slot           0 .. capacity - 1.
     * @param payloadAddress native address of the UDP payload.
     * @param payloadLength  its length.
     * @param high           destination address, high 64 bits.
     * @param low            destination address, low 64 bits.
     * @param port           destination port.
     */
    void setIpv6(final int slot, final long payloadAddress, final int payloadLength, final long high, final long low,
        final int port)
    {
        final ByteOrder host = ByteOrder.nativeOrder();
        final int iovec = iovecOffset + slot * IOVEC_LENGTH;
        memory.putLong(iovec + IOV_BASE_OFFSET, payloadAddress, host);
        memory.putLong(iovec + IOV_LEN_OFFSET, payloadLength, host);
        final int sockaddr = sockaddrOffset + slot * SOCKADDR_IN6_LENGTH;
        memory.putShort(sockaddr + SIN_PORT_OFFSET, (short)port, BIG_ENDIAN);
        memory.putLong(sockaddr + SIN6_ADDR_OFFSET, high, BIG_ENDIAN);
        memory.putLong(sockaddr + SIN6_ADDR_OFFSET + 8, low, BIG_ENDIAN);
    }

    /**
     * Send datagrams {@code first .. first + count - 1}.
     *
     * @param fd    the socket.
     * @param first slot of the first datagram.
     * @param count number of datagrams.
     * @return how many were sent (the kernel sends in order and stops at the first failure), or minus the errno
     *     when the first one failed.
     */
    int send(final int fd, final int first, final int count)
    {
        final int sent = sendmmsg(fd, base + (long)first * MMSGHDR_LENGTH, Math.min(count, MAX_VLEN), MSG_DONTWAIT);
        if (sent >= 0)
        {
            return sent;
        }
        final int errno = Native.getLastError();
        return 0 == errno ? -EAGAIN : -errno;
    }

    private static native int sendmmsg(int fd, long msgvec, int vlen, int flags);
}
