package org.roce4j.bench.baseline;

import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;

import org.HdrHistogram.Histogram;
import org.agrona.concurrent.UnsafeBuffer;
import org.pcap4j.core.BpfProgram;
import org.pcap4j.core.NotOpenException;
import org.pcap4j.core.PcapHandle;
import org.pcap4j.core.PcapNativeException;
import org.pcap4j.core.PcapNetworkInterface;
import org.roce4j.bench.Measurement;
import org.roce4j.bench.Running;
import org.roce4j.bench.Window;
import org.roce4j.transport.link.Link;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.header.EthernetHeader;
import org.roce4j.wire.header.Ipv4Header;
import org.roce4j.wire.header.Ipv6Header;
import org.roce4j.wire.header.UdpHeader;

/**
 * Raw Pcap4J baselines on the veth pair: the same libpcap calls the pcap link makes, with no RoCE work. Handles are
 * opened as the pcap link opens them (immediate mode, snapshot length a tagged jumbo frame, incoming direction,
 * 32 MiB capture buffer, a BPF filter for UDP to port 4791 and the receiver's address).
 *
 * <p>Throughput: a thread on A calls {@code sendPacket(byte[], int)} in a loop, keeping at most {@code window}
 * frames beyond what B has captured; a thread on B blocks in {@code getNextRawPacket()} and counts. Latency: one
 * frame bounces between two threads, each blocking in {@code getNextRawPacket()} and answering with
 * {@code sendPacket}.
 */
public final class RawPcap
{
    /** Capture buffer (as the pcap link). */
    private static final int CAPTURE_BUFFER_BYTES = 32 << 20;
    /** Read timeout; immediate mode delivers at once. */
    private static final int READ_TIMEOUT_MS = 50;
    /** Read without blocking, spinning, as the pcap link's engine thread does (-Droce4j.bench.rawPcapSpin=true). */
    private static final boolean SPIN = Boolean.getBoolean("roce4j.bench.rawPcapSpin");
    /** A window that has not moved for this long lost frames: reopen it. */
    private static final long STALL_NS = 20_000_000L;

    /** Runs handle creation where the interface lives (a namespace). */
    public interface Opener
    {
        /**
         * @param side 0 for A, 1 for B.
         * @param task opens a handle.
         * @return the handle.
         */
        PcapHandle open(int side, Callable<PcapHandle> task);
    }

    /**
     * The two ends of the raw medium (a veth pair).
     *
     * @param ifaceA A's interface.
     * @param ifaceB B's interface.
     * @param macA   A's MAC.
     * @param macB   B's MAC.
     * @param ipA    the address (IPv4, or IPv6 for the veth6 medium) A's frames carry, and A's capture filter expects.
     * @param ipB    the address B's frames carry.
     */
    public record Ends(String ifaceA, String ifaceB, long macA, long macB, String ipA, String ipB)
    {
    }

    private RawPcap()
    {
    }

    /**
     * Frame throughput from A to B.
     *
     * @param opener       where handles are opened.
     * @param ends         interfaces, MACs and addresses of both ends.
     * @param udpPayload   UDP payload bytes per frame.
     * @param frameWindow  frames in flight at most.
     * @param window       warm-up and measurement durations.
     * @return frames delivered per second.
     */
    public static Measurement throughput(final Opener opener, final Ends ends, final int udpPayload,
        final int frameWindow, final Window window)
    {
        final PcapHandle b = opener.open(1, () -> open(ends.ifaceB(), ends.ipB()));
        final PcapHandle a = opener.open(0, () -> open(ends.ifaceA(), ends.ipA()));
        try
        {
            final byte[] frame = frame(ends.macA(), ends.macB(), ends.ipA(), ends.ipB(), udpPayload);
            final AtomicLong received = new AtomicLong();
            final Running running = new Running();
            final Thread sender = new Thread(() ->
            {
                long sent = 0;
                long stalledSinceNs = 0;
                while (running.on)
                {
                    final long delivered = received.get();
                    if (sent - delivered >= frameWindow)
                    {
                        final long now = System.nanoTime();
                        if (0 == stalledSinceNs)
                        {
                            stalledSinceNs = now;
                        }
                        else if (now - stalledSinceNs > STALL_NS)
                        {
                            sent = delivered;
                            stalledSinceNs = 0;
                        }
                        Thread.onSpinWait();
                        continue;
                    }
                    stalledSinceNs = 0;
                    send(a, frame);
                    sent++;
                }
                running.senderDone = true;
            }, "raw-pcap-send");
            final Thread receiver = new Thread(() ->
            {
                long count = 0;
                while (running.on)
                {
                    if (null != next(b))
                    {
                        received.lazySet(++count);
                    }
                }
            }, "raw-pcap-count");
            return window.measure(sender, receiver, running, received, () -> breakLoop(a, b));
        }
        finally
        {
            a.close();
            b.close();
        }
    }

