package org.roce4j.transport.link.fault;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.agrona.concurrent.NanoClock;

/**
 * A {@link FaultInjector}'s targeted rules in evaluation order: the first rule that fires for a frame acts (see
 * {@link FaultRule#fire}). The array is replaced, never changed, so the frame path reads it with no lock and no
 * allocation; the clock is read only when a rule has a time window.
 */
final class FaultRules
{
    private static final FaultRule[] NO_RULES = new FaultRule[0];

    private FaultRule[] rules = NO_RULES;
    private boolean needClock;

    /**
     * @param rule a rule, already installed, to evaluate after the others.
     */
    void add(final FaultRule rule)
    {
        final FaultRule[] more = Arrays.copyOf(rules, rules.length + 1);
        more[rules.length] = rule;
        set(more);
    }

    /**
     * @param rule a rule.
     * @return true when it was here and is now gone.
     */
    boolean remove(final FaultRule rule)
    {
        for (int i = 0; i < rules.length; i++)
        {
            if (rules[i] == rule)
            {
                final FaultRule[] fewer = new FaultRule[rules.length - 1];
                System.arraycopy(rules, 0, fewer, 0, i);
                System.arraycopy(rules, i + 1, fewer, i, rules.length - i - 1);
                set(fewer);
                return true;
            }
        }
        return false;
    }

    void clear()
    {
        set(NO_RULES);
    }

    int size()
    {
        return rules.length;
    }

    /**
     * @return the rules in evaluation order (a copy).
     */
    List<FaultRule> list()
    {
        return new ArrayList<>(Arrays.asList(rules));
    }

    /**
     * @param frame       fields of the frame.
     * @param destination IPv4 address the frame goes to, or 0.
     * @param clock       read once when a rule has a time window.
     * @return the first rule that fires for the frame (its hit counted), or null.
     */
    FaultRule fire(final FrameView frame, final int destination, final NanoClock clock)
    {
        final FaultRule[] current = rules;
        if (0 == current.length)
        {
            return null;
        }
        final long nowNs = needClock ? clock.nanoTime() : 0;
        for (final FaultRule rule : current)
        {
            if (rule.fire(frame, destination, nowNs))
            {
                return rule;
            }
        }
        return null;
    }

    private void set(final FaultRule[] newRules)
    {
        boolean windows = false;
        for (final FaultRule rule : newRules)
        {
            windows |= rule.hasWindow();
        }
        needClock = windows;
        rules = newRules;
    }
}
