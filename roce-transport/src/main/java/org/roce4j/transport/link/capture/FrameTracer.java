package org.roce4j.transport.link.capture;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Locale;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.transport.link.FrameTap;
import org.roce4j.transport.link.Link;
import org.roce4j.wire.decode.FrameDecoder;

/**
 * A {@link FrameTap} that prints one decoded line per frame as it happens, for {@code --trace}: the seconds since
 * the trace began, the direction ({@code tx} or {@code rx}), then roce-wire's one-line summary
 * ({@link FrameDecoder} in summary mode): addresses and UDP source port, opcode, QPN, PSN, AckReq, the RETH, AETH and
 * DETH fields that matter, the payload length and the ICRC status; ARP and Neighbor Discovery frames as who-has and
 * is-at lines. For example:
 * <pre>
 *     0.000412 tx 10.77.0.1:49169 -> 10.77.0.2 RC_SEND_ONLY qp=0x000011 psn=4214562 ackreq len=4096 icrc=ok
 *     0.000977 rx 10.77.0.2:49170 -> 10.77.0.1 RC_ACKNOWLEDGE qp=0x000012 psn=4214562 aeth=ACK msn=1 icrc=ok
 * </pre>
 * On a link that cannot verify ICRCs (the kernel UDP link) received frames say {@code icrc=unverified}.
 *
 * <p>A tool, not the data path: each line is formatted with allocation (the frame is copied before decoding so
 * nothing touches the link's buffer). Lines go to the {@link Appendable} one call each.
 */
public final class FrameTracer implements FrameTap
{
    private final FrameDecoder decoder;
    private final Appendable out;
    private final NanoClock clock;
    private final long startNs;
    private final boolean verifiesIcrc;
    private final UnsafeBuffer copy = new UnsafeBuffer(new byte[Link.MAX_IP_MTU + 64]);
    private long frames;

    /**
     * @param out          where lines go (e.g. {@code System.err}).
     * @param clock        time source of the line's seconds.
     * @param verifiesIcrc whether the traced link's received frames carry their real ICRC-covered headers.
     */
    public FrameTracer(final Appendable out, final NanoClock clock, final boolean verifiesIcrc)
    {
        this.out = out;
        this.clock = clock;
        this.startNs = clock.nanoTime();
        this.verifiesIcrc = verifiesIcrc;
        this.decoder = new FrameDecoder(out).summary(true).numbered(false);
    }

    /** {@inheritDoc} */
    public void onFrame(final boolean outgoing, final boolean dropped, final DirectBuffer buffer, final int offset,
        final int length)
    {
        frames++;
        final int captured = Math.min(length, copy.capacity());
        buffer.getBytes(offset, copy, 0, captured);
        try
        {
            out.append(String.format(Locale.ROOT, "%12.6f %s ", (clock.nanoTime() - startNs) / 1e9,
                outgoing ? "tx" : "rx"));
            if (dropped)
            {
                out.append("[dropped] ");
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        decoder.icrcUnverifiable(!outgoing && !verifiesIcrc);
        decoder.decode(frames, FrameDecoder.NO_TIMESTAMP, copy, 0, captured, length);
    }

    /**
     * @return frames traced so far.
     */
    public long frames()
    {
        return frames;
    }
}
