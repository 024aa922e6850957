package org.roce4j.transport.link.pcap;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.function.LongSupplier;

import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.pcap4j.core.PcapNetworkInterface;
import org.roce4j.transport.link.FrameHandler;
import org.roce4j.transport.link.FrameTap;
import org.roce4j.transport.link.Link;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.transport.link.LinkCounter;
import org.roce4j.transport.link.LinkCounters;
import org.roce4j.transport.link.ethernet.EthernetLayer;
import org.roce4j.transport.link.ethernet.NeighbourState;
import org.roce4j.transport.link.host.InterfaceMtu;
import org.roce4j.transport.link.host.InterfaceRequests;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.addr.Mac;
import org.roce4j.wire.header.EthernetHeader;

/**
 * A raw-Ethernet link on a network interface through libpcap (Pcap4J 1.8.2). Spec: {@link PcapLinkConfig#GRAMMAR}.
 * Needs root or CAP_NET_RAW, and libpcap (Debian: libpcap0.8).
 *
 * <p>The link is a host of its own on the segment: it owns its addresses (IPv4 and/or IPv6) and MAC, which need not
 * be configured on the interface. Layer 2 is the shared {@link EthernetLayer}: it answers ARP and Neighbor
 * Solicitations for the link's addresses, resolves peers by ARP or Neighbor Discovery before sending (frames wait
 * meanwhile), fills in every outgoing frame's destination MAC and filters what arrives. What is the pcap link's own is
 * its capture handle ({@link PcapCapture}): the interface, the BPF filter, and the reads and sends on the engine
 * thread.
 *
 * <p>Frames go to and come from the wire byte for byte, so the ICRC is end to end: the engine's ICRCs reach the
 * peer as built and {@link #verifiesIcrc()} is true (received ICRCs are checked by the engine's parser). Frames are
 * sent at {@link #commit} (libpcap sends one frame per call); {@link #flush()} runs the resolution timers.
 *
 * <p>Promiscuous mode is on when the link's MAC is not the interface's, or when it owns an IPv6 address (its
 * solicitations arrive on multicast groups the interface has not joined). Otherwise a multicast group's frames pass
 * the NIC because {@link #joinGroup} puts the group's MAC in the interface's filter.
 *
 * <p><b>Threading.</b> Everything happens on the engine thread, except in the fallback mode of {@link PcapCapture}.
 * {@link #counters()} may be read from any thread.
 */
public final class PcapLink implements Link
{
    private static final System.Logger LOG = System.getLogger(PcapLink.class.getName());

    private final PcapLinkConfig config;
    private final String name;
    private final LinkAddress address;
    private final int mtu;
    private final int maxFrameLength;
    private final LinkCounters counters = new LinkCounters();
    private final LongSupplier nanoClock;
    private final UnsafeBuffer sendBuffer;
    private final EthernetLayer layer;
    private final MessageHandler receiveDelivery = this::onReceived;
    private PcapCapture capture;
    private FrameHandler frameHandler;
    private int claimIndex = -1;
    private int claimLength;
    private long sentAtLastFlush;
    private volatile boolean closed;

    private PcapLink(final PcapLinkConfig config, final LinkAddress address, final int mtu,
        final LongSupplier nanoClock)
    {
        this.config = config;
        this.name = "pcap:" + config.iface();
        this.address = address;
        this.mtu = mtu;
        this.maxFrameLength = EthernetHeader.VLAN_LENGTH + mtu;
        this.nanoClock = nanoClock;
        // Native memory: pcap_sendpacket takes the frame's address.
        this.sendBuffer = new UnsafeBuffer(ByteBuffer.allocateDirect(maxFrameLength));
        this.layer = new EthernetLayer(name, address, Mac.NONE, config.neighbours(), maxFrameLength,
            (frame, offset, length) -> capture.transmit(frame, offset, length), counters, nanoClock);
    }

    /**
     * Open a link from a spec such as {@code pcap:veth0,ip=10.77.0.1}.
     *
     * @param spec see {@link PcapLinkConfig#GRAMMAR}.
     * @return the open link, capturing.
     * @throws IllegalArgumentException for a bad spec, an unknown interface (the message lists the interfaces) or
     *                                  an interface whose IPv4 address cannot be chosen.
     * @throws IllegalStateException    without root or CAP_NET_RAW, without libpcap, or when libpcap fails.
     */
    public static PcapLink open(final String spec)
    {
        return open(PcapLinkConfig.parse(spec), System::nanoTime);
    }

