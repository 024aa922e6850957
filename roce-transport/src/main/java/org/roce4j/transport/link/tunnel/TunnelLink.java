package org.roce4j.transport.link.tunnel;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;

import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.transport.link.FrameHandler;
import org.roce4j.transport.link.Link;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.transport.link.LinkCounter;
import org.roce4j.transport.link.LinkCounters;
import org.roce4j.wire.header.ArpHeader;
import org.roce4j.wire.header.EthernetHeader;
import org.roce4j.wire.header.Ipv4Header;
import org.roce4j.wire.header.Ipv6Header;
import org.roce4j.wire.pcap.PcapWriter;

import static java.nio.ByteOrder.BIG_ENDIAN;

/**
 * Ethernet frames carried one per UDP datagram, compatible with QEMU's {@code -netdev dgram} backend: the link
 * binds {@code BIND_HOST:BIND_PORT} and sends every frame to {@code PEER_HOST:PEER_PORT}, and QEMU does the same
 * the other way, so a guest's NIC and this link share one virtual Ethernet segment without root, taps or
 * namespaces. The link sees and sends whole frames, so it keeps every header byte (ICRCs are checked on real
 * bytes: {@link #verifiesIcrc()} is true).
 *
 * <p><b>Layer 2.</b> The link has its own IPv4 address and MAC ({@link TunnelLinkConfig}):
 * <ul>
 *   <li>It answers ARP requests for its IP ({@link LinkCounter#ARP_REPLIES_SENT}) and learns the sender of every
 *   ARP packet addressed to it (RFC 826 merge rule). ARP is consumed by the link, never handed to the
 *   {@link FrameHandler}; every ARP packet received counts in {@link LinkCounter#ARP_RECEIVED}.</li>
 *   <li>A frame committed with destination MAC {@code 00:00:00:00:00:00} gets its destination MAC filled in here:
 *   IPv4 multicast and broadcast map as RFC 1112 says, IPv6 multicast as RFC 2464 says, an IPv4-mapped IPv6
 *   destination is treated as its IPv4 address, an fe80:: destination with a modified EUI-64 interface ID gives
 *   back its MAC (RFC 4291 appendix A; this is how rxe's GID index 0 is built), and every other destination is
 *   the configured {@code peer-mac}, or, without one, the MAC ARP resolves for the IPv4 destination. A frame
 *   committed with a non-zero destination MAC is sent as it is (tests use that to misaddress frames).</li>
 *   <li>While ARP runs for a destination, its frames are held in a bounded queue ({@code arp-queue} frames, copied
 *   out of the send ring) and go out, in order, on the first {@link #flush()} after the reply. ARP requests repeat
 *   every {@code arp-interval-ms}; after {@code arp-retries} unanswered requests the held frames are dropped and
 *   counted in {@link LinkCounter#SEND_UNRESOLVED}, as is a frame that finds the queue full and a frame whose
 *   destination cannot be resolved at all (IPv6 without a peer MAC or EUI-64, non-IP). {@link #framesHeld()}
 *   counts frames that had to wait.</li>
 *   <li>Received frames go to the handler only when their destination MAC is the link's own; everything else
 *   (multicast neighbour discovery from the guest, frames for other MACs, runts) counts in
 *   {@link LinkCounter#RECEIVE_FILTERED}.</li>
 * </ul>
 *
 * <p><b>No allocation per frame.</b> Frames are built in place in a direct send ring ({@link #tryClaim},
 * {@link #commit}) and leave on {@link #flush()} through a non-blocking {@link DatagramChannel}; {@link #poll}
 * receives into one direct buffer, which the handler sees directly. Views and addresses are created once.
 *
 * <p><b>Recording.</b> With {@code pcap=FILE} every datagram sent and received (including ARP and filtered frames)
 * is written to a pcap file as it crosses the socket; the file is flushed and closed by {@link #close()}. If the
 * file cannot be written, recording stops and {@link #close()} throws the error.
 *
 * <p><b>Kernel drops.</b> Datagrams the kernel drops for the socket (its receive buffer full) are counted in
 * {@link LinkCounter#RECEIVE_ERRORS}: idle polls read the socket's drop count from {@code /proc/net/udp} at most
 * every 100 ms (a NIO socket cannot ask for SO_MEMINFO), so on an idle link frames sent by the peer =
 * FRAMES_RECEIVED + RECEIVE_ERRORS + RECEIVE_FILTERED (+ ARP).
 *
 * <p><b>Time.</b> ARP retries and pcap timestamps use the {@link NanoClock} given to
 * {@link #open(TunnelLinkConfig, NanoClock)} and are driven from {@link #flush()} and {@link #poll}; the link has no
 * thread of its own.
 *
 * <p>Threading as {@link Link}: one thread drives it; {@link #counters()} and {@link #close()} may be called from
 * any thread.
 */
