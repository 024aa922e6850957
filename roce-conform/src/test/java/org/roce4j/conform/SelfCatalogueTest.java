package org.roce4j.conform;

import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

import org.junit.jupiter.api.Test;
import org.roce4j.conform.catalogue.Catalogue;
import org.roce4j.conform.dut.SelfDut;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code roce conform --self}: roce4j is held to the rules it judges others by. Every scenario of the catalogue must
 * PASS against roce4j over the in-memory fabric.
 */
class SelfCatalogueTest
{
    @Test
    void everyScenarioPassesAgainstRoce4jItself()
    {
        final ScenarioRunner runner = new ScenarioRunner(() -> SelfDut.testbed(UnaryOperator.identity()),
            PeerProfile.NONE);
        final List<String> notPassed = new ArrayList<>();
        final List<ScenarioResult> results = runner.runAll(Catalogue.all(), result ->
        {
            if (Verdict.PASS != result.verdict())
            {
                notPassed.add(result.scenario().name() + ": " + result.verdict() + " at [" + result.failedAt() +
                    "] " + result.reason() + "\n    capture: " + labels(result.capture()));
            }
        });
        assertTrue(notPassed.isEmpty(), String.join("\n", notPassed));
        assertEquals(Catalogue.all().size(), results.size());
        assertTrue(results.size() >= 20, "catalogue has " + results.size() + " scenarios");
        for (final ScenarioResult result : results)
        {
            assertTrue(result.capture().size() > 0, result.scenario().name() + " captured no frame");
        }
    }

    static List<String> labels(final Capture capture)
    {
        final List<String> out = new ArrayList<>();
        for (final CapturedFrame frame : capture.frames())
        {
            out.add(frame.direction() + " " + frame.label());
        }
        return out;
    }
}
