package org.roce4j.conform;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.roce4j.wire.Psn;
import org.roce4j.wire.header.AethHeader;

/**
 * Checkers over a scenario's capture: each reads the frames and returns findings, a violation where the DUT broke
 * the rule. Scenario steps run them through {@link Steps#check}.
 */
public final class Checkers
{
    /**
     * How late a retransmission may come, in local ACK timeouts: this checker's tolerance for timer granularity
     * (rxe's timers run in jiffies; a timer wheel rounds up), not a figure from the IBA.
     */
    public static final int LATE_RETRANSMISSION_FACTOR = 4;

    private Checkers()
    {
    }

    /**
     * The MSN the DUT's responder reports never decreases (IBA 9.7.5.1.1: the MSN counts completed messages).
     *
     * @param capture the capture.
     * @return one finding.
     */
    public static List<Finding> msnMonotonic(final Capture capture)
    {
        int last = -1;
        int count = 0;
        for (final CapturedFrame frame : capture.delivered(Direction.FROM_DUT))
        {
            if (frame.msn() >= 0)
            {
                count++;
                if (last >= 0 && Psn.compare(frame.msn(), last) < 0)
                {
                    return List.of(Finding.violation("MSN went back from " + last + " to " + frame.msn() +
                        " in frame #" + frame.index() + " " + frame.label()));
                }
                last = frame.msn();
            }
        }
        return List.of(Finding.ok("MSN never decreased over " + count + " AETHs"));
    }

    /**
     * The PSNs of the DUT's ACKs never go backwards (for scenarios without duplicates, which are re-ACKed with old
     * PSNs on purpose).
     *
     * @param capture the capture.
     * @return one finding.
     */
    public static List<Finding> ackPsnMonotonic(final Capture capture)
    {
        int last = -1;
        for (final CapturedFrame frame : capture.delivered(Direction.FROM_DUT))
        {
            if (frame.isAck())
            {
                if (last >= 0 && Psn.compare(frame.psn(), last) < 0)
                {
                    return List.of(Finding.violation("ACK PSN went back from 0x" + Integer.toHexString(last) +
                        " to 0x" + Integer.toHexString(frame.psn()) + " in frame #" + frame.index()));
                }
                last = frame.psn();
            }
        }
        return List.of(Finding.ok("ACK PSNs never went backwards"));
    }

    /**
     * Go-back-N: after frame {@code afterIndex}, the DUT's requests start again at {@code fromPsn} and follow on
     * without a gap (IBA 9.7.5.1.2: retries start from the PSN the NAK names or the oldest unacknowledged one).
     *
     * @param capture    the capture.
     * @param afterIndex the capture index of the event (the NAK sent, the moment the timeout began).
     * @param fromPsn    where the retry must start.
     * @return findings.
     */
    public static List<Finding> goBackN(final Capture capture, final int afterIndex, final int fromPsn)
    {
        final List<Finding> out = new ArrayList<>();
        int expected = fromPsn;
        int seen = 0;
        for (final CapturedFrame frame : capture.delivered(Direction.FROM_DUT))
        {
            if (frame.index() <= afterIndex || null == frame.opcode() || !frame.opcode().isRequest())
            {
                continue;
            }
            if (expected != frame.psn())
            {
                out.add(Finding.violation("after frame #" + afterIndex + " the DUT sent PSN 0x" +
                    Integer.toHexString(frame.psn()) + " where go-back-N wants 0x" + Integer.toHexString(expected)));
                return out;
            }
            expected = Psn.add(expected, 1);
            seen++;
        }
        if (0 == seen)
        {
            out.add(Finding.violation("the DUT sent no request after frame #" + afterIndex));
        }
        else
        {
            out.add(Finding.ok("go-back-N from 0x" + Integer.toHexString(fromPsn) + ": " + seen +
                " requests in sequence"));
        }
        return out;
    }

    /**
     * The first retransmission of the request at {@code originalIndex} comes no earlier than the local ACK timeout
     * after it, and no later than {@link #LATE_RETRANSMISSION_FACTOR} timeouts (IBA 9.7.6.1.3).
     *
     * @param capture       the capture.
     * @param originalIndex the capture index of the request first sent.
     * @param timeoutNs     4.096 us x 2^timeout.
     * @return one finding.
     */
    public static List<Finding> retransmissionTiming(final Capture capture, final int originalIndex,
        final long timeoutNs)
    {
        final CapturedFrame original = capture.frames().get(originalIndex);
        for (final CapturedFrame frame : capture.delivered(Direction.FROM_DUT))
        {
            if (frame.index() > originalIndex && original.opcode() == frame.opcode() && original.psn() == frame.psn())
            {
                final long delayNs = frame.timeNs() - original.timeNs();
                final String measured = "retransmission of PSN 0x" + Integer.toHexString(frame.psn()) + " after " +
                    ConformContext.micros(delayNs) + " (local ACK timeout " + ConformContext.micros(timeoutNs) + ")";
                if (delayNs < timeoutNs)
                {
                    return List.of(Finding.violation(measured + ": earlier than the timeout"));
                }
                if (delayNs > LATE_RETRANSMISSION_FACTOR * timeoutNs)
                {
                    return List.of(Finding.violation(measured + ": later than " + LATE_RETRANSMISSION_FACTOR +
                        " timeouts"));
                }
                return List.of(Finding.ok(measured));
            }
        }
        return List.of(Finding.violation("no retransmission of frame #" + originalIndex + " " + original.label()));
    }

    /**
     * After an RNR NAK, the retry of its PSN waits at least the NAK's RNR timer (IBA 9.7.5.2.8).
     *
     * @param capture  the capture.
     * @param nakIndex the capture index of the RNR NAK the peer sent.
     * @return one finding.
     */
    public static List<Finding> rnrWait(final Capture capture, final int nakIndex)
    {
        final CapturedFrame nak = capture.frames().get(nakIndex);
        final long timerNs = AethHeader.rnrTimerNs(AethHeader.value(nak.syndrome()));
        for (final CapturedFrame frame : capture.delivered(Direction.FROM_DUT))
        {
            if (frame.index() > nakIndex && null != frame.opcode() && frame.opcode().isRequest() &&
                nak.psn() == frame.psn())
            {
                final long waitNs = frame.timeNs() - nak.timeNs();
                final String measured = "retry of PSN 0x" + Integer.toHexString(frame.psn()) + " " +
                    ConformContext.micros(waitNs) + " after the RNR NAK (timer " + ConformContext.micros(timerNs) + ")";
                return List.of(waitNs >= timerNs ? Finding.ok(measured) :
                    Finding.violation(measured + ": earlier than the RNR timer"));
            }
        }
        return List.of(Finding.violation("no retry of PSN 0x" + Integer.toHexString(nak.psn()) + " after the RNR NAK"));
    }

    /**
     * The bytes the peer wrote arrived whole in the DUT's memory.
     *
     * @param ctx      the scenario.
     * @param offset   into the DUT's region.
     * @param expected the bytes.
     * @return one finding.
     */
    public static List<Finding> payloadIntegrity(final ConformContext ctx, final int offset, final byte[] expected)
    {
        final byte[] actual = ctx.dut().readMemory(offset, expected.length);
        if (Arrays.equals(expected, actual))
        {
            return List.of(Finding.ok(expected.length + " bytes at offset " + offset + " intact"));
        }
        int first = 0;
        while (expected[first] == actual[first])
        {
            first++;
        }
        return List.of(Finding.violation("DUT memory differs from what was sent at offset " + (offset + first)));
    }
}
