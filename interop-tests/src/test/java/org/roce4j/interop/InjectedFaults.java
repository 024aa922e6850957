package org.roce4j.interop;

import java.util.List;

import org.roce4j.transport.link.fault.FaultCounts;
import org.roce4j.transport.link.fault.FaultReport;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The fault profile interop cases run under, and what roce4j says it injected. A faulty link prints, when the
 * command ends, {@code faults 'RULES' (seed N) injected: tx drop=T dup=.. reorder=.. delay=.. corrupt=.. ecn=..;
 * rx drop=R ...} (FaultyLink.report, a {@link FaultReport}); {@link #parse} reads it back as numbers.
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

    private InjectedFaults()
    {
    }

    /**
     * @param roceErrors what roce printed on stderr.
     * @return what its (first) faulty link injected each way.
     */
    static FaultReport parse(final String roceErrors)
    {
        final List<FaultReport> reports = FaultReport.find(roceErrors);
        assertFalse(reports.isEmpty(), "roce printed no 'injected:' line for its faulty link:\n" + roceErrors);
        return reports.get(0);
    }

    /**
     * @param roceErrors what roce printed on stderr.
     * @return the frames its (first) faulty link corrupted on their way out, 0 when its link was not faulty.
     */
    static long corruptedOut(final String roceErrors)
    {
        final List<FaultReport> reports = FaultReport.find(roceErrors);
        return reports.isEmpty() ? 0 : reports.get(0).tx().corruptions();
    }

    /**
     * Every kind of {@link #PINGPONG_PROFILE} hit some frame, either way: none at all would mean a rule never ran.
     *
     * @param injected from {@link #parse}.
     */
    static void assertEachKindOfTheProfileInjected(final FaultReport injected)
    {
        final FaultCounts total = injected.total();
        assertTrue(total.drops() > 0, "drop never injected: " + injected);
        assertTrue(total.duplicates() > 0, "dup never injected: " + injected);
        assertTrue(total.reorders() > 0, "reorder never injected: " + injected);
        assertTrue(total.corruptions() > 0, "corrupt never injected: " + injected);
    }
}
