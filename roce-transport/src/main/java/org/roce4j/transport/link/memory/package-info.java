/**
 * The in-memory fabric: an Ethernet switch inside the JVM whose ports are {@link org.roce4j.transport.link.Link}s,
 * with seeded, per-port egress fault injection (loss, duplication, corruption, reordering, delay, targeted rules)
 * for tests, demos and benchmarks; the injector, rules, delay line and reorder buffer are those of
 * {@link org.roce4j.transport.link.fault}, which inject the same faults into any link. Start at
 * {@link org.roce4j.transport.link.memory.MemoryFabric}.
 */
package org.roce4j.transport.link.memory;
