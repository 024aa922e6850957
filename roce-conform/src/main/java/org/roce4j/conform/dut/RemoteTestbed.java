package org.roce4j.conform.dut;

import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;

import org.roce4j.conform.Scenario;
import org.roce4j.transport.link.Link;

/**
 * One scenario's world against a remote DUT: a {@link RemoteDut} connected through the loop of the tool the scenario
 * needs, the conform peer's link to it (shared by every scenario of the run and closed by its owner, not here), and
 * real time: the DUT's clock cannot be moved, so letting time pass is waiting for it.
 */
public final class RemoteTestbed implements Testbed
{
    private final RemoteDut dut;
    private final Link link;
    private final long waitFloorNs;

    private RemoteTestbed(final RemoteDut dut, final Link link, final long waitFloorNs)
    {
        this.dut = dut;
        this.link = link;
        this.waitFloorNs = waitFloorNs;
    }

    /**
     * @param config where the DUT's loops are.
     * @param link   the conform peer's raw link to the DUT (its owner closes it after the run).
     * @return a fresh testbed per scenario, connected to the loop of the tool that scenario needs.
     */
    public static Function<Scenario, Testbed> factory(final RemoteDutConfig config, final Link link)
    {
        return scenario -> new RemoteTestbed(new RemoteDut(config, RemoteTool.forScenario(scenario), link), link,
            config.waitFloorNs());
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

    @Override
    public long nowNs()
    {
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
