/**
 * Layer 2 shared by every link that carries whole Ethernet frames (pcap, tunnel): one neighbour table for IPv4 and
 * IPv6, an ARP agent, an IPv6 Neighbor Discovery agent and one resolution policy. Start at
 * {@link org.roce4j.transport.link.ethernet.EthernetLayer}.
 */
package org.roce4j.transport.link.ethernet;
