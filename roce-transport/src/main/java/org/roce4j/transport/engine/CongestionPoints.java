package org.roce4j.transport.engine;

import org.roce4j.ib.QpState;
import org.roce4j.transport.TransportCounter;
import org.roce4j.transport.TransportCounters;
import org.roce4j.transport.cc.CongestionControl.Param;
import org.roce4j.transport.cc.CongestionControl;
import org.roce4j.transport.cc.DcqcnReactionPoint;
import org.roce4j.transport.cc.QpRate;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RoceFrameBuilder;
import org.roce4j.wire.RoceFrameParser;

/**
 * Congestion control in the engine, as a ConnectX NIC does it with DCQCN ({@link CongestionControl}): the three
 * points a RoCE flow passes through besides the switch.
 * <ul>
 *   <li><b>Notification point</b> ({@link #onRequest}): a request packet that arrives with IP ECN = CE (RFC 3168) is
 *   counted ({@code np_ecn_marked_roce_packets}, mlx5's name) and makes its RC/UC QP send a CNP to the sending QP, at
 *   most one per QP per {@code min_time_between_cnps} ({@code np_cnp_sent}). The CNP is ConnectX's (IBA annex A17.9.3;
 *   the ConnectX-4 Lx capture in protocol-facts B.4): BTH opcode 0x81 with BECN set, P_Key 0xFFFF, DestQP = the peer's
 *   QPN, PSN 0, 16 reserved zero bytes, ICRC; IP TOS {@code cnp_dscp << 2 | cnp_ecn} (0xC2), UDP source port
 *   {@code cnp_udp_sport} (0). UD QPs count CE marks but send no CNP (their peer is per packet).</li>
 *   <li><b>Reaction point</b> ({@link #onCnp}): a CNP for an RC/UC/UD QP that is sending (RTS, SQD) and, when
 *   connected, comes from its peer, drives the QP's {@link DcqcnReactionPoint} ({@code rp_cnp_handled}); any other CNP,
 *   or every CNP while congestion control is off, is ignored and counted ({@code rp_cnp_ignored}). rxe drops opcode
 *   0x81 (check_type_state); roce4j accepts it at any time without disturbing the QP.</li>
 *   <li><b>Pacer</b> ({@link #maySend}, {@link #onSent}): a QP with a rate limiter sends its next packet no earlier
 *   than the previous one's length at the current rate after it (a token bucket holding at most
 *   {@link #PACER_MAX_LAG_NS} of unused time), so it keeps its rate to the bit. The requester asks before each packet;
 *   when the answer is no, the QP waits on its timer entry ({@link QpTimers}) for the injected clock to reach the
 *   time: nothing sleeps, nothing allocates.</li>
 * </ul>
 * With congestion control off the engine behaves as before: no ECT marking, no CNPs, no pacing.
 *
 * <p>Engine thread only.
 */
final class CongestionPoints
{
    /**
     * How far behind its schedule a rate-limited QP may be and still send what it missed, ns: a duty cycle seldom
     * comes exactly when the next packet is due, and a QP that could only send one packet per duty cycle would fall
     * short of its rate. 2 µs covers duty cycles up to 2 µs apart (the incast simulation steps 1 µs); longer idle time
     * is not banked, as a NIC's rate limiter does not bank it.
     */
    static final long PACER_MAX_LAG_NS = 2_000;
    private static final long NS_PER_SECOND = 1_000_000_000L;

    private final RoceEngine engine;
    private final CongestionControl config;
    private final TransportCounters counters;
    private final boolean enabled;
    private final long minTimeBetweenCnpsNs;
    private final int cnpTrafficClass;
    private final int cnpSourcePort;

    CongestionPoints(final RoceEngine engine, final CongestionControl config, final TransportCounters counters)
    {
        this.engine = engine;
        this.config = config;
        this.counters = counters;
        this.enabled = config.enabled();
        this.minTimeBetweenCnpsNs = config.get(Param.MIN_TIME_BETWEEN_CNPS) * 1_000L;
        this.cnpTrafficClass = config.cnpTrafficClass();
        this.cnpSourcePort = (int)config.get(Param.CNP_UDP_SPORT);
    }

    /**
     * Notification point: a request packet passed the receive checks.
     *
     * @param qp     its QP.
     * @param parser the parsed packet.
     */
    void onRequest(final QpContext qp, final RoceFrameParser parser)
    {
        final int ecn = 4 == parser.ipVersion() ? parser.ipv4().ecn() : parser.ipv6().trafficClass() & 3;
        if (CongestionControl.ECN_CE != ecn)
        {
            return;
        }
        counters.increment(TransportCounter.NP_ECN_MARKED_ROCE_PACKETS);
        if (!enabled || qp.type.isDatagram())
        {
            return;
        }
        final QpCongestion cc = state(qp);
        final long nowNs = engine.nowNs();
        if (cc.cnpSent && nowNs - cc.lastCnpSentNs < minTimeBetweenCnpsNs)
        {
            return;
        }
        if (sendCnp(qp))
        {
            cc.cnpSent = true;
            cc.lastCnpSentNs = nowNs;
            counters.increment(TransportCounter.NP_CNP_SENT);
        }
    }

