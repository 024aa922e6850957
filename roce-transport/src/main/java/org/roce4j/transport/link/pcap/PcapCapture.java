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
import org.roce4j.transport.link.Link;
import org.roce4j.transport.link.LinkCounter;
import org.roce4j.transport.link.LinkCounters;
import org.roce4j.transport.link.ethernet.EthernetLayer;
import org.roce4j.transport.link.host.SocketDrops;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.addr.Mac;
import org.roce4j.wire.header.EthernetHeader;
import org.roce4j.wire.header.Ipv4Header;

/**
 * The pcap link's capture handle: the interface opened through libpcap (Pcap4J 1.8.2), and the two per-frame calls.
 *
 * <p><b>Capture.</b> Immediate mode, snapshot length {@link #SNAPLEN} (a tagged 9216-byte jumbo frame), incoming
 * direction only, 32 MiB kernel ring (TPACKET_V2 in immediate mode: about 3,500 frames), and the BPF filter of
 * {@link #filterExpression}: ARP, ICMPv6 (Neighbor Discovery), and RoCEv2 to one of the link's addresses or its MAC.
 *
 * <p><b>Reads and sends.</b> {@link #read} calls {@code pcap_next_ex} on the handle set non-blocking, through a JNA
 * direct mapping with raw addresses ({@link LibpcapDirect}: Pcap4J's own read allocates a header structure and a byte
 * array per frame), and hands each frame over where libpcap put it: no thread hop, no copy. {@link #transmit} calls
 * {@code pcap_sendpacket} straight from native memory. Where the direct calls are not available (another Pcap4J
 * version), it falls back to Pcap4J: a reader thread blocks in {@code pcap_next} (woken by pcap_breakloop on close)
 * and copies each frame into a lock-free single-producer single-consumer ring that {@link #read} drains; frames are
 * sent with {@code sendPacket(byte[], int)}, which JNA copies.
 *
 * <p><b>Drops.</b> Ring overflow and truncated captures (noted by the reader thread) and libpcap's kernel drops
 * (pcap_stats, read on idle polls at most every 100 ms) are added to {@link LinkCounter#RECEIVE_ERRORS}.
 */
final class PcapCapture implements EthernetLayer.Medium
{
    /** Capture snapshot length: the largest frame a link carries, a tagged 9216-byte jumbo frame. */
    static final int SNAPLEN = EthernetHeader.VLAN_LENGTH + Link.MAX_IP_MTU;

    private static final System.Logger LOG = System.getLogger(PcapCapture.class.getName());
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
    /** Record type in the receive ring. */
    private static final int FRAME_RECORD = 1;
    /** CAP_NET_RAW (linux/capability.h). */
    private static final int CAP_NET_RAW = 13;

    private final String name;
    private final LinkCounters counters;
    private final PcapHandle handle;
    private final LibpcapDirect direct;
    private final OneToOneRingBuffer receiveRing;
    private final UnsafeBuffer capturedFrame = new UnsafeBuffer(new byte[0]);
    private final AtomicBoolean closed = new AtomicBoolean();
    private final SocketDrops kernelDrops;
    private final byte[] sendCopy;
    private Thread reader;
    private volatile boolean running;
    private volatile boolean inLibpcap;
    private volatile long readerDrops;
    private long readerDropsCounted;

    private PcapCapture(final String name, final LinkCounters counters, final PcapHandle handle,
        final LibpcapDirect direct, final int maxFrameLength)
    {
        this.name = name;
        this.counters = counters;
        this.handle = handle;
        this.direct = direct;
        this.sendCopy = null == direct ? new byte[maxFrameLength] : null;
        this.receiveRing = null != direct ? null : new OneToOneRingBuffer(
            new UnsafeBuffer(ByteBuffer.allocateDirect(RECEIVE_RING_BYTES + RingBufferDescriptor.TRAILER_LENGTH)));
        this.kernelDrops = SocketDrops.of(this::pcapDrops);
    }

