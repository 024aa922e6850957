package org.roce4j.interop;

import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The fault profile interop cases run under, and what roce4j says it injected. A faulty link prints, when the
 * command ends, {@code faults 'RULES' (seed N) injected: tx drop=T dup=.. reorder=.. delay=.. corrupt=.. ecn=..;
 * rx drop=R ...} (FaultyLink.report); {@link #parse} reads it back.
 */
final class InjectedFaults
{
    /**
     * Issue 14's profile, 2 % lost, 1 % duplicated, 1 % reordered, 0.5 % corrupted, with the losses (drop and
     * corrupt: a frame with a bad ICRC is dropped by its receiver) on SENDs only. An ACK lost after the peer's last
     * message cannot be recovered with a stock ibv_rc_pingpong, for any requester: the peer's tool has completed,
     * destroyed its QP and exited by the time the retransmission arrives, so the last SEND ends in RETRY_EXC_ERR
     * (IBA 9.7.6.1.3). Duplicated and reordered ACKs are harmless (a held frame goes out after a bounded wait).
     */
    static final String PINGPONG_PROFILE = "drop=0.02,op=send;dup=0.01;reorder=0.01;corrupt=0.005,op=send";
    private static final Pattern LINE = Pattern.compile("injected: tx ([^;\\n]*); rx ([^\\n]*)");
    private static final Pattern COUNT = Pattern.compile("(\\w+)=(\\d+)");

    private InjectedFaults()
    {
    }

    /**
     * @param roceErrors what roce printed on stderr.
     * @return counts by direction and kind, e.g. {@code tx.drop=12, rx.corrupt=3}.
     */
    static Map<String, Long> parse(final String roceErrors)
    {
        final Matcher line = LINE.matcher(roceErrors);
        assertTrue(line.find(), "roce printed no 'injected:' line for its faulty link:\n" + roceErrors);
        final Map<String, Long> counts = new TreeMap<>();
        for (int group = 1; group <= 2; group++)
        {
            final Matcher count = COUNT.matcher(line.group(group));
            while (count.find())
            {
                counts.put((1 == group ? "tx." : "rx.") + count.group(1), Long.parseLong(count.group(2)));
            }
        }
        return counts;
    }

    /**
     * @param counts from {@link #parse}.
     * @param kind   e.g. drop.
     * @return both directions together.
     */
    static long total(final Map<String, Long> counts, final String kind)
    {
        return counts.getOrDefault("tx." + kind, 0L) + counts.getOrDefault("rx." + kind, 0L);
    }
}
