package org.roce4j.conform;

import java.util.ArrayList;
import java.util.List;

/**
 * What one scenario concluded.
 *
 * @param scenario   the scenario.
 * @param verdict    the verdict.
 * @param reason     why (the failure, the skip reason, the profile's explanation); empty for a PASS.
 * @param failedAt   the label of the step that failed or skipped, or null.
 * @param findings   what the checkers concluded and the steps remarked, in order, each with the frame it is about.
 * @param capture    every frame of the exchange.
 * @param durationNs time on the runner's clock from first to last step.
 */
public record ScenarioResult(Scenario scenario, Verdict verdict, String reason, String failedAt,
    List<Finding> findings, Capture capture, long durationNs)
{
    /**
     * Copies the findings.
     *
     * @param scenario   scenario.
     * @param verdict    verdict.
     * @param reason     reason.
     * @param failedAt   failed step or null.
     * @param findings   findings.
     * @param capture    capture.
     * @param durationNs duration.
     */
    public ScenarioResult
    {
        findings = List.copyOf(findings);
    }

    /**
     * @return the findings as the reports print them ({@link Finding#line()}: {@code ok: }, {@code VIOLATION: } or
     *         a remark as is).
     */
    public List<String> notes()
    {
        final List<String> lines = new ArrayList<>(findings.size());
        for (final Finding finding : findings)
        {
            lines.add(finding.line());
        }
        return lines;
    }

    /**
     * @return the parts of the rule this DUT could not show ({@link Finding#notChecked}), each as {@code WHAT, needs
     *         WHAT IT NEEDS}: a PASS with some is a pass of what was observed, never of these.
     */
    public List<String> notChecked()
    {
        final List<String> lines = new ArrayList<>();
        for (final Finding finding : findings)
        {
            if (finding.notChecked())
            {
                lines.add(finding.text());
            }
        }
        return lines;
    }

    /**
     * @return what the tables print beside the verdict: the reason, or for a verdict without one (a PASS) the parts
     *         not checked ({@code not checked: ...; ...}), or empty.
     */
    public String shownReason()
    {
        if (!reason.isEmpty())
        {
            return reason;
        }
        final List<String> unchecked = notChecked();
        return unchecked.isEmpty() ? "" : Finding.NOT_CHECKED_PREFIX + String.join("; ", unchecked);
    }
}
