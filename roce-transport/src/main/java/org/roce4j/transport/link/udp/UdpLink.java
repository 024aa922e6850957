package org.roce4j.transport.link.udp;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import io.netty.channel.Channel;
import org.agrona.MutableDirectBuffer;
import org.roce4j.transport.link.FrameHandler;
import org.roce4j.transport.link.FrameTap;
import org.roce4j.transport.link.FrameTaps;
import org.roce4j.transport.link.Link;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.transport.link.LinkCounter;
import org.roce4j.transport.link.LinkCounters;
import org.roce4j.transport.link.host.InterfaceMtu;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.addr.Mac;
import org.roce4j.wire.header.EthernetHeader;
import org.roce4j.wire.header.Ipv4Header;
import org.roce4j.wire.header.Ipv6Header;
import org.roce4j.wire.header.UdpHeader;

/**
 * A link over a kernel UDP socket bound to {@code IP:4791}, IPv4 or IPv6, on Netty 4.2 (epoll by default, io_uring
 * or NIO on request). Spec: {@link UdpLinkConfig#GRAMMAR}. No root is needed and no layer 2 is owned: the kernel
 * does ARP, Neighbor Discovery, routing, IP and UDP.
 *
 * <p><b>Sending</b> ({@link UdpSendPath}). The engine builds whole Ethernet frames in {@link #sendBuffer()}; only
 * the UDP payload (BTH .. ICRC) goes to the kernel, to the frame's destination IP and UDP port (4791), through an
 * unconnected socket. Before sending, the frame's fields the kernel decides (IPv4 source, identification, flags;
 * IPv6 source; the UDP source port) are rewritten to exactly what the kernel will put on the wire and the ICRC is
 * updated (see {@link KernelHeaders}): a peer that checks ICRCs (rxe) accepts them. The UDP source port on the wire
 * is therefore always the bound port, whatever port the engine chose per QP, and the IP traffic class is the
 * socket's (0), not the frame's.
 *
 * <p><b>Receiving</b> ({@link UdpReceivePath}). Each datagram gets a synthetic Ethernet + IP + UDP header in front
 * of its payload. <b>Incoming ICRCs cannot be checked on this path</b>: the real IP header (whose identification
 * the sender's kernel chose) is not visible, so {@link #verifiesIcrc()} is false and every delivered frame is also
 * counted as {@link LinkCounter#RECEIVE_UNVERIFIED}.
 *
 * <p><b>Multicast</b> ({@link #joinGroup}): a socket per joined group, bound to the group, read by the same receive
 * path.
 *
 * <p><b>Socket</b> ({@link UdpSocket}): transport and modes, options, bind. On an idle link, frames sent by peers =
 * FRAMES_RECEIVED + RECEIVE_ERRORS + RECEIVE_FILTERED (NIO cannot see the kernel's drops).
 *
 * <p><b>Threading.</b> One engine thread calls claim/commit/flush/poll; in event-loop modes Netty's single
 * event-loop thread reads or writes, and they meet only in lock-free rings. {@link #counters()} may be read and
 * {@link #close()} called from any thread; after close the engine thread must not use the link.
 */
public final class UdpLink implements Link
{
    /** IPv4 header (no options) and UDP header in front of the payload. */
    private static final int IPV4_UDP_OVERHEAD = Ipv4Header.LENGTH + UdpHeader.LENGTH;
    /** IPv6 header and UDP header in front of the payload. */
    private static final int IPV6_UDP_OVERHEAD = Ipv6Header.LENGTH + UdpHeader.LENGTH;

    private final UdpLinkConfig config;
    private final UdpSocket socket;
    private final String name;
    private final LinkAddress address;
    private final int mtu;
    private final int maxFrameLength;
    private final LinkCounters counters = new LinkCounters();
    private final FrameTaps taps = new FrameTaps();
    private final UdpSendPath send;
    private final UdpReceivePath receive;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Joined groups and their sockets (engine thread, and close). */
    private final Map<Gid, Channel> groups = new HashMap<>();
    private int claimIndex = -1;
    private int claimLength;

    private UdpLink(final UdpLinkConfig config, final UdpSocket socket, final int mtu)
    {
        this.config = config;
        this.socket = socket;
        this.mtu = mtu;
        this.maxFrameLength = EthernetHeader.VLAN_LENGTH + mtu;
        this.name = socket.name();
        this.address = new LinkAddress(0L, List.of(config.address()));
        final int maxPayloadLength = mtu - (config.ipv6() ? IPV6_UDP_OVERHEAD : IPV4_UDP_OVERHEAD);
        this.send = new UdpSendPath(socket.sendMode(), config, counters);
        this.receive = new UdpReceivePath(socket.receiveMode(), config, maxPayloadLength, counters, taps);
    }

