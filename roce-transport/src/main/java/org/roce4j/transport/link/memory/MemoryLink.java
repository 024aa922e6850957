package org.roce4j.transport.link.memory;

import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.transport.link.FrameHandler;
import org.roce4j.transport.link.FrameTap;
import org.roce4j.transport.link.FrameTaps;
import org.roce4j.transport.link.Link;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.transport.link.LinkCounter;
import org.roce4j.transport.link.LinkCounters;
import org.roce4j.transport.link.fault.DelayLine;
import org.roce4j.transport.link.fault.FaultInjector;
import org.roce4j.transport.link.fault.FrameView;
import org.roce4j.transport.link.fault.ReorderBuffer;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.addr.Mac;
import org.roce4j.wire.header.EthernetHeader;
import org.roce4j.wire.header.Ipv4Header;

import static java.nio.ByteOrder.BIG_ENDIAN;

/**
 * One port of a {@link MemoryFabric}: a {@link Link} whose medium is the in-memory switch.
 *
 * <p>Sending: {@link #tryClaim(int)} hands out the port's staging area (one claim at a time); {@link #commit(int,
 * int)} routes the frame on its destination IP (or, failing that, its destination MAC; a multicast group goes to every
 * other port, with the group's MAC), writes the destination port's MAC into it, applies this port's
 * {@link #faults()} and copies it into the destination port's inbound ring: the one copy of the "wire". Nothing
 * waits; a full destination ring, an unknown destination or an oversized frame drops the frame and counts it (see
 * {@link FabricCounter}). {@link #flush()} only releases reordered frames whose wait has expired.
 *
 * <p>Receiving: {@link #poll(FrameHandler, int)} hands frames to the handler straight from the inbound ring (no
 * copy), first any delayed frames that have become due.
 *
 * <p>Threading: one thread drives the port (claims, commits, polls, changes its faults); any number of other ports
 * on other threads may send to it concurrently, since the inbound ring is a lock-free many-to-one ring
 * ({@link FrameRing}).
 * {@link #counters()}, {@link #fabricCounters()} and {@link #close()} may be used from any thread.
 */
public final class MemoryLink implements Link
{
    /** Alignment of the staging area and the ring memory: a cache line. */
    private static final int MEMORY_ALIGNMENT = 64;

    private final MemoryFabric fabric;
    private final LinkAddress address;
    private final int mtu;
    private final int maxFrameLength;
    private final String name;
    private final NanoClock clock;
    private final InboundRing inbound;
    private final UnsafeBuffer staging;
    /** The frame being flooded as it was committed: each port's copy starts from it (faults change the staging). */
    private final UnsafeBuffer floodPristine;
    private final LinkCounters counters = new LinkCounters();
    private final FabricCounters fabricCounters = new FabricCounters();
    private final FaultInjector faults;
    private final FrameView frame = new FrameView();
    private final DelayLine delayLine;
    private final ReorderBuffer<MemoryLink> reorderBuffer;
    private final ReorderBuffer.Release<MemoryLink> release = this::forward;
    private final FrameTaps taps = new FrameTaps();
    private final FrameHandler tapping = this::onTapped;
    private FrameHandler tappedHandler;
    private volatile boolean closed;
    private boolean claimed;
    private int claimedLength;
    private int sentSinceFlush;

    MemoryLink(
        final MemoryFabric fabric,
        final LinkAddress address,
        final int mtu,
        final int ringCapacityBytes,
        final int delaySlots,
        final int reorderSlots)
    {
        this.fabric = fabric;
        this.address = address;
        this.mtu = mtu;
        this.maxFrameLength = maxFrameLength(mtu);
        final Gid first = address.ips().get(0);
        this.name = "memory:" + (first.isIpv4Mapped() ? Ipv4Header.addressToString(first.ipv4()) : first.toString());
        this.clock = fabric.clock();
        this.staging = new UnsafeBuffer(BufferUtil.allocateDirectAligned(maxFrameLength, MEMORY_ALIGNMENT));
        this.floodPristine = new UnsafeBuffer(new byte[maxFrameLength]);
        this.faults = new FaultInjector(clock, counters, FaultInjector.DEFAULT_SEED ^ (address.ipv4() & 0xFFFF_FFFFL));
        this.delayLine = new DelayLine(delaySlots, maxFrameLength);
        this.inbound = new InboundRing(this, new FrameRing(ringCapacityBytes), delayLine, clock, counters,
            fabricCounters);
        this.reorderBuffer = new ReorderBuffer<>(reorderSlots, maxFrameLength);
    }

