package org.roce4j.transport.cc;

import org.roce4j.transport.cc.CongestionControl.Param;

/**
 * The DCQCN reaction point of one QP, as NVIDIA documents it for ConnectX ("DCQCN Parameters" and "DCQCN CC
 * Algorithm"), with the algorithm of Zhu et al., "Congestion Control for Large-Scale RDMA Deployments", SIGCOMM
 * 2015, and the event order of the "Mellanox's version of DCQCN" model in HPCC's ns-3 simulator
 * (alibaba-edu/High-Precision-Congestion-Control, {@code rdma-hw.cc}: {@code cnp_received_mlx},
 * {@code UpdateAlphaMlx}, {@code CheckRateDecreaseMlx}, {@code RateIncEventMlx}). All arithmetic is integer, so a
 * trace is exact and repeatable.
 *
 * <p>State: no rate limiter until the first CNP (the QP sends at line rate); then current rate Rc, target rate Rt
 * (bits per second), alpha (0..1023, fixed point with 10 fractional bits, updated with 10 more), the timer and
 * byte-counter stage counts T and BC, and three periodic events on a grid that starts at the first CNP or the last
 * decrease.
 * <ol>
 *   <li><b>First CNP</b>: a limiter is allocated: Rc = Rt = {@code rate_to_set_on_first_cnp} (0: line rate), alpha =
 *   {@code initial_alpha_value}; the alpha update runs every {@code dce_tcp_rtt} from now and the rate-decrease check
 *   every {@code rate_reduce_monitor_period} from now; the first check decreases (HPCC: the first CNP sets only the
 *   decrease flag). Later CNPs set both flags.</li>
 *   <li><b>Alpha update</b>, every {@code dce_tcp_rtt} (NVIDIA: "updated once every DcQcnDceAlphaUpdatePeriod,
 *   regardless of the reception of a CNP"): with a CNP in the period alpha = g * alpha / 1024 + (1024 - g), without
 *   alpha = g * alpha / 1024, g = {@code dce_tcp_g} (NVIDIA's formulas; the paper's alpha = (1 - g') alpha + g' with
 *   g' = (1024 - g) / 1024; capped at 1023).</li>
 *   <li><b>Rate decrease</b>, at the first check of {@code rate_reduce_monitor_period} after a CNP ("the flow rate is
 *   reduced at the beginning of the next rate_reduce_monitor_period interval to (1 - Alpha/Gd) * CurrentRate, rpg_gd
 *   given as log2(Gd)", mstflint's layout of the firmware's roce_cc_ecn parameters): the target rate
 *   Rt = Rc when {@code clamp_tgt_rate}, when the byte counter raised the rate since the last decrease (BC > 0: QCN's
 *   rule, IEEE 802.1Qau, as the DCQCN authors' ns-3 code rpr_cnm_received keeps it), or when
 *   {@code clamp_tgt_rate_after_time_inc} and the timer raised it (T > 0: "the target rate should be updated if the
 *   transmission rate was increased due to the timer, and not only due to the byte counter", mstflint); otherwise Rt
 *   stays. Then Rc = Rc - Rc * alpha / 2^{@code rpg_gd}, but at least Rc * {@code rpg_min_dec_fac} / 100 and at
 *   least {@code rpg_min_rate}; T = BC = 0, byte counter cleared, increase timer restarted.</li>
 *   <li><b>Rate increase</b>, at each expiry of the timer ({@code rpg_time_reset}) and each {@code rpg_byte_reset}
 *   bytes sent (0: no byte counter). The stage follows the paper's rule on the counts before this event, F =
 *   {@code rpg_threshold}: <i>fast recovery</i> while max(T, BC) &lt; F: Rc = (Rt + Rc) / 2; <i>hyper increase</i>
 *   once min(T, BC) &gt; F: Rt += {@code rpg_hai_rate}, Rc = (Rt + Rc) / 2; <i>additive increase</i> otherwise: Rt +=
 *   {@code rpg_ai_rate}, Rc = (Rt + Rc) / 2. Without a byte counter only T counts (HPCC's model: T &lt; F fast
 *   recovery, T = F additive, T &gt; F hyper). Then the counter that fired counts the event. Rt never exceeds the
 *   maximum rate ({@code rpg_max_rate}, 0: line rate). <i>Target reduction</i> (QCN's rule, as the DCQCN authors'
 *   ns-3 code, bobzhuyb/ns3-rdma {@code AdjustRates}, keeps it): when the event is the first of either counter since
 *   the last decrease (T or BC is 1 counting this event) and Rt &gt; 10 Rc, Rt = Rt / 8 instead of any Rt increase,
 *   then Rc = (Rt + Rc) / 2 as always. Decreases without an increase between them leave Rt where it was, so without
 *   this rule a QP cut far down recovers halfway back to the rate it had before the congestion in one event.</li>
 *   <li><b>Release</b>: once Rc reaches the maximum rate the limiter is released (the firmware's rpg_max_rate: "Once
 *   this limit is reached, the RP rate limited is released and the flow is not rate limited any more"); the next CNP
 *   is a first CNP again.</li>
 * </ol>
 * Events due at the same instant run alpha update, then decrease, then increase (HPCC schedules the first decrease 1
 * ns after the alpha update for this order).
 *
 * <p>Time moves only through the calls ({@link #advance(long)}, {@link #onCnp(long)}, {@link #onSent(int, long)}),
 * each of which first runs every event due by then, in order: so the state is the same whether the caller looks
 * every microsecond or once a second. Idle stretches cost nothing once alpha has decayed to 0. No allocation.
 *
 * <p>Not thread safe: the engine's thread owns it.
 */
