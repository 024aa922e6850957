package org.roce4j.transport.link.fault;

import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

import org.roce4j.transport.link.LinkAddress;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.Operation;
import org.roce4j.wire.Transport;

/**
 * A targeted fault: an action ({@link FaultAction}), a predicate over the frame's BTH and destination, how often it
 * fires (a probability, every N-th match) and how many times. Built fluently, or parsed from the {@code --faults}
 * grammar ({@link FaultSpec}), then installed on the injector whose frames it should hit with
 * {@link FaultInjector#addRule(FaultRule)} (a memory port's egress, or one direction of a {@link FaultyLink}):
 * <pre>{@code
 * FaultRule.drop().destQp(qpn).psn(7).once()                         // lose one packet, let the retry through
 * FaultRule.drop().operation(Operation.ACKNOWLEDGE).times(3)          // the next three ACKs or NAKs
 * FaultRule.drop().operation(Operation.RDMA_READ_RESPONSE).forNs(2_000_000)  // every READ response for 2 ms
 * FaultRule.duplicate().operation(Operation.COMPARE_SWAP, Operation.FETCH_ADD)  // every atomic request
 * FaultRule.corruptIcrc().skip(9).once()                              // the 10th frame gets a bad ICRC
 * FaultRule.delay(50_000).destQp(qpn)                                 // 50 us more latency for one QP
 * FaultRule.reorder(3).opcode(Opcode.RC_SEND_FIRST).once()            // the first SEND_FIRST arrives 3 late
 * FaultRule.drop().probability(0.02)                                  // 2 % of frames, drawn from the seed
 * FaultRule.ecn().every(10)                                           // every 10th frame marked CE
 * FaultRule.mutate(rewrite).matching(isNak).times(2)                  // the next two NAKs rewritten
 * }</pre>
 *
 * <p>Matchers combine with AND; a rule without matchers matches every frame, while any BTH matcher (opcode,
 * operation, transport, QPN, PSN) matches RoCEv2 frames only. An injector evaluates its rules in the order they were
 * added and applies the first that fires: it matches, still has hits left, it is the rule's N-th match
 * ({@link #every(long)}) and its probability draws it ({@link #probability(double)}, one draw per such frame from the
 * rule's own stream, split from the injector's seed); {@link #skip(long)} lets the first matching frames through
 * untouched (to the later rules). The random profile of the injector then applies on top to frames the rule did not
 * drop.
 *
 * <p>A rule is configuration while it is built and becomes immutable once installed: changing it afterwards throws
 * {@link IllegalStateException}. Its hit count may be read from any thread; it is written by the thread driving
 * the port the rule is installed on. A rule belongs to at most one port.
 */
public final class FaultRule
{
    /** Hit limit of a rule that never runs out. */
    public static final long UNLIMITED = Long.MAX_VALUE;
    /** Most bits a corruption flips: CRC-32 detects every error of up to 3 bits in frames of up to 91,607 bits
     * (Hamming distance 4, Koopman 2002), which covers a 9000-byte MTU, so a corrupted frame never passes. */
    public static final int MAX_CORRUPT_BITS = 3;

    private final FaultAction action;
    private final long delayNs;
    private final int amount;
    private final FrameMutator mutator;
    private final FrameFilter filter = new FrameFilter();
    private long skip;
    private long every = 1;
    private long matchesSeen;
    private double probability = 1.0;
    private SplittableRandom random;
    private long limit = UNLIMITED;
    private boolean installed;
    private long skipped;
    private final AtomicLong hits = new AtomicLong();

    private FaultRule(final FaultAction action, final long delayNs, final int amount)
    {
        this(action, delayNs, amount, null);
    }

    private FaultRule(final FaultAction action, final long delayNs, final int amount, final FrameMutator mutator)
    {
        this.action = action;
        this.delayNs = delayNs;
        this.amount = amount;
        this.mutator = mutator;
    }

    /**
     * @return a rule that drops matching frames.
     */
    public static FaultRule drop()
    {
        return new FaultRule(FaultAction.DROP, 0, 0);
    }