    /**
     * @param mtu IP MTU.
     * @return longest Ethernet frame (without FCS) a port with this MTU carries: the MTU plus an 802.1Q tagged
     *     Ethernet header.
     */
    static int maxFrameLength(final int mtu)
    {
        return mtu + EthernetHeader.VLAN_LENGTH;
    }

    /** {@inheritDoc} */
    public String name()
    {
        return name;
    }

    /** {@inheritDoc} */
    public LinkAddress address()
    {
        return address;
    }

    /** {@inheritDoc} */
    public int mtu()
    {
        return mtu;
    }

    /**
     * @return the longest frame {@link #tryClaim(int)} accepts: {@link #mtu()} plus 18 bytes of 802.1Q tagged
     *     Ethernet header.
     */
    public int maxFrameLength()
    {
        return maxFrameLength;
    }

    /**
     * @return true: frames arrive with exactly the bytes that were sent (unless corrupted on purpose).
     */
    public boolean verifiesIcrc()
    {
        return true;
    }

    /**
     * Claim the staging area. Only one claim may be outstanding: the engine builds one frame at a time.
     *
     * @param maxLength the most bytes the frame will need, 1 to {@link #maxFrameLength()}.
     * @return 0, the index of the staging area in {@link #sendBuffer()} (this link is never full).
     * @throws IllegalArgumentException when maxLength is outside 1 to {@link #maxFrameLength()}.
     * @throws IllegalStateException    when a claim is outstanding or the link is closed.
     */
    public int tryClaim(final int maxLength)
    {
        if (closed)
        {
            throw new IllegalStateException(name + " is closed");
        }
        if (claimed)
        {
            throw new IllegalStateException(
                "a claim is already outstanding on " + name + ": commit or abort it before claiming again");
        }
        if (maxLength < 1 || maxLength > maxFrameLength)
        {
            throw new IllegalArgumentException("frame length " + maxLength + " is outside 1.." + maxFrameLength +
                " on " + name + " (IP MTU " + mtu + " plus an 18-byte 802.1Q Ethernet header)");
        }
        claimed = true;
        claimedLength = maxLength;
        return 0;
    }

    /** {@inheritDoc} */
    public MutableDirectBuffer sendBuffer()
    {
        return staging;
    }

    /**
     * Send the claimed frame through the switch (see the class description).
     *
     * @param index  returned by {@link #tryClaim(int)}.
     * @param length actual length of the frame, 1 to the claimed maximum.
     * @throws IllegalStateException    when nothing is claimed at that index.
     * @throws IllegalArgumentException when length is outside 1 to the claimed maximum.
     */
    public void commit(final int index, final int length)
    {
        checkClaim(index, "commit");
        if (length < 1 || length > claimedLength)
        {
            throw new IllegalArgumentException(
                "commit length " + length + " is outside 1.." + claimedLength + " (the claimed length) on " + name);
        }
        claimed = false;
        counters.increment(LinkCounter.FRAMES_SENT);
        counters.add(LinkCounter.BYTES_SENT, length);
        egress(length);
    }

    /**
     * Give up the claim.
     *
     * @param index returned by {@link #tryClaim(int)}.
     * @throws IllegalStateException when nothing is claimed at that index.
     */
    public void abort(final int index)
    {
        checkClaim(index, "abort");
        claimed = false;
    }

    /**
     * Frames go to the destination ring at commit already; this releases reordered frames whose bound on waiting
     * has passed.
     *
     * @return frames written into destination rings since the last flush.
     */
    public int flush()
    {
        if (reorderBuffer.size() > 0 && !closed)
        {
            reorderBuffer.releaseExpired(release, clock.nanoTime());
        }
        final int sent = sentSinceFlush;
        sentSinceFlush = 0;
        return sent;
    }

    /**
     * Deliver received frames: delayed frames that have become due first (from the port's hold area), then frames
     * from the inbound ring, zero-copy. Also releases this port's reordered outgoing frames whose wait expired.
     *
     * @param handler   called once per frame.
     * @param maxFrames the most frames to deliver, at least 1.
     * @return frames delivered; 0 also once the link is closed.
     */
    public int poll(final FrameHandler handler, final int maxFrames)
    {
        if (maxFrames < 1)
        {
            throw new IllegalArgumentException("maxFrames must be at least 1: " + maxFrames);
        }
        if (closed)
        {
            return 0;
        }
        final FrameHandler target;
        if (taps.isEmpty())
        {
            target = handler;
        }
        else
        {
            tappedHandler = handler;
            target = tapping;
        }
        // One clock reading serves the whole poll, so every frame delivered by it was due by that time and every
        // frame left in the hold area was not: a frame that becomes due during the poll waits for the next one
        // instead of overtaking a held frame due earlier.
        final boolean needsClock = reorderBuffer.size() > 0 || delayLine.size() > 0;
        final long nowNs = needsClock ? clock.nanoTime() : 0;
        if (reorderBuffer.size() > 0)
        {
            reorderBuffer.releaseExpired(release, nowNs);
        }
        int delivered = 0;
        if (delayLine.size() > 0)
        {
            delivered = delayLine.deliverDue(nowNs, target, maxFrames, counters);
        }
        if (delivered < maxFrames)
        {
            delivered += inbound.read(target, maxFrames - delivered, needsClock, nowNs);
        }
        return delivered;
    }