public final class DcqcnReactionPoint
{
    /** Alpha's scale: 10 fractional bits (NVIDIA: "fixed point with 10 bits in the fraction part"). */
    public static final int ALPHA_ONE = 1024;
    /** Fractional bits alpha keeps beyond the 10 it shows: its EWMA does not stall on rounding. */
    static final int ALPHA_EXTRA_BITS = 10;
    /** The largest alpha. */
    public static final int ALPHA_MAX = ALPHA_ONE - 1;
    /** QCN's target reduction applies when the target rate is more than this many times the current rate. */
    static final int TARGET_REDUCE_RATIO = 10;
    /** QCN's target reduction divides the target rate by this. */
    static final int TARGET_REDUCE_DIVISOR = 8;
    private static final long NS_PER_US = 1_000L;

    private final long lineRateBps;
    private final long maxRateBps;
    private final long firstRateBps;
    private final long minRateBps;
    private final long aiRateBps;
    private final long haiRateBps;
    private final int gd;
    private final int minDecFactorPercent;
    private final int g;
    private final int initialAlpha;
    private final int threshold;
    private final long byteReset;
    private final long alphaPeriodNs;
    private final long decreasePeriodNs;
    private final long increasePeriodNs;
    private final boolean clampTarget;
    private final boolean clampAfterTimeIncrease;

    private boolean limited;
    private long currentBps;
    private long targetBps;
    /** Alpha with {@link #ALPHA_EXTRA_BITS} more fractional bits than {@link #alpha()} shows. */
    private long alphaFine;
    private boolean alphaCnp;
    private boolean decreaseCnp;
    private int timeStage;
    private int byteStage;
    private long bytesCounted;
    private long nextAlphaNs = Long.MAX_VALUE;
    private long nextDecreaseNs = Long.MAX_VALUE;
    private long nextIncreaseNs = Long.MAX_VALUE;
    private long decreases;
    private long increases;

    /**
     * @param config the device's parameters.
     */
    public DcqcnReactionPoint(final CongestionControl config)
    {
        this.lineRateBps = config.lineRateBps();
        this.maxRateBps = config.maxRateBps();
        final long first = config.get(Param.RATE_TO_SET_ON_FIRST_CNP) * 1_000_000L;
        this.firstRateBps = 0 == first ? lineRateBps : Math.min(first, maxRateBps);
        this.minRateBps = Math.min(config.get(Param.RPG_MIN_RATE) * 1_000_000L, maxRateBps);
        this.aiRateBps = config.get(Param.RPG_AI_RATE) * 1_000_000L;
        this.haiRateBps = config.get(Param.RPG_HAI_RATE) * 1_000_000L;
        this.gd = (int)config.get(Param.RPG_GD);
        this.minDecFactorPercent = (int)config.get(Param.RPG_MIN_DEC_FAC);
        this.g = (int)config.get(Param.DCE_TCP_G);
        this.initialAlpha = (int)config.get(Param.INITIAL_ALPHA_VALUE);
        this.threshold = (int)config.get(Param.RPG_THRESHOLD);
        this.byteReset = config.get(Param.RPG_BYTE_RESET);
        this.alphaPeriodNs = config.get(Param.DCE_TCP_RTT) * NS_PER_US;
        this.decreasePeriodNs = config.get(Param.RATE_REDUCE_MONITOR_PERIOD) * NS_PER_US;
        this.increasePeriodNs = config.get(Param.RPG_TIME_RESET) * NS_PER_US;
        this.clampTarget = 1 == config.get(Param.CLAMP_TGT_RATE);
        this.clampAfterTimeIncrease = 1 == config.get(Param.CLAMP_TGT_RATE_AFTER_TIME_INC);
    }