public final class TunnelLink implements Link
{
    /** Link-layer bytes a frame may carry beyond the IP MTU: an Ethernet header with an 802.1Q tag. */
    public static final int MAX_L2_OVERHEAD = EthernetHeader.VLAN_LENGTH;
    /** Shortest Ethernet frame without FCS (IEEE 802.3: 64 bytes less the 4-byte FCS); ARP frames are padded to it. */
    public static final int MIN_FRAME_LENGTH = 60;
    /** Largest UDP payload over IPv4 (65535 - 20 IP - 8 UDP): a receive buffer this big never truncates. */
    public static final int MAX_DATAGRAM_LENGTH = 65507;

    private static final int NEIGHBOUR_ENTRIES = 16;
    /** Socket buffers large enough for a burst of a full send ring of jumbo frames (the kernel may cap them). */
    private static final int SOCKET_BUFFER_BYTES = 4 << 20;
    /** Datagrams not delivered to the handler (ARP, filtered) processed per poll before returning, to bound it. */
    private static final int MAX_UNDELIVERED_PER_POLL = 64;
    /** Slots are aligned to a cache line so every frame starts aligned. */
    private static final int SLOT_ALIGNMENT = 64;
    /** How often idle polls add the kernel's drops for the socket to RECEIVE_ERRORS. */
    private static final long SOCKET_DROPS_PERIOD_NS = 100_000_000L;
    /** Offset of the ARP packet in the control buffer: right after an untagged Ethernet header. */
    private static final int ARP_OFFSET = EthernetHeader.LENGTH;

    private static final byte SLOT_FREE = 0;
    private static final byte SLOT_CLAIMED = 1;
    private static final byte SLOT_COMMITTED = 2;
    private static final byte SLOT_ABORTED = 3;

    private static final int TX_SENT = 0;
    private static final int TX_RETRY = 1;
    private static final int TX_DROPPED = 2;
    private static final int TX_HELD = 3;

    /** {@link #destinationMac} result: wait for ARP on {@link #unresolvedIp}. */
    private static final long MAC_HOLD = -1L;
    /** {@link #destinationMac} result: no way to resolve this destination. */
    private static final long MAC_UNROUTABLE = -2L;
    /** IPv4 multicast MAC prefix 01:00:5e (RFC 1112 section 6.4), followed by the low 23 bits of the group. */
    private static final long IPV4_MULTICAST_MAC_PREFIX = 0x0100_5E00_0000L;
    /** Low 23 bits of an IPv4 group address that go into its MAC. */
    private static final int IPV4_MULTICAST_MAC_MASK = 0x7F_FFFF;
    /** IPv6 multicast MAC prefix 33:33 (RFC 2464 section 7), followed by the low 32 bits of the group. */
    private static final long IPV6_MULTICAST_MAC_PREFIX = 0x3333_0000_0000L;
    /** The ff:fe that modified EUI-64 inserts in the middle of a MAC (RFC 4291 appendix A). */
    private static final int EUI64_FFFE = 0xFFFE;
    /** The universal/local bit of the first MAC octet, inverted in modified EUI-64. */
    private static final long EUI64_UL_BIT = 0x02_0000L;
    private static final long MAC_MASK = 0xFFFF_FFFF_FFFFL;

    private final TunnelLinkConfig config;
    private final String name;
    private final LinkAddress address;
    private final LinkCounters counters = new LinkCounters();
    private final NanoClock nanoClock;
    private final long epochBaseNs;
    private final long nanoBase;
    private final DatagramChannel channel;
    private final InetSocketAddress peerSocketAddress;
    private final int localPort;
    private final long mac;
    private final int ipv4;
    private final long peerMac;
    private final int maxFrameLength;
    private final int slotSize;

    private final UnsafeBuffer sendBuffer;
    private final ByteBuffer sendView;
    private final byte[] slotState;
    private final int[] slotLength;
    private final int[] slotClaimed;
    private int claimIndex;
    private int sendIndex;
    private int slotsInUse;

    private final UnsafeBuffer heldBuffer;
    private final ByteBuffer heldView;
    private final int[] heldIp;
    private final int[] heldLength;
    private final int[] heldOrder;
    private final int[] heldFree;
    private int heldCount;
    private int heldFreeCount;
    private volatile long framesHeld;
    private volatile long arpFailures;

    private final UnsafeBuffer receiveBuffer;
    /** Fraction of non-ARP frames dropped on purpose in each direction (fault injection). */
    private final double loss;
    private final SplittableRandom lossRandom;
    private final ByteBuffer receiveView;
    private final UnsafeBuffer controlBuffer;
    private final ByteBuffer controlView;
    private final EthernetHeader ethernet = new EthernetHeader();
    private final ArpHeader arp = new ArpHeader();
    private final NeighbourTable neighbours = new NeighbourTable(NEIGHBOUR_ENTRIES);
    private final long arpIntervalNs;
    private int unresolvedIp;

