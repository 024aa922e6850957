package org.roce4j.conform;

import java.util.Objects;
import java.util.function.Function;
import java.util.function.UnaryOperator;

import org.agrona.MutableDirectBuffer;
import org.roce4j.transport.link.fault.FaultRule;
import org.roce4j.transport.link.fault.FrameView;

/**
 * A fault the {@link ConformLink} applies to the next frames that match a filter in one direction: drop, mutate,
 * delay or duplicate them. A rule fires {@code count} times, then retires. It is the scenario's word for a fault;
 * the work is the link fault layer's ({@link FaultRule}, installed by the conform link), so frames are dropped,
 * held and released, duplicated and rewritten in one place for every link and counted there (INJECTED_*).
 */
public final class FrameRule
{
    /**
     * What the rule does to a matching frame, and the word that opens the fault note the capture keeps for it
     * ({@link CapturedFrame#fault()}: {@code dropped}, {@code duplicated}, {@code delayed N ns},
     * {@code mutated: NAME}), which the checkers, the ladder and the reports read back through {@link #of}.
     */
    public enum Action
    {
        /** The frame never arrives. */
        DROP("dropped"),
        /** The frame arrives rewritten by the rule's mutation. */
        MUTATE("mutated"),
        /** The frame arrives {@code delayNs} later (on the runner's clock). */
        DELAY("delayed"),
        /** The frame arrives twice. */
        DUPLICATE("duplicated");

        private final String word;

        Action(final String word)
        {
            this.word = word;
        }

        /**
         * @return the word a fault note of this action starts with, e.g. {@code dropped}.
         */
        public String word()
        {
            return word;
        }

        /**
         * @param fault a fault note as {@link FrameRule} writes it ({@link CapturedFrame#fault()}), or null.
         * @return the action that wrote it, or null for none (no fault, or words no rule writes).
         */
        public static Action of(final String fault)
        {
            if (null == fault)
            {
                return null;
            }
            int end = 0;
            while (end < fault.length() && ' ' != fault.charAt(end) && ':' != fault.charAt(end))
            {
                end++;
            }
            for (final Action action : values())
            {
                if (action.word.length() == end && fault.startsWith(action.word))
                {
                    return action;
                }
            }
            return null;
        }
    }

    private final Direction direction;
    private final FrameFilter filter;
    private final Action action;
    private final int count;
    private final long delayNs;
    private final String mutationName;
    private final UnaryOperator<byte[]> mutation;
    private FaultRule installed;

    private FrameRule(final Direction direction, final FrameFilter filter, final Action action, final int count,
        final long delayNs, final String mutationName, final UnaryOperator<byte[]> mutation)
    {
        this.direction = Objects.requireNonNull(direction, "direction");
        this.filter = Objects.requireNonNull(filter, "filter");
        this.action = action;
        if (count < 1)
        {
            throw new IllegalArgumentException("a frame rule fires at least once, count=" + count);
        }
        this.count = count;
        this.delayNs = delayNs;
        this.mutationName = mutationName;
        this.mutation = mutation;
    }

    /**
     * @param direction which way.
     * @param filter    which frames.
     * @param count     how many.
     * @return a rule dropping them.
     */
    public static FrameRule drop(final Direction direction, final FrameFilter filter, final int count)
    {
        return new FrameRule(direction, filter, Action.DROP, count, 0, null, null);
    }

    /**
     * @param direction which way.
     * @param filter    which frames.
     * @param count     how many.
     * @return a rule sending them twice.
     */
    public static FrameRule duplicate(final Direction direction, final FrameFilter filter, final int count)
    {
        return new FrameRule(direction, filter, Action.DUPLICATE, count, 0, null, null);
    }

    /**
     * @param direction which way.
     * @param filter    which frames.
     * @param count     how many.
     * @param delayNs   how late they arrive.
     * @return a rule delaying them.
     */
    public static FrameRule delay(final Direction direction, final FrameFilter filter, final int count,
        final long delayNs)
    {
        if (delayNs <= 0)
        {
            throw new IllegalArgumentException("delayNs must be positive: " + delayNs);
        }
        return new FrameRule(direction, filter, Action.DELAY, count, delayNs, null, null);
    }

    /**
     * @param direction which way.
     * @param filter    which frames.
     * @param count     how many.
     * @param name      what the mutation does, for the capture and the report.
     * @param mutation  returns the frame to deliver (a copy; it may change the length).
     * @return a rule rewriting them.
     */
    public static FrameRule mutate(final Direction direction, final FrameFilter filter, final int count,
        final String name, final UnaryOperator<byte[]> mutation)
    {
        return new FrameRule(direction, filter, Action.MUTATE, count, 0, Objects.requireNonNull(name, "name"),
            Objects.requireNonNull(mutation, "mutation"));
    }

    /**
     * The link fault layer's rule that does this one's work: the same action on the next {@code count} frames its
     * filter matches, the filter reading each frame as the capture parses it. Made once, when the conform link
     * installs the rule on the direction's {@link org.roce4j.transport.link.fault.FaultInjector}.
     *
     * @param parse reads a frame the fault layer is deciding as a captured frame, for the filter.
     * @return the fault rule, not yet installed.
     */
    FaultRule faultRule(final Function<FrameView, CapturedFrame> parse)
    {
        if (null != installed)
        {
            throw new IllegalStateException("rule already installed: " + this);
        }
        final FaultRule rule;
        switch (action)
        {
            case DROP:
                rule = FaultRule.drop();
                break;
            case DUPLICATE:
                rule = FaultRule.duplicate();
                break;
            case DELAY:
                rule = FaultRule.delay(delayNs);
                break;
            default:
                rule = FaultRule.mutate(this::rewrite);
                break;
        }
        installed = rule.matching(frame -> filter.matches(parse.apply(frame))).times(count);
        return installed;
    }

    /** The mutation works on a copy of the frame as bytes: a test instrument's rewrite, not a data path. */
    private int rewrite(final MutableDirectBuffer buffer, final int offset, final int length, final int capacity)
    {
        final byte[] frame = new byte[length];
        buffer.getBytes(offset, frame);
        final byte[] mutated = mutation.apply(frame);
        if (mutated.length > capacity)
        {
            throw new IllegalStateException("mutation '" + mutationName + "' made a frame of " + mutated.length +
                " bytes, the link holds " + capacity);
        }
        buffer.putBytes(offset, mutated);
        return mutated.length;
    }

    Direction direction()
    {
        return direction;
    }

    Action action()
    {
        return action;
    }

    /**
     * @return true once the rule has fired its {@code count} times.
     */
    boolean spent()
    {
        return null != installed && installed.isExhausted();
    }

    private long remaining()
    {
        return null == installed ? count : installed.remaining();
    }

    /**
     * @return the fault note this rule writes into the capture for a frame it takes ({@link CapturedFrame#fault()}):
     *         its action's {@link Action#word()}, with the delay or the mutation's name.
     */
    public String note()
    {
        switch (action)
        {
            case DELAY:
                return action.word() + " " + delayNs + " ns";
            case MUTATE:
                return action.word() + ": " + mutationName;
            default:
                return action.word();
        }
    }

    /**
     * @return e.g. {@code drop 1 x TO_DUT RC_SEND_ONLY}.
     */
    @Override
    public String toString()
    {
        return action.name().toLowerCase(java.util.Locale.ROOT) + " " + remaining() + " x " + direction + " " +
            filter.description();
    }
}