    private boolean sendCnp(final QpContext qp)
    {
        final PacketSender sender = engine.sender;
        if (!sender.begin(qp.address, Opcode.CNP_NOTIFICATION, qp.attributes.destQpNum, 0, 0))
        {
            return false;
        }
        final RoceFrameBuilder builder = sender.builder();
        if (qp.address.ipv6())
        {
            builder.ipv6Header().versionClassFlow(cnpTrafficClass, qp.address.flowLabel());
        }
        else
        {
            builder.ipv4Header().tos(cnpTrafficClass);
        }
        builder.udpHeader().sourcePort(cnpSourcePort);
        builder.bthHeader().becn(true);
        builder.cnp().clear();
        sender.end(0);
        return true;
    }

    /**
     * Reaction point: a CNP arrived for a QPN.
     *
     * @param qp       the QP, or null when no such QP exists.
     * @param fromPeer true when it comes from the QP's peer (always true for UD QPs).
     */
    void onCnp(final QpContext qp, final boolean fromPeer)
    {
        if (!enabled || null == qp || qp.destroyed || !fromPeer ||
            (QpState.RTS != qp.state() && QpState.SQD != qp.state()))
        {
            counters.increment(TransportCounter.RP_CNP_IGNORED);
            return;
        }
        state(qp).reactionPoint.onCnp(engine.nowNs());
        counters.increment(TransportCounter.RP_CNP_HANDLED);
    }

    /**
     * Pacer: may the QP send a packet now? When not, its timer entry wakes it when it may.
     *
     * @param qp the QP.
     * @return true to send.
     */
    boolean maySend(final QpContext qp)
    {
        final QpCongestion cc = qp.congestion;
        if (null == cc)
        {
            return true;
        }
        final long nowNs = engine.nowNs();
        final DcqcnReactionPoint rp = cc.reactionPoint;
        rp.advance(nowNs);
        if (!rp.limited())
        {
            return true;
        }
        final long rateBps = rp.currentRateBps();
        if (rateBps != cc.pacedRateBps && 0 != cc.pacedRateBps)
        {
            // The rate changed since the last packet: its wire time counts at the new rate (HPCC's ChangeRate), so a
            // QP that was cut to a crawl is not held for its slow packet once the rate recovers.
            final long txNs = txNs(cc.lastFrameBytes, rateBps);
            cc.nextSendNs += txNs - cc.lastTxNs;
            cc.lastTxNs = txNs;
            cc.pacedRateBps = rateBps;
        }
        if (nowNs - cc.nextSendNs >= 0)
        {
            return true;
        }
        // Wait for the next packet's time, or for the timer to raise the rate if that comes first.
        final long wakeNs = Math.min(cc.nextSendNs, rp.nextTimerIncreaseNs());
        if (!cc.pacerArmed || wakeNs < cc.pacerWakeNs)
        {
            cc.pacerArmed = true;
            cc.pacerWakeNs = wakeNs;
            engine.timers.arm(qp, wakeNs);
        }
        return false;
    }

    /**
     * Pacer and byte counter: the QP sent a packet ({@link PacketSender#lastFrameLength()} bytes).
     *
     * @param qp the QP.
     */
    void onSent(final QpContext qp)
    {
        final QpCongestion cc = qp.congestion;
        if (null == cc)
        {
            return;
        }
        final long nowNs = engine.nowNs();
        final int frameBytes = engine.sender.lastFrameLength();
        final DcqcnReactionPoint rp = cc.reactionPoint;
        if (rp.limited())
        {
            final long rateBps = rp.currentRateBps();
            final long txNs = txNs(frameBytes, rateBps);
            cc.nextSendNs = Math.max(cc.nextSendNs, nowNs - Math.max(PACER_MAX_LAG_NS, txNs)) + txNs;
            cc.lastTxNs = txNs;
            cc.lastFrameBytes = frameBytes;
            cc.pacedRateBps = rateBps;
        }
        rp.onSent(frameBytes, nowNs);
    }

    private static long txNs(final int frameBytes, final long rateBps)
    {
        return frameBytes * 8L * NS_PER_SECOND / rateBps;
    }

    /**
     * @param qp a QP.
     * @return its rate state at the clock's time (which may be ahead of the last duty cycle's).
     */
    QpRate rate(final QpContext qp)
    {
        final QpCongestion cc = qp.congestion;
        if (null == cc)
        {
            final long line = config.lineRateBps();
            return new QpRate(false, line, line, 0, 0, 0);
        }
        cc.reactionPoint.advance(Math.max(engine.nowNs(), engine.clock().nanoTime()));
        return cc.reactionPoint.snapshot();
    }

    private QpCongestion state(final QpContext qp)
    {
        QpCongestion cc = qp.congestion;
        if (null == cc)
        {
            cc = new QpCongestion(config);
            qp.congestion = cc;
        }
        return cc;
    }
}
