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
    /** The QP waits for {@link #nextSendNs} with a timer entry ({@link QpTimers}). */
    boolean pacerArmed;

    QpCongestion(final CongestionControl config)
    {
        this.reactionPoint = new DcqcnReactionPoint(config);
    }
}