    /**
     * @return a rule that delivers one extra copy of each matching frame.
     */
    public static FaultRule duplicate()
    {
        return duplicate(1);
    }

    /**
     * @param extraCopies copies delivered behind the frame, at least 1.
     * @return a rule that duplicates matching frames.
     */
    public static FaultRule duplicate(final int extraCopies)
    {
        if (extraCopies < 1)
        {
            throw new IllegalArgumentException("extraCopies must be at least 1: " + extraCopies);
        }
        return new FaultRule(FaultAction.DUPLICATE, 0, extraCopies);
    }

    /**
     * @return a rule that flips one random bit of each matching frame (after the Ethernet header, in a byte the
     *     ICRC covers).
     */
    public static FaultRule corrupt()
    {
        return corrupt(1);
    }

    /**
     * @param bits distinct bits to flip, 1 to {@link #MAX_CORRUPT_BITS}.
     * @return a rule that corrupts matching frames.
     */
    public static FaultRule corrupt(final int bits)
    {
        checkCorruptBits(bits);
        return new FaultRule(FaultAction.CORRUPT, 0, bits);
    }

    /**
     * @return a rule that flips one random bit of the ICRC trailer of matching RoCEv2 frames (other frames get
     *     one random bit flipped as by {@link #corrupt()}).
     */
    public static FaultRule corruptIcrc()
    {
        return new FaultRule(FaultAction.CORRUPT_ICRC, 0, 1);
    }

    /**
     * @param delayNs extra latency, on the fabric clock, at least 1 ns.
     * @return a rule that delays matching frames.
     */
    public static FaultRule delay(final long delayNs)
    {
        if (delayNs < 1)
        {
            throw new IllegalArgumentException("delayNs must be at least 1: " + delayNs);
        }
        return new FaultRule(FaultAction.DELAY, delayNs, 0);
    }

    /**
     * @param laterFrames frames that leave the port before each matching frame, at least 1.
     * @return a rule that reorders matching frames.
     */
    public static FaultRule reorder(final int laterFrames)
    {
        if (laterFrames < 1)
        {
            throw new IllegalArgumentException("laterFrames must be at least 1: " + laterFrames);
        }
        return new FaultRule(FaultAction.REORDER, 0, laterFrames);
    }

    /**
     * @return a rule that flips one bit of each matching frame's payload, or of its ICRC when it has none: the
     *     frame still parses, its ICRC is bad (the {@code --faults} action {@code corrupt=P}).
     */
    public static FaultRule corruptPayload()
    {
        return new FaultRule(FaultAction.CORRUPT_PAYLOAD, 0, 1);
    }

    /**
     * @return a rule that marks matching frames Congestion Experienced (ECN bits 11) and fixes the IPv4 header
     *     checksum; the ICRC stays valid.
     */
    public static FaultRule ecn()
    {
        return new FaultRule(FaultAction.ECN, 0, 0);
    }

    /**
     * @param mutator rewrites each matching frame, on a copy the link keeps for it (the length may change).
     * @return a rule that rewrites matching frames (counted as {@code INJECTED_MUTATIONS}).
     */
    public static FaultRule mutate(final FrameMutator mutator)
    {
        return new FaultRule(FaultAction.MUTATE, 0, 0, Objects.requireNonNull(mutator, "mutator"));
    }

    static void checkCorruptBits(final int bits)
    {
        if (bits < 1 || bits > MAX_CORRUPT_BITS)
        {
            throw new IllegalArgumentException("bits must be 1.." + MAX_CORRUPT_BITS + ": " + bits);
        }
    }

    /**
     * Match these opcodes (adds to earlier calls).
     *
     * @param values opcodes.
     * @return this.
     */
    public FaultRule opcode(final Opcode... values)
    {
        checkMutable();
        filter.opcodes(values);
        return this;
    }

    /**
     * Match opcodes doing one of these operations (adds to earlier calls).
     *
     * @param values operations, e.g. {@link Operation#ACKNOWLEDGE} for ACKs and NAKs.
     * @return this.
     */
    public FaultRule operation(final Operation... values)
    {
        checkMutable();
        filter.operations(values);
        return this;
    }