    private final SocketDrops socketDrops;
    private long socketDropsCounted;
    private long nextSocketDropsNs;

    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile PcapWriter pcap;
    private volatile IOException pcapError;

    private TunnelLink(
        final TunnelLinkConfig config,
        final NanoClock nanoClock,
        final DatagramChannel channel,
        final InetSocketAddress peerSocketAddress,
        final PcapWriter pcap) throws IOException
    {
        this.config = config;
        this.nanoClock = nanoClock;
        this.nanoBase = nanoClock.nanoTime();
        this.epochBaseNs = System.currentTimeMillis() * 1_000_000L;
        this.channel = channel;
        this.peerSocketAddress = peerSocketAddress;
        final InetSocketAddress bound = (InetSocketAddress)channel.getLocalAddress();
        this.localPort = bound.getPort();
        // Opened now, on the thread that opened the socket, so it lists the socket's network namespace.
        this.socketDrops = SocketDrops.open(bound);
        this.nextSocketDropsNs = nanoBase;
        this.pcap = pcap;
        this.mac = config.mac();
        this.ipv4 = config.ipv4();
        this.peerMac = config.peerMac();
        this.address = new LinkAddress(mac, ipv4);
        this.name = "tunnel:" + config.bindHost() + ":" + localPort + "->" + config.peerHost() + ":" +
            config.peerPort();
        this.arpIntervalNs = config.arpIntervalMs() * 1_000_000L;
        this.loss = config.loss();
        this.lossRandom = new SplittableRandom(config.lossSeed());

        maxFrameLength = config.mtu() + MAX_L2_OVERHEAD;
        slotSize = (maxFrameLength + SLOT_ALIGNMENT - 1) & -SLOT_ALIGNMENT;

        final int ringFrames = config.ringFrames();
        final ByteBuffer ring = ByteBuffer.allocateDirect(ringFrames * slotSize);
        sendBuffer = new UnsafeBuffer(ring);
        sendView = ring.duplicate();
        slotState = new byte[ringFrames];
        slotLength = new int[ringFrames];
        slotClaimed = new int[ringFrames];

        final int queued = config.arpQueueFrames();
        final ByteBuffer held = ByteBuffer.allocateDirect(Math.max(1, queued) * slotSize);
        heldBuffer = new UnsafeBuffer(held);
        heldView = held.duplicate();
        heldIp = new int[queued];
        heldLength = new int[queued];
        heldOrder = new int[queued];
        heldFree = new int[queued];
        for (int i = 0; i < queued; i++)
        {
            heldFree[i] = queued - 1 - i;
        }
        heldFreeCount = queued;

        final ByteBuffer receive = ByteBuffer.allocateDirect(MAX_DATAGRAM_LENGTH + 1);
        receiveBuffer = new UnsafeBuffer(receive);
        receiveView = receive.duplicate();
        final ByteBuffer control = ByteBuffer.allocateDirect(SLOT_ALIGNMENT);
        controlBuffer = new UnsafeBuffer(control);
        controlView = control.duplicate();
    }

    /**
     * Open a link from a spec string ({@link TunnelLinkConfig#parse(String)}).
     *
     * @param spec such as {@code tunnel:127.0.0.1:5000:127.0.0.1:5001,ip=10.77.0.1}.
     * @return the open link.
     * @throws IllegalArgumentException when the spec or an address in it is bad.
     * @throws IOException              when the socket cannot be bound or the pcap file cannot be created; the
     *                                  message names the address or file.
     */
    public static TunnelLink open(final String spec) throws IOException
    {
        return open(TunnelLinkConfig.parse(spec));
    }

    /**
     * Open a link with the system clock.
     *
     * @param config settings.
     * @return the open link.
     * @throws IllegalArgumentException when a host name does not resolve.
     * @throws IOException              when the socket cannot be bound or the pcap file cannot be created.
     */
    public static TunnelLink open(final TunnelLinkConfig config) throws IOException
    {
        return open(config, SystemNanoClock.INSTANCE);
    }

