/**
 * The provider boundary, after rdma-core's verbs_context_ops: the interfaces through which the Verbs API and the
 * connection managers reach an engine. {@link org.roce4j.transport.provider.Provider} opens devices;
 * {@link org.roce4j.transport.provider.DeviceOps} is a device's control path and duty cycle;
 * {@link org.roce4j.transport.provider.QpOps}, {@link org.roce4j.transport.provider.RqOps} and
 * {@link org.roce4j.transport.provider.CqOps} are the data path (post and poll, no allocation, no lock);
 * {@link org.roce4j.transport.provider.MrOps} and {@link org.roce4j.transport.provider.AhOps} are registered memory
 * and address handles; {@link org.roce4j.transport.provider.WrView} and
 * {@link org.roce4j.transport.provider.SendWrView} are work requests as the provider reads them while posting.
 * {@link org.roce4j.transport.provider.EngineConfig} holds the engine's tunables and
 * {@link org.roce4j.transport.provider.CommandQueue} hands commands to a thread that runs a duty cycle (the
 * engine's, the rdma_cm's).
 *
 * <p>The engine behind them ({@code org.roce4j.transport.engine}) is package-private apart from its registration
 * with {@link java.util.ServiceLoader}.
 */
package org.roce4j.transport.provider;