    /**
     * Match opcodes of one of these transports (adds to earlier calls).
     *
     * @param values transports.
     * @return this.
     */
    public FaultRule transport(final Transport... values)
    {
        checkMutable();
        filter.transports(values);
        return this;
    }

    /**
     * Match only frames this matcher also accepts (one per rule): for what the BTH and address matchers cannot say.
     * It is asked last, after the other matchers matched.
     *
     * @param value reads the frame.
     * @return this.
     */
    public FaultRule matching(final FrameMatcher value)
    {
        checkMutable();
        filter.matcher(value);
        return this;
    }

    /**
     * @param qpn BTH DestQP to match, 24 bits.
     * @return this.
     */
    public FaultRule destQp(final int qpn)
    {
        checkMutable();
        filter.destQp(qpn);
        return this;
    }

    /**
     * @param psn BTH PSN to match, 24 bits.
     * @return this.
     */
    public FaultRule psn(final int psn)
    {
        return psnRange(psn, psn);
    }

    /**
     * Match PSNs from {@code first} to {@code last} inclusive, in 24-bit serial order (may wrap through 0).
     *
     * @param first PSN, 24 bits.
     * @param last  PSN, 24 bits, at most 2^23 - 1 after {@code first}.
     * @return this.
     */
    public FaultRule psnRange(final int first, final int last)
    {
        checkMutable();
        filter.psnRange(first, last);
        return this;
    }

    /**
     * Match frames going to one address (on the fabric: routed to that port).
     *
     * @param destination address of the receiver; its primary IPv4 address is matched.
     * @return this.
     */
    public FaultRule to(final LinkAddress destination)
    {
        checkMutable();
        filter.destination(destination.ipv4());
        return this;
    }

    /**
     * Be active from {@code startNs} (inclusive) to {@code endNs} (exclusive) on the fabric clock.
     *
     * @param startNs fabric clock time.
     * @param endNs   fabric clock time, after {@code startNs}.
     * @return this.
     */
    public FaultRule window(final long startNs, final long endNs)
    {
        checkMutable();
        filter.window(startNs, endNs);
        return this;
    }

    /**
     * Be active for a duration starting when the rule is installed.
     *
     * @param durationNs on the fabric clock, at least 1.
     * @return this.
     */
    public FaultRule forNs(final long durationNs)
    {
        checkMutable();
        filter.forNs(durationNs);
        return this;
    }

    /**
     * Act on a matching frame only with this probability, drawn from the rule's own random stream (split from the
     * injector's seed when the rule is installed), so a seeded run repeats exactly.
     *
     * @param chance 0 to 1.
     * @return this.
     */
    public FaultRule probability(final double chance)
    {
        checkMutable();
        if (!(chance >= 0.0 && chance <= 1.0))
        {
            throw new IllegalArgumentException("probability must be 0..1: " + chance);
        }
        probability = chance;
        return this;
    }

    /**
     * Act only on every N-th matching frame (the N-th, 2N-th, ...).
     *
     * @param n at least 1.
     * @return this.
     */
    public FaultRule every(final long n)
    {
        checkMutable();
        if (n < 1)
        {
            throw new IllegalArgumentException("every must be at least 1: " + n);
        }
        every = n;
        return this;
    }

    /**
     * Let the first {@code frames} matching frames through untouched, then act.
     *
     * @param frames to let through, at least 0.
     * @return this.
     */
    public FaultRule skip(final long frames)
    {
        checkMutable();
        if (frames < 0)
        {
            throw new IllegalArgumentException("frames must not be negative: " + frames);
        }
        skip = frames;
        return this;
    }

    /**
     * Act on one frame only.
     *
     * @return this.
     */
    public FaultRule once()
    {
        return times(1);
    }

    /**
     * Act on {@code count} frames, then never again.
     *
     * @param count hits, at least 1.
     * @return this.
     */
    public FaultRule times(final long count)
    {
        checkMutable();
        if (count < 1)
        {
            throw new IllegalArgumentException("count must be at least 1: " + count);
        }
        limit = count;
        return this;
    }