    /**
     * Frame round-trip time between A and B.
     *
     * @param opener     where handles are opened.
     * @param ends       interfaces, MACs and addresses of both ends.
     * @param udpPayload UDP payload bytes per frame.
     * @param window     warm-up and measurement durations.
     * @return round trips per second and the round-trip histogram.
     */
    public static Measurement latency(final Opener opener, final Ends ends, final int udpPayload, final Window window)
    {
        final PcapHandle b = opener.open(1, () -> open(ends.ifaceB(), ends.ipB()));
        final PcapHandle a = opener.open(0, () -> open(ends.ifaceA(), ends.ipA()));
        try
        {
            final byte[] ping = frame(ends.macA(), ends.macB(), ends.ipA(), ends.ipB(), udpPayload);
            final byte[] pong = frame(ends.macB(), ends.macA(), ends.ipB(), ends.ipA(), udpPayload);
            final AtomicLong pongs = new AtomicLong();
            final Running running = new Running();
            final Histogram histogram = new Histogram(3_600_000_000_000L, 3);
            final Thread pinger = new Thread(() ->
            {
                long count = 0;
                while (running.on)
                {
                    final long startNs = System.nanoTime();
                    send(a, ping);
                    while (null == next(a))
                    {
                        if (!running.on)
                        {
                            break;
                        }
                    }
                    final long rttNs = System.nanoTime() - startNs;
                    if (running.measuring)
                    {
                        histogram.recordValue(rttNs);
                    }
                    pongs.lazySet(++count);
                }
                running.senderDone = true;
            }, "raw-pcap-ping");
            final Thread ponger = new Thread(() ->
            {
                while (running.on || !running.senderDone)
                {
                    if (null != next(b))
                    {
                        send(b, pong);
                    }
                }
            }, "raw-pcap-pong");
            return window.measure(pinger, ponger, running, pongs, () -> breakLoop(a, b)).withHistogram(histogram);
        }
        finally
        {
            a.close();
            b.close();
        }
    }

    private static PcapHandle open(final String iface, final String ownAddress) throws PcapNativeException,
        NotOpenException
    {
        final PcapHandle handle = new PcapHandle.Builder(iface)
            .snaplen(EthernetHeader.VLAN_LENGTH + Link.MAX_IP_MTU)
            .promiscuousMode(PcapNetworkInterface.PromiscuousMode.NONPROMISCUOUS)
            .timeoutMillis(READ_TIMEOUT_MS)
            .bufferSize(CAPTURE_BUFFER_BYTES)
            .immediateMode(true)
            .direction(PcapHandle.PcapDirection.IN)
            .build();
        handle.setFilter("udp dst port 4791 and dst host " + ownAddress, BpfProgram.BpfCompileMode.OPTIMIZE);
        if (SPIN)
        {
            handle.setBlockingMode(PcapHandle.BlockingMode.NONBLOCKING);
        }
        return handle;
    }

    private static void breakLoop(final PcapHandle a, final PcapHandle b)
    {
        try
        {
            // pcap_next does not time out without traffic; pcap_breakloop makes it return.
            a.breakLoop();
            b.breakLoop();
        }
        catch (final NotOpenException ex)
        {
            // Closed already: nothing blocks in it.
        }
    }

