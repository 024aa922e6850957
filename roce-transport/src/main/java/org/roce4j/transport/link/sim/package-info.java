/**
 * A simulated switch with timing for in-JVM endpoints ({@link org.roce4j.transport.link.sim.SimSwitch}): line rate,
 * propagation delay, output queues with RED/ECN marking and tail drop, queue sampling, all on the engines' injected
 * clock. Where congestion control is watched at work ({@code roce incast}).
 */
package org.roce4j.transport.link.sim;
