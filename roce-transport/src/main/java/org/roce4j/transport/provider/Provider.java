package org.roce4j.transport.provider;

import org.roce4j.transport.link.Link;

/**
 * A provider of RDMA devices, as an rdma-core provider (rxe, mlx5) registers with libibverbs and answers its
 * verbs_context_ops: the Verbs API ({@code org.roce4j.verbs}) and the connection managers ({@code org.roce4j.cm})
 * reach an engine only through this package's interfaces. roce-transport registers the roce4j engine
 * ({@code org.roce4j.transport.engine}, whose classes are package-private behind these interfaces).
 *
 * <p>Providers are found with {@link java.util.ServiceLoader}, from
 * {@code META-INF/services/org.roce4j.transport.provider.Provider}, as libibverbs finds its provider libraries: a
 * shaded jar keeps that file with the Maven Shade plugin's {@code ServicesResourceTransformer}.
 */
public interface Provider
{
    /**
     * @return the provider's name, e.g. {@code roce4j}.
     */
    String name();

    /**
     * Open a device over a link (the provider's alloc_context).
     *
     * @param link   the medium; the device owns it from now on and closes it in {@link DeviceOps#onClose()}.
     * @param config engine tunables, the clock every timer uses included.
     * @return the device's operations.
     */
    DeviceOps open(Link link, EngineConfig config);

    /**
     * @return the provider registered on the class path (the first one found, when several are).
     * @throws IllegalStateException when none is registered.
     */
    static Provider load()
    {
        return ProviderLoader.provider();
    }
}
