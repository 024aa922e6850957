package org.roce4j.conform.dut;

import java.io.IOException;
import java.util.List;

import org.roce4j.cm.perftest.PerftestSession;
import org.roce4j.conform.ConformSkip;

/**
 * What every remote DUT driven by a stock perftest tool shares, as server ({@link RemoteDut}) or as client
 * ({@link RemoteRequesterDut}): the tool's out-of-band exchange, and what a tool does not show (its completions, its
 * QP state, its counters) or do (write its memory at the conform peer's request).
 */
abstract class StockToolDut implements Dut
{
    /** The tool's out-of-band exchange, null when there is none (not connected yet, or dropped). */
    PerftestSession session;

    /**
     * @return the tool this scenario runs against, or null when no loop serves it.
     */
    public abstract RemoteTool tool();

    @Override
    public int progress()
    {
        return 0;
    }

    @Override
    public List<DutCompletion> pollCompletions()
    {
        return List.of();
    }

    @Override
    public boolean showsCompletions()
    {
        return false;
    }

    @Override
    public boolean showsQpState()
    {
        return false;
    }

    @Override
    public void writeMemory(final int offset, final byte[] bytes)
    {
        throw new ConformSkip("writing the DUT's memory locally: " + tool() + " does not");
    }

    @Override
    public String describeCounters()
    {
        return "(a remote DUT's counters are read on the DUT)";
    }

    /** Drop the exchange's connection without its closing steps (the tool gives up and its loop restarts it). */
    void disconnect()
    {
        if (null == session)
        {
            return;
        }
        try
        {
            session.close();
        }
        catch (final IOException ignored)
        {
            // Nothing more to release.
        }
        session = null;
    }
}
