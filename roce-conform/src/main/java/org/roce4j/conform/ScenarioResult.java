package org.roce4j.conform;

import java.util.List;

/**
 * What one scenario concluded.
 *
 * @param scenario  the scenario.
 * @param verdict   the verdict.
 * @param reason    why (the failure, the skip reason, the profile's explanation); empty for a PASS.
 * @param failedAt  the label of the step that failed or skipped, or null.
 * @param notes     what the checkers measured and saw.
 * @param capture   every frame of the exchange.
 * @param durationNs time on the runner's clock from first to last step.
 */
public record ScenarioResult(Scenario scenario, Verdict verdict, String reason, String failedAt, List<String> notes,
    Capture capture, long durationNs)
{
}
