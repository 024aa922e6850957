package org.roce4j.conform;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A named, scripted exchange with the device under test that checks one IBA rule: the Java form of a conformance
 * scenario. Build one with {@link #builder(String)}; {@link Steps} holds the steps.
 *
 * @param name    unique, lower case, dotted, e.g. {@code responder.psn-sequence-error}.
 * @param rule    the IBA rule it checks.
 * @param side    the DUT's role.
 * @param summary one sentence: what the peer does and what the DUT must do.
 * @param steps   the steps, run in order.
 */
public record Scenario(String name, IbaRule rule, Side side, String summary, List<Step> steps)
{
    private static final Pattern NAME = Pattern.compile("[a-z]+(\\.[a-z0-9-]+)+");

    /**
     * @param name    unique name.
     * @param rule    the IBA rule.
     * @param side    the DUT's role.
     * @param summary one sentence.
     * @param steps   the steps.
     */
    public Scenario
    {
        Objects.requireNonNull(rule, "rule");
        Objects.requireNonNull(side, "side");
        Objects.requireNonNull(summary, "summary");
        if (!NAME.matcher(name).matches())
        {
            throw new IllegalArgumentException("scenario name must be lower-case dotted words like " +
                "responder.psn-sequence-error, got " + name);
        }
        if (steps.isEmpty())
        {
            throw new IllegalArgumentException("scenario " + name + " has no steps");
        }
        steps = List.copyOf(steps);
    }

    /**
     * @param name the scenario's name.
     * @return a builder.
     */
    public static Builder builder(final String name)
    {
        return new Builder(name);
    }

    /**
     * Builds a {@link Scenario}.
     */
    public static final class Builder
    {
        private final String name;
        private final List<Step> steps = new ArrayList<>();
        private IbaRule rule;
        private Side side;
        private String summary = "";

        private Builder(final String name)
        {
            this.name = name;
        }

        /**
         * @param section    IBA section or compliance statement.
         * @param paraphrase the rule in one line.
         * @return this.
         */
        public Builder rule(final String section, final String paraphrase)
        {
            this.rule = new IbaRule(section, paraphrase);
            return this;
        }

        /**
         * @param section    IBA section or compliance statement.
         * @param paraphrase the rule in one line.
         * @param verifiedBy the public source the section number was checked against.
         * @return this.
         */
        public Builder rule(final String section, final String paraphrase, final String verifiedBy)
        {
            this.rule = new IbaRule(section, paraphrase, verifiedBy);
            return this;
        }

        /**
         * @param side the DUT's role.
         * @return this.
         */
        public Builder side(final Side side)
        {
            this.side = side;
            return this;
        }

        /**
         * @param summary one sentence.
         * @return this.
         */
        public Builder summary(final String summary)
        {
            this.summary = summary;
            return this;
        }

        /**
         * @param more steps to append.
         * @return this.
         */
        public Builder steps(final Step... more)
        {
            steps.addAll(List.of(more));
            return this;
        }

        /**
         * @return the scenario.
         */
        public Scenario build()
        {
            return new Scenario(name, rule, side, summary, steps);
        }
    }
}
