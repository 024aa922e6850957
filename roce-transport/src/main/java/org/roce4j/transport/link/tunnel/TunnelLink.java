package org.roce4j.transport.link.tunnel;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;

import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.transport.link.FrameHandler;
import org.roce4j.transport.link.FrameTap;
import org.roce4j.transport.link.Link;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.transport.link.LinkCounter;
import org.roce4j.transport.link.LinkCounters;
import org.roce4j.transport.link.capture.PcapngRecorder;
import org.roce4j.transport.link.ethernet.EthernetLayer;
import org.roce4j.transport.link.ethernet.NeighbourState;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.addr.Mac;
import org.roce4j.wire.header.EthernetHeader;

/**
 * Ethernet frames carried one per UDP datagram, compatible with QEMU's {@code -netdev dgram} backend: the link
 * binds {@code BIND_HOST:BIND_PORT} and sends every frame to {@code PEER_HOST:PEER_PORT}, and QEMU does the same
 * the other way, so a guest's NIC and this link share one virtual Ethernet segment without root, taps or
 * namespaces. The link sees and sends whole frames, so it keeps every header byte (ICRCs are checked on real
 * bytes: {@link #verifiesIcrc()} is true).
 *
 * <p><b>Layer 2</b> is the shared {@link EthernetLayer}: the link owns its addresses (IPv4 and/or IPv6,
 * {@link TunnelLinkConfig}) and MAC, answers ARP and Neighbor Solicitations for them, resolves peers by ARP or
 * Neighbor Discovery (or sends every frame to the configured {@code peer-mac}), holds frames while it does, and
 * filters what arrives. What is the tunnel's own is its socket ({@link TunnelSocket}).
 *
 * <p><b>No allocation per frame.</b> Frames are built in place in a direct send ring ({@link #tryClaim},
 * {@link #commit}) and leave on {@link #flush()}; {@link #poll} receives into one direct buffer, which the handler
 * sees directly.
 *
 * <p><b>Recording.</b> With {@code pcap=FILE} every frame sent and received (ARP and ND included) is written to a
 * pcapng file with its direction as it crosses the socket, by the same recorder {@code --pcap} uses
 * ({@link PcapngRecorder}); the file is flushed and closed by {@link #close()}, which throws if it could not be
 * written.
 *
 * <p><b>Time.</b> Resolution retries and timestamps use the {@link NanoClock} given to
 * {@link #open(TunnelLinkConfig, NanoClock)} and are driven from {@link #flush()} and {@link #poll}; the link has no
 * thread of its own. Threading as {@link Link}: one thread drives it; {@link #counters()} and {@link #close()} may be
 * called from any thread.
 */
public final class TunnelLink implements Link
{
    /** Link-layer bytes a frame may carry beyond the IP MTU: an Ethernet header with an 802.1Q tag. */
    public static final int MAX_L2_OVERHEAD = EthernetHeader.VLAN_LENGTH;

    /** Datagrams not delivered to the handler (ARP, filtered) processed per poll before returning, to bound it. */
    private static final int MAX_UNDELIVERED_PER_POLL = 64;
    /** Slots are aligned to a cache line so every frame starts aligned. */
    private static final int SLOT_ALIGNMENT = 64;

    private static final byte SLOT_FREE = 0;
    private static final byte SLOT_CLAIMED = 1;
    private static final byte SLOT_COMMITTED = 2;
    private static final byte SLOT_ABORTED = 3;

    private final TunnelLinkConfig config;
    private final String name;
    private final LinkCounters counters = new LinkCounters();
    private final NanoClock nanoClock;
    private final TunnelSocket socket;
    private final EthernetLayer layer;
    private final PcapngRecorder recorder;
    private final int maxFrameLength;
    private final int slotSize;

    private final UnsafeBuffer sendBuffer;
    private final byte[] slotState;
    private final int[] slotLength;
    private final int[] slotClaimed;
    private int claimIndex;
    private int sendIndex;
    private int slotsInUse;

