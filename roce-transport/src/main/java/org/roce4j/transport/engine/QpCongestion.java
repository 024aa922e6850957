package org.roce4j.transport.engine;

import org.roce4j.transport.cc.CongestionControl;
import org.roce4j.transport.cc.DcqcnReactionPoint;

/**
 * The congestion-control state of one QP ({@link CongestionPoints}), made the first time the QP needs it (its first
 * CE-marked request or its first CNP): the DCQCN reaction point, when the QP last sent a CNP (notification point) and
 * when the pacer lets it send next. Engine thread only.
 */
final class QpCongestion
{
    /** The QP's rate algorithm. */
    final DcqcnReactionPoint reactionPoint;
    /** The QP has sent a CNP, at {@link #lastCnpSentNs}. */
    boolean cnpSent;
    /** When the QP last sent a CNP (engine clock). */
    long lastCnpSentNs;
    /** The pacer's time for the QP's next packet while it is rate limited (engine clock). */
    long nextSendNs;
    /** The wire time of the last packet at the rate it was paced with, ns: moved when the rate changes. */
    long lastTxNs;
    /** Length of the last packet sent, bytes. */
    int lastFrameBytes;
    /** The rate {@link #nextSendNs} was computed with, bits per second. */
    long pacedRateBps;
    /** The QP waits on its timer entry ({@link QpTimers}) until {@link #pacerWakeNs}. */
    boolean pacerArmed;
    /** When the waiting QP looks again: its next packet's time, or the next timer increase of its rate if earlier. */
    long pacerWakeNs;

    QpCongestion(final CongestionControl config)
    {
        this.reactionPoint = new DcqcnReactionPoint(config);
    }
}