    /**
     * Open the interface and start capturing.
     *
     * @param config         the link's spec.
     * @param name           the link's name, for messages.
     * @param filter         the BPF filter.
     * @param promiscuous    whether to receive frames for other MACs.
     * @param maxFrameLength longest frame sent.
     * @param counters       the link's counters.
     * @return the capture.
     * @throws IllegalStateException when libpcap fails.
     */
    static PcapCapture open(final PcapLinkConfig config, final String name, final String filter,
        final boolean promiscuous, final int maxFrameLength, final LinkCounters counters)
    {
        final PcapHandle handle;
        LibpcapDirect direct = null;
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
        }
        catch (final PcapNativeException ex)
        {
            throw new IllegalStateException("pcap link " + config.spec() + ": cannot open " + config.iface() + ": " +
                ex.getMessage(), ex);
        }
        try
        {
            handle.setFilter(filter, BpfProgram.BpfCompileMode.OPTIMIZE);
            if (null == LibpcapDirect.unavailabilityCause())
            {
                // Reads from the engine thread must never block it.
                handle.setBlockingMode(PcapHandle.BlockingMode.NONBLOCKING);
                direct = new LibpcapDirect(handle);
            }
        }
        catch (final PcapNativeException | NotOpenException | RuntimeException ex)
        {
            handle.close();
            throw new IllegalStateException("pcap link " + config.spec() + ": cannot set up " + config.iface() +
                ": " + ex.getMessage(), ex);
        }
        final PcapCapture capture = new PcapCapture(name, counters, handle, direct, maxFrameLength);
        if (null == direct)
        {
            LOG.log(System.Logger.Level.DEBUG, "pcap link {0}: direct libpcap calls not available ({1}); reading " +
                "on a thread through Pcap4J", name, String.valueOf(LibpcapDirect.unavailabilityCause()));
            capture.running = true;
            capture.reader = new Thread(capture.new Reader(), "roce4j-" + name);
            capture.reader.setDaemon(true);
            capture.reader.start();
        }
        return capture;
    }

    /**
     * The BPF filter of a link: ARP, ICMPv6 (Neighbor Discovery), and RoCEv2 to one of its addresses or its MAC.
     *
     * @param ips the link's addresses.
     * @param mac the link's MAC.
     * @return the filter expression.
     */
    static String filterExpression(final List<Gid> ips, final long mac)
    {
        final StringBuilder hosts = new StringBuilder();
        for (final Gid ip : ips)
        {
            hosts.append("dst host ").append(ip.isIpv4Mapped() ? Ipv4Header.addressToString(ip.ipv4()) :
                ip.toString()).append(" or ");
        }
        // "ether multicast": frames to a group's MAC, which the NIC passes once the group is joined (SIOCADDMULTI);
        // the Ethernet layer keeps only the joined groups' MACs.
        return "arp or icmp6 or (udp dst port 4791 and (" + hosts + "ether dst " + Mac.toString(mac) +
            " or ether multicast))";
    }

    /**
     * @return native memory for frames to send when the direct calls work (else an array).
     */
    boolean isDirect()
    {
        return null != direct;
    }

    /** {@inheritDoc} */
    public int transmit(final UnsafeBuffer frame, final int offset, final int length)
    {
        try
        {
            if (null != direct)
            {
                if (!direct.send(frame.addressOffset() + offset, length))
                {
                    counters.increment(LinkCounter.SEND_ERRORS);
                    return EthernetLayer.DROPPED;
                }
                return EthernetLayer.SENT;
            }
            frame.getBytes(offset, sendCopy, 0, length);
            handle.sendPacket(sendCopy, length);
            return EthernetLayer.SENT;
        }
        catch (final PcapNativeException | NotOpenException ex)
        {
            counters.increment(LinkCounter.SEND_ERRORS);
            LOG.log(System.Logger.Level.DEBUG, "pcap link " + name + ": send failed: " + ex.getMessage());
            return EthernetLayer.DROPPED;
        }
    }

    /**
     * Read captured frames.
     *
     * @param handler   given each frame (in libpcap's ring or the receive ring).
     * @param maxFrames the most frames to read.
     * @param nowNs     current time, for the periodic drop count.
     * @return frames read.
     */
    int read(final MessageHandler handler, final int maxFrames, final long nowNs)
    {
        final int read;
        if (null != direct)
        {
            read = readDirect(handler, maxFrames);
        }
        else
        {
            read = receiveRing.read(handler, maxFrames);
        }
        final long drops = readerDrops;
        if (drops != readerDropsCounted)
        {
            counters.add(LinkCounter.RECEIVE_ERRORS, drops - readerDropsCounted);
            readerDropsCounted = drops;
        }
        if (0 == read)
        {
            kernelDrops.countInto(counters, nowNs, STATS_PERIOD_NS);
        }
        return read;
    }

    private int readDirect(final MessageHandler handler, final int maxFrames)
    {
        int read = 0;
        inLibpcap = true;
        try
        {
            if (closed.get())
            {
                return 0;
            }
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
                handler.onMessage(FRAME_RECORD, capturedFrame, 0, captured);
            }
        }
        finally
        {
            inLibpcap = false;
        }
        return read;
    }

    /**
     * libpcap's kernel drops (capture ring full); pcap_stats is a getsockopt, safe beside the reader's pcap_next.
     */
    private long pcapDrops()
    {
        try
        {
            final PcapStat stats = handle.getStats();
            return stats.getNumPacketsDropped() + stats.getNumPacketsDroppedByIf();
        }
        catch (final PcapNativeException | NotOpenException ex)
        {
            LOG.log(System.Logger.Level.DEBUG, "pcap link " + name + ": pcap_stats: " + ex.getMessage());
            return SocketDrops.UNKNOWN;
        }
    }

    /**
     * Stop the reader thread and close the handle. Idempotent.
     */
    void close()
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
            PcapReaderThread.stop(handle, reader, READ_TIMEOUT_MS);
        }
        handle.close();
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Opening: capability, device, addresses
    // ---------------------------------------------------------------------------------------------------------------

    /**
     * @param config the link's spec.
     * @throws IllegalStateException without root or CAP_NET_RAW.
     */
    static void checkCapability(final PcapLinkConfig config)
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

    /**
     * @param config the link's spec.
     * @return the interface it names.
     * @throws IllegalArgumentException naming the interfaces there are when it is unknown.
     * @throws IllegalStateException    when libpcap is missing or fails.
     */
    static PcapNetworkInterface findDevice(final PcapLinkConfig config)
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

    /**
     * @param config the link's spec.
     * @param device its interface.
     * @return the addresses the link owns: those given, or else the interface's only IPv4 address.
     * @throws IllegalArgumentException when none was given and the interface has no single IPv4 address.
     */
    static List<Gid> addresses(final PcapLinkConfig config, final PcapNetworkInterface device)
    {
        if (!config.ips().isEmpty())
        {
            return config.ips();
        }
        final List<Gid> found = new ArrayList<>();
        for (final PcapAddress address : device.getAddresses())
        {
            if (address.getAddress() instanceof Inet4Address)
            {
                found.add(Gid.of(address.getAddress()));
            }
        }
        if (1 == found.size())
        {
            return found;
        }
        final List<String> texts = new ArrayList<>();
        for (final Gid ip : found)
        {
            texts.add(Ipv4Header.addressToString(ip.ipv4()));
        }
        throw new IllegalArgumentException("pcap link " + config.spec() + ": interface " + config.iface() + " has " +
            found.size() + " IPv4 addresses" + (found.isEmpty() ? "" : " (" + String.join(", ", texts) + ")") +
            "; say which address the link owns with ip=IP");
    }

    /**
     * @param device an interface.
     * @return its MAC, or 0 when it has none.
     */
    static long interfaceMac(final PcapNetworkInterface device)
    {
        for (final LinkLayerAddress address : device.getLinkLayerAddresses())
        {
            final byte[] bytes = address.getAddress();
            if (Mac.LENGTH == bytes.length)
            {
                return Mac.read(new UnsafeBuffer(bytes), 0);
            }
        }
        return 0L;
    }

    /**
     * The reader thread: blocks in pcap_next and copies each frame into the receive ring. Its drop count is folded
     * into the counters by the engine thread.
     */
    private final class Reader implements Runnable
    {
        private final UnsafeBuffer ring = (UnsafeBuffer)receiveRing.buffer();

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
