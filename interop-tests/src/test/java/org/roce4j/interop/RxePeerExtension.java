package org.roce4j.interop;

import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;

import org.roce4j.testcontainers.RxePeerOptions;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.InvocationInterceptor;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.ReflectiveInvocationContext;
import org.junit.jupiter.api.extension.TestInstancePostProcessor;
import org.junit.platform.commons.support.AnnotationSupport;

import static org.junit.jupiter.api.Assumptions.abort;

/**
 * The JUnit 5 side of {@link RxePeerTest}: one peer per test class, started in {@code beforeAll} and stopped in
 * {@code afterAll}. The peer also sits in the class's extension store as a closeable resource, so JUnit closes it
 * even when a later callback fails; {@link RxePeer#close()} is idempotent and the peer's shutdown hook covers a
 * JVM that exits early.
 *
 * <p>Every test method (plain or parameterized) runs under {@link CaseGuard}: a health check before it, a watchdog
 * during it, and one retry on a fresh guest when it failed on a wedged one, reported as a flake.
 */
public final class RxePeerExtension implements BeforeAllCallback, BeforeEachCallback, AfterAllCallback,
    ParameterResolver, TestInstancePostProcessor, InvocationInterceptor
{
    private static final ExtensionContext.Namespace NAMESPACE =
        ExtensionContext.Namespace.create(RxePeerExtension.class);
    private static final String KEY = "peer";
    private static final String UNAVAILABLE = "unavailable";
    private static final String EXPECTED = "expected";

    /**
     * Store entry that stops the peer when JUnit discards the class's store (JUnit 5.13+ closes AutoCloseable
     * values).
     *
     * @param peer the running peer.
     */
    private record PeerResource(RxePeer peer) implements AutoCloseable
    {
        public void close()
        {
            peer.close();
        }
    }

    /**
     * Start the class's peer, or fail under {@code ROCE4J_REQUIRE_TOOLS=1} when no backend exists. Without that
     * variable the class's tests are skipped one by one in {@link #beforeEach} (a skip of the whole class in
     * {@code beforeAll} would not show up in Surefire's reports at all).
     *
     * @param context the class's context.
     * @throws Exception when the peer cannot be started.
     */
    public void beforeAll(final ExtensionContext context) throws Exception
    {
        final Class<?> testClass = context.getRequiredTestClass();
        final RxePeerTest settings = AnnotationSupport.findAnnotation(testClass, RxePeerTest.class)
            .orElseThrow(() -> new IllegalStateException(testClass + " lacks @RxePeerTest"));
        final PeerTools.Backend backend = PeerTools.Backend.AUTO == settings.backend() ?
            PeerTools.detectBackend() : settings.backend();
        String reason = null;
        if (PeerTools.Backend.NONE == backend)
        {
            reason = "needs an rxe peer: neither " + PeerTools.QEMU_BINARY + " (apt-get install " +
                "qemu-system-x86 cpio kmod) nor a Docker engine is available";
        }
        else if (PeerTools.Backend.CONTAINER == backend)
        {
            reason = PeerTools.containerUnavailableReason();
        }
        else if (settings.tap() && PeerTools.Backend.QEMU != backend)
        {
            reason = "needs the QEMU peer (" + PeerTools.QEMU_BINARY + ") for tap mode, the backend here is " + backend;
        }
        else if (settings.tap())
        {
            reason = TapNetwork.unavailableReason();
        }
        if (null != reason)
        {
            if (PeerTools.toolsRequired())
            {
                throw new IllegalStateException(PeerTools.REQUIRE_TOOLS_ENV + "=1 but the test " + reason);
            }
            System.out.println("[rxe-peer] " + testClass.getSimpleName() + " skipped: " + reason);
            context.getStore(NAMESPACE).put(UNAVAILABLE, reason);
            return;
        }
        final RxePeerOptions options = new RxePeerOptions(testClass.getSimpleName(), settings.mtu(),
            settings.guestIp(), settings.linkIp(), settings.hostfwd(), settings.hostAccess(),
            Duration.ofSeconds(settings.readyTimeoutSeconds()), settings.tap(), settings.suite());
        final RxePeer peer = RxePeer.start(options, backend);
        context.getStore(NAMESPACE).put(KEY, new PeerResource(peer));
        context.getStore(NAMESPACE).put(EXPECTED, Duration.ofSeconds(settings.expectedCaseSeconds()));
        System.out.println("[rxe-peer] " + options + ": image build/check " + PeerTools.lastBuildMs() +
            " ms, launch to ready " + peer.launchToReadyMs() + " ms, guest boot_ms " + peer.ready().bootMs() +
            ", kernel " + peer.ready().kernel() + ", active_mtu " + peer.ready().activeMtu());
        injectFields(testClass, null, peer);
    }

    /**
     * Skip the test, with the reason, when no peer could be started.
     *
     * @param context the test's context.
     */
    public void beforeEach(final ExtensionContext context)
    {
        final String reason = context.getStore(NAMESPACE).get(UNAVAILABLE, String.class);
        if (null != reason)
        {
            abort(reason);
        }
    }

    /**
     * Stop the class's peer.
     *
     * @param context the class's context.
     */
    public void afterAll(final ExtensionContext context)
    {
        final PeerResource resource = context.getStore(NAMESPACE).remove(KEY, PeerResource.class);
        if (null != resource)
        {
            resource.close();
        }
    }

    /**
     * Fill instance fields of type {@link RxePeer}.
     *
     * @param testInstance the instance.
     * @param context      its context.
     * @throws IllegalAccessException when a field cannot be set.
     */
    public void postProcessTestInstance(final Object testInstance, final ExtensionContext context)
        throws IllegalAccessException
    {
        final RxePeer peer = peer(context);
        if (null != peer)
        {
            injectFields(testInstance.getClass(), testInstance, peer);
        }
    }

    /**
     * @param parameterContext the parameter.
     * @param extensionContext its context.
     * @return true for parameters of type {@link RxePeer}.
     */
    public boolean supportsParameter(final ParameterContext parameterContext, final ExtensionContext extensionContext)
    {
        return RxePeer.class == parameterContext.getParameter().getType();
    }

    /**
     * @param parameterContext the parameter.
     * @param extensionContext its context.
     * @return the class's peer.
     */
    public Object resolveParameter(final ParameterContext parameterContext, final ExtensionContext extensionContext)
    {
        final RxePeer peer = peer(extensionContext);
        if (null == peer)
        {
            // Tests never get here without a peer (beforeEach skipped them); lifecycle methods such as @BeforeAll
            // cannot be skipped one by one, so they fail with the reason.
            final String reason = extensionContext.getStore(NAMESPACE).get(UNAVAILABLE, String.class);
            throw new ParameterResolutionException("no rxe peer is running for " +
                extensionContext.getRequiredTestClass().getName() + (null == reason ? "" : ": " + reason));
        }
        return peer;
    }

    /**
     * Run a test method under the watchdog, healing and retrying it once when it failed on a wedged guest.
     *
     * @param invocation       the method's invocation.
     * @param invocationContext its target and arguments (for the retry).
     * @param extensionContext its context.
     * @throws Throwable what the case threw (both failures when the retry failed too).
     */
    public void interceptTestMethod(final Invocation<Void> invocation,
        final ReflectiveInvocationContext<Method> invocationContext, final ExtensionContext extensionContext)
        throws Throwable
    {
        guard(invocation, invocationContext, extensionContext);
    }

    /**
     * As {@link #interceptTestMethod}, for each invocation of a parameterized test.
     *
     * @param invocation       the method's invocation.
     * @param invocationContext its target and arguments (for the retry).
     * @param extensionContext its context.
     * @throws Throwable what the case threw.
     */
    public void interceptTestTemplateMethod(final Invocation<Void> invocation,
        final ReflectiveInvocationContext<Method> invocationContext, final ExtensionContext extensionContext)
        throws Throwable
    {
        guard(invocation, invocationContext, extensionContext);
    }

    private static void guard(final Invocation<Void> invocation,
        final ReflectiveInvocationContext<Method> invocationContext, final ExtensionContext context) throws Throwable
    {
        final RxePeer peer = peer(context);
        if (null == peer)
        {
            invocation.proceed();
            return;
        }
        final String caseName = context.getRequiredTestClass().getSimpleName() + " \"" + context.getDisplayName() +
            "\"";
        final Duration expected = context.getStore(NAMESPACE).get(EXPECTED, Duration.class);
        CaseGuard.run(peer, caseName, expected, invocation::proceed, () -> retry(invocationContext),
            PeerTools.targetDir().resolve("rxe-vm"));
    }

    private static void retry(final ReflectiveInvocationContext<Method> invocationContext) throws Throwable
    {
        final Method method = invocationContext.getExecutable();
        method.setAccessible(true);
        try
        {
            method.invoke(invocationContext.getTarget().orElse(null), invocationContext.getArguments().toArray());
        }
        catch (final InvocationTargetException ex)
        {
            throw ex.getCause();
        }
    }

    private static RxePeer peer(final ExtensionContext context)
    {
        final PeerResource resource = context.getStore(NAMESPACE).get(KEY, PeerResource.class);
        return null == resource ? null : resource.peer();
    }

    private static void injectFields(final Class<?> type, final Object instance, final RxePeer peer)
        throws IllegalAccessException
    {
        for (Class<?> c = type; null != c && Object.class != c; c = c.getSuperclass())
        {
            for (final Field field : c.getDeclaredFields())
            {
                final boolean isStatic = Modifier.isStatic(field.getModifiers());
                if (RxePeer.class == field.getType() && (null == instance) == isStatic &&
                    !Modifier.isFinal(field.getModifiers()))
                {
                    field.setAccessible(true);
                    field.set(instance, peer);
                }
            }
        }
    }
}
