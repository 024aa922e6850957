package org.roce4j.conform;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.transport.cc.CongestionControl;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.Psn;
import org.roce4j.wire.ResendDetector;
import org.roce4j.wire.RoceFrameParser;
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
    /**
     * The most request packets a requester sends in a row without AckReq, rxe's cadence: rxe_req.c sets AckReq on a
     * message's last packet or when {@code qp->req.noack_pkts++ > RXE_MAX_PKT_PER_ACK} (64), so 65 packets go
     * without it and the 66th carries it. The IBA sets no number; this is the cadence the checker holds a DUT to, so
     * that a responder that ACKs only on AckReq (rxe, roce4j) never leaves a long stretch unacknowledged.
     */
    public static final int MAX_PACKETS_WITHOUT_ACK_REQ = 65;
    /**
     * The least time between two CNPs to one QP {@link #cnpPacing} is run with in the catalogue: ConnectX's
     * {@code min_time_between_cnps} default, 4 us (the IBA leaves the CNP rate to the notification point).
     */
    public static final long CNP_MIN_INTERVAL_NS =
        CongestionControl.DCQCN.get(CongestionControl.Param.MIN_TIME_BETWEEN_CNPS) * 1_000L;

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
        int lastFrame = -1;
        for (final CapturedFrame frame : capture.delivered(Direction.FROM_DUT))
        {
            if (frame.msn() >= 0)
            {
                count++;
                lastFrame = frame.index();
                if (last >= 0 && Psn.compare(frame.msn(), last) < 0)
                {
                    return List.of(Finding.violation("MSN went back from " + last + " to " + frame.msn() +
                        " in frame #" + frame.index() + " " + frame.label(), frame.index()));
                }
                last = frame.msn();
            }
        }
        return List.of(Finding.ok("MSN never decreased over " + count + " AETHs", lastFrame));
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
        int lastFrame = -1;
        for (final CapturedFrame frame : capture.delivered(Direction.FROM_DUT))
        {
            if (frame.isAck())
            {
                if (last >= 0 && Psn.compare(frame.psn(), last) < 0)
                {
                    return List.of(Finding.violation("ACK PSN went back from 0x" + Integer.toHexString(last) +
                        " to 0x" + Integer.toHexString(frame.psn()) + " in frame #" + frame.index(), frame.index()));
                }
                last = frame.psn();
                lastFrame = frame.index();
            }
        }
        return List.of(Finding.ok("ACK PSNs never went backwards", lastFrame));
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
        int firstRetry = -1;
        for (final CapturedFrame frame : capture.delivered(Direction.FROM_DUT))
        {
            if (frame.index() <= afterIndex || null == frame.opcode() || !frame.opcode().isRequest())
            {
                continue;
            }
            if (expected != frame.psn())
            {
                out.add(Finding.violation("after frame #" + afterIndex + " the DUT sent PSN 0x" +
                    Integer.toHexString(frame.psn()) + " where go-back-N wants 0x" + Integer.toHexString(expected),
                    frame.index()));
                return out;
            }
            firstRetry = 0 == seen ? frame.index() : firstRetry;
            expected = Psn.add(expected, 1);
            seen++;
        }
        if (0 == seen)
        {
            out.add(Finding.violation("the DUT sent no request after frame #" + afterIndex, afterIndex));
        }
        else
        {
            out.add(Finding.ok("go-back-N from 0x" + Integer.toHexString(fromPsn) + ": " + seen +
                " requests in sequence", firstRetry));
        }
        return out;
    }

    /**
     * The first retransmission of the request at {@code originalIndex} (the same request again, as
     * {@link ResendDetector#sameRequest} judges it) comes no earlier than the local ACK timeout after it, and no later
     * than {@link #LATE_RETRANSMISSION_FACTOR} timeouts (IBA 9.7.6.1.3).
     *
     * @param capture       the capture.
     * @param originalIndex the capture index of the request first sent.
     * @param timeoutNs     4.096 us x 2^timeout.
     * @return one finding.
     */
    public static List<Finding> retransmissionTiming(final Capture capture, final int originalIndex,
        final long timeoutNs)
    {
        return retransmissionTiming(capture, originalIndex, timeoutNs, 0);
    }

    /**
     * {@link #retransmissionTiming(Capture, int, long)} with a measurement tolerance at its lower bound: a
     * retransmission measured up to {@code earlyToleranceNs} before the timeout is taken as on time, and the finding
     * says so (a remote DUT's frames are timed when the runner polls them, not on the wire, and a kernel timer of n
     * jiffies fires after n - 1 to n ticks: {@link org.roce4j.conform.dut.Testbed#timingToleranceNs}).
     *
     * @param capture          the capture.
     * @param originalIndex    the capture index of the request first sent.
     * @param timeoutNs        4.096 us x 2^timeout.
     * @param earlyToleranceNs how much earlier than the timeout a measurement may be, 0 for an exact clock.
     * @return one finding.
     */
    public static List<Finding> retransmissionTiming(final Capture capture, final int originalIndex,
        final long timeoutNs, final long earlyToleranceNs)
    {
        final CapturedFrame original = capture.frames().get(originalIndex);
        for (final CapturedFrame frame : capture.delivered(Direction.FROM_DUT))
        {
            if (frame.index() > originalIndex && ResendDetector.sameRequest(original.destQp(), original.opcode(),
                original.psn(), frame.destQp(), frame.opcode(), frame.psn()))
            {
                final long delayNs = frame.timeNs() - original.timeNs();
                // The runner sees a DUT's frame when it polls: each passed the link within a window (Capture
                // earliestNs), so the delay lies between these two bounds; only a bound outside the rule fails it.
                final long longestNs = frame.timeNs() - capture.earliestNs(original.index());
                final long shortestNs = capture.earliestNs(frame.index()) - original.timeNs();
                final String measured = "retransmission of PSN 0x" + Integer.toHexString(frame.psn()) + " after " +
                    ConformContext.micros(delayNs) + " (local ACK timeout " + ConformContext.micros(timeoutNs) + ")";
                if (longestNs < timeoutNs - earlyToleranceNs)
                {
                    return List.of(Finding.violation(measured + ": earlier than the timeout", frame.index()));
                }
                if (delayNs < timeoutNs - earlyToleranceNs)
                {
                    return List.of(Finding.ok(measured + ": measured early, but the original was found by a poll " +
                        ConformContext.micros(longestNs - delayNs) + " after the one before it, so it may have " +
                        "passed the link that much earlier: taken as on time", frame.index()));
                }
                if (delayNs < timeoutNs)
                {
                    return List.of(Finding.ok(measured + ": earlier than the timeout by less than the measurement " +
                        "tolerance of " + ConformContext.micros(earlyToleranceNs) + ", taken as on time",
                        frame.index()));
                }
                if (shortestNs > LATE_RETRANSMISSION_FACTOR * timeoutNs)
                {
                    return List.of(Finding.violation(measured + ": later than " + LATE_RETRANSMISSION_FACTOR +
                        " timeouts", frame.index()));
                }
                return List.of(Finding.ok(measured, frame.index()));
            }
        }
        return List.of(Finding.violation("no retransmission of frame #" + originalIndex + " " + original.label(),
            originalIndex));
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
                return List.of(waitNs >= timerNs ? Finding.ok(measured, frame.index()) :
                    Finding.violation(measured + ": earlier than the RNR timer", frame.index()));
            }
        }
        return List.of(Finding.violation("no retry of PSN 0x" + Integer.toHexString(nak.psn()) + " after the RNR NAK",
            nakIndex));
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

    /**
     * DUT as responder: every request the peer sent with AckReq set (and the DUT took: neither dropped on the way nor
     * with a bad ICRC) is answered by a later frame with an AETH whose PSN covers it (an ACK coalesces every PSN up to
     * its own, IBA 9.7.5.1.2; a READ or atomic is answered by its response); no ACK names a PSN the peer has not sent
     * yet; and the DUT's positive ACKs never go backwards. rxe ACKs every packet with AckReq and nothing else
     * (rxe_resp.c acknowledge: {@code else if (bth_ack(pkt)) send_ack(...)}), with no delayed-ACK timer.
     *
     * <p>For exchanges without duplicates or NAKs: a duplicate is re-ACKed with its old PSN on purpose, and a NAK
     * names the expected PSN, not the one that asked.
     *
     * @param capture the capture.
     * @return findings.
     */
    public static List<Finding> ackReqAnswered(final Capture capture)
    {
        final List<CapturedFrame> frames = capture.frames();
        int asked = 0;
        int highestSent = -1;
        int lastAck = -1;
        int lastAnswer = -1;
        for (int i = 0; i < frames.size(); i++)
        {
            final CapturedFrame frame = frames.get(i);
            if (!taken(frame))
            {
                continue;
            }
            if (Direction.TO_DUT == frame.direction() && null != frame.opcode() && frame.opcode().canRequestAck())
            {
                highestSent = highestSent < 0 || Psn.compare(frame.psn(), highestSent) > 0 ? frame.psn() : highestSent;
                if (frame.ackReq())
                {
                    asked++;
                    lastAnswer = answerAfter(frames, i);
                    if (lastAnswer < 0)
                    {
                        return List.of(Finding.violation("frame #" + i + " " + frame.label() + " asked for an ACK " +
                            "(AckReq) and no ACK or response covering PSN 0x" + Integer.toHexString(frame.psn()) +
                            " followed", i));
                    }
                }
            }
            else if (Direction.FROM_DUT == frame.direction() && frame.isAck())
            {
                if (highestSent < 0 || Psn.compare(frame.psn(), highestSent) > 0)
                {
                    return List.of(Finding.violation("frame #" + i + " ACKs PSN 0x" + Integer.toHexString(frame.psn()) +
                        ", which the peer has not sent", i));
                }
                if (lastAck >= 0 && Psn.compare(frame.psn(), lastAck) < 0)
                {
                    return List.of(Finding.violation("ACK PSN went back from 0x" + Integer.toHexString(lastAck) +
                        " to 0x" + Integer.toHexString(frame.psn()) + " in frame #" + i, i));
                }
                lastAck = frame.psn();
            }
        }
        if (0 == asked)
        {
            return List.of(Finding.violation("the peer sent no request with AckReq: nothing to judge"));
        }
        return List.of(Finding.ok(asked + " requests with AckReq, each answered; ACK PSNs never went backwards",
            lastAnswer));
    }

    /** A frame that reached its receiver intact: not dropped by the link, ICRC good. */
    private static boolean taken(final CapturedFrame frame)
    {
        return !frame.dropped() && FrameStatus.OK == frame.status();
    }

    /** The index of the first frame from the DUT after the request whose AETH covers its PSN, or -1. */
    private static int answerAfter(final List<CapturedFrame> frames, final int requestIndex)
    {
        final int psn = frames.get(requestIndex).psn();
        for (int j = requestIndex + 1; j < frames.size(); j++)
        {
            final CapturedFrame answer = frames.get(j);
            if (Direction.FROM_DUT == answer.direction() && taken(answer) && answer.syndrome() >= 0 &&
                Psn.compare(answer.psn(), psn) >= 0)
            {
                return j;
            }
        }
        return -1;
    }

    /**
     * DUT as requester: AckReq is set on the last packet of every RC message (rxe_req.c: {@code pkt->mask &
     * RXE_END_MASK}; a responder that ACKs only on AckReq would otherwise leave the message unacknowledged until the
     * local ACK timeout) and never more than {@code maxWithout} request packets go in a row without it.
     *
     * @param capture    the capture.
     * @param maxWithout the longest run allowed without AckReq ({@link #MAX_PACKETS_WITHOUT_ACK_REQ} for rxe's).
     * @return findings.
     */
    public static List<Finding> ackReqCadence(final Capture capture, final int maxWithout)
    {
        int run = 0;
        int longest = 0;
        int packets = 0;
        int lastPacket = -1;
        for (final CapturedFrame frame : capture.frames())
        {
            if (Direction.FROM_DUT != frame.direction() || null == frame.opcode() || !frame.opcode().canRequestAck())
            {
                continue;
            }
            packets++;
            lastPacket = frame.index();
            if (frame.ackReq())
            {
                run = 0;
                continue;
            }
            if (frame.opcode().position().isEnd())
            {
                return List.of(Finding.violation("frame #" + frame.index() + " " + frame.label() + " ends a " +
                    "message without AckReq", frame.index()));
            }
            run++;
            longest = Math.max(longest, run);
            if (run > maxWithout)
            {
                return List.of(Finding.violation("frame #" + frame.index() + " is the " + run + "th request packet " +
                    "in a row without AckReq (at most " + maxWithout + ")", frame.index()));
            }
        }
        if (0 == packets)
        {
            return List.of(Finding.violation("the DUT sent no RC request: nothing to judge"));
        }
        return List.of(Finding.ok(packets + " request packets: AckReq on every message's last packet, at most " +
            longest + " in a row without it (allowed " + maxWithout + ")", lastPacket));
    }

    /**
     * Every CNP the DUT sent has RoCEv2's CNP format (IBA A17.9.3; protocol-facts B.4, a ConnectX-4 Lx capture):
     * BTH opcode 0x81 with BECN set, AckReq clear, TVer 0, DestQP the QP that sent the CE-marked packets, then 16
     * reserved bytes, zero, and nothing else before a good ICRC.
     *
     * @param capture  the capture.
     * @param notified the QPN the CNPs must name (the peer's, whose packets came marked).
     * @return findings: a violation when a CNP is malformed or none was sent.
     */
    public static List<Finding> cnpFormat(final Capture capture, final int notified)
    {
        final RoceFrameParser parser = new RoceFrameParser();
        int cnps = 0;
        int lastCnp = -1;
        for (final CapturedFrame frame : capture.frames())
        {
            if (Direction.FROM_DUT != frame.direction() || Opcode.CNP_NOTIFICATION != frame.opcode())
            {
                continue;
            }
            cnps++;
            lastCnp = frame.index();
            final String wrong = cnpDefect(parser, frame, notified);
            if (null != wrong)
            {
                return List.of(Finding.violation("CNP frame #" + frame.index() + ": " + wrong, frame.index()));
            }
        }
        if (0 == cnps)
        {
            return List.of(Finding.violation("the DUT sent no CNP"));
        }
        return List.of(Finding.ok(cnps + " CNPs to QP 0x" + Integer.toHexString(notified) + ", each opcode 0x81, " +
            "BECN, 16 zero reserved bytes, good ICRC", lastCnp));
    }

    private static String cnpDefect(final RoceFrameParser parser, final CapturedFrame frame, final int notified)
    {
        final byte[] bytes = frame.bytes();
        final FrameStatus status = parser.parse(new UnsafeBuffer(bytes), 0, bytes.length);
        if (FrameStatus.OK != status)
        {
            return "does not parse as a good RoCEv2 frame (" + status + ")";
        }
        if (notified != parser.bth().destQp())
        {
            return "DestQP 0x" + Integer.toHexString(parser.bth().destQp()) + ", the rule wants the sending QP 0x" +
                Integer.toHexString(notified);
        }
        if (!parser.bth().becn())
        {
            return "BECN is clear";
        }
        if (parser.bth().ackReq() || 0 != parser.bth().transportVersion())
        {
            return "AckReq set or TVer not 0";
        }
        if (0 != parser.payloadLength() || 0 != parser.padCount())
        {
            return parser.payloadLength() + " bytes after the 16 reserved bytes (pad " + parser.padCount() + ")";
        }
        if (0 != parser.cnp().reservedHigh() || 0 != parser.cnp().reservedLow())
        {
            return "reserved bytes not zero";
        }
        return null;
    }

    /**
     * The DUT's CNPs to one QP come at most one per {@code minIntervalNs} (ConnectX: {@code min_time_between_cnps},
     * the NP's {@code cnp_time}; the IBA leaves the rate to the notification point, A17.9): a burst of CE-marked
     * packets gets one CNP, not one each.
     *
     * @param capture       the capture.
     * @param minIntervalNs the least time between two CNPs to the same QP.
     * @return findings.
     */
    public static List<Finding> cnpPacing(final Capture capture, final long minIntervalNs)
    {
        final Map<Integer, CapturedFrame> last = new HashMap<>();
        int cnps = 0;
        int lastCnp = -1;
        for (final CapturedFrame frame : capture.frames())
        {
            if (Direction.FROM_DUT != frame.direction() || Opcode.CNP_NOTIFICATION != frame.opcode())
            {
                continue;
            }
            cnps++;
            lastCnp = frame.index();
            final CapturedFrame previous = last.put(frame.destQp(), frame);
            if (null != previous && frame.timeNs() - previous.timeNs() < minIntervalNs)
            {
                return List.of(Finding.violation("CNPs #" + previous.index() + " and #" + frame.index() + " to QP 0x" +
                    Integer.toHexString(frame.destQp()) + " came " + ConformContext.micros(frame.timeNs() -
                    previous.timeNs()) + " apart, less than " + ConformContext.micros(minIntervalNs), frame.index()));
            }
        }
        return List.of(Finding.ok(cnps + " CNPs, none closer than " + ConformContext.micros(minIntervalNs) +
            " to the previous one to the same QP", lastCnp));
    }
}
