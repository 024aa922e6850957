package org.roce4j.testcontainers;

import java.io.IOException;
import java.net.BindException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.time.Duration;

import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.wire.addr.Mac;
import org.roce4j.wire.header.ArpHeader;
import org.roce4j.wire.header.EthernetHeader;

/**
 * Does the guest's RoCE NIC still move frames both ways? Asks it for its own address with an ARP request sent through
 * the dgram tunnel, from the address and MAC the tunnel link uses, and waits for the reply: a guest whose eth0 stopped
 * transmitting (or receiving) answers nothing, which is how the wedges of issue 12 looked from outside.
 *
 * <p>It binds the UDP port QEMU sends the guest's frames to, so it runs only between cases, while no link is open.
 */
final class ArpProbe
{
    private ArpProbe()
    {
    }

    /**
     * @param linkPort       the port QEMU sends the guest's frames to (free while no test link is open).
     * @param guestDgramPort the guest NIC's UDP port.
     * @param linkIp         the address to ask from (the tunnel link's).
     * @param guestIp        the address to ask for.
     * @param attempts       requests to send.
     * @param wait           how long to wait for a reply after each.
     * @return null when the guest answered, else what went wrong.
     * @throws IOException when the socket fails other than by a busy port.
     */
    static String probe(final int linkPort, final int guestDgramPort, final int linkIp, final int guestIp,
        final int attempts, final Duration wait) throws IOException
    {
        final DatagramSocket socket;
        try
        {
            socket = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), linkPort));
        }
        catch (final BindException ex)
        {
            return null;   // a link of the test is still open: it is in use, so not this probe's to judge
        }
        try (socket)
        {
            socket.setSoTimeout((int)wait.toMillis());
            final long mac = Mac.ofIpv4(linkIp);
            final byte[] request = new byte[EthernetHeader.LENGTH + ArpHeader.LENGTH];
            final UnsafeBuffer buffer = new UnsafeBuffer(request);
            new EthernetHeader().wrap(buffer, 0).destination(Mac.BROADCAST).source(mac)
                .etherType(EthernetHeader.ETHERTYPE_ARP);
            new ArpHeader().wrap(buffer, EthernetHeader.LENGTH).ethernetIpv4(ArpHeader.OPERATION_REQUEST)
                .senderMac(mac).senderIp(linkIp).targetMac(0L).targetIp(guestIp);
            final InetSocketAddress guest = new InetSocketAddress(InetAddress.getLoopbackAddress(), guestDgramPort);
            final byte[] received = new byte[2048];
            final UnsafeBuffer receivedBuffer = new UnsafeBuffer(received);
            final EthernetHeader ethernet = new EthernetHeader();
            final ArpHeader reply = new ArpHeader();
            int frames = 0;
            for (int i = 0; i < attempts; i++)
            {
                socket.send(new DatagramPacket(request, request.length, guest));
                final long deadlineNs = System.nanoTime() + wait.toNanos();
                while (deadlineNs - System.nanoTime() > 0)
                {
                    final DatagramPacket packet = new DatagramPacket(received, received.length);
                    try
                    {
                        socket.receive(packet);
                    }
                    catch (final SocketTimeoutException ex)
                    {
                        break;
                    }
                    frames++;
                    if (packet.getLength() >= EthernetHeader.LENGTH + ArpHeader.LENGTH &&
                        EthernetHeader.ETHERTYPE_ARP == ethernet.wrap(receivedBuffer, 0).outerType())
                    {
                        reply.wrap(receivedBuffer, EthernetHeader.LENGTH);
                        if (ArpHeader.OPERATION_REPLY == reply.operation() && guestIp == reply.senderIp())
                        {
                            return null;
                        }
                    }
                }
            }
            return "eth0 answered none of " + attempts + " ARP requests for its address (" + frames +
                " other frames came from it meanwhile)";
        }
    }
}