    /**
     * Open a link from a spec such as {@code udp:127.0.0.1}, {@code udp:[fd00:77::1]} or
     * {@code udp:10.0.0.1,transport=io_uring}.
     *
     * @param spec see {@link UdpLinkConfig#GRAMMAR}.
     * @return the open, bound link.
     * @throws IllegalArgumentException for a bad spec or an address that is not local.
     * @throws IllegalStateException    when the port is in use or the transport cannot run here.
     */
    public static UdpLink open(final String spec)
    {
        return open(UdpLinkConfig.parse(spec));
    }

    /**
     * Open a link.
     *
     * @param config parsed spec.
     * @return the open, bound link.
     * @throws IllegalArgumentException for an address that is not local.
     * @throws IllegalStateException    when the port is in use or the transport cannot run here.
     */
    public static UdpLink open(final UdpLinkConfig config)
    {
        final UdpSocket socket = UdpSocket.plan(config);
        final UdpLink link = new UdpLink(config, socket, InterfaceMtu.ofAddress(config.address().toInetAddress()));
        try
        {
            final int maxPayloadLength = link.mtu - (config.ipv6() ? IPV6_UDP_OVERHEAD : IPV4_UDP_OVERHEAD);
            socket.start(new UdpReceivePath.EventLoopHandler(link.receive, link.send, config.address()),
                maxPayloadLength);
            link.send.attach(socket);
            link.receive.attach(socket);
        }
        catch (final RuntimeException ex)
        {
            link.close();
            throw ex;
        }
        return link;
    }

    /**
     * @return e.g. {@code udp:127.0.0.1:4791/epoll}.
     */
    public String name()
    {
        return name;
    }

    /**
     * @return MAC 0 (the kernel owns layer 2) and the bound address.
     */
    public LinkAddress address()
    {
        return address;
    }

    /**
     * @return the MTU of the interface holding the bound address, capped at {@link Link#MAX_IP_MTU}.
     */
    public int mtu()
    {
        return mtu;
    }

    /**
     * @return false: frames are rebuilt around the UDP payload, the sender's IP header is not visible.
     */
    public boolean verifiesIcrc()
    {
        return false;
    }

    /**
     * @return the transport the socket runs on.
     */
    public UdpTransport transport()
    {
        return socket.transport();
    }

    /**
     * @return how datagrams reach the kernel.
     */
    public UdpSendMode sendMode()
    {
        return socket.sendMode();
    }

    /**
     * @return how datagrams come from the kernel.
     */
    public UdpReceiveMode receiveMode()
    {
        return socket.receiveMode();
    }

    /**
     * @return the bound UDP port.
     */
    public int port()
    {
        return config.port();
    }

    /**
     * Receive a multicast group. The link's socket is bound to a unicast address, and Linux hands a datagram sent to a
     * group only to sockets bound to the wildcard or to the group (ip(7)), so each joined group gets a socket of its
     * own ({@link UdpMulticast#openGroup}): bound to the group and the link's port, joined on the bound address's
     * interface, feeding the link's one receive path with the group as each datagram's destination (direct mode:
     * {@link #poll} reads it with recvmmsg after the link's socket; event-loop mode: its reads go to the same ring).
     * Sending to a group needs no join: the kernel sends to the group's IP and MAC out of the bound address's
     * interface (IP_MULTICAST_IF), and with IP_MULTICAST_LOOP (the default) a group's members on this host receive it
     * too. Joining a group already joined does nothing.
     *
     * @param high 64 bits of the group's GID (IPv4-mapped for an IPv4 group).
     * @param low  64 bits of the group's GID.
     * @throws IllegalArgumentException when the GID is not a multicast group of the link's IP version.
     * @throws IllegalStateException    when the transport is NIO or the kernel refuses the socket or the membership.
     */
    public void joinGroup(final long high, final long low)
    {
        final Gid group = new Gid(high, low);
        if (Mac.NONE == Mac.ofMulticastGroup(high, low) || config.ipv6() == group.isIpv4Mapped())
        {
            throw new IllegalArgumentException("udp link " + name + " cannot join " + group + ": not an " +
                (config.ipv6() ? "IPv6" : "IPv4") + " multicast group (the link's socket is " +
                (config.ipv6() ? "IPv6" : "IPv4") + ")");
        }
        if (closed.get())
        {
            throw new IllegalStateException(name + " is closed");
        }
        if (groups.containsKey(group))
        {
            return;
        }
        final Channel channel =
            UdpMulticast.openGroup(socket, group, new UdpReceivePath.EventLoopHandler(receive, send, group));
        groups.put(group, channel);
        if (UdpReceiveMode.DIRECT == socket.receiveMode())
        {
            receive.addGroup(UdpSocket.fdOf(channel), group);
        }
    }

