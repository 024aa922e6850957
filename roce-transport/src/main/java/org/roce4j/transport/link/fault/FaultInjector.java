package org.roce4j.transport.link.fault;

import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.NanoClock;
import org.roce4j.transport.link.LinkCounter;
import org.roce4j.transport.link.LinkCounters;
import org.roce4j.wire.header.Ecn;
import org.roce4j.wire.header.Ipv4Header;

/**
 * The faults injected into one stream of frames: a memory port's egress (towards the switch), or one direction of a
 * {@link FaultyLink}. A seeded random profile plus targeted {@link FaultRule}s. Configure it fluently:
 * <pre>{@code
 * link.faults()
 *     .seed(0xC0FFEE)
 *     .loss(0.05)                          // 5 % of frames vanish
 *     .duplication(0.01)                   // 1 % arrive twice
 *     .corruption(0.001, 3)                // 0.1 % get 1..3 bits flipped (the receiver's ICRC catches them)
 *     .reordering(0.02, 8)                 // 2 % are overtaken by 1..8 later frames
 *     .delay(0.10, 20_000, 5_000)          // 10 % arrive 20..25 us late (fabric clock)
 *     .addRule(FaultRule.drop().operation(Operation.ACKNOWLEDGE).times(2));
 * }</pre>
 *
 * <p>Order for each frame: the first matching rule with hits left acts, then the random profile. A drop from either
 * ends the frame; otherwise corruption, duplicates, delay and reordering add up (delays sum; a corrupted frame is
 * duplicated corrupted).
 *
 * <p>Determinism: for a given seed and sequence of frames the outcome is always the same. Every fault kind draws
 * from its own streams, so enabling one kind never changes which frames another kind hits. The streams are the
 * successive {@link SplittableRandom#split()}s of {@code new SplittableRandom(seed)}, two per kind in the order
 * loss, duplication, corruption, reordering, delay (first its decision stream, then its detail stream), then one
 * for the rules; each installed rule gets a stream of its own split from that one, in installation order. While a kind's rate is non-zero its decision stream yields exactly one {@code nextDouble()} per
 * frame sent, and the kind hits the frame when that value is below the rate; amounts (bits and their positions,
 * reorder distances, jitter) come from the detail stream.
 *
 * <p>Corruption flips distinct bits after the Ethernet header, only in bytes the ICRC covers (never the IPv4 TOS,
 * TTL or checksum, the IPv6 traffic class, flow label or hop limit, the UDP checksum or the BTH FECN/BECN byte,
 * which the ICRC masks out: IBA A17.3.3, rxe_icrc.c). At most {@link FaultRule#MAX_CORRUPT_BITS} bits per frame
 * are flipped, so the CRC-32 ICRC detects the damage for certain (Hamming distance 4 at these lengths), or the
 * receiver's IP checksum and IP/UDP length checks do when a length bit flips. The one gap: flips that change the IP
 * and UDP lengths consistently (the same bit of both, picked at random among thousands) make the receiver check the
 * ICRC at a shifted place, which still fails with probability 1 - 2^-32.
 *
 * <p>Thread safety: configure from the thread that drives the port (or before that thread starts).
 */
public final class FaultInjector extends FaultVerdict
{
    /** Seed of a new port's injector is this value XOR the port's IPv4 address. */
    public static final long DEFAULT_SEED = 0x5EED_F00D_CAFE_1234L;
    /** How long a reordered frame waits at most for later frames when no other bound is given: 1 ms. */
    public static final long DEFAULT_REORDER_MAX_HOLD_NS = 1_000_000L;

    private static final int KIND_COUNT = 5;
    private static final int LOSS = 0;
    private static final int DUPLICATION = 1;
    private static final int CORRUPTION = 2;
    private static final int REORDERING = 3;
    private static final int DELAY = 4;

    private final NanoClock clock;
    private final LinkCounters counters;
    private final LinkCounters injected = new LinkCounters();
    private final Ipv4Header ipv4Header = new Ipv4Header();
    private final SplittableRandom[] decision = new SplittableRandom[KIND_COUNT];
    private final SplittableRandom[] detail = new SplittableRandom[KIND_COUNT];
    private final double[] rate = new double[KIND_COUNT];
    private SplittableRandom ruleRandom;
    private SplittableRandom ruleStreams;
    private long seed;
    private int corruptMaxBits = 1;
    private int reorderMaxLaterFrames = 1;
    private long reorderMaxHoldNs = DEFAULT_REORDER_MAX_HOLD_NS;
    private long delayNs;
    private long jitterNs;
    private boolean active;

