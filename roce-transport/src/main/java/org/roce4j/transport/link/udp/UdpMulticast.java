package org.roce4j.transport.link.udp;

import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.ExecutionException;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelOption;
import io.netty.channel.unix.IntegerUnixChannelOption;
import io.netty.channel.unix.RawUnixChannelOption;
import org.roce4j.transport.link.host.InterfaceRequests;
import org.roce4j.wire.addr.Gid;

/**
 * Multicast on the {@link UdpLink}'s sockets: the interface groups are sent from, and a socket per joined group
 * (ip(7)). The link's own socket options are {@link UdpSocket}'s.
 */
final class UdpMulticast
{
    /** IP_MULTICAST_IF (linux/in.h): the interface groups are sent from, named by one of its addresses. */
    private static final int IP_MULTICAST_IF = 32;
    /** IP_ADD_MEMBERSHIP (linux/in.h), given a struct ip_mreqn. */
    private static final int IP_ADD_MEMBERSHIP = 35;
    /** IPV6_MULTICAST_IF (linux/in6.h): the interface groups are sent from, by index. */
    private static final int IPV6_MULTICAST_IF = 17;
    /** IPV6_ADD_MEMBERSHIP (linux/in6.h), given a struct ipv6_mreq. */
    private static final int IPV6_ADD_MEMBERSHIP = 20;
    /** sizeof(struct ip_mreqn): group, local address, interface index. */
    private static final int IP_MREQN_LENGTH = 12;
    /** sizeof(struct ipv6_mreq): group, interface index. */
    private static final int IPV6_MREQ_LENGTH = 20;

    private static final RawUnixChannelOption IP_MULTICAST_IF_OPTION =
        new RawUnixChannelOption("IP_MULTICAST_IF", UdpSocket.IPPROTO_IP, IP_MULTICAST_IF, Integer.BYTES);
    private static final IntegerUnixChannelOption IPV6_MULTICAST_IF_OPTION =
        new IntegerUnixChannelOption("IPV6_MULTICAST_IF", UdpSocket.IPPROTO_IPV6, IPV6_MULTICAST_IF);
    private static final RawUnixChannelOption IP_ADD_MEMBERSHIP_OPTION =
        new RawUnixChannelOption("IP_ADD_MEMBERSHIP", UdpSocket.IPPROTO_IP, IP_ADD_MEMBERSHIP, IP_MREQN_LENGTH);
    private static final RawUnixChannelOption IPV6_ADD_MEMBERSHIP_OPTION =
        new RawUnixChannelOption("IPV6_ADD_MEMBERSHIP", UdpSocket.IPPROTO_IPV6, IPV6_ADD_MEMBERSHIP,
            IPV6_MREQ_LENGTH);

    private UdpMulticast()
    {
    }

    /**
     * Send groups out of the bound address's interface (IP_MULTICAST_IF, IPV6_MULTICAST_IF), not where the routing
     * table would send them: a namespace or host without a route for 224/4 or ff00::/8 on that interface would
     * otherwise refuse (ENETUNREACH) or pick another interface. Unicast is unchanged.
     *
     * @param channel        the link's channel.
     * @param config         the spec.
     * @param interfaceIndex the bound IPv6 address's interface ({@link #interfaceIndex}); unused for IPv4.
     */
    static void sendFromBoundInterface(final Channel channel, final UdpLinkConfig config, final int interfaceIndex)
    {
        if (config.ipv6())
        {
            if (0 != interfaceIndex)
            {
                channel.config().setOption(IPV6_MULTICAST_IF_OPTION, interfaceIndex);
            }
            return;
        }
        channel.config().setOption(IP_MULTICAST_IF_OPTION, ByteBuffer.allocate(Integer.BYTES).putInt(0, config.ipv4()));
    }