    private void onTapped(final MutableDirectBuffer buffer, final int offset, final int length)
    {
        taps.onFrame(false, buffer, offset, length);
        tappedHandler.onFrame(buffer, offset, length);
    }

    /**
     * {@inheritDoc}
     *
     * <p>Outgoing frames are shown as they leave for the destination's ring (after this port's faults: once per
     * copy, never when dropped), incoming ones as they are delivered.
     */
    public boolean tapFrames(final FrameTap tap)
    {
        taps.add(tap);
        return true;
    }

    /** {@inheritDoc} */
    public LinkCounters counters()
    {
        return counters;
    }

    /**
     * @return why the switch did not deliver frames this port sent (or, for {@link FabricCounter#HOLD_OVERFLOW},
     *     received).
     */
    public FabricCounters fabricCounters()
    {
        return fabricCounters;
    }

    /**
     * @return the faults this port injects into the frames it sends; configure from the thread driving the port.
     */
    public FaultInjector faults()
    {
        return faults;
    }

    /**
     * Release every frame this port holds back for reordering now, whatever it waits for. For tests that end a
     * scenario; call from the thread driving the port.
     *
     * @return frames released.
     */
    public int releaseReordered()
    {
        return reorderBuffer.releaseAll(release);
    }

    /**
     * @return outgoing frames held back for reordering.
     */
    public int reorderedFrames()
    {
        return reorderBuffer.size();
    }

    /**
     * @return received delayed frames waiting to become due.
     */
    public int heldFrames()
    {
        return delayLine.size();
    }

    /**
     * @return true once closed.
     */
    public boolean isClosed()
    {
        return closed;
    }

    /**
     * Detach from the fabric: frames to this address are counted as unknown destinations from now on, frames
     * waiting in this port are discarded, and the address may be attached again. Idempotent.
     */
    public void close()
    {
        if (!closed)
        {
            closed = true;
            fabric.detach(this);
        }
    }

    /**
     * @return e.g. {@code memory:10.0.0.1 mac=... ip=... mtu=1500}.
     */
    public String toString()
    {
        return name + " " + address + " mtu=" + mtu + (closed ? " closed" : "");
    }

    private void checkClaim(final int index, final String operation)
    {
        if (!claimed)
        {
            throw new IllegalStateException(operation + " without an outstanding claim on " + name);
        }
        if (0 != index)
        {
            throw new IllegalStateException(operation + " of index " + index + " but the claim is at 0 on " + name);
        }
    }

    private void egress(final int length)
    {
        final FrameView frame = this.frame;
        frame.wrap(staging, 0, length);
        final RouteTable routes = fabric.routes();
        final int ipVersion = frame.ipVersion();
        if ((4 == ipVersion && Gid.isIpv4Multicast(frame.destinationIpv4())) ||
            (6 == ipVersion && Gid.isMulticast(frame.destinationHigh())))
        {
            flood(routes, length);
            return;
        }
        MemoryLink destination = null;
        if (4 == ipVersion)
        {
            destination = routes.byIpv4(frame.destinationIpv4());
        }
        else if (6 == ipVersion)
        {
            destination = routes.byIpv6(frame.destinationHigh(), frame.destinationLow());
        }
        if (null == destination && 0 != frame.ethernetLength())
        {
            // Layer-2 switching for what IP routing cannot place: lets tests hand a port frames with a foreign
            // destination IP or a non-IP EtherType, addressed to its MAC, to check how the receiver drops them.
            destination = routes.byMac(staging.getLong(EthernetHeader.DESTINATION_OFFSET, BIG_ENDIAN) >>> 16);
        }
        if (null == destination)
        {
            fabricCounters.increment(
                0 != ipVersion ? FabricCounter.UNKNOWN_DESTINATION : FabricCounter.NOT_ROUTABLE);
            counters.increment(LinkCounter.SEND_UNRESOLVED);
            return;
        }
        // The switch owns layer 2: the engine never resolves MACs over this fabric.
        sendTo(destination, length, destination.address.mac());
    }

