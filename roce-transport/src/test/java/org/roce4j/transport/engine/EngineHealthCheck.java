package org.roce4j.transport.engine;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.roce4j.transport.TransportCounter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * JUnit extension: every engine a test creates through {@link ScriptedPeer} or {@link EnginePair} is checked after
 * the test for engine bugs caught on the receive path ({@link TransportCounter#INTERNAL_ERRORS} must stay 0 and no
 * exception may have been recorded). Wire input must never reach an exception, whatever a test injects.
 */
final class EngineHealthCheck implements BeforeEachCallback, AfterEachCallback
{
    private static final ThreadLocal<List<RoceEngine>> ENGINES = ThreadLocal.withInitial(ArrayList::new);

    /**
     * Remember an engine for the check after the current test.
     *
     * @param engine the engine.
     */
    static void track(final RoceEngine engine)
    {
        ENGINES.get().add(engine);
    }

    /**
     * {@inheritDoc}
     */
    public void beforeEach(final ExtensionContext context)
    {
        ENGINES.get().clear();
    }

    /**
     * {@inheritDoc}
     */
    public void afterEach(final ExtensionContext context)
    {
        final List<RoceEngine> engines = ENGINES.get();
        try
        {
            for (final RoceEngine engine : engines)
            {
                assertNull(engine.lastInternalError(), "engine bug on the receive path");
                assertEquals(0, engine.counters().get(TransportCounter.INTERNAL_ERRORS),
                    "INTERNAL_ERRORS: " + engine.counters());
            }
        }
        finally
        {
            engines.clear();
        }
    }
}
