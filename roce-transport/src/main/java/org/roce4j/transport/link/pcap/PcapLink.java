package org.roce4j.transport.link.pcap;

import java.io.IOException;
import java.net.Inet4Address;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;
import org.pcap4j.core.BpfProgram;
import org.pcap4j.core.NotOpenException;
import org.pcap4j.core.PcapAddress;
import org.pcap4j.core.PcapHandle;
import org.pcap4j.core.PcapNativeException;
import org.pcap4j.core.PcapNetworkInterface;
import org.pcap4j.core.PcapStat;
import org.pcap4j.core.Pcaps;
import org.pcap4j.util.LinkLayerAddress;
import org.roce4j.transport.link.FrameHandler;
import org.roce4j.transport.link.Link;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.transport.link.LinkCounter;
import org.roce4j.transport.link.LinkCounters;
import org.roce4j.wire.header.ArpHeader;
import org.roce4j.wire.header.EthernetHeader;
import org.roce4j.wire.header.Ipv4Header;
import org.roce4j.wire.header.Ipv6Header;

import static java.nio.ByteOrder.BIG_ENDIAN;

/**
 * A raw-Ethernet link on a network interface through libpcap (Pcap4J 1.8.2). Spec: {@link PcapLinkConfig#GRAMMAR}.
 * Needs root or CAP_NET_RAW, and libpcap (Debian: libpcap0.8).
 *
 * <p>The link owns layer 2 for its own IPv4 address and MAC, which need not be configured on the interface: it
 * answers ARP requests for its address, resolves peers by ARP ({@link NeighbourTable}: a request at once, again
 * every second, FAILED after three; up to 64 frames wait per unresolved peer and are sent in order when the reply
 * comes, or dropped and counted as {@link LinkCounter#SEND_UNRESOLVED} with a logged warning when none comes), and
 * fills in every outgoing frame's MACs. IPv6 destinations are resolved only when the address is a link-local
 * fe80::/64 address made from a MAC (modified EUI-64, as rxe's GID 0): there is no Neighbour Discovery.
 *
 * <p>Frames go to and come from the wire byte for byte, so the ICRC is end to end: the engine's ICRCs reach the
 * peer as built and {@link #verifiesIcrc()} is true (received ICRCs are checked by the engine's parser).
 *
 * <p><b>Capture.</b> Immediate mode, snapshot length 9234 (a tagged 9216-byte jumbo frame), incoming direction
 * only, 32 MiB kernel ring (TPACKET_V2 in immediate mode: about 3,500 frames), promiscuous only when the link's MAC is not the interface's, and the
 * BPF filter {@code arp or (udp dst port 4791 and (dst host IP or ether dst MAC))}.
 *
 * <p><b>Threading.</b> Everything happens on the engine thread. {@link #poll} reads with {@code pcap_next_ex} on
 * the handle set non-blocking, through a JNA direct mapping with raw addresses ({@link LibpcapDirect}: Pcap4J's own
 * read allocates a header structure and a byte array per frame), and hands each frame to the engine where libpcap
 * put it, in its capture ring: no thread hop, no copy. ARP is handled there too. Sending (frames, ARP requests and
 * replies) happens at {@link #commit} with {@code pcap_sendpacket} straight from the native claim buffer (libpcap
 * sends one frame per call). Where the direct calls are not available (another Pcap4J version), the link falls back
 * to Pcap4J: a reader thread blocks in {@code pcap_next} (woken by pcap_breakloop on close) and copies each frame
 * into a lock-free single-producer single-consumer ring that {@link #poll} drains, keeping Pcap4J's per-frame
 * garbage off the engine thread; frames are sent with {@code sendPacket(byte[], int)}, which JNA copies.
 *
 * <p><b>Counters.</b> The engine thread writes every counter. {@link LinkCounter#RECEIVE_ERRORS} counts receive
 * ring overflow and truncated captures (noted by the reader thread, folded in on each poll) and libpcap's kernel
 * drops (pcap_stats, read on idle polls at most every 100 ms).
 */