    private final FrameCorruptor corruptor = new FrameCorruptor();
    private final FaultRules rules = new FaultRules();

    private long reorders;

    /**
     * @param clock    time source of delays, windows and reorder bounds.
     * @param counters the link's counters, where what is injected is counted too (null for none).
     * @param seed     of the random streams.
     */
    public FaultInjector(final NanoClock clock, final LinkCounters counters, final long seed)
    {
        this.clock = clock;
        this.counters = counters;
        seed(seed);
    }

    /**
     * Restart every random stream from a seed; rates and rules stay.
     *
     * @param seed for the random profile.
     * @return this.
     */
    public FaultInjector seed(final long seed)
    {
        this.seed = seed;
        final SplittableRandom master = new SplittableRandom(seed);
        for (int kind = 0; kind < KIND_COUNT; kind++)
        {
            decision[kind] = master.split();
            detail[kind] = master.split();
        }
        ruleRandom = master.split();
        ruleStreams = ruleRandom.split();
        return this;
    }

    /**
     * @return the seed of the random streams.
     */
    public long seed()
    {
        return seed;
    }

    /**
     * @param lossRate fraction of frames dropped, 0 to 1.
     * @return this.
     */
    public FaultInjector loss(final double lossRate)
    {
        return setRate(LOSS, lossRate, "lossRate");
    }

    /**
     * @param duplicationRate fraction of frames delivered twice, 0 to 1.
     * @return this.
     */
    public FaultInjector duplication(final double duplicationRate)
    {
        return setRate(DUPLICATION, duplicationRate, "duplicationRate");
    }

    /**
     * @param corruptionRate fraction of frames corrupted, 0 to 1.
     * @param maxBits        each corrupted frame gets 1 to maxBits distinct bits flipped, at most
     *                       {@link FaultRule#MAX_CORRUPT_BITS}.
     * @return this.
     */
    public FaultInjector corruption(final double corruptionRate, final int maxBits)
    {
        FaultRule.checkCorruptBits(maxBits);
        corruptMaxBits = maxBits;
        return setRate(CORRUPTION, corruptionRate, "corruptionRate");
    }

    /**
     * Reorder with the default bound on waiting, {@link #DEFAULT_REORDER_MAX_HOLD_NS}.
     *
     * @param reorderRate   fraction of frames held back, 0 to 1.
     * @param maxLaterFrames each held frame goes out after 1 to maxLaterFrames later frames.
     * @return this.
     */
    public FaultInjector reordering(final double reorderRate, final int maxLaterFrames)
    {
        return reordering(reorderRate, maxLaterFrames, DEFAULT_REORDER_MAX_HOLD_NS);
    }

    /**
     * @param reorderRate    fraction of frames held back, 0 to 1.
     * @param maxLaterFrames each held frame goes out after 1 to maxLaterFrames later frames.
     * @param maxHoldNs      or once it has waited this long on the fabric clock (checked when the port is polled or
     *                       flushed), so a frame held at the end of a burst still arrives; also bounds
     *                       {@link FaultRule#reorder(int)}.
     * @return this.
     */
    public FaultInjector reordering(final double reorderRate, final int maxLaterFrames, final long maxHoldNs)
    {
        if (maxLaterFrames < 1)
        {
            throw new IllegalArgumentException("maxLaterFrames must be at least 1: " + maxLaterFrames);
        }
        if (maxHoldNs < 1)
        {
            throw new IllegalArgumentException("maxHoldNs must be at least 1: " + maxHoldNs);
        }
        reorderMaxLaterFrames = maxLaterFrames;
        reorderMaxHoldNs = maxHoldNs;
        return setRate(REORDERING, reorderRate, "reorderRate");
    }

    /**
     * @param delayRate fraction of frames delayed, 0 to 1.
     * @param fixedNs   latency every delayed frame gets, at least 0.
     * @param jitterNs  plus a uniform random 0 to jitterNs, at least 0; fixedNs + jitterNs must be positive when
     *                  the rate is.
     * @return this.
     */
    public FaultInjector delay(final double delayRate, final long fixedNs, final long jitterNs)
    {
        if (fixedNs < 0 || jitterNs < 0 || jitterNs == Long.MAX_VALUE)
        {
            throw new IllegalArgumentException("delay needs fixedNs >= 0 and 0 <= jitterNs < Long.MAX_VALUE: " +
                fixedNs + ", " + jitterNs);
        }
        if (delayRate > 0 && 0 == fixedNs + jitterNs)
        {
            throw new IllegalArgumentException("a delay rate above 0 needs a fixed or a jitter delay above 0");
        }
        this.delayNs = fixedNs;
        this.jitterNs = jitterNs;
        return setRate(DELAY, delayRate, "delayRate");
    }

