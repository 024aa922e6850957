package org.roce4j.conform.catalogue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.roce4j.conform.Scenario;
import org.roce4j.conform.Side;

/**
 * Every scenario roce4j ships, in order: responder, requester, congestion. Names are unique.
 */
public final class Catalogue
{
    private static final Map<String, Scenario> BY_NAME = index();

    private Catalogue()
    {
    }

    private static Map<String, Scenario> index()
    {
        final Map<String, Scenario> out = new LinkedHashMap<>();
        final List<Scenario> all = new ArrayList<>(ResponderScenarios.all());
        all.addAll(RequesterScenarios.all());
        all.addAll(CongestionScenarios.all());
        for (final Scenario scenario : all)
        {
            if (null != out.put(scenario.name(), scenario))
            {
                throw new IllegalStateException("two scenarios named " + scenario.name());
            }
        }
        return Collections.unmodifiableMap(out);
    }

    /**
     * @return every scenario.
     */
    public static List<Scenario> all()
    {
        return List.copyOf(BY_NAME.values());
    }

    /**
     * @param side a side, or null for all.
     * @return the scenarios of that side.
     */
    public static List<Scenario> suite(final Side side)
    {
        final List<Scenario> out = new ArrayList<>();
        for (final Scenario scenario : BY_NAME.values())
        {
            if (null == side || side == scenario.side())
            {
                out.add(scenario);
            }
        }
        return out;
    }

    /**
     * @param name a scenario name.
     * @return the scenario.
     * @throws IllegalArgumentException naming the unknown scenario.
     */
    public static Scenario named(final String name)
    {
        final Scenario scenario = BY_NAME.get(name);
        if (null == scenario)
        {
            throw new IllegalArgumentException("no scenario named '" + name + "' (roce conform --list shows them)");
        }
        return scenario;
    }
}
