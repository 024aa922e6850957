package org.roce4j.transport.link.udp;

import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;

import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.socket.SocketProtocolFamily;
import io.netty.channel.unix.Socket;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.roce4j.wire.header.Ipv4Header;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LinuxRecvmmsgTest
{
    /** Slot size of the receiver below. */
    private static final int SLOT = 256;

    @Test
    void receivesWhatIsWaitingWithSendersAndFlagsTruncationWithoutBlocking() throws Exception
    {
        assertNull(LinuxRecvmmsg.unavailabilityCause(), "recvmmsg through libc on this Linux machine");
        // A socket Netty opened (as UdpLink's), bound without an event loop; Epoll loads Netty's native library.
        Epoll.ensureAvailability();
        final EpollDatagramChannel receiver = new EpollDatagramChannel(SocketProtocolFamily.INET);
        try (DatagramChannel sender = DatagramChannel.open(StandardProtocolFamily.INET))
        {
            final Socket socket = (Socket)receiver.fd();
            socket.bind(new InetSocketAddress("127.0.0.1", 0));
            final InetSocketAddress receiverAddress = socket.localAddress();
            sender.bind(new InetSocketAddress("127.0.0.1", 0));
            final int senderPort = ((InetSocketAddress)sender.getLocalAddress()).getPort();
            final int fd = receiver.fd().intValue();

            final UnsafeBuffer arena = new UnsafeBuffer(ByteBuffer.allocateDirect(4 * SLOT));
            final LinuxRecvmmsg slots = new LinuxRecvmmsg(4, false);
            for (int i = 0; i < 4; i++)
            {
                slots.slot(i, arena.addressOffset() + (long)i * SLOT, SLOT);
            }
            assertEquals(-LinuxSendmmsg.EAGAIN, slots.receive(fd, 4), "nothing waiting: EAGAIN at once");

            final int[] lengths = {1, 100, SLOT, SLOT + 1};
            for (int i = 0; i < lengths.length; i++)
            {
                final ByteBuffer datagram = ByteBuffer.allocate(lengths[i]);
                for (int j = 0; j < lengths[i]; j++)
                {
                    datagram.put((byte)(i * 31 + j));
                }
                datagram.flip();
                sender.send(datagram, receiverAddress);
            }
            assertEquals(2, slots.receive(fd, 2), "at most the count asked for");
            assertEquals(2, slots.receive(fd, 4), "the rest, into slots 0 and 1 again");
            // Second call: datagrams 2 (fills its slot exactly) and 3 (one byte too long).
            assertEquals(SLOT, slots.length(0));
            assertFalse(slots.truncated(0), "exactly the slot's size is not truncated");
            assertEquals(SLOT, slots.length(1), "truncated to the slot");
            assertTrue(slots.truncated(1), "one byte more than the slot: MSG_TRUNC");
            assertEquals(Ipv4Header.parseAddress("127.0.0.1"), slots.sourceIpv4(1));
            assertEquals(senderPort, slots.sourcePort(1));
            for (int j = 0; j < SLOT; j++)
            {
                assertEquals((byte)(2 * 31 + j), arena.getByte(j), "byte " + j + " of datagram 2");
            }
            assertEquals(-LinuxSendmmsg.EAGAIN, slots.receive(fd, 4), "drained");
        }
        finally
        {
            receiver.fd().close();
        }
    }
}