    private static void send(final PcapHandle handle, final byte[] frame)
    {
        try
        {
            handle.sendPacket(frame, frame.length);
        }
        catch (final PcapNativeException | NotOpenException ex)
        {
            throw new IllegalStateException("sendPacket: " + ex.getMessage(), ex);
        }
    }

    private static byte[] next(final PcapHandle handle)
    {
        try
        {
            return handle.getNextRawPacket();
        }
        catch (final NotOpenException ex)
        {
            return null;
        }
    }

    /**
     * An Ethernet + IPv4 (or IPv6, for IPv6 literals) + UDP frame to port 4791 with a zero payload.
     */
    static byte[] frame(final long sourceMac, final long destinationMac, final String source,
        final String destination, final int udpPayload)
    {
        if (source.indexOf(':') >= 0)
        {
            return frame6(sourceMac, destinationMac, Gid.parse(source), Gid.parse(destination), udpPayload);
        }
        final int length = EthernetHeader.LENGTH + Ipv4Header.LENGTH + UdpHeader.LENGTH + udpPayload;
        final byte[] bytes = new byte[length];
        final UnsafeBuffer buffer = new UnsafeBuffer(bytes);
        new EthernetHeader().wrap(buffer, 0).destination(destinationMac).source(sourceMac)
            .etherType(EthernetHeader.ETHERTYPE_IPV4);
        new Ipv4Header().wrap(buffer, EthernetHeader.LENGTH)
            .versionAndHeaderLength(Ipv4Header.LENGTH / 4)
            .totalLength(Ipv4Header.LENGTH + UdpHeader.LENGTH + udpPayload)
            .flagsAndFragmentOffset(Ipv4Header.FLAG_DONT_FRAGMENT)
            .ttl(64)
            .protocol(Ipv4Header.PROTOCOL_UDP)
            .source(Ipv4Header.parseAddress(source))
            .destination(Ipv4Header.parseAddress(destination))
            .updateChecksum();
        new UdpHeader().wrap(buffer, EthernetHeader.LENGTH + Ipv4Header.LENGTH)
            .sourcePort(UdpHeader.ROCE_V2_PORT)
            .destinationPort(UdpHeader.ROCE_V2_PORT)
            .datagramLength(UdpHeader.LENGTH + udpPayload)
            .checksum(0);
        return bytes;
    }

    /**
     * An Ethernet + IPv6 + UDP frame to port 4791 with a zero payload: traffic class and flow label 0 and hop limit
     * 64, as the pcap link writes them (rxe_net.c prepare_ipv6_hdr); UDP checksum 0, as RoCEv2 frames carry.
     */
    private static byte[] frame6(final long sourceMac, final long destinationMac, final Gid source,
        final Gid destination, final int udpPayload)
    {
        final int length = EthernetHeader.LENGTH + Ipv6Header.LENGTH + UdpHeader.LENGTH + udpPayload;
        final byte[] bytes = new byte[length];
        final UnsafeBuffer buffer = new UnsafeBuffer(bytes);
        new EthernetHeader().wrap(buffer, 0).destination(destinationMac).source(sourceMac)
            .etherType(EthernetHeader.ETHERTYPE_IPV6);
        new Ipv6Header().wrap(buffer, EthernetHeader.LENGTH)
            .versionClassFlow(0, 0)
            .payloadLength(UdpHeader.LENGTH + udpPayload)
            .nextHeader(Ipv6Header.NEXT_HEADER_UDP)
            .hopLimit(64)
            .source(source.high(), source.low())
            .destination(destination.high(), destination.low());
        new UdpHeader().wrap(buffer, EthernetHeader.LENGTH + Ipv6Header.LENGTH)
            .sourcePort(UdpHeader.ROCE_V2_PORT)
            .destinationPort(UdpHeader.ROCE_V2_PORT)
            .datagramLength(UdpHeader.LENGTH + udpPayload)
            .checksum(0);
        return bytes;
    }
}
