/**
 * Fault injection on every link: {@link org.roce4j.transport.link.fault.FaultyLink} wraps any link with seeded
 * per-direction faults ({@link org.roce4j.transport.link.fault.FaultInjector},
 * {@link org.roce4j.transport.link.fault.FaultRule}), parsed from the {@code --faults} grammar
 * ({@link org.roce4j.transport.link.fault.FaultSpec}); the memory fabric's egress uses the same injector, delay line
 * and reorder buffer.
 */
package org.roce4j.transport.link.fault;
