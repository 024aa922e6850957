package org.roce4j.transport.link.fault;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a {@link FaultyLink} injected each way, with the rules and seed it ran under: a snapshot taken by
 * {@link FaultyLink#injected()}. Its text is the line a command prints when it ends,
 * {@code faults 'RULES' (seed N) injected: tx drop=.. dup=.. reorder=.. delay=.. corrupt=.. ecn=..; rx ...};
 * {@link #find} reads such lines back from the output of a command run elsewhere (another JVM, a namespace).
 *
 * @param description the rules, as given.
 * @param seed        of the transmit side's random streams (the receive side's is derived from it).
 * @param tx          injected into frames sent.
 * @param rx          injected into frames received.
 */
public record FaultReport(String description, long seed, FaultCounts tx, FaultCounts rx)
{
    /** A report line anywhere in a text; the description is everything between the quotes (it may hold quotes). */
    private static final Pattern LINE = Pattern.compile(
        "faults '(.*)' \\(seed (-?\\d+)\\) injected: tx ([^;\\n]*); rx ([^\\n]*?)\\s*$", Pattern.MULTILINE);

    /**
     * @return both directions added kind by kind.
     */
    public FaultCounts total()
    {
        return tx.plus(rx);
    }

    /**
     * Read back every report line in a command's output, in order (a line per faulty link; a line may start with the
     * link's name).
     *
     * @param output what the command printed.
     * @return the reports, empty when there is none.
     * @throws IllegalArgumentException when a line has the form but its counts do not parse.
     */
    public static List<FaultReport> find(final CharSequence output)
    {
        final List<FaultReport> reports = new ArrayList<>();
        final Matcher line = LINE.matcher(output);
        while (line.find())
        {
            reports.add(new FaultReport(line.group(1), Long.parseLong(line.group(2)),
                FaultCounts.parse(line.group(3)), FaultCounts.parse(line.group(4))));
        }
        return reports;
    }

    /**
     * @return e.g. {@code faults 'drop=0.02;seed=7' (seed 7) injected: tx drop=12 ...; rx drop=9 ...}.
     */
    public String toString()
    {
        return "faults '" + description + "' (seed " + seed + ") injected: tx " + tx + "; rx " + rx;
    }
}
