package org.roce4j.conform;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

import org.roce4j.conform.dut.Testbed;

/**
 * Runs scenarios, each on a fresh {@link Testbed}, and gives each its verdict: PASS when every step held, FAIL when
 * a step found the DUT breaking the rule, DEVIATION when the peer profile documents that departure, SKIP when the
 * scenario could not be judged. An unexpected exception in the runner itself is a FAIL that says so: it never
 * passes silently.
 */
public final class ScenarioRunner
{
    private final Function<Scenario, Testbed> testbeds;
    private final PeerProfile profile;

    /**
     * @param testbeds makes a fresh testbed per scenario.
     * @param profile  the DUT's profile.
     */
    public ScenarioRunner(final Supplier<Testbed> testbeds, final PeerProfile profile)
    {
        this(forEvery(Objects.requireNonNull(testbeds, "testbeds")), profile);
    }

    /**
     * @param testbeds makes a fresh testbed for the scenario it is given (a remote DUT connects to the tool that
     *                 scenario needs).
     * @param profile  the DUT's profile.
     */
    public ScenarioRunner(final Function<Scenario, Testbed> testbeds, final PeerProfile profile)
    {
        this.testbeds = Objects.requireNonNull(testbeds, "testbeds");
        this.profile = Objects.requireNonNull(profile, "profile");
    }

    private static Function<Scenario, Testbed> forEvery(final Supplier<Testbed> testbeds)
    {
        return scenario -> testbeds.get();
    }

    /**
     * @param scenarios to run, in order.
     * @param listener  told of each result as it comes (the terminal table).
     * @return the results, in order.
     */
    public List<ScenarioResult> runAll(final List<Scenario> scenarios, final Consumer<ScenarioResult> listener)
    {
        final List<ScenarioResult> results = new ArrayList<>();
        for (final Scenario scenario : scenarios)
        {
            final ScenarioResult result = run(scenario);
            listener.accept(result);
            results.add(result);
        }
        return results;
    }

    /**
     * @param scenario the scenario.
     * @return its result.
     */
    public ScenarioResult run(final Scenario scenario)
    {
        final Capture capture = new Capture();
        try (Testbed testbed = testbeds.apply(scenario))
        {
            final ConformContext ctx = new ConformContext(testbed, capture);
            final ScenarioResult result = judge(scenario, testbed, ctx);
            try
            {
                // After the verdict, and outside its capture: what the DUT's tool needs to end its run is no part
                // of the scenario.
                testbed.dut().finish(ctx);
            }
            catch (final RuntimeException ignored)
            {
                // The DUT's tool ends its run anyway when the testbed closes its exchange.
            }
            return result;
        }
    }

    private ScenarioResult judge(final Scenario scenario, final Testbed testbed, final ConformContext ctx)
    {
        final long startNs = testbed.nowNs();
        Step current = null;
        try
        {
            for (final Step step : scenario.steps())
            {
                current = step;
                step.action().run(ctx);
            }
            final List<FrameRule> unspent = ctx.link().pendingRules();
            if (!unspent.isEmpty())
            {
                return result(scenario, Verdict.FAIL, "scenario error: fault rules never matched a frame: " +
                    unspent, null, ctx, testbed, startNs);
            }
            return result(scenario, Verdict.PASS, "", null, ctx, testbed, startNs);
        }
        catch (final ConformSkip skip)
        {
            return result(scenario, Verdict.SKIP, skip.getMessage(), current.label(), ctx, testbed, startNs);
        }
        catch (final ConformFailure failure)
        {
            final String deviation = profile.deviation(scenario.name());
            if (null != deviation)
            {
                return result(scenario, Verdict.DEVIATION, profile.cliName() + " profile: " + deviation +
                    " (observed: " + failure.getMessage() + ")", current.label(), ctx, testbed, startNs);
            }
            return result(scenario, Verdict.FAIL, failure.getMessage(), current.label(), ctx, testbed, startNs);
        }
        catch (final RuntimeException error)
        {
            return result(scenario, Verdict.FAIL, "runner error: " + error, null == current ? null :
                current.label(), ctx, testbed, startNs);
        }
    }

    private static ScenarioResult result(final Scenario scenario, final Verdict verdict, final String reason,
        final String failedAt, final ConformContext ctx, final Testbed testbed, final long startNs)
    {
        return new ScenarioResult(scenario, verdict, reason, failedAt, ctx.findings(), ctx.capture(),
            testbed.nowNs() - startNs);
    }
}