    /**
     * A multicast frame goes to every other port, as a switch without IGMP/MLD snooping floods it; each receiver's
     * engine keeps what its QPs joined (the group table) and counts the rest. The destination MAC is the group's
     * (RFC 1112 / RFC 2464). Each copy meets this port's faults on its own, as separate frames would: the faults
     * corrupt, mark and rewrite the staging area in place, so with faults on each copy after the first starts again
     * from the frame as committed (kept in {@link #floodPristine}: one copy per extra port, no allocation).
     */
    private void flood(final RouteTable routes, final int length)
    {
        final long mac = 4 == frame.ipVersion() ?
            Mac.ofMulticastGroup(Gid.IPV4_MAPPED_HIGH, Gid.ipv4MappedLow(frame.destinationIpv4())) :
            Mac.ofMulticastGroup(frame.destinationHigh(), frame.destinationLow());
        final boolean restore = faults.isActive();
        if (restore)
        {
            floodPristine.putBytes(0, staging, 0, length);
        }
        boolean first = true;
        for (int i = 0, ports = routes.size(); i < ports; i++)
        {
            final MemoryLink port = routes.port(i);
            if (this != port)
            {
                if (restore && !first)
                {
                    staging.putBytes(0, floodPristine, 0, length);
                }
                first = false;
                sendTo(port, length, mac);
            }
        }
    }

    private void sendTo(final MemoryLink destination, final int length, final long mac)
    {
        final int ipBytes = length - frame.ethernetLength();
        if (ipBytes > mtu || ipBytes > destination.mtu)
        {
            fabricCounters.increment(FabricCounter.OVERSIZE);
            counters.increment(LinkCounter.SEND_ERRORS);
            return;
        }
        staging.putShort(EthernetHeader.DESTINATION_OFFSET, (short)(mac >>> 32), BIG_ENDIAN);
        staging.putInt(EthernetHeader.DESTINATION_OFFSET + 2, (int)mac, BIG_ENDIAN);

        if (!faults.isActive())
        {
            forward(destination, staging, 0, length, false, 0);
        }
        else if (!egressWithFaults(destination, length))
        {
            return;
        }
        if (reorderBuffer.size() > 0)
        {
            reorderBuffer.onFrameSent(release);
        }
    }

    /**
     * @return true when the frame left the port now (so it counts as a later frame for reordered ones).
     */
    private boolean egressWithFaults(final MemoryLink destination, final int decidedLength)
    {
        faults.decide(frame, staging, 0, decidedLength, destination.address.ipv4());
        if (faults.dropped())
        {
            return false;
        }
        // A rewrite happens in the staging area itself, which holds a frame of up to maxFrameLength.
        final int length = faults.mutates() ? faults.mutateInPlace(staging, decidedLength) : decidedLength;
        final long extraNs = faults.verdictDelayNs();
        final boolean delayed = extraNs > 0;
        final int laterFrames = faults.reorderFrames();
        final long nowNs = delayed || laterFrames > 0 ? clock.nanoTime() : 0;
        final long dueNs = nowNs + extraNs;
        final int copies = faults.copies();
        if (laterFrames > 0)
        {
            if (reorderBuffer.hold(destination, staging, 0, length, laterFrames, copies,
                nowNs + faults.reorderMaxHoldNs(), delayed, dueNs))
            {
                counters.increment(LinkCounter.INJECTED_DELAYS);
                return false;
            }
            fabricCounters.increment(FabricCounter.REORDER_OVERFLOW);
        }
        if (delayed)
        {
            counters.increment(LinkCounter.INJECTED_DELAYS);
        }
        for (int i = 0; i < copies; i++)
        {
            forward(destination, staging, 0, length, delayed, dueNs);
        }
        return true;
    }

    /**
     * Copy a frame into a destination's inbound ring, counting the drop when it is full.
     */
    void forward(
        final MemoryLink destination,
        final DirectBuffer buffer,
        final int offset,
        final int length,
        final boolean delayed,
        final long dueNs)
    {
        if (destination.inbound.enqueue(buffer, offset, length, delayed, dueNs))
        {
            sentSinceFlush++;
            if (!taps.isEmpty())
            {
                taps.onFrame(true, buffer, offset, length);
            }
        }
        else
        {
            fabricCounters.increment(FabricCounter.DESTINATION_FULL);
            counters.increment(LinkCounter.SEND_BACK_PRESSURE);
        }
    }

    /**
     * Count a frame handed to the handler.
     *
     * @param length of the frame.
     */
    void countReceived(final int length)
    {
        counters.increment(LinkCounter.FRAMES_RECEIVED);
        counters.add(LinkCounter.BYTES_RECEIVED, length);
    }
}