    /**
     * Stop receiving a group: its socket is no longer read and is closed, which leaves the group (ip(7)). A group
     * not joined is ignored.
     *
     * @param high 64 bits of the group's GID.
     * @param low  64 bits of the group's GID.
     */
    public void leaveGroup(final long high, final long low)
    {
        final Channel channel = groups.remove(new Gid(high, low));
        if (null != channel)
        {
            closeGroup(channel);
        }
    }

    private void closeGroup(final Channel channel)
    {
        if (UdpReceiveMode.DIRECT == socket.receiveMode())
        {
            receive.removeGroup(UdpSocket.fdOf(channel));
        }
        channel.close().awaitUninterruptibly();
    }

    /** {@inheritDoc} */
    public boolean tapFrames(final FrameTap tap)
    {
        taps.add(tap);
        return true;
    }

    /**
     * {@inheritDoc}
     *
     * <p>One claim may be outstanding at a time. When the arena or the batch is full, committed frames are sent
     * first; -1 means the kernel's send buffer is full too.
     *
     * @throws IllegalStateException when a claim is outstanding or the link is closed.
     */
    public int tryClaim(final int maxLength)
    {
        if (maxLength <= 0 || maxLength > maxFrameLength)
        {
            throw new IllegalArgumentException("frame length " + maxLength + " outside 1.." + maxFrameLength +
                " (IP MTU " + mtu + " plus a tagged Ethernet header) on " + name);
        }
        if (claimIndex >= 0)
        {
            throw new IllegalStateException("a claim at " + claimIndex + " is still outstanding on " + name);
        }
        if (closed.get())
        {
            throw new IllegalStateException(name + " is closed");
        }
        final int index = send.claim(maxLength);
        if (index < 0)
        {
            counters.increment(LinkCounter.SEND_BACK_PRESSURE);
            return -1;
        }
        claimIndex = index;
        claimLength = maxLength;
        return index;
    }

    /**
     * @return the native arena (direct mode) or the send ring's buffer (event-loop mode).
     */
    public MutableDirectBuffer sendBuffer()
    {
        return send.buffer();
    }

    /**
     * {@inheritDoc}
     *
     * <p>Rewrites the IP/UDP fields the kernel will write and updates the ICRC. A frame that cannot go through a
     * kernel UDP socket (not the socket's IP version, IPv4 options, not UDP, inconsistent lengths) is dropped and
     * counted as {@link LinkCounter#SEND_ERRORS}.
     */
    public void commit(final int index, final int length)
    {
        checkClaim(index);
        if (length < 0 || length > claimLength)
        {
            abort(index);
            throw new IllegalArgumentException("committed length " + length + " outside 0.." + claimLength);
        }
        claimIndex = -1;
        if (send.commit(index, length) && !taps.isEmpty())
        {
            taps.onFrame(true, send.buffer(), index, length);
        }
    }

    /**
     * {@inheritDoc}
     */
    public void abort(final int index)
    {
        checkClaim(index);
        claimIndex = -1;
        send.abort(index);
    }

    private void checkClaim(final int index)
    {
        if (index != claimIndex || index < 0)
        {
            throw new IllegalStateException("index " + index + " is not the outstanding claim (" + claimIndex +
                ") on " + name);
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>Direct mode: sendmmsg of every committed frame from this thread; frames the kernel's buffer cannot take
     * stay queued for the next flush. Event-loop mode: wakes the event loop once for everything committed.
     */
    public int flush()
    {
        return send.flush(claimIndex >= 0);
    }

    /**
     * {@inheritDoc}
     */
    public int poll(final FrameHandler handler, final int maxFrames)
    {
        final int delivered = receive.poll(handler, maxFrames);
        if (UdpSendMode.EVENT_LOOP == socket.sendMode())
        {
            send.foldEventLoopErrors();
        }
        return delivered;
    }

    /**
     * @return this link's counters.
     */
    public LinkCounters counters()
    {
        return counters;
    }

    /**
     * Close the socket and stop the event loop. Idempotent; waits for a send or receive in progress on the engine
     * thread.
     */
    public void close()
    {
        if (!closed.compareAndSet(false, true))
        {
            return;
        }
        send.close();
        receive.close();
        for (final Channel channel : groups.values())
        {
            channel.close().awaitUninterruptibly();
        }
        groups.clear();
        socket.close();
    }

    /**
     * @return e.g. {@code udp:127.0.0.1:4791/epoll (send direct, recv direct)}.
     */
    public String toString()
    {
        return name + " (send " + socket.sendMode().specName() + ", recv " + socket.receiveMode().specName() + ")";
    }
}