    /**
     * Open a link.
     *
     * @param config    settings.
     * @param nanoClock time source for ARP retries and pcap timestamps.
     * @return the open link.
     * @throws IllegalArgumentException when a host name does not resolve.
     * @throws IOException              when the socket cannot be bound or the pcap file cannot be created.
     */
    public static TunnelLink open(final TunnelLinkConfig config, final NanoClock nanoClock) throws IOException
    {
        final InetAddress bindAddress = resolveHost("bind host", config.bindHost());
        final InetAddress peerAddress = resolveHost("peer host", config.peerHost());
        final InetSocketAddress bindSocketAddress = new InetSocketAddress(bindAddress, config.bindPort());
        final InetSocketAddress peerSocketAddress = new InetSocketAddress(peerAddress, config.peerPort());
        if (!(bindAddress instanceof Inet4Address) && peerAddress instanceof Inet4Address)
        {
            // An IPv6 socket could still reach an IPv4 peer through a mapped address, but QEMU's dgram backend
            // replies from the family it was given: keep both ends in one family.
            throw new IllegalArgumentException("tunnel link: bind host " + config.bindHost() + " is IPv6 but peer " +
                "host " + config.peerHost() + " is IPv4; use one address family");
        }

        final DatagramChannel channel = DatagramChannel.open(
            bindAddress instanceof Inet4Address ? StandardProtocolFamily.INET : StandardProtocolFamily.INET6);
        PcapWriter pcap = null;
        try
        {
            channel.configureBlocking(false);
            channel.setOption(StandardSocketOptions.SO_RCVBUF, SOCKET_BUFFER_BYTES);
            channel.setOption(StandardSocketOptions.SO_SNDBUF, SOCKET_BUFFER_BYTES);
            try
            {
                channel.bind(bindSocketAddress);
            }
            catch (final BindException ex)
            {
                final BindException named = new BindException("tunnel link cannot bind UDP " +
                    config.bindHost() + ":" + config.bindPort() + ": " + bindProblem(config, ex));
                named.initCause(ex);
                throw named;
            }
            if (null != config.pcap())
            {
                pcap = openPcap(config.pcap());
            }
            return new TunnelLink(config, nanoClock, channel, peerSocketAddress, pcap);
        }
        catch (final IOException | RuntimeException ex)
        {
            closeQuietly(channel, pcap, ex);
            throw ex;
        }
    }

    /**
     * {@inheritDoc}
     */
    public String name()
    {
        return name;
    }

    /**
     * {@inheritDoc}
     */
    public LinkAddress address()
    {
        return address;
    }

    /**
     * {@inheritDoc}
     */
    public int mtu()
    {
        return config.mtu();
    }

    /**
     * @return true: received frames are the guest's bytes, so their ICRCs can be checked.
     */
    public boolean verifiesIcrc()
    {
        return true;
    }

    /**
     * @return the settings this link was opened with.
     */
    public TunnelLinkConfig config()
    {
        return config;
    }

    /**
     * @return the UDP port the link is bound to (useful with bind port 0).
     */
    public int localPort()
    {
        return localPort;
    }

    /**
     * @return the largest frame {@link #tryClaim(int)} accepts: MTU plus Ethernet header and one VLAN tag.
     */
    public int maxFrameLength()
    {
        return maxFrameLength;
    }

    /**
     * @return the pcap file being recorded, or null.
     */
    public Path pcapPath()
    {
        return config.pcap();
    }

    /**
     * {@inheritDoc}
     */
    public int tryClaim(final int maxLength)
    {
        if (maxLength < 1)
        {
            // A claim of nothing can never be committed (a frame needs at least an Ethernet header).
            throw new IllegalArgumentException("frame length " + maxLength + " must be at least 1 on " + name);
        }
        if (maxLength > maxFrameLength)
        {
            throw new IllegalArgumentException("frame of " + maxLength + " bytes does not fit " + name +
                " (largest frame " + maxFrameLength + " bytes = mtu " + config.mtu() + " + " + MAX_L2_OVERHEAD + ")");
        }
        if (closed.get())
        {
            throw new IllegalStateException(name + " is closed");
        }
        if (slotsInUse == slotState.length)
        {
            counters.increment(LinkCounter.SEND_BACK_PRESSURE);
            return -1;
        }
        final int slot = claimIndex;
        claimIndex = next(slot, slotState.length);
        slotsInUse++;
        slotState[slot] = SLOT_CLAIMED;
        slotClaimed[slot] = maxLength;
        return slot * slotSize;
    }

    /**
     * {@inheritDoc}
     */
    public MutableDirectBuffer sendBuffer()
    {
        return sendBuffer;
    }

    /**
     * {@inheritDoc}
     */
    public void commit(final int index, final int length)
    {
        final int slot = claimedSlot(index);
        if (length < EthernetHeader.LENGTH || length > slotClaimed[slot])
        {
            throw new IllegalArgumentException("commit of " + length + " bytes at index " + index + ": the claim was " +
                slotClaimed[slot] + " bytes and a frame needs at least " + EthernetHeader.LENGTH);
        }
        slotLength[slot] = length;
        if (loss > 0 && lossRandom.nextDouble() < loss)
        {
            // Fault injection: the frame is lost on its way out (recorded nowhere, as a cable would).
            counters.increment(LinkCounter.INJECTED_DROPS);
            slotState[slot] = SLOT_ABORTED;
            return;
        }
        slotState[slot] = SLOT_COMMITTED;
    }

    /**
     * {@inheritDoc}
     */
    public void abort(final int index)
    {
        slotState[claimedSlot(index)] = SLOT_ABORTED;
    }

