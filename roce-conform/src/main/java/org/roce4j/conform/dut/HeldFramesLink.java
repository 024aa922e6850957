package org.roce4j.conform.dut;

import java.util.ArrayDeque;
import java.util.Queue;

import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.transport.link.ForwardingLink;
import org.roce4j.transport.link.FrameHandler;
import org.roce4j.transport.link.Link;

/**
 * The conform peer's link to a DUT as requester: frames polled while the out-of-band exchange still ran (the DUT's
 * client starts its run the moment it has passed the barrier, maybe before the exchange's thread has returned here)
 * are held, and handed out first by the next {@link #poll}, so the scenario's capture misses none of the DUT's requests.
 * While a held frame is handed out, {@link #heldAtNs} says when it arrived: the testbed's clock then reads that time, so
 * the capture times the frame as it came, not as it was handed out (a retransmission is timed from it). Not closed by
 * its users: its owner closes the link it wraps.
 */
final class HeldFramesLink extends ForwardingLink
{
    private final Queue<byte[]> held = new ArrayDeque<>();
    private final Queue<Long> heldAt = new ArrayDeque<>();
    private long deliveringAtNs;

    /**
     * @param delegate the peer's raw link.
     */
    HeldFramesLink(final Link delegate)
    {
        super(delegate);
    }

    /**
     * @return a handler that keeps a copy of each frame for the next {@link #poll}.
     */
    FrameHandler holder()
    {
        return (buffer, offset, length) ->
        {
            final byte[] frame = new byte[length];
            buffer.getBytes(offset, frame);
            held.add(frame);
            heldAt.add(System.nanoTime());
        };
    }

    /**
     * Forget the frames held (a new connection's exchange begins: what came before it is no part of it).
     */
    void clear()
    {
        held.clear();
        heldAt.clear();
    }

    /**
     * @return when the held frame being handed out arrived (System.nanoTime), or 0 when none is.
     */
    long heldAtNs()
    {
        return deliveringAtNs;
    }

    @Override
    public int poll(final FrameHandler handler, final int maxFrames)
    {
        int polled = 0;
        while (polled < maxFrames && !held.isEmpty())
        {
            final byte[] frame = held.remove();
            deliveringAtNs = heldAt.remove();
            try
            {
                handler.onFrame(new UnsafeBuffer(frame), 0, frame.length);
            }
            finally
            {
                deliveringAtNs = 0;
            }
            polled++;
        }
        return polled < maxFrames ? polled + delegate.poll(handler, maxFrames - polled) : polled;
    }
}
