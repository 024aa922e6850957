package org.roce4j.transport.link.udp;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import com.sun.jna.Native;
import org.agrona.concurrent.UnsafeBuffer;

import static java.nio.ByteOrder.BIG_ENDIAN;
import static org.roce4j.transport.link.udp.LinuxMmsg.*;

/**
 * A vector of receive slots for recvmmsg(2), called from the calling thread (the engine's) on a socket someone
 * else owns (the socket Netty opened, with Netty's reads switched off), non-blocking. Each slot's iovec points into
 * the caller's memory, so datagrams land where the caller wants them (behind room for synthetic headers) and are
 * copied once, by the kernel. Every structure is preallocated in native memory: no allocation per call.
 *
 * <p>Layouts in {@link LinuxMmsg} (LP64 Linux): {@code struct mmsghdr} is a 56-byte {@code msghdr}
 * followed by {@code unsigned int msg_len}, padded to 64; the sender's address comes back in a
 * {@code sockaddr_in} (or {@code sockaddr_in6}) per slot and truncation as MSG_TRUNC in {@code msg_flags}.
 *
 * <p>Not thread safe: one vector per receiving thread.
 */
final class LinuxRecvmmsg
{
    /** MSG_TRUNC (bits/socket.h): the datagram was longer than the slot. */
    static final int MSG_TRUNC = 0x20;


    private static final Throwable UNAVAILABILITY_CAUSE;

    static
    {
        UNAVAILABILITY_CAUSE = LinuxMmsg.registerWithLibc(LinuxRecvmmsg.class, "recvmmsg");
    }

    private final int capacity;
    private final UnsafeBuffer memory;
    private final long base;
    private final int iovecOffset;
    private final int sockaddrOffset;
    private final int sockaddrLength;

    /**
     * @param capacity most datagrams per call, at most {@link LinuxSendmmsg#MAX_VLEN}.
     * @param ipv6     true for a socket of AF_INET6 (senders come back as sockaddr_in6).
     */
    LinuxRecvmmsg(final int capacity, final boolean ipv6)
    {
        if (null != UNAVAILABILITY_CAUSE)
        {
            throw new IllegalStateException("recvmmsg through libc is not available: " + UNAVAILABILITY_CAUSE,
                UNAVAILABILITY_CAUSE);
        }
        if (capacity < 1 || capacity > LinuxSendmmsg.MAX_VLEN)
        {
            throw new IllegalArgumentException("capacity must be 1.." + LinuxSendmmsg.MAX_VLEN + ", got " + capacity);
        }
        this.capacity = capacity;
        sockaddrLength = ipv6 ? SOCKADDR_IN6_LENGTH : SOCKADDR_IN_LENGTH;
        iovecOffset = capacity * MMSGHDR_LENGTH;
        sockaddrOffset = iovecOffset + capacity * IOVEC_LENGTH;
        memory = new UnsafeBuffer(ByteBuffer.allocateDirect(sockaddrOffset + capacity * sockaddrLength));
        base = memory.addressOffset();
        final ByteOrder host = ByteOrder.nativeOrder();
        for (int i = 0; i < capacity; i++)
        {
            final int header = i * MMSGHDR_LENGTH;
            memory.putLong(header + MSG_NAME_OFFSET, base + sockaddrOffset + (long)i * sockaddrLength, host);
            memory.putInt(header + MSG_NAMELEN_OFFSET, sockaddrLength, host);
            memory.putLong(header + MSG_IOV_OFFSET, base + iovecOffset + (long)i * IOVEC_LENGTH, host);
            memory.putLong(header + MSG_IOVLEN_OFFSET, 1L, host);
        }
    }

    /**
     * @return null when recvmmsg can be called here, otherwise why not.
     */
    static Throwable unavailabilityCause()
    {
        return UNAVAILABILITY_CAUSE;
    }

    /**
     * @return most datagrams per call.
     */
    int capacity()
    {
        return capacity;
    }

    /**
     * Point a slot at memory.
     *
     * @param slot    0 .. capacity - 1.
     * @param address native address the datagram's bytes go to.
     * @param length  room there; a longer datagram is truncated and flagged.
     */
    void slot(final int slot, final long address, final int length)
    {
        final int iovec = iovecOffset + slot * IOVEC_LENGTH;
        memory.putLong(iovec + IOV_BASE_OFFSET, address, ByteOrder.nativeOrder());
        memory.putLong(iovec + IOV_LEN_OFFSET, length, ByteOrder.nativeOrder());
    }

    /**
     * Receive up to {@code count} datagrams into slots 0 .. count - 1 without blocking.
     *
     * @param fd    the socket.
     * @param count most datagrams, at most the capacity.
     * @return how many arrived, or minus the errno (EAGAIN when none was waiting).
     */
    int receive(final int fd, final int count)
    {
        final int n = Math.min(count, capacity);
        final ByteOrder host = ByteOrder.nativeOrder();
        for (int i = 0; i < n; i++)
        {
            // The kernel writes back the address length; the sockaddr always fits, but the field is in/out.
            memory.putInt(i * MMSGHDR_LENGTH + MSG_NAMELEN_OFFSET, sockaddrLength, host);
        }
        final int received = recvmmsg(fd, base, n, LinuxSendmmsg.MSG_DONTWAIT, 0L);
        if (received >= 0)
        {
            return received;
        }
        final int errno = Native.getLastError();
        return 0 == errno ? -LinuxSendmmsg.EAGAIN : -errno;
    }

    /**
     * @param slot a slot filled by the last {@link #receive}.
     * @return bytes written to the slot (the datagram's length, or the slot's when truncated).
     */
    int length(final int slot)
    {
        return memory.getInt(slot * MMSGHDR_LENGTH + MSG_LEN_OFFSET, ByteOrder.nativeOrder());
    }

    /**
     * @param slot a slot filled by the last {@link #receive}.
     * @return true when the datagram was longer than the slot.
     */
    boolean truncated(final int slot)
    {
        return 0 != (memory.getInt(slot * MMSGHDR_LENGTH + MSG_FLAGS_OFFSET, ByteOrder.nativeOrder()) & MSG_TRUNC);
    }

    /**
     * @param slot a slot filled by the last {@link #receive}.
     * @return the sender's IPv4 address, big-endian int.
     */
    int sourceIpv4(final int slot)
    {
        return memory.getInt(sockaddrOffset + slot * sockaddrLength + SIN_ADDR_OFFSET, BIG_ENDIAN);
    }

    /**
     * @param slot a slot filled by the last {@link #receive} (AF_INET6 vector).
     * @return high 64 bits of the sender's IPv6 address.
     */
    long sourceIpv6High(final int slot)
    {
        return memory.getLong(sockaddrOffset + slot * sockaddrLength + SIN6_ADDR_OFFSET, BIG_ENDIAN);
    }

    /**
     * @param slot a slot filled by the last {@link #receive} (AF_INET6 vector).
     * @return low 64 bits of the sender's IPv6 address.
     */
    long sourceIpv6Low(final int slot)
    {
        return memory.getLong(sockaddrOffset + slot * sockaddrLength + SIN6_ADDR_OFFSET + 8, BIG_ENDIAN);
    }

    /**
     * @param slot a slot filled by the last {@link #receive}.
     * @return the sender's UDP port.
     */
    int sourcePort(final int slot)
    {
        return memory.getShort(sockaddrOffset + slot * sockaddrLength + SIN_PORT_OFFSET, BIG_ENDIAN) & 0xFFFF;
    }

    private static native int recvmmsg(int fd, long msgvec, int vlen, int flags, long timeout);
}
