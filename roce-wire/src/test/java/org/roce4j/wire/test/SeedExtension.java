package org.roce4j.wire.test;

import java.lang.reflect.Method;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.LifecycleMethodExecutionExceptionHandler;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

/**
 * Supplies a {@link SeededRandom} to test and lifecycle methods that declare one, seeded from {@code -Droce4j.seed}
 * or at random, and puts {@code seed=0x... (rerun with -Droce4j.seed=0x...)} at the front of the failure message
 * of a test that used it (and prints it on standard error), so any randomized failure can be replayed.
 *
 * <p>One seed per test invocation: the test method and its {@code @BeforeEach}/{@code @AfterEach} methods share
 * it. A {@code @BeforeAll} method gets a class-wide one. Register it with {@link Seeded}.
 */
public final class SeedExtension
    implements ParameterResolver, TestExecutionExceptionHandler, LifecycleMethodExecutionExceptionHandler
{
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(SeedExtension.class);
    private static final String KEY = "random";

    /**
     * Public for JUnit's reflection.
     */
    public SeedExtension()
    {
    }

    /** {@inheritDoc} */
    public boolean supportsParameter(final ParameterContext parameterContext, final ExtensionContext extensionContext)
    {
        return SeededRandom.class == parameterContext.getParameter().getType();
    }

    /** {@inheritDoc} */
    public Object resolveParameter(final ParameterContext parameterContext, final ExtensionContext extensionContext)
    {
        final ExtensionContext.Store store = extensionContext.getStore(NAMESPACE);
        // Only this context's own store: a test must not reuse the seed of its class's @BeforeAll.
        final Object existing = store.get(ownKey(extensionContext));
        if (existing instanceof SeededRandom)
        {
            return existing;
        }
        final SeededRandom random = new SeededRandom(Seeds.fromPropertyOrRandom());
        store.put(ownKey(extensionContext), random);
        return random;
    }

    /** {@inheritDoc} */
    public void handleTestExecutionException(final ExtensionContext context, final Throwable throwable)
        throws Throwable
    {
        throw withSeed(context, throwable);
    }

    /** {@inheritDoc} */
    public void handleBeforeAllMethodExecutionException(final ExtensionContext context, final Throwable throwable)
        throws Throwable
    {
        throw withSeed(context, throwable);
    }

    /** {@inheritDoc} */
    public void handleBeforeEachMethodExecutionException(final ExtensionContext context, final Throwable throwable)
        throws Throwable
    {
        throw withSeed(context, throwable);
    }

    /** {@inheritDoc} */
    public void handleAfterEachMethodExecutionException(final ExtensionContext context, final Throwable throwable)
        throws Throwable
    {
        throw withSeed(context, throwable);
    }

    /** {@inheritDoc} */
    public void handleAfterAllMethodExecutionException(final ExtensionContext context, final Throwable throwable)
        throws Throwable
    {
        throw withSeed(context, throwable);
    }

    private static Throwable withSeed(final ExtensionContext context, final Throwable throwable)
    {
        final SeededRandom random = find(context);
        return null == random ? throwable : withSeed(random.seed(), context.getDisplayName(), throwable);
    }

    /**
     * @param seed        of the failed test.
     * @param displayName of the failed test.
     * @param throwable   its failure.
     * @return the failure with the rerun hint in front of its message (aborted tests are passed through).
     */
    static Throwable withSeed(final long seed, final String displayName, final Throwable throwable)
    {
        if (throwable instanceof TestAbortedException)
        {
            return throwable;
        }
        final String hint = Seeds.rerunHint(seed);
        System.err.println(displayName + " failed: " + hint);
        final String message = null == throwable.getMessage() ? throwable.toString() : throwable.getMessage();
        if (throwable instanceof AssertionFailedError && ((AssertionFailedError)throwable).isExpectedDefined())
        {
            final AssertionFailedError failed = (AssertionFailedError)throwable;
            return new AssertionFailedError(hint + ": " + message, failed.getExpected(), failed.getActual(), throwable);
        }
        return new AssertionFailedError(hint + ": " + message, throwable);
    }

    private static SeededRandom find(final ExtensionContext context)
    {
        for (ExtensionContext c = context; null != c; c = c.getParent().orElse(null))
        {
            final Object value = c.getStore(NAMESPACE).get(ownKey(c));
            if (value instanceof SeededRandom)
            {
                return (SeededRandom)value;
            }
        }
        return null;
    }

    private static String ownKey(final ExtensionContext context)
    {
        final String method = context.getTestMethod().map(Method::getName).orElse("");
        return KEY + ':' + context.getUniqueId() + ':' + method;
    }
}