    /**
     * Open a link.
     *
     * @param config    parsed spec.
     * @param nanoClock time source for resolution retries.
     * @return the open link, capturing.
     * @throws IllegalArgumentException for an unknown interface or an address that cannot be chosen.
     * @throws IllegalStateException    without root or CAP_NET_RAW, without libpcap, or when libpcap fails.
     */
    public static PcapLink open(final PcapLinkConfig config, final LongSupplier nanoClock)
    {
        PcapCapture.checkCapability(config);
        final PcapNetworkInterface device = PcapCapture.findDevice(config);
        final List<Gid> ips = PcapCapture.addresses(config, device);
        final long interfaceMac = PcapCapture.interfaceMac(device);
        final long mac = Mac.NONE != config.mac() ? config.mac() : interfaceMac;
        final LinkAddress address = new LinkAddress(mac, ips);
        final PcapLink link = new PcapLink(config, address, InterfaceMtu.ofInterface(config.iface()), nanoClock);
        final boolean promiscuous = mac != interfaceMac || !address.ipv6s().isEmpty();
        link.capture = PcapCapture.open(config, link.name, link.filterExpression(), promiscuous, link.maxFrameLength,
            link.counters);
        return link;
    }

    /**
     * @return the BPF filter: ARP, ICMPv6 (Neighbor Discovery), and RoCEv2 to the link's addresses or MAC.
     */
    public String filterExpression()
    {
        return PcapCapture.filterExpression(address.ips(), address.mac());
    }

    /**
     * @return e.g. {@code pcap:veth0}.
     */
    public String name()
    {
        return name;
    }

    /**
     * @return the link's MAC and addresses.
     */
    public LinkAddress address()
    {
        return address;
    }

    /**
     * @return the interface MTU, capped at {@link Link#MAX_IP_MTU}.
     */
    public int mtu()
    {
        return mtu;
    }

    /**
     * @return true: frames are the bytes on the wire.
     */
    public boolean verifiesIcrc()
    {
        return true;
    }

    /**
     * @return the settings this link was opened with.
     */
    public PcapLinkConfig config()
    {
        return config;
    }

    /**
     * @param ipv4 a peer address.
     * @return what the link knows about the peer's MAC.
     */
    public NeighbourState neighbourState(final int ipv4)
    {
        return layer.state(Gid.IPV4_MAPPED_HIGH, Gid.ipv4MappedLow(ipv4));
    }

    /**
     * @param peer a peer address, IPv4 or IPv6.
     * @return what the link knows about the peer's MAC.
     */
    public NeighbourState neighbourState(final Gid peer)
    {
        return layer.state(peer.high(), peer.low());
    }

    /**
     * @param ipv4 a peer address.
     * @return its MAC, or {@link Mac#NONE} when not resolved.
     */
    public long neighbourMac(final int ipv4)
    {
        return layer.resolvedMac(Gid.IPV4_MAPPED_HIGH, Gid.ipv4MappedLow(ipv4));
    }

    /**
     * Start resolving a peer ahead of traffic (as when a QP is connected), so the first frames need not wait.
     * Engine thread only.
     *
     * @param ipv4 the peer's address.
     */
    public void resolve(final int ipv4)
    {
        layer.resolve(ipv4);
    }

    /** {@inheritDoc} */
    public void resolve(final long high, final long low)
    {
        layer.resolve(high, low);
    }