    /**
     * Send frames held for ARP whose destination is now resolved, then the committed frames of the ring in claim
     * order (stopping at a frame still being built), then any ARP request that is due.
     *
     * @return frames handed to the socket.
     */
    public int flush()
    {
        if (closed.get())
        {
            return 0;
        }
        final long nowNs = nanoClock.nanoTime();
        int sent = 0;
        boolean blocked = false;
        if (heldCount > 0)
        {
            final int heldSent = flushHeld();
            blocked = heldSent < 0;
            sent += blocked ? -heldSent - 1 : heldSent;
        }
        while (!blocked && slotsInUse > 0)
        {
            final int slot = sendIndex;
            final byte state = slotState[slot];
            if (SLOT_CLAIMED == state)
            {
                break;
            }
            if (SLOT_COMMITTED == state)
            {
                final int result = sendSlot(slot, nowNs);
                if (TX_RETRY == result)
                {
                    break;
                }
                if (TX_SENT == result)
                {
                    sent++;
                }
            }
            slotState[slot] = SLOT_FREE;
            sendIndex = next(slot, slotState.length);
            slotsInUse--;
        }
        serviceArp(nowNs);
        return sent;
    }

    /**
     * {@inheritDoc}
     */
    public int poll(final FrameHandler handler, final int maxFrames)
    {
        if (closed.get())
        {
            return 0;
        }
        int delivered = 0;
        int undelivered = 0;
        while (delivered < maxFrames && undelivered < MAX_UNDELIVERED_PER_POLL)
        {
            receiveView.clear();
            final SocketAddress source;
            try
            {
                source = channel.receive(receiveView);
            }
            catch (final IOException ex)
            {
                if (!closed.get())
                {
                    counters.increment(LinkCounter.RECEIVE_ERRORS);
                }
                break;
            }
            if (null == source)
            {
                break;
            }
            final int length = receiveView.position();
            record(receiveBuffer, 0, length);
            if (deliver(handler, length))
            {
                delivered++;
            }
            else
            {
                undelivered++;
            }
        }
        if (neighbours.anyResolving())
        {
            serviceArp(nanoClock.nanoTime());
        }
        if (0 == delivered && null != socketDrops)
        {
            countSocketDrops();
        }
        return delivered;
    }

    /**
     * {@inheritDoc}
     */
    public LinkCounters counters()
    {
        return counters;
    }

    /**
     * @return frames that had to wait for ARP since the link opened (sent later or dropped).
     */
    public long framesHeld()
    {
        return framesHeld;
    }

    /**
     * @return frames waiting for ARP right now.
     */
    public int heldFrameCount()
    {
        return heldCount;
    }

    /**
     * @return resolutions given up after {@code arp-retries} unanswered requests.
     */
    public long arpFailures()
    {
        return arpFailures;
    }

    /**
     * The MAC frames to an IPv4 address would carry now.
     *
     * @param ip IPv4 address as a big-endian int.
     * @return the MAC, or {@link TunnelLinkConfig#NO_MAC} when it is not resolved (yet).
     */
    public long resolvedMac(final int ip)
    {
        final long result = ipv4Mac(ip);
        return result >= 0 ? result : TunnelLinkConfig.NO_MAC;
    }

    /**
     * Start resolving an IPv4 address now, before any frame needs it; the first request goes out on the next
     * {@link #flush()} or {@link #poll}. Nothing happens when it is resolved, being resolved, or a peer MAC is
     * configured.
     *
     * @param ip IPv4 address.
     */
    public void resolve(final int ip)
    {
        if (ipv4Mac(ip) < 0 && !neighbours.isResolving(ip))
        {
            neighbours.startResolving(ip, nanoClock.nanoTime());
        }
    }

    /**
     * Close the socket and flush and close the pcap file. Idempotent.
     *
     * @throws UncheckedIOException when the pcap recording failed at any point (the socket is closed anyway).
     */
    public void close()
    {
        if (!closed.compareAndSet(false, true))
        {
            return;
        }
        try
        {
            channel.close();
        }
        catch (final IOException ignore)
        {
            // Closing a datagram socket cannot lose data; nothing to report.
        }
        if (null != socketDrops)
        {
            socketDrops.close();
        }
        final PcapWriter writer;
        synchronized (this)
        {
            writer = pcap;
            pcap = null;
        }
        if (null != writer)
        {
            try
            {
                writer.close();
            }
            catch (final IOException ex)
            {
                if (null == pcapError)
                {
                    pcapError = ex;
                }
            }
        }
        final IOException error = pcapError;
        if (null != error)
        {
            throw new UncheckedIOException("recording " + config.pcap() + " failed: " + error.getMessage(), error);
        }
    }

    /**
     * @return e.g. {@code tunnel:127.0.0.1:5000->127.0.0.1:5001 mac=... ip=...}.
     */
    public String toString()
    {
        return name + " " + address;
    }