    /**
     * Act on every matching frame (the default).
     *
     * @return this.
     */
    public FaultRule always()
    {
        checkMutable();
        limit = UNLIMITED;
        return this;
    }

    /**
     * @return the action.
     */
    public FaultAction action()
    {
        return action;
    }

    /**
     * @return frames the rule acted on so far.
     */
    public long hits()
    {
        return hits.getOpaque();
    }

    /**
     * @return hits left, {@link #UNLIMITED} for a rule without limit.
     */
    public long remaining()
    {
        return UNLIMITED == limit ? UNLIMITED : limit - hits.getOpaque();
    }

    /**
     * @return true once the rule has used all its hits.
     */
    public boolean isExhausted()
    {
        return UNLIMITED != limit && hits.getOpaque() >= limit;
    }

    /**
     * @return true when the rule needs the fabric clock to decide.
     */
    boolean hasWindow()
    {
        return filter.hasWindow();
    }

    /**
     * Called once by the injector the rule is added to.
     *
     * @param nowNs  clock time, which starts a relative window.
     * @param stream the rule's random stream (probability draws, corrupted bits).
     */
    void install(final long nowNs, final SplittableRandom stream)
    {
        checkMutable();
        random = stream;
        filter.install(nowNs);
        installed = true;
    }

    /**
     * Decide whether the rule fires on a frame, consuming a skip, a count or a draw, and a hit when it fires.
     *
     * @param frame       the frame's fields.
     * @param destination IPv4 address the frame goes to (the receiving port's, on the fabric), or 0.
     * @param nowNs       clock time (only read when the rule has a window).
     * @return true when the rule acts on the frame.
     */
    boolean fire(final FrameView frame, final int destination, final long nowNs)
    {
        if (isExhausted() || !filter.matches(frame, destination, nowNs))
        {
            return false;
        }
        if (skipped < skip)
        {
            skipped++;
            return false;
        }
        if (1 != every && 0 != ++matchesSeen % every)
        {
            return false;
        }
        if (probability < 1.0 && !(random.nextDouble() < probability))
        {
            return false;
        }
        hits.setOpaque(hits.getPlain() + 1);
        return true;
    }

    /**
     * @return the rule's random stream, for the bits it corrupts.
     */
    SplittableRandom random()
    {
        return random;
    }

    /**
     * @return extra copies (DUPLICATE), bits (CORRUPT) or later frames (REORDER).
     */
    int amount()
    {
        return amount;
    }

    /**
     * @return the rewrite (MUTATE), else null.
     */
    FrameMutator mutator()
    {
        return mutator;
    }

    /**
     * @return extra latency (DELAY).
     */
    long delayNs()
    {
        return delayNs;
    }

    private void checkMutable()
    {
        if (installed)
        {
            throw new IllegalStateException("rule is installed on a port and can no longer change: " + this);
        }
    }

    /**
     * @return e.g. {@code DROP opcode=[RC_ACKNOWLEDGE] qpn=0x11 psn=5 limit=1 hits=0}.
     */
    public String toString()
    {
        final StringBuilder sb = new StringBuilder(action.name());
        switch (action)
        {
            case DUPLICATE:
                sb.append(" copies=").append(amount);
                break;
            case CORRUPT:
                sb.append(" bits=").append(amount);
                break;
            case DELAY:
                sb.append(" delayNs=").append(delayNs);
                break;
            case REORDER:
                sb.append(" laterFrames=").append(amount);
                break;
            default:
                break;
        }
        filter.appendTo(sb);
        if (0 != skip)
        {
            sb.append(" skip=").append(skip);
        }
        if (1 != every)
        {
            sb.append(" every=").append(every);
        }
        if (probability < 1.0)
        {
            sb.append(" p=").append(probability);
        }
        sb.append(" limit=").append(UNLIMITED == limit ? "unlimited" : Long.toString(limit));
        sb.append(" hits=").append(hits());
        return sb.toString();
    }
}
