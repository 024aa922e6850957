package org.roce4j.transport.link.udp;

import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;

import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.socket.SocketProtocolFamily;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.roce4j.wire.header.Ipv4Header;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

class LinuxSendmmsgTest
{
    /** EBADF (asm-generic/errno-base.h). */
    private static final int EBADF = 9;

    @Test
    void reportsTheErrnoOfAFailedCall()
    {
        assertNull(LinuxSendmmsg.unavailabilityCause(), "sendmmsg through libc on this Linux machine");
        final LinuxSendmmsg batch = new LinuxSendmmsg(4, false);
        final UnsafeBuffer payload = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
        batch.set(0, payload.addressOffset(), 16, Ipv4Header.parseAddress("127.0.0.1"), 9);
        assertEquals(-EBADF, batch.send(-1, 0, 1), "sendmmsg on fd -1");
    }

    @Test
    void sendsEveryDatagramOfABatchInOrder() throws Exception
    {
        // A socket Netty opened (as UdpLink's): the channel creates it at once, no event loop needed. Epoll loads
        // Netty's native library (run alone, nothing else has).
        Epoll.ensureAvailability();
        final EpollDatagramChannel sender = new EpollDatagramChannel(SocketProtocolFamily.INET);
        try (DatagramChannel receiver = DatagramChannel.open(StandardProtocolFamily.INET))
        {
            receiver.bind(new InetSocketAddress("127.0.0.1", 0));
            final int port = ((InetSocketAddress)receiver.getLocalAddress()).getPort();
            final int fd = sender.fd().intValue();

            final UnsafeBuffer arena = new UnsafeBuffer(ByteBuffer.allocateDirect(4096));
            final LinuxSendmmsg batch = new LinuxSendmmsg(3, false);
            for (int i = 0; i < 3; i++)
            {
                for (int j = 0; j <= i * 10; j++)
                {
                    arena.putByte(i * 1024 + j, (byte)(i + j));
                }
                batch.set(i, arena.addressOffset() + i * 1024, i * 10 + 1, Ipv4Header.parseAddress("127.0.0.1"),
                    port);
            }
            assertEquals(3, batch.send(fd, 0, 3), "datagrams sent");
            final ByteBuffer received = ByteBuffer.allocate(2048);
            for (int i = 0; i < 3; i++)
            {
                received.clear();
                receiver.receive(received);
                received.flip();
                assertEquals(i * 10 + 1, received.remaining(), "length of datagram " + i);
                for (int j = 0; j <= i * 10; j++)
                {
                    assertEquals((byte)(i + j), received.get(j), "byte " + j + " of datagram " + i);
                }
            }
        }
        finally
        {
            sender.fd().close();
        }
    }

    @Test
    void refusesABadBatchCapacity()
    {
        assertThrows(IllegalArgumentException.class, () -> new LinuxSendmmsg(0, false));
        assertThrows(IllegalArgumentException.class, () -> new LinuxSendmmsg(LinuxSendmmsg.MAX_VLEN + 1, false));
    }
}
