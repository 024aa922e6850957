package org.roce4j.transport.link.sim;

import java.util.Arrays;

import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.NanoClock;
import org.roce4j.transport.link.FrameHandler;
import org.roce4j.transport.link.Link;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.transport.link.LinkCounter;
import org.roce4j.transport.link.LinkCounters;
import org.roce4j.wire.header.EthernetHeader;
import org.roce4j.wire.header.Ipv4Header;

/**
 * One port of a {@link SimSwitch}, as its attached endpoint sees it: a {@link Link} whose sends are serialized at the
 * line rate by the host's NIC, and whose receives are the frames the switch's output queue for this port delivered,
 * once they have arrived. Also the port's side of the switch: its output queue, counters and samples.
 *
 * <p>Sending: {@link #tryClaim(int)} hands out room in the NIC's transmit queue: -1 (back-pressure, counted) while
 * {@code hostQueueFrames} frames have not finished serializing, and from {@link #nicRoomNs()} on again. Frames already
 * on the wire (their propagation delay) no longer count: the queue is what the NIC holds between the engine (and its
 * DCQCN pacer) and the wire, which on a NIC is a frame or two, as the pacer gates the wire itself (HPCC's simulator
 * takes a QP's next packet only when the link is idle). {@link #commit(int, int)} queues the frame behind the ones
 * the NIC is still serializing. Receiving: {@link #poll(FrameHandler, int)} hands over, in place, the frames whose last
 * bit has arrived by the clock's time. Both move the switch on first ({@link SimSwitch#advance(long)}).
 *
 * <p>Threading: the thread driving the switch (see {@link SimSwitch}). {@link #counters()} and
 * {@link #switchCounters()} may be read from any thread.
 */
public final class SwitchPort implements Link
{
    final FrameFifo up;
    final FrameFifo queue;
    final FrameFifo down;
    final SwitchCounters switchCounters = new SwitchCounters();
    /** Bytes the output queue sent toward this host, by the number of the port they came from. */
    final long[] forwardedBySource = new long[SimSwitch.MAX_PORTS];
    long portFreeNs;
    long maxQueueBytes;

    private final SimSwitch sw;
    private final int number;
    private final LinkAddress address;
    private final int mtu;
    private final int maxFrameLength;
    /** When each of the last {@code hostQueueFrames} frames finished serializing, a ring: the NIC's queue. */
    private final long[] nicDoneNs;
    private final String name;
    private final NanoClock clock;
    private final LinkCounters counters = new LinkCounters();
    private long nicFreeNs;
    /** The ring slot of {@link #nicDoneNs} the next frame takes: the oldest of the last frames. */
    private int nicNext;
    private int claimIndex = -1;
    private int[] samples = new int[0];
    private boolean closed;