    /**
     * @param config the spec.
     * @return the bound IPv6 address's interface index from the calling thread's namespace; 0 for IPv4 (whose
     *     requests name the interface by the bound address) or when no interface holds it.
     */
    static int interfaceIndex(final UdpLinkConfig config)
    {
        if (!config.ipv6())
        {
            return 0;
        }
        final InterfaceRequests.Ipv6Interface iface =
            InterfaceRequests.ofIpv6Address((Inet6Address)config.address().toInetAddress());
        return null == iface ? 0 : iface.index();
    }

    /**
     * Open a socket that receives one multicast group on the bound address's interface: bound to the group's address
     * and the link's port (Linux hands a group's datagrams only to sockets bound to the wildcard or the group, ip(7);
     * SO_REUSEADDR lets several links of a host receive the same group, each a copy), joined with
     * IP_ADD_MEMBERSHIP (struct ip_mreqn naming the interface by the bound address) or IPV6_ADD_MEMBERSHIP (struct
     * ipv6_mreq with the interface's index), configured like the link's socket and on the same event loop. The
     * socket is created on the event loop's thread, so it lives in the link's network namespace whichever thread
     * joins. Closing it leaves the group (ip(7)).
     *
     * @param socket  the link's socket.
     * @param group   the group (IPv4-mapped for IPv4), of the link's IP version.
     * @param handler the event loop's inbound handler for its datagrams.
     * @return the bound, joined channel.
     * @throws IllegalStateException when the transport is NIO or the kernel refuses, naming why.
     */
    static Channel openGroup(final UdpSocket socket, final Gid group, final ChannelHandler handler)
    {
        final UdpLinkConfig config = socket.config();
        final String name = socket.name();
        if (!socket.transport().isNative())
        {
            throw new IllegalStateException("udp link " + name + " cannot receive multicast group " + group +
                " on the NIO transport (its socket options cannot join a group on an interface of a network " +
                "namespace); use transport=epoll or io_uring");
        }
        final Channel groupChannel;
        try
        {
            groupChannel = socket.channel().eventLoop().submit(socket::newChannel).get();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("udp link " + name + ": interrupted opening group " + group, ex);
        }
        catch (final ExecutionException ex)
        {
            throw new IllegalStateException("udp link " + name + ": cannot open a socket for group " + group + ": " +
                ex.getCause(), ex.getCause());
        }
        final ChannelFuture registration = new Bootstrap().group(socket.eventLoopGroup())
            .channelFactory(() -> groupChannel).handler(handler).register().awaitUninterruptibly();
        try
        {
            if (!registration.isSuccess())
            {
                throw registration.cause();
            }
            socket.configure(groupChannel, socket.maxPayloadLength());
            groupChannel.config().setOption(ChannelOption.SO_REUSEADDR, Boolean.TRUE);
            final ChannelFuture bound = groupChannel.bind(new InetSocketAddress(group.toInetAddress(), config.port()))
                .awaitUninterruptibly();
            if (!bound.isSuccess())
            {
                throw bound.cause();
            }
            if (config.ipv6())
            {
                groupChannel.config().setOption(IPV6_ADD_MEMBERSHIP_OPTION, ByteBuffer.allocate(IPV6_MREQ_LENGTH)
                    .putLong(0, group.high()).putLong(Long.BYTES, group.low())
                    .order(ByteOrder.nativeOrder()).putInt(2 * Long.BYTES, socket.interfaceIndex()));
            }
            else
            {
                groupChannel.config().setOption(IP_ADD_MEMBERSHIP_OPTION, ByteBuffer.allocate(IP_MREQN_LENGTH)
                    .putInt(0, group.ipv4()).putInt(Integer.BYTES, config.ipv4())
                    .order(ByteOrder.nativeOrder()).putInt(2 * Integer.BYTES, 0));
            }
            return groupChannel;
        }
        catch (final Throwable ex)
        {
            groupChannel.close().awaitUninterruptibly();
            throw new IllegalStateException("udp link " + name + " cannot receive multicast group " + group +
                " on the interface of " + config.addressText() + ": " + ex, ex);
        }
    }
}