public final class PcapLink implements Link
{
    /** Largest IP MTU the link carries (a 9216-byte jumbo frame). */
    public static final int MAX_IP_MTU = 9216;
    /** Capture snapshot length: the largest frame the link carries, a tagged 9216-byte jumbo frame. */
    public static final int SNAPLEN = EthernetHeader.VLAN_LENGTH + MAX_IP_MTU;

    private static final System.Logger LOG = System.getLogger(PcapLink.class.getName());

    /** pcap read timeout (libpcap delivers at once in immediate mode; close wakes the reader with breakloop). */
    private static final int READ_TIMEOUT_MS = 50;
    /**
     * Kernel capture ring. Immediate mode makes libpcap use TPACKET_V2, one slot of about the snapshot length per
     * frame whatever its size: 32 MiB holds some 3,500 frames the reader has not taken yet.
     */
    private static final int CAPTURE_BUFFER_BYTES = 32 << 20;
    /** Ring between the reader thread and the engine. */
    private static final int RECEIVE_RING_BYTES = 8 << 20;
    /** How often idle polls add libpcap's drop counts to RECEIVE_ERRORS. */
    private static final long STATS_PERIOD_NS = 100_000_000L;
    /** Frames waiting per unresolved peer (Linux unres_qlen is about 100). */
    private static final int MAX_PENDING_PER_PEER = 64;
    /** Frames waiting for all unresolved peers. */
    private static final int PENDING_POOL = 256;
    /** Peers resolved at once. */
    private static final int MAX_RESOLVING = 64;
    /** Interval between ARP requests (Linux retrans_time_ms 1000). */
    private static final long ARP_RETRY_NS = 1_000_000_000L;
    /** ARP requests before a peer is FAILED (Linux mcast_solicit 3). */
    private static final int ARP_REQUESTS = 3;
    /** Minimum Ethernet frame without FCS: ARP frames are padded to it. */
    private static final int MIN_FRAME = 60;
    /** Record type in the receive ring. */
    private static final int FRAME_RECORD = 1;
    /** CAP_NET_RAW (linux/capability.h). */
    private static final int CAP_NET_RAW = 13;
    /** Bit 0x01 of the first octet: a multicast (or broadcast) MAC. */
    private static final long MAC_GROUP_BIT = 0x0100_0000_0000L;

    private final PcapLinkConfig config;
    private final String name;
    private final LinkAddress address;
    private final int mtu;
    private final int maxFrameLength;
    private final LinkCounters counters = new LinkCounters();
    private final LongSupplier nanoClock;
    private final AtomicBoolean closed = new AtomicBoolean();

    private final UnsafeBuffer sendBuffer;
    private final UnsafeBuffer arpBuffer = null == LibpcapDirect.unavailabilityCause() ?
        new UnsafeBuffer(ByteBuffer.allocateDirect(MIN_FRAME)) : new UnsafeBuffer(new byte[MIN_FRAME]);
    private final ArpHeader arpOut = new ArpHeader();
    private final ArpHeader arpIn = new ArpHeader();
    private final NeighbourTable neighbours;
    private int claimIndex = -1;
    private int claimLength;
    private int sentSinceFlush;

    private final OneToOneRingBuffer receiveRing;
    private final MessageHandler receiveDelivery = this::onReceived;
    private FrameHandler frameHandler;

    // Direct libpcap calls from the engine thread (null when falling back to Pcap4J and a reader thread).
    private LibpcapDirect direct;
    private final UnsafeBuffer capturedFrame = new UnsafeBuffer(new byte[0]);
    private volatile boolean inLibpcap;

    private PcapHandle handle;
    private Thread reader;
    private volatile boolean running;
    private volatile long readerDrops;
    private long readerDropsCounted;
    private long kernelDropsCounted;
    private long nextStatsNs;