    SwitchPort(
        final SimSwitch sw,
        final int number,
        final LinkAddress address,
        final int mtu,
        final int hostQueueFrames,
        final long wireBytes,
        final long bufferBytes,
        final int hostRxBytes)
    {
        this.sw = sw;
        this.number = number;
        this.address = address;
        this.mtu = mtu;
        this.maxFrameLength = mtu + EthernetHeader.VLAN_LENGTH;
        this.nicDoneNs = new long[hostQueueFrames];
        Arrays.fill(nicDoneNs, Long.MIN_VALUE);
        this.name = "sim:" + Ipv4Header.addressToString(address.ipv4());
        this.clock = sw.clock();
        final int record = FrameFifo.recordLength(maxFrameLength);
        // The up ring holds the NIC's queue and the frames on the wire to the switch (at most its bytes in flight plus
        // one frame, with their record headers: twice the bytes covers frames down to 32 bytes).
        this.up = new FrameFifo((int)Math.min(Integer.MAX_VALUE - 64,
            (hostQueueFrames + 2L) * record + 2 * (wireBytes + record)) & ~7);
        // Two ring bytes per queued byte: the 16-byte record header of a minimum frame is a third of it.
        this.queue = new FrameFifo((int)Math.min(Integer.MAX_VALUE - 64, 2 * bufferBytes + 2L * record) & ~7);
        this.down = new FrameFifo(hostRxBytes + 2 * record);
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
     * @return true: frames arrive with the bytes that were sent (the switch changes only masked fields: the
     *     destination MAC, the ECN bits and the IPv4 checksum).
     */
    public boolean verifiesIcrc()
    {
        return true;
    }

    /**
     * Claim room in the host's NIC queue.
     *
     * @param maxLength the most bytes the frame needs, 1 to MTU + 18.
     * @return where to build it in {@link #sendBuffer()}, or -1 while the NIC queue is full (until
     *     {@link #nicRoomNs()}).
     * @throws IllegalArgumentException when maxLength is outside 1 to MTU + 18.
     * @throws IllegalStateException    when closed or a claim is outstanding.
     */
    public int tryClaim(final int maxLength)
    {
        if (closed)
        {
            throw new IllegalStateException(name + " is closed");
        }
        if (claimIndex >= 0)
        {
            throw new IllegalStateException("a claim is already outstanding on " + name);
        }
        if (maxLength < 1 || maxLength > maxFrameLength)
        {
            throw new IllegalArgumentException("frame length " + maxLength + " is outside 1.." + maxFrameLength +
                " on " + name);
        }
        final long nowNs = clock.nanoTime();
        int index = -1;
        if (nicDoneNs[nicNext] <= nowNs)
        {
            index = up.reserve(maxLength);
            if (index < 0)
            {
                // The ring is full of frames on the wire: the switch takes those that have arrived.
                sw.advance(nowNs);
                index = up.reserve(maxLength);
            }
        }
        if (index < 0)
        {
            counters.increment(LinkCounter.SEND_BACK_PRESSURE);
            return -1;
        }
        claimIndex = index;
        return index;
    }

    /** {@inheritDoc} */
    public MutableDirectBuffer sendBuffer()
    {
        return up.buffer();
    }

    /**
     * Queue the claimed frame in the NIC: it starts on the wire when the frames before it are out, and reaches the
     * switch one propagation delay after its last bit.
     *
     * @param index  from {@link #tryClaim(int)}.
     * @param length the frame's length.
     */
    public void commit(final int index, final int length)
    {
        if (index != claimIndex || index < 0)
        {
            throw new IllegalStateException("commit at " + index + " without that claim on " + name);
        }
        claimIndex = -1;
        final long nowNs = clock.nanoTime();
        final long startNs = Math.max(nowNs, nicFreeNs);
        nicFreeNs = startNs + sw.txNs(length);
        nicDoneNs[nicNext] = nicFreeNs;
        nicNext = nicNext + 1 == nicDoneNs.length ? 0 : nicNext + 1;
        final long arrivalNs = nicFreeNs + sw.propagationDelayNs();
        up.commit(arrivalNs, length, number);
        sw.scheduled(arrivalNs);
        counters.increment(LinkCounter.FRAMES_SENT);
        counters.add(LinkCounter.BYTES_SENT, length);
    }

    /**
     * @return when the NIC's queue takes a frame again: the time the oldest of its last {@code hostQueueFrames} frames
     *     finished or finishes serializing (at or before the clock's time while it has room).
     */
    public long nicRoomNs()
    {
        return nicDoneNs[nicNext];
    }

    /** {@inheritDoc} */
    public void abort(final int index)
    {
        if (index == claimIndex && index >= 0)
        {
            up.abort();
            claimIndex = -1;
        }
    }

    /**
     * Move the switch on to the clock's time; frames left at commit already.
     *
     * @return 0.
     */
    public int flush()
    {
        if (!closed)
        {
            sw.advance(clock.nanoTime());
        }
        return 0;
    }

    /**
     * Deliver the frames that have arrived at this host by the clock's time, in place.
     *
     * @param handler   called per frame.
     * @param maxFrames the most frames to deliver.
     * @return frames delivered.
     */
    public int poll(final FrameHandler handler, final int maxFrames)
    {
        if (closed)
        {
            return 0;
        }
        final long nowNs = clock.nanoTime();
        sw.advance(nowNs);
        int delivered = 0;
        while (delivered < maxFrames && !down.isEmpty() && down.headTime() <= nowNs)
        {
            final int length = down.headLength();
            counters.increment(LinkCounter.FRAMES_RECEIVED);
            counters.add(LinkCounter.BYTES_RECEIVED, length);
            handler.onFrame(down.buffer(), down.headIndex(), length);
            down.pop();
            delivered++;
        }
        return delivered;
    }

    /** {@inheritDoc} */
    public LinkCounters counters()
    {
        return counters;
    }

    /**
     * @return this port's switch counters: its output queue and what its host sent unroutably.
     */
    public SwitchCounters switchCounters()
    {
        return switchCounters;
    }

    /**
     * @return the port's number, in attach order from 0.
     */
    public int number()
    {
        return number;
    }

    /**
     * @return bytes of the frames in the output queue toward this host now.
     */
    public long queueBytes()
    {
        return queue.frameBytes();
    }

    /**
     * @param sourcePort a port's {@link #number()}.
     * @return bytes of the frames from that port that this port's output queue sent toward its host (a flow's
     *     throughput at the bottleneck, retransmissions included).
     */
    public long forwardedBytesFrom(final int sourcePort)
    {
        return forwardedBySource[sourcePort];
    }

    /**
     * @return the most bytes the output queue held.
     */
    public long maxQueueBytes()
    {
        return maxQueueBytes;
    }

    /**
     * @return the output queue's length at each sample, bytes ({@link SimSwitch#sampleIntervalNs()} apart from
     *     {@link SimSwitch#firstSampleNs()}).
     */
    public int[] queueSamples()
    {
        return Arrays.copyOf(samples, sw.sampleCount());
    }

    void addSample(final long queueBytes, final int at, final int initial)
    {
        if (at >= samples.length)
        {
            samples = Arrays.copyOf(samples, Math.max(initial, samples.length * 2));
        }
        samples[at] = (int)Math.min(Integer.MAX_VALUE, queueBytes);
    }

    /**
     * Detach from the switch: frames to this address are unroutable from now on. Idempotent.
     */
    public void close()
    {
        if (!closed)
        {
            closed = true;
            sw.detach(this);
            up.clear();
            down.clear();
        }
    }

    /**
     * @return e.g. {@code sim:10.0.0.1}.
     */
    public String toString()
    {
        return name;
    }
}
