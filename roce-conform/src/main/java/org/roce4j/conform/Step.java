package org.roce4j.conform;

import java.util.Objects;

/**
 * One step of a scenario: a label for the report and the action. Steps throw {@link ConformFailure} when the DUT
 * breaks the rule and {@link ConformSkip} when the scenario cannot be judged here. {@link Steps} has the usual ones.
 *
 * @param label  what the step does, e.g. {@code "expect NAK PSN_SEQUENCE_ERROR within 1 ms"}.
 * @param action the action.
 */
public record Step(String label, Action action)
{
    /**
     * What a step does to the scenario's context.
     */
    @FunctionalInterface
    public interface Action
    {
        /**
         * @param context the running scenario.
         */
        void run(ConformContext context);
    }

    /**
     * @param label  what the step does.
     * @param action the action.
     */
    public Step
    {
        Objects.requireNonNull(label, "label");
        Objects.requireNonNull(action, "action");
    }
}
