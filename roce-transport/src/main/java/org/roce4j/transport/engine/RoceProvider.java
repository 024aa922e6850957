package org.roce4j.transport.engine;

import org.roce4j.transport.link.Link;
import org.roce4j.transport.provider.DeviceOps;
import org.roce4j.transport.provider.EngineConfig;
import org.roce4j.transport.provider.Provider;

/**
 * The roce4j engine as a {@link Provider}: registered in roce-transport's
 * {@code META-INF/services/org.roce4j.transport.provider.Provider}, found by {@link Provider#load()}. The only public
 * class of this package, because {@link java.util.ServiceLoader} instantiates it; everything behind it is reached
 * through the provider interfaces.
 */
public final class RoceProvider implements Provider
{
    /** This provider's name. */
    public static final String NAME = "roce4j";

    /**
     * For {@link java.util.ServiceLoader}.
     */
    public RoceProvider()
    {
    }

    /**
     * @return {@value #NAME}.
     */
    public String name()
    {
        return NAME;
    }

    /**
     * Open a device: a {@link RoceEngine} over the link.
     *
     * @param link   the medium; the device owns it from now on.
     * @param config engine tunables.
     * @return the device's operations.
     */
    public DeviceOps open(final Link link, final EngineConfig config)
    {
        return new RoceVerbs(new RoceEngine(link, config));
    }
}