    /**
     * {@inheritDoc}
     *
     * <p>The first group on a MAC also puts the MAC in the interface's multicast filter (SIOCADDMULTI, what
     * {@code ip maddr add} and rxe_mcast_add's dev_mc_add do), so the NIC passes the group's frames without
     * promiscuous mode. The request goes through a socket of the calling thread's network namespace, which must be
     * the interface's.
     *
     * @throws IllegalStateException when the kernel refuses the MAC (no CAP_NET_ADMIN); the group is not joined.
     */
    public void joinGroup(final long high, final long low)
    {
        final long mac = layer.joinGroup(high, low);
        if (Mac.NONE != mac)
        {
            try
            {
                InterfaceRequests.addMulticastMac(config.iface(), mac);
            }
            catch (final RuntimeException ex)
            {
                layer.leaveGroup(high, low);
                throw ex;
            }
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>The last group on a MAC also removes the MAC from the interface's multicast filter (SIOCDELMULTI,
     * rxe_mcast_del's dev_mc_del).
     */
    public void leaveGroup(final long high, final long low)
    {
        final long mac = layer.leaveGroup(high, low);
        if (Mac.NONE != mac)
        {
            InterfaceRequests.deleteMulticastMac(config.iface(), mac);
        }
    }

    /** {@inheritDoc} */
    public boolean tapFrames(final FrameTap tap)
    {
        layer.tap(tap);
        return true;
    }

    /**
     * {@inheritDoc}
     *
     * <p>The claim buffer holds one frame; frames are sent (or held for resolution) at {@link #commit}, so a claim
     * always succeeds.
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
            throw new IllegalStateException("a claim is still outstanding on " + name);
        }
        if (closed)
        {
            throw new IllegalStateException(name + " is closed");
        }
        claimIndex = 0;
        claimLength = maxLength;
        return 0;
    }

    /**
     * @return the claim buffer (one frame, at index 0).
     */
    public MutableDirectBuffer sendBuffer()
    {
        return sendBuffer;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Sends at once when the destination's MAC is known; otherwise holds a copy and starts resolving it.
     */
    public void commit(final int index, final int length)
    {
        if (0 != index || claimIndex < 0)
        {
            throw new IllegalStateException("index " + index + " is not the outstanding claim on " + name);
        }
        claimIndex = -1;
        if (length < EthernetHeader.LENGTH || length > claimLength)
        {
            throw new IllegalArgumentException("committed length " + length + " outside " + EthernetHeader.LENGTH +
                ".." + claimLength);
        }
        layer.send(sendBuffer, 0, length);
    }

    /**
     * {@inheritDoc}
     */
    public void abort(final int index)
    {
        if (0 != index || claimIndex < 0)
        {
            throw new IllegalStateException("index " + index + " is not the outstanding claim on " + name);
        }
        claimIndex = -1;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Frames are sent at commit; flush runs the resolution timers and reports frames sent since the last flush.
     */
    public int flush()
    {
        layer.service();
        final long sent = counters.get(LinkCounter.FRAMES_SENT);
        final int sentNow = (int)(sent - sentAtLastFlush);
        sentAtLastFlush = sent;
        return sentNow;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Also answers ARP and Neighbor Solicitations, learns neighbours and runs the resolution timers.
     */
    public int poll(final FrameHandler handler, final int maxFrames)
    {
        if (closed)
        {
            return 0;
        }
        frameHandler = handler;
        final int read = capture.read(receiveDelivery, maxFrames, nanoClock.getAsLong());
        layer.service();
        return read;
    }

    private void onReceived(final int msgTypeId, final MutableDirectBuffer buffer, final int index, final int length)
    {
        if (layer.receive(buffer, index, length))
        {
            frameHandler.onFrame(buffer, index, length);
        }
    }

    /**
     * @return this link's counters.
     */
    public LinkCounters counters()
    {
        return counters;
    }

    /**
     * Stop capturing and close the handle. Idempotent.
     */
    public void close()
    {
        closed = true;
        if (null != capture)
        {
            capture.close();
        }
        // The kernel's filter entries outlive the process: remove those of groups never left.
        for (final long mac : layer.joinedGroupMacs())
        {
            try
            {
                InterfaceRequests.deleteMulticastMac(config.iface(), mac);
            }
            catch (final RuntimeException ex)
            {
                LOG.log(System.Logger.Level.WARNING, name + ": " + ex.getMessage());
            }
        }
    }

    /**
     * @return e.g. {@code pcap:veth0 mac=... ip=...}.
     */
    public String toString()
    {
        return name + " " + address;
    }

    /**
     * @return frames waiting for resolution right now.
     */
    public int heldFrameCount()
    {
        return layer.heldFrames();
    }
}
