package org.roce4j.conform;

import java.util.Objects;
import java.util.function.Predicate;

import org.roce4j.wire.Opcode;
import org.roce4j.wire.header.AethHeader;

/**
 * A predicate over captured frames with a description, so a failed expectation says what it waited for.
 *
 * @param description e.g. {@code "NAK PSN sequence error"}.
 * @param test        the predicate.
 */
public record FrameFilter(String description, Predicate<CapturedFrame> test)
{
    /**
     * @param description what the filter matches.
     * @param test        the predicate.
     */
    public FrameFilter
    {
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(test, "test");
    }

    /**
     * @param frame a captured frame.
     * @return true when it matches.
     */
    public boolean matches(final CapturedFrame frame)
    {
        return test.test(frame);
    }

    /**
     * @param other another filter.
     * @return a filter matching frames either matches.
     */
    public FrameFilter or(final FrameFilter other)
    {
        return new FrameFilter(description + " or " + other.description, f -> test.test(f) || other.test.test(f));
    }

    /**
     * @param other another filter.
     * @return a filter matching frames both match.
     */
    public FrameFilter and(final FrameFilter other)
    {
        return new FrameFilter(description + " and " + other.description, f -> test.test(f) && other.test.test(f));
    }

    /**
     * @return every frame.
     */
    public static FrameFilter any()
    {
        return new FrameFilter("any frame", f -> true);
    }

    /**
     * @param opcode a BTH opcode.
     * @return frames with it.
     */
    public static FrameFilter opcode(final Opcode opcode)
    {
        return new FrameFilter(opcode.toString(), f -> opcode == f.opcode());
    }

    /**
     * @param psn a PSN.
     * @return frames with it.
     */
    public static FrameFilter psn(final int psn)
    {
        return new FrameFilter("psn=0x" + Integer.toHexString(psn), f -> psn == f.psn());
    }

    /**
     * @return ACKNOWLEDGE frames whose AETH is a positive ACK.
     */
    public static FrameFilter ack()
    {
        return new FrameFilter("ACK", CapturedFrame::isAck);
    }

    /**
     * @return frames carrying any AETH (ACK, NAK, RNR NAK, READ responses with AETH, atomic ACKs).
     */
    public static FrameFilter anyAeth()
    {
        return new FrameFilter("any frame with an AETH", f -> f.syndrome() >= 0);
    }

    /**
     * @param code the NAK code.
     * @return NAKs with that code.
     */
    public static FrameFilter nak(final AethHeader.NakCode code)
    {
        return new FrameFilter("NAK " + code, f -> f.isNak() && code.code() == AethHeader.value(f.syndrome()));
    }

    /**
     * @return RNR NAKs, whatever their timer.
     */
    public static FrameFilter rnrNak()
    {
        return new FrameFilter("RNR NAK", CapturedFrame::isRnrNak);
    }

    /**
     * @return requests (opcodes the requester sends: SEND, WRITE, READ request, atomics).
     */
    public static FrameFilter request()
    {
        return new FrameFilter("request", f -> null != f.opcode() && f.opcode().isRequest());
    }
}
