/**
 * The in-memory fabric: an Ethernet switch inside the JVM whose ports are {@link org.roce4j.transport.link.Link}s,
 * with seeded, per-port egress fault injection (loss, duplication, corruption, reordering, delay, targeted rules)
 * for tests, demos and benchmarks. Start at {@link org.roce4j.transport.link.memory.MemoryFabric}.
 */
package org.roce4j.transport.link.memory;