    /**
     * Add the datagrams the kernel dropped for the socket (receive buffer full) to RECEIVE_ERRORS, at most every
     * {@link #SOCKET_DROPS_PERIOD_NS}: reading /proc walks every UDP socket, so only idle polls do it.
     */
    private void countSocketDrops()
    {
        final long nowNs = nanoClock.nanoTime();
        if (nowNs - nextSocketDropsNs < 0)
        {
            return;
        }
        nextSocketDropsNs = nowNs + SOCKET_DROPS_PERIOD_NS;
        final long drops = socketDrops.read();
        if (drops > socketDropsCounted)
        {
            counters.add(LinkCounter.RECEIVE_ERRORS, drops - socketDropsCounted);
            socketDropsCounted = drops;
        }
    }

    private boolean deliver(final FrameHandler handler, final int length)
    {
        if (length > MAX_DATAGRAM_LENGTH)
        {
            counters.increment(LinkCounter.RECEIVE_ERRORS);
            return false;
        }
        if (length < EthernetHeader.LENGTH)
        {
            counters.increment(LinkCounter.RECEIVE_FILTERED);
            return false;
        }
        ethernet.wrap(receiveBuffer, 0);
        final long destination = ethernet.destination();
        final boolean tagged = EthernetHeader.TPID_8021Q == ethernet.outerType();
        final int etherType = tagged && length >= EthernetHeader.VLAN_LENGTH ?
            ethernet.etherType() : ethernet.outerType();
        if (EthernetHeader.ETHERTYPE_ARP == etherType)
        {
            if (mac == destination || EthernetHeader.BROADCAST == destination)
            {
                counters.increment(LinkCounter.ARP_RECEIVED);
                onArp(ethernet.length(), length);
            }
            else
            {
                counters.increment(LinkCounter.RECEIVE_FILTERED);
            }
            return false;
        }
        if (mac != destination)
        {
            counters.increment(LinkCounter.RECEIVE_FILTERED);
            return false;
        }
        if (loss > 0 && lossRandom.nextDouble() < loss)
        {
            // Fault injection: the frame is lost on its way in.
            counters.increment(LinkCounter.INJECTED_DROPS);
            return false;
        }
        counters.increment(LinkCounter.FRAMES_RECEIVED);
        counters.add(LinkCounter.BYTES_RECEIVED, length);
        handler.onFrame(receiveBuffer, 0, length);
        return true;
    }

    /**
     * RFC 826 reception: learn the sender if we know it or the packet is for us, answer requests for our IP.
     */
    private void onArp(final int arpOffset, final int length)
    {
        if (length < arpOffset + ArpHeader.LENGTH)
        {
            return;
        }
        arp.wrap(receiveBuffer, arpOffset);
        if (!arp.isEthernetIpv4())
        {
            return;
        }
        final int senderIp = arp.senderIp();
        final long senderMac = arp.senderMac();
        final boolean forUs = ipv4 == arp.targetIp();
        // Ignore probes (sender 0.0.0.0, RFC 5227), group sender MACs and our own address coming back.
        if (0 != senderIp && ipv4 != senderIp && 0 != senderMac && 0 == ((senderMac >>> 40) & 1))
        {
            neighbours.learn(senderIp, senderMac, forUs);
        }
        if (forUs && ArpHeader.OPERATION_REQUEST == arp.operation())
        {
            sendArp(ArpHeader.OPERATION_REPLY, senderMac, senderMac, senderIp);
            counters.increment(LinkCounter.ARP_REPLIES_SENT);
        }
    }

    private void serviceArp(final long nowNs)
    {
        int slot;
        while ((slot = neighbours.nextDue(nowNs)) >= 0)
        {
            final int ip = neighbours.ipAt(slot);
            if (neighbours.requestsSentAt(slot) >= config.arpRetries())
            {
                // RFC 1122 2.3.2.1: give up after a bounded number of requests; the waiting frames are lost.
                neighbours.fail(slot);
                arpFailures++;
                dropHeld(ip);
            }
            else
            {
                sendArp(ArpHeader.OPERATION_REQUEST, EthernetHeader.BROADCAST, 0L, ip);
                counters.increment(LinkCounter.ARP_REQUESTS_SENT);
                neighbours.requestSent(slot, nowNs + arpIntervalNs);
            }
        }
    }

    private void sendArp(final int operation, final long destinationMac, final long targetMac, final int targetIp)
    {
        final UnsafeBuffer buffer = controlBuffer;
        ethernet.wrap(buffer, 0).destination(destinationMac).source(mac).etherType(EthernetHeader.ETHERTYPE_ARP);
        arp.wrap(buffer, ARP_OFFSET)
            .ethernetIpv4(operation)
            .senderMac(mac)
            .senderIp(ipv4)
            .targetMac(targetMac)
            .targetIp(targetIp);
        final int end = ARP_OFFSET + ArpHeader.LENGTH;
        buffer.setMemory(end, MIN_FRAME_LENGTH - end, (byte)0);
        transmit(buffer, controlView, 0, MIN_FRAME_LENGTH, false);
    }

