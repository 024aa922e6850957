/**
 * The Ethernet-over-UDP tunnel link: one Ethernet frame per UDP datagram on loopback, the format of QEMU's
 * {@code -netdev dgram} backend, so roce4j and an rxe guest share a virtual Ethernet segment with no root access.
 * {@link org.roce4j.transport.link.tunnel.TunnelLink} does layer 2 itself (ARP, MAC filtering) and can record every
 * frame to a pcap file; {@link org.roce4j.transport.link.tunnel.TunnelLinkConfig} parses the
 * {@code tunnel:BIND_HOST:BIND_PORT:PEER_HOST:PEER_PORT,ip=...} link spec.
 */
package org.roce4j.transport.link.tunnel;