    /**
     * Install a rule after the ones already there.
     *
     * @param rule not installed anywhere yet.
     * @return this.
     * @throws IllegalStateException when the rule is already installed.
     */
    public FaultInjector addRule(final FaultRule rule)
    {
        rule.install(clock.nanoTime(), ruleStreams.split());
        rules.add(rule);
        updateActive();
        return this;
    }

    /**
     * @param rule installed here.
     * @return true when it was installed here and is now gone.
     */
    public boolean removeRule(final FaultRule rule)
    {
        final boolean removed = rules.remove(rule);
        updateActive();
        return removed;
    }

    /**
     * Remove every rule.
     *
     * @return this.
     */
    public FaultInjector clearRules()
    {
        rules.clear();
        updateActive();
        return this;
    }

    /**
     * @return the installed rules in evaluation order (a copy).
     */
    public List<FaultRule> rules()
    {
        return rules.list();
    }

    /**
     * Turn every fault off: all rates 0, no rules. The seed stays; the streams are not restarted.
     *
     * @return this.
     */
    public FaultInjector reset()
    {
        Arrays.fill(rate, 0.0);
        rules.clear();
        updateActive();
        return this;
    }

    /**
     * @return loss rate.
     */
    public double lossRate()
    {
        return rate[LOSS];
    }

    /**
     * @return duplication rate.
     */
    public double duplicationRate()
    {
        return rate[DUPLICATION];
    }

    /**
     * @return corruption rate.
     */
    public double corruptionRate()
    {
        return rate[CORRUPTION];
    }

    /**
     * @return reorder rate.
     */
    public double reorderRate()
    {
        return rate[REORDERING];
    }

    /**
     * @return delay rate.
     */
    public double delayRate()
    {
        return rate[DELAY];
    }

    /**
     * @return true when any rate is above 0 or any rule is installed.
     */
    public boolean isActive()
    {
        return active;
    }

    /**
     * @return e.g. {@code seed=42 loss=0.05 rules=1}.
     */
    public String toString()
    {
        return "seed=" + seed + " loss=" + rate[LOSS] + " duplication=" + rate[DUPLICATION] +
            " corruption=" + rate[CORRUPTION] + "/" + corruptMaxBits + "bits" +
            " reordering=" + rate[REORDERING] + "/" + reorderMaxLaterFrames + "frames" +
            " delay=" + rate[DELAY] + "/" + delayNs + "+" + jitterNs + "ns rules=" + rules.size();
    }

    private FaultInjector setRate(final int kind, final double value, final String name)
    {
        if (!(value >= 0.0 && value <= 1.0))
        {
            throw new IllegalArgumentException(name + " must be between 0 and 1: " + value);
        }
        rate[kind] = value;
        updateActive();
        return this;
    }

    private void updateActive()
    {
        boolean any = rules.size() > 0;
        for (int kind = 0; kind < KIND_COUNT; kind++)
        {
            any |= rate[kind] > 0.0;
        }
        active = any;
    }

    /**
     * @return what this injector injected (the INJECTED_* counters only), for reports.
     */
    public LinkCounters injected()
    {
        return injected;
    }

    /**
     * @return what this injector injected, by kind: a snapshot (it allocates; not for the frame path). Reorders are
     *     the frames its {@link FaultyLink} held back behind later ones.
     */
    public FaultCounts counts()
    {
        return FaultCounts.of(injected, reorders);
    }

