package org.roce4j.transport.provider;

import java.util.ServiceLoader;

/**
 * Finds the registered {@link Provider} once, on first use (not in a static initialiser, so a missing registration
 * gives the same clear error on every call instead of a NoClassDefFoundError after the first).
 */
final class ProviderLoader
{
    private static volatile Provider provider;

    private ProviderLoader()
    {
    }

    static Provider provider()
    {
        Provider found = provider;
        if (null == found)
        {
            // The interface's own class loader: roce-transport's jar holds both the interface and the roce4j engine's
            // registration, whatever the thread's context class loader is.
            for (final Provider candidate : ServiceLoader.load(Provider.class, Provider.class.getClassLoader()))
            {
                found = candidate;
                break;
            }
            if (null == found)
            {
                throw new IllegalStateException("no roce4j provider is registered: the class path holds no " +
                    "META-INF/services/" + Provider.class.getName() + " (roce-transport's jar has one; a shaded " +
                    "jar needs the Maven Shade plugin's ServicesResourceTransformer)");
            }
            provider = found;
        }
        return found;
    }
}