    private final UnsafeBuffer receiveBuffer;
    private final ByteBuffer receiveView;
    private final AtomicBoolean closed = new AtomicBoolean();

    private TunnelLink(final TunnelLinkConfig config, final NanoClock nanoClock) throws IOException
    {
        this.config = config;
        this.nanoClock = nanoClock;
        maxFrameLength = config.mtu() + MAX_L2_OVERHEAD;
        slotSize = (maxFrameLength + SLOT_ALIGNMENT - 1) & -SLOT_ALIGNMENT;
        final int ringFrames = config.ringFrames();
        sendBuffer = new UnsafeBuffer(ByteBuffer.allocateDirect(ringFrames * slotSize));
        slotState = new byte[ringFrames];
        slotLength = new int[ringFrames];
        slotClaimed = new int[ringFrames];
        final ByteBuffer receive = ByteBuffer.allocateDirect(TunnelSocket.MAX_DATAGRAM_LENGTH + 1);
        receiveBuffer = new UnsafeBuffer(receive);
        receiveView = receive.duplicate();

        socket = TunnelSocket.open(config, counters);
        PcapngRecorder opened = null;
        try
        {
            this.name = "tunnel:" + config.bindHost() + ":" + socket.localPort() + "->" + config.peerHost() + ":" +
                config.peerPort();
            if (null != config.pcap())
            {
                opened = PcapngRecorder.create(config.pcap(), name, nanoClock);
            }
            this.recorder = opened;
            this.layer = new EthernetLayer(name, config.address(), config.peerMac(), config.neighbours(),
                maxFrameLength, socket, counters, nanoClock::nanoTime);
            if (null != opened)
            {
                layer.tap(opened);
            }
        }
        catch (final IOException ex)
        {
            socket.close();
            throw new IOException("tunnel link " + ex.getMessage(), ex);
        }
        catch (final RuntimeException ex)
        {
            socket.close();
            if (null != opened)
            {
                opened.close();
            }
            throw ex;
        }
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
     * @throws IllegalArgumentException when a host name does not resolve, or the config asks for loss (applied by
     *                                  {@code LinkSpecs.open}, which wraps the link in a {@code FaultyLink}).
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
     * @param nanoClock time source for resolution retries and pcap timestamps.
     * @return the open link.
     * @throws IllegalArgumentException when a host name does not resolve, or the config asks for loss.
     * @throws IOException              when the socket cannot be bound or the pcap file cannot be created.
     */
    public static TunnelLink open(final TunnelLinkConfig config, final NanoClock nanoClock) throws IOException
    {
        if (config.loss() > 0)
        {
            throw new IllegalArgumentException("tunnel link " + config.toSpec() + ": loss= is a drop rule of a " +
                "FaultyLink; open the spec with LinkSpecs.open, or wrap the link in link.fault.FaultyLink");
        }
        return new TunnelLink(config, nanoClock);
    }

    /** {@inheritDoc} */
    public String name()
    {
        return name;
    }

    /** {@inheritDoc} */
    public LinkAddress address()
    {
        return config.address();
    }

    /** {@inheritDoc} */
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
        return socket.localPort();
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

    /** {@inheritDoc} */
    public boolean tapFrames(final FrameTap tap)
    {
        layer.tap(tap);
        return true;
    }

    /** {@inheritDoc} */
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

    /** {@inheritDoc} */
    public MutableDirectBuffer sendBuffer()
    {
        return sendBuffer;
    }

    /** {@inheritDoc} */
    public void commit(final int index, final int length)
    {
        final int slot = claimedSlot(index);
        if (length < EthernetHeader.LENGTH || length > slotClaimed[slot])
        {
            throw new IllegalArgumentException("commit of " + length + " bytes at index " + index + ": the claim was " +
                slotClaimed[slot] + " bytes and a frame needs at least " + EthernetHeader.LENGTH);
        }
        slotLength[slot] = length;
        slotState[slot] = SLOT_COMMITTED;
    }

    /** {@inheritDoc} */
    public void abort(final int index)
    {
        slotState[claimedSlot(index)] = SLOT_ABORTED;
    }

    /**
     * Send frames held for resolution whose destination is now known, then the committed frames of the ring in
     * claim order (stopping at a frame still being built), then any request that is due.
     *
     * @return frames handed to the socket.
     */
    public int flush()
    {
        if (closed.get())
        {
            return 0;
        }
        final long sentBefore = counters.get(LinkCounter.FRAMES_SENT);
        layer.service();
        while (slotsInUse > 0)
        {
            final int slot = sendIndex;
            final byte state = slotState[slot];
            if (SLOT_CLAIMED == state)
            {
                break;
            }
            if (SLOT_COMMITTED == state && EthernetLayer.RETRY == layer.send(sendBuffer, slot * slotSize,
                slotLength[slot]))
            {
                break;
            }
            slotState[slot] = SLOT_FREE;
            sendIndex = next(slot, slotState.length);
            slotsInUse--;
        }
        return (int)(counters.get(LinkCounter.FRAMES_SENT) - sentBefore);
    }

    /** {@inheritDoc} */
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
            final int length = socket.receive(receiveView);
            if (length < 0)
            {
                break;
            }
            if (length > TunnelSocket.MAX_DATAGRAM_LENGTH)
            {
                counters.increment(LinkCounter.RECEIVE_ERRORS);
                undelivered++;
            }
            else if (layer.receive(receiveBuffer, 0, length))
            {
                handler.onFrame(receiveBuffer, 0, length);
                delivered++;
            }
            else
            {
                undelivered++;
            }
        }
        layer.service();
        if (0 == delivered)
        {
            socket.countDrops(nanoClock.nanoTime());
        }
        return delivered;
    }

    /** {@inheritDoc} */
    public LinkCounters counters()
    {
        return counters;
    }

    /**
     * @return frames waiting for resolution right now.
     */
    public int heldFrameCount()
    {
        return layer.heldFrames();
    }

    /**
     * The MAC frames to an IPv4 address would carry now.
     *
     * @param ip IPv4 address as a big-endian int.
     * @return the MAC, or {@link Mac#NONE} when it is not resolved (yet).
     */
    public long resolvedMac(final int ip)
    {
        return layer.resolvedMac(Gid.IPV4_MAPPED_HIGH, Gid.ipv4MappedLow(ip));
    }

    /**
     * The MAC frames to an address would carry now.
     *
     * @param peer an IPv4 (mapped) or IPv6 address.
     * @return the MAC, or {@link Mac#NONE} when it is not resolved (yet).
     */
    public long resolvedMac(final Gid peer)
    {
        return layer.resolvedMac(peer.high(), peer.low());
    }

    /**
     * @param peer an IPv4 (mapped) or IPv6 address.
     * @return what the link knows about its MAC.
     */
    public NeighbourState neighbourState(final Gid peer)
    {
        return layer.state(peer.high(), peer.low());
    }

    /**
     * Start resolving an IPv4 address now, before any frame needs it; the first request goes out at once. Nothing
     * happens when it is resolved, being resolved, or a peer MAC is configured.
     *
     * @param ip IPv4 address.
     */
    public void resolve(final int ip)
    {
        layer.resolve(ip);
    }

    /** {@inheritDoc} */
    public void resolve(final long high, final long low)
    {
        layer.resolve(high, low);
    }

    /** {@inheritDoc} */
    public void joinGroup(final long high, final long low)
    {
        layer.joinGroup(high, low);
    }

    /** {@inheritDoc} */
    public void leaveGroup(final long high, final long low)
    {
        layer.leaveGroup(high, low);
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
        socket.close();
        if (null != recorder)
        {
            recorder.close();
        }
    }

    /**
     * @return e.g. {@code tunnel:127.0.0.1:5000->127.0.0.1:5001 mac=... ip=...}.
     */
    public String toString()
    {
        return name + " " + config.address();
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
}