    /**
     * Decide the fate of one frame, corrupt or mark it in place when so decided, count drops, corruptions, ECN
     * marks and duplicates, and leave the rest of the verdict in {@link #dropped()}, {@link #copies()},
     * {@link #verdictDelayNs()} and {@link #reorderFrames()}.
     *
     * @param frame       fields of the frame.
     * @param buffer      holding the frame.
     * @param offset      of the frame.
     * @param length      of the frame.
     * @param destination IPv4 address the frame goes to (the port it is routed to, on the fabric), or 0.
     */
    public void decide(
        final FrameView frame,
        final MutableDirectBuffer buffer,
        final int offset,
        final int length,
        final int destination)
    {
        boolean drop = false;
        int extraCopies = 0;
        long delay = 0;
        int reorder = 0;
        int corruptBits = 0;
        boolean corruptIcrc = false;
        boolean corruptPayload = false;
        boolean ecn = false;
        FrameMutator mutator = null;
        SplittableRandom firedRandom = ruleRandom;

        final FaultRule rule = rules.fire(frame, destination, clock);
        if (null != rule)
        {
            firedRandom = rule.random();
            switch (rule.action())
            {
                case DROP:
                    drop = true;
                    break;
                case DUPLICATE:
                    extraCopies += rule.amount();
                    break;
                case CORRUPT:
                    corruptBits = rule.amount();
                    break;
                case CORRUPT_ICRC:
                    corruptIcrc = true;
                    break;
                case CORRUPT_PAYLOAD:
                    corruptPayload = true;
                    break;
                case ECN:
                    ecn = true;
                    break;
                case DELAY:
                    delay += rule.delayNs();
                    break;
                case REORDER:
                    reorder = rule.amount();
                    break;
                case MUTATE:
                    mutator = rule.mutator();
                    break;
                default:
                    throw new IllegalStateException("unhandled action " + rule.action());
            }
        }

        if (hits(LOSS))
        {
            drop = true;
        }
        if (hits(DUPLICATION))
        {
            extraCopies++;
        }
        final boolean randomCorruption = hits(CORRUPTION);
        if (randomCorruption)
        {
            corruptBits += 1 + detail[CORRUPTION].nextInt(corruptMaxBits);
        }
        if (hits(REORDERING) && 0 == reorder)
        {
            reorder = 1 + detail[REORDERING].nextInt(reorderMaxLaterFrames);
        }
        if (hits(DELAY))
        {
            delay += delayNs + (jitterNs > 0 ? detail[DELAY].nextLong(jitterNs + 1) : 0);
        }

        if (corruptBits > 0 || corruptIcrc)
        {
            // Flipped even when the frame is dropped, so the corruption streams advance the same either way.
            corruptor.corrupt(frame, buffer, offset, length, corruptBits, corruptIcrc,
                randomCorruption ? detail[CORRUPTION] : firedRandom);
        }
        if (corruptPayload)
        {
            corruptor.corruptPayload(frame, buffer, firedRandom);
        }
        verdictRule = rule;
        verdictDrop = drop;
        verdictCorrupted = corruptBits > 0 || corruptIcrc || corruptPayload;
        verdictMutator = drop ? null : mutator;
        if (drop)
        {
            count(LinkCounter.INJECTED_DROPS, 1);
            verdictCopies = 0;
            verdictDelayNs = 0;
            verdictReorder = 0;
            return;
        }
        if (ecn && Ecn.markCe(buffer, frame.ipOffset(), frame.ipVersion(), ipv4Header))
        {
            count(LinkCounter.INJECTED_ECN_MARKS, 1);
        }
        if (corruptBits > 0 || corruptIcrc || corruptPayload)
        {
            count(LinkCounter.INJECTED_CORRUPTIONS, 1);
        }
        if (extraCopies > 0)
        {
            count(LinkCounter.INJECTED_DUPLICATES, extraCopies);
        }
        if (null != mutator)
        {
            count(LinkCounter.INJECTED_MUTATIONS, 1);
        }
        verdictCopies = 1 + extraCopies;
        verdictDelayNs = delay;
        verdictReorder = reorder;
    }

    /**
     * Count an injected fault on the link and in this injector's own tally. The thread deciding is the link's.
     *
     * @param key   an INJECTED_* counter.
     * @param delta how many.
     */
    void count(final LinkCounter key, final long delta)
    {
        injected.add(key, delta);
        if (null != counters)
        {
            counters.add(key, delta);
        }
    }

    /**
     * The last decided frame was held back: count it as a reorder when its verdict asked for one (it may have been
     * delayed instead, when the reorder buffer was full). The thread deciding is the link's.
     */
    void countHeldBack()
    {
        reorders += verdictReorder > 0 ? 1 : 0;
    }

    private boolean hits(final int kind)
    {
        final double kindRate = rate[kind];
        return kindRate > 0.0 && decision[kind].nextDouble() < kindRate;
    }

    /**
     * @return bound on waiting for later frames.
     */
    public long reorderMaxHoldNs()
    {
        return reorderMaxHoldNs;
    }
}
