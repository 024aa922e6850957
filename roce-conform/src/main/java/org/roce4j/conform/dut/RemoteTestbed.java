package org.roce4j.conform.dut;

import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;

import org.roce4j.conform.Scenario;
import org.roce4j.conform.Side;
import org.roce4j.transport.link.Link;

/**
 * One scenario's world against a remote DUT: a {@link RemoteDut} connected through the server loop of the tool the
 * scenario needs (the DUT as responder), or a {@link RemoteRequesterDut} that accepted the exchange of the client loop
 * it needs (the DUT as requester), the conform peer's link to it (shared by every scenario of the run and closed by
 * its owner, not here), and real time: the DUT's clock cannot be moved, so letting time pass is waiting for it.
 */
public final class RemoteTestbed implements Testbed
{
    /**
     * How much earlier than its timer's due time a remote DUT's timed frame may be measured, 4 ms: the runner times
     * frames when it polls them, not on the wire, and a kernel timer runs in jiffies (rxe: nsecs_to_jiffies truncates
     * the local ACK timeout, and mod_timer(jiffies + n) fires after n - 1 to n ticks; a tick is 4 ms at HZ 250).
     * Measured against rxe in the QEMU guest: retransmissions 66.3 to 69.0 ms after their original, timeout 67.1 ms.
     */
    public static final long TIMING_TOLERANCE_NS = 4_000_000L;

    private final Dut dut;
    private final Link link;
    private final long waitFloorNs;

    private RemoteTestbed(final Dut dut, final Link link, final long waitFloorNs)
    {
        this.dut = dut;
        this.link = link;
        this.waitFloorNs = waitFloorNs;
    }

    /**
     * @param config    where the DUT's loops are.
     * @param link      the conform peer's raw link to the DUT (its owner closes it after the run).
     * @param listeners where the DUT's client loops connect (its owner closes them after the run).
     * @return a fresh testbed per scenario, connected to the loop of the tool that scenario needs.
     */
    public static Function<Scenario, Testbed> factory(final RemoteDutConfig config, final Link link,
        final RequesterListeners listeners)
    {
        return scenario ->
        {
            final RemoteTool tool = RemoteTool.forScenario(scenario);
            if (Side.REQUESTER == scenario.side())
            {
                final HeldFramesLink held = new HeldFramesLink(link);
                return new RemoteTestbed(new RemoteRequesterDut(config, tool, RemoteTool.requesterGap(scenario.name()),
                    held, listeners), held, config.waitFloorNs());
            }
            return new RemoteTestbed(new RemoteDut(config, tool, link), link, config.waitFloorNs());
        };
    }

    @Override
    public Dut dut()
    {
        return dut;
    }

    @Override
    public Link peerLink()
    {
        return link;
    }

    /**
     * Real time; while a frame the link held during the exchange is handed out, the time it arrived.
     */
    @Override
    public long nowNs()
    {
        if (link instanceof HeldFramesLink held && 0 != held.heldAtNs())
        {
            return held.heldAtNs();
        }
        return System.nanoTime();
    }

    /**
     * Wait, in real time: parking is the only way to let a real DUT's time pass (the runner polls the link between
     * these slices).
     */
    @Override
    public void advanceNs(final long ns)
    {
        LockSupport.parkNanos(ns);
    }

    @Override
    public long timingToleranceNs()
    {
        return TIMING_TOLERANCE_NS;
    }

    @Override
    public long waitFloorNs()
    {
        return waitFloorNs;
    }

    /**
     * Finish the DUT's exchange; the link stays open for the next scenario.
     */
    @Override
    public void close()
    {
        dut.close();
    }
}
