package org.roce4j.conform.report;

import java.io.PrintWriter;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import org.roce4j.conform.ScenarioResult;
import org.roce4j.conform.Verdict;

/**
 * The table {@code roce conform} prints as it runs: one row per scenario as its verdict comes, then a count line.
 */
public final class TerminalTable
{
    /** Width of the scenario column: the longest name in the catalogue fits. */
    private static final int NAME_WIDTH = 40;
    /** Width of the IBA section column. */
    private static final int SECTION_WIDTH = 21;
    /** Longest reason shown in the table; the reports hold the whole text. */
    private static final int REASON_WIDTH = 100;

    private final PrintWriter out;

    /**
     * @param out where to print.
     */
    public TerminalTable(final PrintWriter out)
    {
        this.out = out;
    }

    /**
     * Print the header.
     *
     * @param dut     the DUT's name.
     * @param profile the profile's name.
     */
    public void header(final String dut, final String profile)
    {
        out.println("roce conform: DUT " + dut + ", profile " + profile);
        out.println(String.format("%-" + NAME_WIDTH + "s %-" + SECTION_WIDTH + "s %-9s %s", "scenario", "IBA",
            "verdict", "reason"));
        out.flush();
    }

    /**
     * Print one row.
     *
     * @param result a result.
     */
    public void row(final ScenarioResult result)
    {
        String reason = result.shownReason();
        if (reason.length() > REASON_WIDTH)
        {
            reason = reason.substring(0, REASON_WIDTH - 3) + "...";
        }
        out.println(String.format("%-" + NAME_WIDTH + "s %-" + SECTION_WIDTH + "s %-9s %s", result.scenario().name(),
            result.scenario().rule().section(), result.verdict(), reason));
        out.flush();
    }

    /**
     * Print the count line, e.g. {@code 28 scenarios: 28 PASS, 0 FAIL, 0 DEVIATION, 0 SKIP; 0 parts not checked}.
     *
     * @param results every result.
     */
    public void summary(final List<ScenarioResult> results)
    {
        out.println(countLine(results));
        out.flush();
    }

    /**
     * @param results every result.
     * @return {@code N scenarios: a PASS, b FAIL, c DEVIATION, d SKIP; e parts not checked}: the last counts the
     *     parts of rules the DUT could not show ({@link ScenarioResult#notChecked}), over every scenario.
     */
    public static String countLine(final List<ScenarioResult> results)
    {
        final Map<Verdict, Integer> counts = counts(results);
        return results.size() + " scenarios: " + counts.get(Verdict.PASS) + " PASS, " + counts.get(Verdict.FAIL) +
            " FAIL, " + counts.get(Verdict.DEVIATION) + " DEVIATION, " + counts.get(Verdict.SKIP) + " SKIP; " +
            notCheckedCount(results) + " parts not checked";
    }

    /**
     * @param results every result.
     * @return how many parts of rules were not checked, over every scenario.
     */
    public static int notCheckedCount(final List<ScenarioResult> results)
    {
        int count = 0;
        for (final ScenarioResult result : results)
        {
            count += result.notChecked().size();
        }
        return count;
    }

    /**
     * @param results every result.
     * @return the number of each verdict (every verdict present, 0 included).
     */
    public static Map<Verdict, Integer> counts(final List<ScenarioResult> results)
    {
        final Map<Verdict, Integer> counts = new EnumMap<>(Verdict.class);
        for (final Verdict verdict : Verdict.values())
        {
            counts.put(verdict, 0);
        }
        for (final ScenarioResult result : results)
        {
            counts.merge(result.verdict(), 1, Integer::sum);
        }
        return counts;
    }
}
