package org.roce4j.bench.link;

import java.nio.channels.DatagramChannel;
import java.util.concurrent.Callable;

import io.netty.channel.Channel;
import org.pcap4j.core.PcapHandle;
import org.roce4j.transport.link.Link;
import org.roce4j.transport.link.pcap.PcapLink;
import org.roce4j.transport.link.udp.UdpLink;
import org.roce4j.wire.addr.Mac;
import org.roce4j.wire.header.UdpHeader;

/**
 * Where the two sides of a benchmark live: a medium (one namespace's loopback, or a veth pair between two
 * namespaces), its addresses, and how links, raw sockets and raw pcap handles are opened inside it.
 */
final class Endpoints implements AutoCloseable
{
    /** The RoCEv2 UDP port every socket binds. */
    static final int ROCE_PORT = UdpHeader.ROCE_V2_PORT;

    private final String medium;
    private final Namespaces namespaces;
    private final String addressA;
    private final String addressB;

    private Endpoints(final String medium, final Namespaces namespaces, final String addressA, final String addressB)
    {
        this.medium = medium;
        this.namespaces = namespaces;
        this.addressA = addressA;
        this.addressB = addressB;
    }

    /**
     * @param medium "lo", "veth" or "veth6" (the veth pair over IPv6).
     * @return the medium, set up.
     */
    static Endpoints create(final String medium)
    {
        switch (medium)
        {
            case "lo":
                return new Endpoints(medium, Namespaces.loopback("lb"), "127.0.0.1", "127.0.0.2");
            case "veth":
                return new Endpoints(medium, Namespaces.vethPair("lb", Namespaces.VETH_MTU), Namespaces.VETH_A,
                    Namespaces.VETH_B);
            case "veth6":
                return new Endpoints(medium, Namespaces.vethPair6("lb", Namespaces.VETH_MTU), Namespaces.VETH6_A,
                    Namespaces.VETH6_B);
            default:
                throw new IllegalArgumentException("unknown medium '" + medium + "' (lo, veth, veth6)");
        }
    }

    /**
     * @return "lo", "veth" or "veth6".
     */
    String medium()
    {
        return medium;
    }

    /**
     * @return side A's address for udp sockets (IPv6 on veth6).
     */
    String addressA()
    {
        return addressA;
    }

    /**
     * @return side B's address for udp sockets (IPv6 on veth6).
     */
    String addressB()
    {
        return addressB;
    }

    /**
     * @return true when raw Ethernet (pcap) can run here (the veth pairs).
     */
    boolean hasEthernet()
    {
        return medium.startsWith("veth");
    }

    /**
     * @return true on the IPv6 medium.
     */
    boolean ipv6()
    {
        return addressA.indexOf(':') >= 0;
    }

    /**
     * @param side 0 for A, 1 for B.
     * @return the address the side's pcap link owns (and its raw pcap frames carry).
     */
    String pcapAddress(final int side)
    {
        if (ipv6())
        {
            return 0 == side ? Namespaces.PCAP6_A : Namespaces.PCAP6_B;
        }
        return 0 == side ? Namespaces.PCAP_A : Namespaces.PCAP_B;
    }

    /**
     * @param side    0 for A, 1 for B.
     * @param options udp link options after the address, e.g. {@code transport=epoll}.
     * @return a udp link opened inside the side's namespace.
     */
    Link udpLink(final int side, final String options)
    {
        final String address = 0 == side ? addressA : addressB;
        final String spec = "udp:" + (ipv6() ? "[" + address + "]" : address) + (options.isEmpty() ? "" : "," +
            options);
        return namespaces.call(side, () -> UdpLink.open(spec));
    }

    /**
     * @param side 0 for A, 1 for B.
     * @return a pcap link on the side's veth end, owning {@link #pcapAddress(int)}.
     */
    Link pcapLink(final int side)
    {
        final String spec = "pcap:" + iface(side) + ",ip=" + pcapAddress(side);
        return namespaces.call(side, () -> PcapLink.open(spec));
    }

    /**
     * @param side 0 for A, 1 for B.
     * @return the side's veth interface name.
     */
    String iface(final int side)
    {
        return 0 == side ? Namespaces.VETH_IFACE_A : Namespaces.VETH_IFACE_B;
    }

    /**
     * @param side 0 for A, 1 for B.
     * @return the MAC of the side's veth end.
     */
    long mac(final int side)
    {
        final String text = Namespaces.run("ip", "-n", namespaces.name(side), "-o", "link", "show", iface(side));
        final int at = text.indexOf("link/ether ");
        if (at < 0)
        {
            throw new IllegalStateException("no MAC in: " + text);
        }
        return Mac.parse(text.substring(at + "link/ether ".length()).split(" ")[0]);
    }

    /**
     * @param side 0 for A, 1 for B.
     * @param task opens a raw Netty channel.
     * @return the channel, whose socket lives in the side's namespace.
     */
    Channel openChannel(final int side, final Callable<Channel> task)
    {
        return namespaces.call(side, task);
    }

    /**
     * @param side 0 for A, 1 for B.
     * @param task opens a JDK datagram channel.
     * @return the channel, whose socket lives in the side's namespace.
     */
    DatagramChannel openDatagramChannel(final int side, final Callable<DatagramChannel> task)
    {
        return namespaces.call(side, task);
    }

    /**
     * @param side 0 for A, 1 for B.
     * @param task opens a raw pcap handle.
     * @return the handle, on the side's interface.
     */
    PcapHandle openHandle(final int side, final Callable<PcapHandle> task)
    {
        return namespaces.call(side, task);
    }

    /**
     * Remove the namespaces.
     */
    public void close()
    {
        namespaces.close();
    }
}
