package org.roce4j.transport.link.memory;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.NanoClock;
import org.roce4j.transport.link.FrameHandler;
import org.roce4j.transport.link.LinkCounter;
import org.roce4j.transport.link.LinkCounters;
import org.roce4j.transport.link.fault.DelayLine;

/**
 * A {@link MemoryLink} port's inbound ring and its two record types: senders (any port's thread) write a frame to
 * deliver at once, or a delayed frame behind its due time; the port's {@link MemoryLink#poll} reads them, delivering
 * immediate and due frames in place and moving delayed frames not due yet into the port's {@link DelayLine}.
 */
final class InboundRing implements FrameRing.RecordHandler
{
    /** Ring record type of a frame to deliver at once. */
    static final int TYPE_FRAME = 1;
    /** Ring record type of a frame preceded by the 8-byte fabric clock time it becomes due. */
    static final int TYPE_DELAYED_FRAME = 2;
    /** Length of the due time in front of a delayed frame; a long keeps the frame 8-byte aligned in the ring. */
    static final int DUE_TIME_LENGTH = Long.BYTES;

    private final MemoryLink port;
    private final FrameRing ring;
    private final MutableDirectBuffer ringBuffer;
    private final DelayLine delayLine;
    private final NanoClock clock;
    private final LinkCounters counters;
    private final FabricCounters fabricCounters;
    private FrameHandler handler;
    private int maxFrames;
    private int delivered;
    private int budget;
    private boolean nowKnown;
    private long nowNs;

    InboundRing(final MemoryLink port, final FrameRing ring, final DelayLine delayLine, final NanoClock clock,
        final LinkCounters counters, final FabricCounters fabricCounters)
    {
        this.port = port;
        this.ring = ring;
        this.ringBuffer = ring.buffer();
        this.delayLine = delayLine;
        this.clock = clock;
        this.counters = counters;
        this.fabricCounters = fabricCounters;
    }

    /**
     * Called by the sending port's thread: write a frame into this port's inbound ring.
     *
     * @return false when the ring is full.
     */
    boolean enqueue(
        final DirectBuffer buffer, final int offset, final int length, final boolean delayed, final long dueNs)
    {
        if (delayed)
        {
            final int index = ring.tryClaim(TYPE_DELAYED_FRAME, DUE_TIME_LENGTH + length);
            if (index < 0)
            {
                return false;
            }
            // Native byte order: the due time is the fabric's own bookkeeping, never on a wire.
            ringBuffer.putLong(index, dueNs);
            ringBuffer.putBytes(index + DUE_TIME_LENGTH, buffer, offset, length);
            ring.commit(index);
        }
        else
        {
            final int index = ring.tryClaim(TYPE_FRAME, length);
            if (index < 0)
            {
                return false;
            }
            ringBuffer.putBytes(index, buffer, offset, length);
            ring.commit(index);
        }
        return true;
    }

    /**
     * Deliver immediate frames and due delayed frames in place; move delayed frames not due yet into the hold area.
     *
     * @param handler   called once per frame.
     * @param maxFrames most frames to deliver.
     * @param clockRead whether clockNs holds this poll's clock reading.
     * @param clockNs   the poll's clock reading, when read.
     * @return frames delivered.
     */
    int read(final FrameHandler handler, final int maxFrames, final boolean clockRead, final long clockNs)
    {
        this.handler = handler;
        this.maxFrames = maxFrames;
        this.delivered = 0;
        // Bound the records looked at per poll: frames to deliver plus a hold area's worth of delayed ones.
        this.budget = maxFrames + delayLine.capacity();
        this.nowKnown = clockRead;
        this.nowNs = clockNs;
        try
        {
            ring.read(this, budget);
        }
        finally
        {
            this.handler = null;
        }
        return delivered;
    }

    /** {@inheritDoc} */
    public boolean onRecord(final int msgTypeId, final MutableDirectBuffer buffer, final int index,
        final int length)
    {
        budget--;
        if (TYPE_FRAME == msgTypeId)
        {
            deliver(buffer, index, length);
        }
        else if (TYPE_DELAYED_FRAME == msgTypeId)
        {
            final long dueNs = buffer.getLong(index);
            if (!nowKnown)
            {
                nowNs = clock.nanoTime();
                nowKnown = true;
            }
            final int frameLength = length - DUE_TIME_LENGTH;
            if (dueNs - nowNs <= 0)
            {
                deliver(buffer, index + DUE_TIME_LENGTH, frameLength);
            }
            else if (!delayLine.hold(buffer, index + DUE_TIME_LENGTH, frameLength, dueNs))
            {
                fabricCounters.increment(FabricCounter.HOLD_OVERFLOW);
                counters.increment(LinkCounter.RECEIVE_ERRORS);
            }
        }
        return delivered < maxFrames && budget > 0;
    }

    private void deliver(final MutableDirectBuffer buffer, final int index, final int length)
    {
        port.countReceived(length);
        delivered++;
        handler.onFrame(buffer, index, length);
    }
}