    private int sendSlot(final int slot, final long nowNs)
    {
        final int offset = slot * slotSize;
        final int length = slotLength[slot];
        final long destination = destinationMac(sendBuffer, offset, length);
        if (destination >= 0)
        {
            return transmit(sendBuffer, sendView, offset, length, true);
        }
        if (MAC_UNROUTABLE == destination)
        {
            counters.increment(LinkCounter.SEND_UNRESOLVED);
            return TX_DROPPED;
        }
        final int ip = unresolvedIp;
        if (!neighbours.isResolving(ip))
        {
            neighbours.startResolving(ip, nowNs);
        }
        if (0 == heldFreeCount)
        {
            counters.increment(LinkCounter.SEND_UNRESOLVED);
            return TX_DROPPED;
        }
        final int heldSlot = heldFree[--heldFreeCount];
        heldBuffer.putBytes(heldSlot * slotSize, sendBuffer, offset, length);
        heldIp[heldSlot] = ip;
        heldLength[heldSlot] = length;
        heldOrder[heldCount++] = heldSlot;
        framesHeld++;
        return TX_HELD;
    }

    /**
     * Send held frames whose destination resolved, keep those still resolving, drop those whose resolution is
     * gone; order is kept.
     *
     * @return frames sent, or {@code -(sent + 1)} when the socket pushed back and flushing must stop.
     */
    private int flushHeld()
    {
        int sent = 0;
        int kept = 0;
        int i = 0;
        boolean blocked = false;
        for (; i < heldCount; i++)
        {
            final int heldSlot = heldOrder[i];
            final int ip = heldIp[heldSlot];
            final long destination = ipv4Mac(ip);
            if (destination >= 0)
            {
                final int offset = heldSlot * slotSize;
                ethernet.wrap(heldBuffer, offset).destination(destination);
                final int result = transmit(heldBuffer, heldView, offset, heldLength[heldSlot], true);
                if (TX_RETRY == result)
                {
                    blocked = true;
                    break;
                }
                if (TX_SENT == result)
                {
                    sent++;
                }
                heldFree[heldFreeCount++] = heldSlot;
            }
            else if (neighbours.isResolving(ip))
            {
                heldOrder[kept++] = heldSlot;
            }
            else
            {
                counters.increment(LinkCounter.SEND_UNRESOLVED);
                heldFree[heldFreeCount++] = heldSlot;
            }
        }
        for (; i < heldCount; i++)
        {
            heldOrder[kept++] = heldOrder[i];
        }
        heldCount = kept;
        return blocked ? -(sent + 1) : sent;
    }

    private void dropHeld(final int ip)
    {
        int kept = 0;
        for (int i = 0; i < heldCount; i++)
        {
            final int heldSlot = heldOrder[i];
            if (heldIp[heldSlot] == ip)
            {
                counters.increment(LinkCounter.SEND_UNRESOLVED);
                heldFree[heldFreeCount++] = heldSlot;
            }
            else
            {
                heldOrder[kept++] = heldSlot;
            }
        }
        heldCount = kept;
    }

    /**
     * The destination MAC of a frame about to be sent, written into the frame when it was zero.
     *
     * @return the MAC, {@link #MAC_HOLD} (with {@link #unresolvedIp} set) or {@link #MAC_UNROUTABLE}.
     */
    private long destinationMac(final UnsafeBuffer buffer, final int offset, final int length)
    {
        ethernet.wrap(buffer, offset);
        final long current = ethernet.destination();
        if (0 != current)
        {
            return current;
        }
        final boolean tagged = EthernetHeader.TPID_8021Q == ethernet.outerType();
        final int etherType = tagged ? ethernet.etherType() : ethernet.outerType();
        final int ipOffset = offset + (tagged ? EthernetHeader.VLAN_LENGTH : EthernetHeader.LENGTH);
        final long resolved;
        if (EthernetHeader.ETHERTYPE_IPV4 == etherType && length >= ipOffset - offset + Ipv4Header.LENGTH)
        {
            resolved = ipv4Mac(buffer.getInt(ipOffset + Ipv4Header.DESTINATION_OFFSET, BIG_ENDIAN));
        }
        else if (EthernetHeader.ETHERTYPE_IPV6 == etherType && length >= ipOffset - offset + Ipv6Header.LENGTH)
        {
            resolved = ipv6Mac(
                buffer.getLong(ipOffset + Ipv6Header.DESTINATION_OFFSET, BIG_ENDIAN),
                buffer.getLong(ipOffset + Ipv6Header.DESTINATION_OFFSET + 8, BIG_ENDIAN));
        }
        else
        {
            resolved = TunnelLinkConfig.NO_MAC != peerMac ? peerMac : MAC_UNROUTABLE;
        }
        if (resolved >= 0)
        {
            ethernet.destination(resolved);
        }
        return resolved;
    }