    private PcapLink(
        final PcapLinkConfig config, final int ipv4, final long mac, final int mtu, final LongSupplier nanoClock)
    {
        this.config = config;
        this.name = "pcap:" + config.iface();
        this.address = new LinkAddress(mac, ipv4);
        this.mtu = mtu;
        this.maxFrameLength = EthernetHeader.VLAN_LENGTH + mtu;
        this.nanoClock = nanoClock;
        // Native memory for pcap_sendpacket; an array for Pcap4J's sendPacket(byte[], int) when falling back.
        this.sendBuffer = null == LibpcapDirect.unavailabilityCause() ?
            new UnsafeBuffer(ByteBuffer.allocateDirect(maxFrameLength)) : new UnsafeBuffer(new byte[maxFrameLength]);
        // The ring between a reader thread and the engine exists only when falling back to Pcap4J's reads.
        this.receiveRing = null == LibpcapDirect.unavailabilityCause() ? null : new OneToOneRingBuffer(
            new UnsafeBuffer(ByteBuffer.allocateDirect(RECEIVE_RING_BYTES + RingBufferDescriptor.TRAILER_LENGTH)));
        this.neighbours = new NeighbourTable(MAX_PENDING_PER_PEER, PENDING_POOL, maxFrameLength, ARP_RETRY_NS,
            ARP_REQUESTS, MAX_RESOLVING, new NeighbourActions());
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
     * @param nanoClock time source for ARP retries and timeouts.
     * @return the open link, capturing.
     * @throws IllegalArgumentException for an unknown interface or an IPv4 address that cannot be chosen.
     * @throws IllegalStateException    without root or CAP_NET_RAW, without libpcap, or when libpcap fails.
     */
    public static PcapLink open(final PcapLinkConfig config, final LongSupplier nanoClock)
    {
        checkCapability(config);
        final PcapNetworkInterface device = findDevice(config);
        final int ipv4 = null != config.ipv4() ? config.ipv4() : onlyIpv4Address(config, device);
        final long interfaceMac = interfaceMac(device);
        final long mac = null != config.mac() ? config.mac() : interfaceMac;
        final PcapLink link = new PcapLink(config, ipv4, mac, interfaceMtu(config.iface()), nanoClock);
        try
        {
            link.start(mac != interfaceMac);
        }
        catch (final RuntimeException ex)
        {
            link.close();
            throw ex;
        }
        return link;
    }

    private static void checkCapability(final PcapLinkConfig config)
    {
        final long effective = effectiveCapabilities();
        if (effective >= 0 && 0 == (effective & (1L << CAP_NET_RAW)))
        {
            throw new IllegalStateException("pcap link " + config.spec() + " needs root or CAP_NET_RAW to capture " +
                "and send raw frames; run as root or grant the JVM the capability (setcap cap_net_raw+eip on the " +
                "java binary)");
        }
    }

    /**
     * @return the effective capability set from /proc/self/status, or -1 when it cannot be read.
     */
    private static long effectiveCapabilities()
    {
        try
        {
            for (final String line : Files.readAllLines(Path.of("/proc/self/status"), StandardCharsets.US_ASCII))
            {
                if (line.startsWith("CapEff:"))
                {
                    return Long.parseUnsignedLong(line.substring("CapEff:".length()).trim(), 16);
                }
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            LOG.log(System.Logger.Level.DEBUG, "cannot read capabilities: " + ex);
        }
        return -1;
    }

    private static PcapNetworkInterface findDevice(final PcapLinkConfig config)
    {
        final List<PcapNetworkInterface> all;
        try
        {
            all = Pcaps.findAllDevs();
        }
        catch (final PcapNativeException ex)
        {
            throw new IllegalStateException("pcap link " + config.spec() + ": libpcap cannot list interfaces: " +
                ex.getMessage(), ex);
        }
        catch (final LinkageError ex)
        {
            throw new IllegalStateException("pcap link " + config.spec() + ": libpcap is not installed or cannot " +
                "be loaded (Debian: apt-get install libpcap0.8): " + ex, ex);
        }
        final List<String> names = new ArrayList<>();
        for (final PcapNetworkInterface device : all)
        {
            if (config.iface().equals(device.getName()))
            {
                return device;
            }
            names.add(device.getName());
        }
        throw new IllegalArgumentException("pcap link " + config.spec() + ": unknown interface '" + config.iface() +
            "'; interfaces here: " + String.join(", ", names));
    }

    private static int onlyIpv4Address(final PcapLinkConfig config, final PcapNetworkInterface device)
    {
        final List<Integer> found = new ArrayList<>();
        for (final PcapAddress address : device.getAddresses())
        {
            if (address.getAddress() instanceof Inet4Address)
            {
                final byte[] bytes = address.getAddress().getAddress();
                found.add(((bytes[0] & 0xFF) << 24) | ((bytes[1] & 0xFF) << 16) | ((bytes[2] & 0xFF) << 8) |
                    (bytes[3] & 0xFF));
            }
        }
        if (1 == found.size())
        {
            return found.get(0);
        }
        final List<String> texts = new ArrayList<>();
        for (final int ipv4 : found)
        {
            texts.add(Ipv4Header.addressToString(ipv4));
        }
        throw new IllegalArgumentException("pcap link " + config.spec() + ": interface " + config.iface() + " has " +
            found.size() + " IPv4 addresses" + (found.isEmpty() ? "" : " (" + String.join(", ", texts) + ")") +
            "; say which address the link owns with ip=A.B.C.D");
    }

    private static long interfaceMac(final PcapNetworkInterface device)
    {
        for (final LinkLayerAddress address : device.getLinkLayerAddresses())
        {
            final byte[] bytes = address.getAddress();
            if (6 == bytes.length)
            {
                long mac = 0;
                for (final byte b : bytes)
                {
                    mac = (mac << 8) | (b & 0xFF);
                }
                return mac;
            }
        }
        return 0L;
    }

    private static int interfaceMtu(final String iface)
    {
        return Math.min(InterfaceMtu.of(iface), MAX_IP_MTU);
    }

    private void start(final boolean promiscuous)
    {
        try
        {
            handle = new PcapHandle.Builder(config.iface())
                .snaplen(SNAPLEN)
                .promiscuousMode(promiscuous ?
                    PcapNetworkInterface.PromiscuousMode.PROMISCUOUS :
                    PcapNetworkInterface.PromiscuousMode.NONPROMISCUOUS)
                .timeoutMillis(READ_TIMEOUT_MS)
                .bufferSize(CAPTURE_BUFFER_BYTES)
                .immediateMode(true)
                .direction(PcapHandle.PcapDirection.IN)
                .build();
            handle.setFilter(filterExpression(), BpfProgram.BpfCompileMode.OPTIMIZE);
            if (null == receiveRing)
            {
                // Reads from the engine thread must never block it.
                handle.setBlockingMode(PcapHandle.BlockingMode.NONBLOCKING);
                direct = new LibpcapDirect(handle);
            }
        }
        catch (final PcapNativeException | NotOpenException ex)
        {
            throw new IllegalStateException("pcap link " + config.spec() + ": cannot open " + config.iface() + ": " +
                ex.getMessage(), ex);
        }
        if (null != direct)
        {
            return;
        }
        LOG.log(System.Logger.Level.DEBUG, "pcap link {0}: direct libpcap calls not available ({1}); reading on a " +
            "thread through Pcap4J", name, String.valueOf(LibpcapDirect.unavailabilityCause()));
        running = true;
        reader = new Thread(new Reader(handle), "roce4j-" + name);
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * @return the BPF filter: ARP, and RoCEv2 to the link's IP or MAC.
     */
    public String filterExpression()
    {
        return "arp or (udp dst port 4791 and (dst host " + Ipv4Header.addressToString(address.ipv4()) +
            " or ether dst " + EthernetHeader.macToString(address.mac()) + "))";
    }

    /**
     * @return e.g. {@code pcap:veth0}.
     */
    public String name()
    {
        return name;
    }

    /**
     * @return the link's MAC and IPv4 address.
     */
    public LinkAddress address()
    {
        return address;
    }

    /**
     * @return the interface MTU, capped at {@link #MAX_IP_MTU}.
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
     * @param ipv4 a peer address.
     * @return what the link knows about the peer's MAC.
     */
    public NeighbourState neighbourState(final int ipv4)
    {
        return neighbours.state(ipv4);
    }

    /**
     * Start resolving a peer ahead of traffic (as when a QP is connected), so the first frames need not wait.
     * Engine thread only.
     *
     * @param ipv4 the peer's address.
     */
    public void resolve(final int ipv4)
    {
        neighbours.resolve(ipv4, nanoClock.getAsLong());
    }

    /**
     * @param ipv4 a peer address.
     * @return its MAC, or -1 when not resolved.
     */
    public long neighbourMac(final int ipv4)
    {
        return neighbours.lookup(ipv4);
    }

    /**
     * {@inheritDoc}
     *
     * <p>The claim buffer holds one frame; frames are sent (or queued for ARP) at {@link #commit}, so a claim
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
        if (closed.get())
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
     * <p>Writes the MACs and sends at once when the destination is resolved; otherwise queues a copy and starts
     * ARP. A frame that is neither IPv4 nor IPv6, or whose IPv6 destination has no MAC in it, is counted as
     * {@link LinkCounter#SEND_ERRORS}.
     */
    public void commit(final int index, final int length)
    {
        if (0 != index || claimIndex < 0)
        {
            throw new IllegalStateException("index " + index + " is not the outstanding claim on " + name);
        }
        if (length < EthernetHeader.LENGTH || length > claimLength)
        {
            claimIndex = -1;
            throw new IllegalArgumentException("committed length " + length + " outside " + EthernetHeader.LENGTH +
                ".." + claimLength);
        }
        claimIndex = -1;
        final UnsafeBuffer frame = sendBuffer;
        final int etherType = innerEtherType(frame);
        final long mac;
        if (EthernetHeader.ETHERTYPE_IPV4 == etherType)
        {
            final int destination = frame.getInt(ipOffset(frame) + Ipv4Header.DESTINATION_OFFSET, BIG_ENDIAN);
            mac = neighbours.lookup(destination);
            if (NeighbourTable.NO_MAC == mac)
            {
                writeSourceMac(frame);
                neighbours.enqueue(destination, frame, 0, length, nanoClock.getAsLong());
                return;
            }
        }
        else if (EthernetHeader.ETHERTYPE_IPV6 == etherType)
        {
            mac = macOfLinkLocal(frame, ipOffset(frame) + Ipv6Header.DESTINATION_OFFSET);
            if (NeighbourTable.NO_MAC == mac)
            {
                counters.increment(LinkCounter.SEND_ERRORS);
                return;
            }
        }
        else
        {
            counters.increment(LinkCounter.SEND_ERRORS);
            return;
        }
        frame.putShort(EthernetHeader.DESTINATION_OFFSET, (short)(mac >>> 32), BIG_ENDIAN);
        frame.putInt(EthernetHeader.DESTINATION_OFFSET + 2, (int)mac, BIG_ENDIAN);
        writeSourceMac(frame);
        transmit(frame, length, true);
    }

    private void writeSourceMac(final UnsafeBuffer frame)
    {
        final long mac = address.mac();
        frame.putShort(EthernetHeader.SOURCE_OFFSET, (short)(mac >>> 32), BIG_ENDIAN);
        frame.putInt(EthernetHeader.SOURCE_OFFSET + 2, (int)mac, BIG_ENDIAN);
    }

    private static int innerEtherType(final DirectBuffer frame)
    {
        final int outer = frame.getShort(EthernetHeader.TYPE_OFFSET, BIG_ENDIAN) & 0xFFFF;
        return EthernetHeader.TPID_8021Q == outer ?
            frame.getShort(EthernetHeader.INNER_TYPE_OFFSET, BIG_ENDIAN) & 0xFFFF : outer;
    }

    private static int ipOffset(final DirectBuffer frame)
    {
        final int outer = frame.getShort(EthernetHeader.TYPE_OFFSET, BIG_ENDIAN) & 0xFFFF;
        return EthernetHeader.TPID_8021Q == outer ? EthernetHeader.VLAN_LENGTH : EthernetHeader.LENGTH;
    }

    /**
     * The MAC inside a link-local IPv6 address built by modified EUI-64 (fe80::/64, ff:fe in the middle of the
     * interface identifier, universal/local bit flipped; RFC 4291 appendix A), as rxe's GID 0.
     */
    private static long macOfLinkLocal(final DirectBuffer frame, final int addressOffset)
    {
        final long high = frame.getLong(addressOffset, BIG_ENDIAN);
        final long low = frame.getLong(addressOffset + 8, BIG_ENDIAN);
        if (LinkAddress.LINK_LOCAL_HIGH != high || 0xFFFEL != ((low >>> 24) & 0xFFFFL))
        {
            return NeighbourTable.NO_MAC;
        }
        final long upper = ((low >>> 40) & 0xFF_FFFFL) ^ 0x02_0000L;
        return (upper << 24) | (low & 0xFF_FFFFL);
    }

    private void transmit(final DirectBuffer frame, final int length, final boolean roce)
    {
        try
        {
            final byte[] array = frame.byteArray();
            if (null == array && null != direct)
            {
                if (!direct.send(frame.addressOffset(), length))
                {
                    counters.increment(LinkCounter.SEND_ERRORS);
                    return;
                }
            }
            else if (null != array && 0 == frame.wrapAdjustment())
            {
                handle.sendPacket(array, length);
            }
            else
            {
                final byte[] copy = new byte[length];
                frame.getBytes(0, copy);
                handle.sendPacket(copy, length);
            }
            if (roce)
            {
                counters.increment(LinkCounter.FRAMES_SENT);
                counters.add(LinkCounter.BYTES_SENT, length);
                sentSinceFlush++;
            }
        }
        catch (final PcapNativeException | NotOpenException ex)
        {
            counters.increment(LinkCounter.SEND_ERRORS);
            LOG.log(System.Logger.Level.DEBUG, "pcap link " + name + ": send failed: " + ex.getMessage());
        }
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
     * <p>Frames are sent at commit; flush runs the ARP retry timers and reports frames sent since the last flush.
     */
    public int flush()
    {
        neighbours.onTimer(nanoClock.getAsLong());
        final int sent = sentSinceFlush;
        sentSinceFlush = 0;
        return sent;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Also answers ARP, learns neighbours and runs the ARP retry timers.
     */
    public int poll(final FrameHandler handler, final int maxFrames)
    {
        frameHandler = handler;
        final int read = null != direct ? readDirect(maxFrames) : receiveRing.read(receiveDelivery, maxFrames);
        if (neighbours.resolvingCount() > 0)
        {
            neighbours.onTimer(nanoClock.getAsLong());
        }
        final long drops = readerDrops;
        if (drops != readerDropsCounted)
        {
            counters.add(LinkCounter.RECEIVE_ERRORS, drops - readerDropsCounted);
            readerDropsCounted = drops;
        }
        if (0 == read)
        {
            final long now = System.nanoTime();
            if (now - nextStatsNs >= 0)
            {
                nextStatsNs = now + STATS_PERIOD_NS;
                readKernelDrops();
            }
        }
        return read;
    }

    private int readDirect(final int maxFrames)
    {
        int read = 0;
        inLibpcap = true;
        try
        {
            if (closed.get())
            {
                return 0;
            }
            final LibpcapDirect direct = this.direct;
            while (read < maxFrames)
            {
                final int status = direct.next();
                if (LibpcapDirect.FRAME != status)
                {
                    if (status < 0)
                    {
                        LOG.log(System.Logger.Level.DEBUG, "pcap link " + name + ": pcap_next_ex " + status);
                    }
                    break;
                }
                read++;
                final int captured = direct.capturedLength();
                if (direct.wireLength() > captured)
                {
                    // Longer than the snapshot length: not a frame this link can carry.
                    counters.increment(LinkCounter.RECEIVE_ERRORS);
                    continue;
                }
                capturedFrame.wrap(direct.frameAddress(), captured);
                onReceived(FRAME_RECORD, capturedFrame, 0, captured);
            }
        }
        finally
        {
            inLibpcap = false;
        }
        return read;
    }

    /**
     * Add libpcap's kernel drops (capture ring full) to RECEIVE_ERRORS; pcap_stats is a getsockopt, safe beside
     * the reader's pcap_next. Done on idle polls at most every 100 ms.
     */
    private void readKernelDrops()
    {
        try
        {
            final PcapStat stats = handle.getStats();
            final long drops = stats.getNumPacketsDropped() + stats.getNumPacketsDroppedByIf();
            if (drops > kernelDropsCounted)
            {
                counters.add(LinkCounter.RECEIVE_ERRORS, drops - kernelDropsCounted);
                kernelDropsCounted = drops;
            }
        }
        catch (final PcapNativeException | NotOpenException ex)
        {
            LOG.log(System.Logger.Level.DEBUG, "pcap link " + name + ": pcap_stats: " + ex.getMessage());
        }
    }

    private void onReceived(final int msgTypeId, final MutableDirectBuffer buffer, final int index, final int length)
    {
        if (length < EthernetHeader.LENGTH)
        {
            // A runt (libpcap hands over what the interface got): no Ethernet header to read.
            counters.increment(LinkCounter.RECEIVE_FILTERED);
            return;
        }
        final int outer = buffer.getShort(index + EthernetHeader.TYPE_OFFSET, BIG_ENDIAN) & 0xFFFF;
        if (EthernetHeader.ETHERTYPE_ARP == outer)
        {
            counters.increment(LinkCounter.ARP_RECEIVED);
            onArp(buffer, index + EthernetHeader.LENGTH, length - EthernetHeader.LENGTH);
            return;
        }
        final long destinationMac = ((buffer.getShort(index, BIG_ENDIAN) & 0xFFFFL) << 32) |
            (buffer.getInt(index + 2, BIG_ENDIAN) & 0xFFFF_FFFFL);
        final boolean ours = destinationMac == address.mac() || 0 != (destinationMac & MAC_GROUP_BIT);
        boolean addressedToUs = ours;
        if (ours && EthernetHeader.ETHERTYPE_IPV4 == outer && length >= EthernetHeader.LENGTH + Ipv4Header.LENGTH)
        {
            addressedToUs = address.ipv4() ==
                buffer.getInt(index + EthernetHeader.LENGTH + Ipv4Header.DESTINATION_OFFSET, BIG_ENDIAN);
        }
        if (!addressedToUs)
        {
            counters.increment(LinkCounter.RECEIVE_FILTERED);
            return;
        }
        counters.increment(LinkCounter.FRAMES_RECEIVED);
        counters.add(LinkCounter.BYTES_RECEIVED, length);
        frameHandler.onFrame(buffer, index, length);
    }

    private void onArp(final MutableDirectBuffer buffer, final int offset, final int length)
    {
        if (length < ArpHeader.LENGTH)
        {
            return;
        }
        final ArpHeader arp = arpIn.wrap(buffer, offset);
        if (!arp.isEthernetIpv4())
        {
            return;
        }
        final int senderIp = arp.senderIp();
        final long senderMac = arp.senderMac();
        final boolean forUs = address.ipv4() == arp.targetIp();
        if (0 != senderIp && senderIp != address.ipv4() && 0 == (senderMac & MAC_GROUP_BIT))
        {
            // RFC 826 merge: update a known sender; add it when the packet is addressed to us.
            neighbours.learn(senderIp, senderMac, forUs && ArpHeader.OPERATION_REQUEST == arp.operation());
        }
        if (forUs && ArpHeader.OPERATION_REQUEST == arp.operation())
        {
            writeArp(ArpHeader.OPERATION_REPLY, senderMac, senderMac, senderIp);
            transmit(arpBuffer, MIN_FRAME, false);
            counters.increment(LinkCounter.ARP_REPLIES_SENT);
        }
    }

    private void writeArp(final int operation, final long ethernetDestination, final long targetMac, final int targetIp)
    {
        final long mac = address.mac();
        arpBuffer.setMemory(0, MIN_FRAME, (byte)0);
        arpBuffer.putShort(EthernetHeader.DESTINATION_OFFSET, (short)(ethernetDestination >>> 32), BIG_ENDIAN);
        arpBuffer.putInt(EthernetHeader.DESTINATION_OFFSET + 2, (int)ethernetDestination, BIG_ENDIAN);
        arpBuffer.putShort(EthernetHeader.SOURCE_OFFSET, (short)(mac >>> 32), BIG_ENDIAN);
        arpBuffer.putInt(EthernetHeader.SOURCE_OFFSET + 2, (int)mac, BIG_ENDIAN);
        arpBuffer.putShort(EthernetHeader.TYPE_OFFSET, (short)EthernetHeader.ETHERTYPE_ARP, BIG_ENDIAN);
        arpOut.wrap(arpBuffer, EthernetHeader.LENGTH)
            .ethernetIpv4(operation)
            .senderMac(mac)
            .senderIp(address.ipv4())
            .targetMac(targetMac)
            .targetIp(targetIp);
    }

    /**
     * @return this link's counters.
     */
    public LinkCounters counters()
    {
        return counters;
    }

    /**
     * Stop the reader thread and close the capture. Idempotent.
     */
    public void close()
    {
        if (!closed.compareAndSet(false, true))
        {
            return;
        }
        running = false;
        while (inLibpcap)
        {
            Thread.onSpinWait();
        }
        if (null != reader)
        {
            boolean interrupted = false;
            while (reader.isAlive())
            {
                try
                {
                    // pcap_next does not time out without traffic (TPACKET_V3 retires only non-empty blocks);
                    // pcap_breakloop wakes it (libpcap 1.10 signals an eventfd the read polls on).
                    handle.breakLoop();
                    reader.join(READ_TIMEOUT_MS);
                }
                catch (final NotOpenException ex)
                {
                    break;
                }
                catch (final InterruptedException ex)
                {
                    interrupted = true;
                }
            }
            if (interrupted)
            {
                Thread.currentThread().interrupt();
            }
        }
        if (null != handle)
        {
            handle.close();
        }
    }

    /**
     * @return e.g. {@code pcap:veth0 mac=... ip=...}.
     */
    public String toString()
    {
        return name + " " + address;
    }

    private final class NeighbourActions implements NeighbourTable.Actions
    {
        private long lastFailureLogNs;
        private boolean loggedOnce;

        public void sendArpRequest(final int ipv4)
        {
            writeArp(ArpHeader.OPERATION_REQUEST, EthernetHeader.BROADCAST, 0L, ipv4);
            transmit(arpBuffer, MIN_FRAME, false);
            counters.increment(LinkCounter.ARP_REQUESTS_SENT);
        }

        public void sendResolved(final UnsafeBuffer frame, final int length)
        {
            transmit(frame, length, true);
        }

        public void dropped(final int ipv4, final int frames, final boolean failed)
        {
            counters.add(LinkCounter.SEND_UNRESOLVED, frames);
            final long now = nanoClock.getAsLong();
            if (failed && (!loggedOnce || now - lastFailureLogNs > ARP_RETRY_NS))
            {
                loggedOnce = true;
                lastFailureLogNs = now;
                LOG.log(System.Logger.Level.WARNING, "pcap link {0}: no ARP reply from {1} after {2} requests; " +
                    "dropped {3} frame(s) to it", name, Ipv4Header.addressToString(ipv4), ARP_REQUESTS, frames);
            }
        }
    }

    /**
     * The reader thread: blocks in pcap_next and copies each frame into the receive ring. Its two drop counts are
     * folded into the counters by the engine thread.
     */
    private final class Reader implements Runnable
    {
        private final PcapHandle handle;
        private final UnsafeBuffer ring = (UnsafeBuffer)receiveRing.buffer();

        Reader(final PcapHandle handle)
        {
            this.handle = handle;
        }

        public void run()
        {
            try
            {
                while (running)
                {
                    final byte[] frame = handle.getNextRawPacket();
                    if (null != frame)
                    {
                        onCapture(frame);
                    }
                }
            }
            catch (final NotOpenException ex)
            {
                LOG.log(System.Logger.Level.DEBUG, "pcap link " + name + ": capture closed");
            }
        }

        private void onCapture(final byte[] frame)
        {
            final Integer original = handle.getOriginalLength();
            if (null != original && original > frame.length)
            {
                readerDrops = readerDrops + 1;
                return;
            }
            final int index = receiveRing.tryClaim(FRAME_RECORD, frame.length);
            if (index < 0)
            {
                readerDrops = readerDrops + 1;
                return;
            }
            ring.putBytes(index, frame);
            receiveRing.commit(index);
        }
    }
}