    /**
     * A CNP for this QP arrived.
     *
     * @param nowNs the engine clock.
     */
    public void onCnp(final long nowNs)
    {
        advance(nowNs);
        if (!limited)
        {
            limited = true;
            currentBps = firstRateBps;
            targetBps = firstRateBps;
            alphaFine = (long)initialAlpha << ALPHA_EXTRA_BITS;
            alphaCnp = false;
            decreaseCnp = true;
            timeStage = 0;
            byteStage = 0;
            bytesCounted = 0;
            nextAlphaNs = nowNs + alphaPeriodNs;
            nextDecreaseNs = nowNs + decreasePeriodNs;
            nextIncreaseNs = Long.MAX_VALUE;
            return;
        }
        alphaCnp = true;
        decreaseCnp = true;
    }

    /**
     * The QP sent a packet: run the byte counter.
     *
     * @param frameBytes the packet's length on the wire.
     * @param nowNs      the engine clock.
     */
    public void onSent(final int frameBytes, final long nowNs)
    {
        advance(nowNs);
        if (!limited || 0 == byteReset)
        {
            return;
        }
        bytesCounted += frameBytes;
        while (limited && bytesCounted >= byteReset)
        {
            bytesCounted -= byteReset;
            increase(false);
        }
    }

    /**
     * Run every alpha update, decrease check and timer increase due by {@code nowNs}, in time order.
     *
     * @param nowNs the engine clock.
     */
    public void advance(final long nowNs)
    {
        while (limited)
        {
            if (nextAlphaNs <= nowNs && !alphaCnp && 0 == alphaFine)
            {
                // Alpha stays 0 without CNPs: skip the updates, keeping their grid.
                nextAlphaNs = gridAfter(nextAlphaNs, alphaPeriodNs, nowNs);
            }
            if (nextDecreaseNs <= nowNs && !decreaseCnp)
            {
                // A check without a CNP in its period does nothing.
                nextDecreaseNs = gridAfter(nextDecreaseNs, decreasePeriodNs, nowNs);
            }
            final long next = Math.min(nextAlphaNs, Math.min(nextDecreaseNs, nextIncreaseNs));
            if (next > nowNs)
            {
                return;
            }
            if (next == nextAlphaNs)
            {
                updateAlpha();
                nextAlphaNs += alphaPeriodNs;
            }
            else if (next == nextDecreaseNs)
            {
                decrease(next);
                nextDecreaseNs += decreasePeriodNs;
            }
            else
            {
                nextIncreaseNs += increasePeriodNs;
                increase(true);
            }
        }
    }

    private static long gridAfter(final long gridNs, final long periodNs, final long nowNs)
    {
        return gridNs + ((nowNs - gridNs) / periodNs + 1) * periodNs;
    }

    private void updateAlpha()
    {
        // NVIDIA: with a CNP alpha = (g/1024) * alpha + (1024 - g); without alpha = (g/1024) * alpha. Computed with
        // ALPHA_EXTRA_BITS more fractional bits: at 10 bits the floor of g * alpha / 1024 takes at least one unit
        // per update (5/1024 of alpha is below one unit for alpha < 205), so alpha fell to 0 unless a CNP came in one
        // update of every six, and DCQCN stopped cutting (an incast of 4 flows sat at the buffer). HPCC's model keeps
        // alpha as a double.
        final long decayed = ((long)g * alphaFine) >> 10;
        alphaFine = alphaCnp ? Math.min((long)ALPHA_MAX << ALPHA_EXTRA_BITS,
            decayed + ((long)(ALPHA_ONE - g) << ALPHA_EXTRA_BITS)) : decayed;
        alphaCnp = false;
    }