    private long ipv4Mac(final int ip)
    {
        if (-1 == ip)
        {
            return EthernetHeader.BROADCAST;
        }
        if (0xE == (ip >>> 28))
        {
            return IPV4_MULTICAST_MAC_PREFIX | (ip & IPV4_MULTICAST_MAC_MASK);
        }
        if (TunnelLinkConfig.NO_MAC != peerMac)
        {
            return peerMac;
        }
        final long known = neighbours.lookup(ip);
        if (NeighbourTable.UNRESOLVED != known)
        {
            return known;
        }
        unresolvedIp = ip;
        return MAC_HOLD;
    }

    private long ipv6Mac(final long high, final long low)
    {
        if (0xFF == (high >>> 56))
        {
            return IPV6_MULTICAST_MAC_PREFIX | (low & 0xFFFF_FFFFL);
        }
        if (LinkAddress.IPV4_MAPPED_HIGH == high && (LinkAddress.IPV4_MAPPED_LOW_PREFIX >>> 32) == (low >>> 32))
        {
            return ipv4Mac((int)low);
        }
        if (TunnelLinkConfig.NO_MAC != peerMac)
        {
            return peerMac;
        }
        if (LinkAddress.LINK_LOCAL_HIGH == high && EUI64_FFFE == (int)((low >>> 24) & 0xFFFF))
        {
            return ((((low >>> 40) & 0xFF_FFFFL) ^ EUI64_UL_BIT) << 24 | (low & 0xFF_FFFFL)) & MAC_MASK;
        }
        return MAC_UNROUTABLE;
    }

    /**
     * @param engineFrame true for a frame the engine committed, false for the link's own ARP packets, which count
     *                    only in the ARP counters (as FRAMES_RECEIVED counts only frames delivered to the handler).
     */
    private int transmit(
        final UnsafeBuffer buffer, final ByteBuffer view, final int offset, final int length, final boolean engineFrame)
    {
        view.limit(offset + length).position(offset);
        try
        {
            if (0 == channel.send(view, peerSocketAddress))
            {
                counters.increment(LinkCounter.SEND_BACK_PRESSURE);
                return TX_RETRY;
            }
        }
        catch (final IOException ex)
        {
            counters.increment(LinkCounter.SEND_ERRORS);
            return TX_DROPPED;
        }
        if (engineFrame)
        {
            counters.increment(LinkCounter.FRAMES_SENT);
            counters.add(LinkCounter.BYTES_SENT, length);
        }
        record(buffer, offset, length);
        return TX_SENT;
    }

    private void record(final UnsafeBuffer buffer, final int offset, final int length)
    {
        final PcapWriter writer = pcap;
        if (null == writer)
        {
            return;
        }
        try
        {
            writer.write(buffer, offset, length, epochBaseNs + (nanoClock.nanoTime() - nanoBase));
        }
        catch (final IOException ex)
        {
            if (null == pcapError && !closed.get())
            {
                pcapError = ex;
            }
            pcap = null;
        }
    }

    private int claimedSlot(final int index)
    {
        final int slot = index / slotSize;
        if (index < 0 || 0 != index % slotSize || slot >= slotState.length || SLOT_CLAIMED != slotState[slot])
        {
            throw new IllegalArgumentException("index " + index + " is not an open claim of " + name);
        }
        return slot;
    }

    private static int next(final int slot, final int count)
    {
        final int next = slot + 1;
        return next == count ? 0 : next;
    }

    /**
     * Say what a failed bind means in the user's terms, keeping the kernel's words in brackets.
     */
    private static String bindProblem(final TunnelLinkConfig config, final BindException ex)
    {
        final String message = String.valueOf(ex.getMessage());
        if (message.contains("Cannot assign requested address"))
        {
            // EADDRNOTAVAIL: no interface of this machine (of this network namespace) holds the bind address.
            return config.bindHost() + " is not an address of this machine (" + message + ")";
        }
        if (message.contains("Address already in use"))
        {
            return "UDP port " + config.bindPort() + " is already in use on " + config.bindHost() +
                " (another link, a QEMU guest or another program holds it) (" + message + ")";
        }
        return message;
    }

    private static InetAddress resolveHost(final String what, final String host)
    {
        try
        {
            return InetAddress.getByName(host);
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalArgumentException("tunnel link: " + what + " '" + host + "' is not a known address", ex);
        }
    }

    private static PcapWriter openPcap(final Path file) throws IOException
    {
        try
        {
            final Path parent = file.toAbsolutePath().getParent();
            if (null != parent)
            {
                Files.createDirectories(parent);
            }
            return new PcapWriter(file);
        }
        catch (final IOException ex)
        {
            throw new IOException("tunnel link cannot create pcap file " + file + ": " + ex, ex);
        }
    }

    private static void closeQuietly(final DatagramChannel channel, final PcapWriter pcap, final Exception primary)
    {
        try
        {
            channel.close();
        }
        catch (final IOException ex)
        {
            primary.addSuppressed(ex);
        }
        if (null != pcap)
        {
            try
            {
                pcap.close();
            }
            catch (final IOException ex)
            {
                primary.addSuppressed(ex);
            }
        }
    }
}