    private void decrease(final long nowNs)
    {
        decreaseCnp = false;
        if (clampTarget || byteStage > 0 || (clampAfterTimeIncrease && timeStage > 0))
        {
            targetBps = currentBps;
        }
        final long cut = currentBps - ((currentBps * alpha()) >> gd);
        final long floor = Math.max(currentBps * minDecFactorPercent / 100, minRateBps);
        currentBps = Math.min(currentBps, Math.max(cut, floor));
        timeStage = 0;
        byteStage = 0;
        bytesCounted = 0;
        nextIncreaseNs = nowNs + increasePeriodNs;
        decreases++;
    }

    private void increase(final boolean timer)
    {
        final int high = 0 == byteReset ? timeStage : Math.max(timeStage, byteStage);
        final int low = 0 == byteReset ? timeStage : Math.min(timeStage, byteStage);
        final int timeAfter = timer ? timeStage + 1 : timeStage;
        final int byteAfter = timer ? byteStage : byteStage + 1;
        if ((1 == timeAfter || 1 == byteAfter) && targetBps > TARGET_REDUCE_RATIO * currentBps)
        {
            // QCN's target reduction (AdjustRates in the DCQCN authors' ns-3 code): decreases without an increase
            // between them left the target far above the rate, so the first increase of either counter divides it by
            // 8 instead of raising it. Recovering halfway to the old target instead sends every QP of a collapsed
            // incast back to about half the line rate at once.
            targetBps /= TARGET_REDUCE_DIVISOR;
        }
        else if (high >= threshold)
        {
            targetBps = Math.min(maxRateBps, targetBps + (low > threshold ? haiRateBps : aiRateBps));
        }
        // Fast recovery, additive and hyper increase all end halfway between current and target rate (rounded up, so
        // that the rate reaches a target it keeps instead of stopping one bit per second short of it).
        currentBps = Math.min(maxRateBps, (targetBps + currentBps + 1) / 2);
        if (timer)
        {
            timeStage++;
        }
        else
        {
            byteStage++;
        }
        increases++;
        if (currentBps >= maxRateBps)
        {
            release();
        }
    }

    private void release()
    {
        limited = false;
        currentBps = 0;
        targetBps = 0;
        alphaFine = 0;
        alphaCnp = false;
        decreaseCnp = false;
        nextAlphaNs = Long.MAX_VALUE;
        nextDecreaseNs = Long.MAX_VALUE;
        nextIncreaseNs = Long.MAX_VALUE;
    }

    /**
     * @return when the timer raises the rate next (engine clock), or Long.MAX_VALUE: a pacer waiting for a slow
     *     rate's next packet wakes then to take the new rate.
     */
    public long nextTimerIncreaseNs()
    {
        return limited ? nextIncreaseNs : Long.MAX_VALUE;
    }

    /**
     * @return true while a rate limiter holds the QP (from its first CNP until it is back at the maximum rate).
     */
    public boolean limited()
    {
        return limited;
    }

    /**
     * @return the current rate Rc, bits per second; the line rate when not limited.
     */
    public long currentRateBps()
    {
        return limited ? currentBps : lineRateBps;
    }

    /**
     * @return the target rate Rt, bits per second; the line rate when not limited.
     */
    public long targetRateBps()
    {
        return limited ? targetBps : lineRateBps;
    }

    /**
     * @return alpha, 0..1023 (1/1024 units); 0 when not limited.
     */
    public int alpha()
    {
        return (int)(alphaFine >> ALPHA_EXTRA_BITS);
    }

    /**
     * @return increase events of the timer since the last decrease (T).
     */
    public int timeStage()
    {
        return timeStage;
    }

    /**
     * @return increase events of the byte counter since the last decrease (BC).
     */
    public int byteStage()
    {
        return byteStage;
    }

    /**
     * @return rate decreases since creation.
     */
    public long decreases()
    {
        return decreases;
    }

    /**
     * @return rate increases (timer and byte counter) since creation.
     */
    public long increases()
    {
        return increases;
    }

    /**
     * @return the state as a snapshot.
     */
    public QpRate snapshot()
    {
        return new QpRate(limited, currentRateBps(), targetRateBps(), alpha(), timeStage, byteStage);
    }
}
